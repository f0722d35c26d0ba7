#!/usr/bin/env bash
# Builds the container images of the end-to-end cluster as image tars, without Docker or a
# registry, and imports them into containerd.
#
#   lineflow/flink-standin:1.20.1-java17   a STAND-IN for the official flink:1.20.1-java17 image
#                                          (which cannot be pulled here): a Debian JRE 17 rootfs,
#                                          Flink 1.20.1's jars from Maven Central and start
#                                          scripts of our own (images/flink-standin/scripts)
#   lineflow/flink-kubernetes-operator:VERSION
#                                          the real operator, built from its source release
#                                          (VERSION: OPERATOR_CHART_VERSION of operator-config/chart.env,
#                                          or the version given to operator-build/operator-image/chart)
#   lineflow/flink-standin:2.2.0-java17    the same stand-in at Flink 2.2.0 (the root POM's flink-2.2
#                                          profile): the base of the job image on the next Flink line
#   lineflow-job:e2e-flink-2.2             the job image built for Flink 2.2 (-Dflink.line=2.2) on
#                                          that stand-in: the drill's major-upgrade goes to it, and
#                                          the e2e drill on 2.2 (E2E_FLINK_LINE=2.2) runs it
#   lineflow-job:e2e-flink-2.2-next        its next release (as e2e-next below), built only when
#                                          E2E_FLINK_LINE=2.2: the upgrades of the drill on 2.2
#   lineflow/flink-standin:1.16.3-java17   the same stand-in at Flink 1.16.3, without plugins (Maven
#                                          Central serves neither the Prometheus reporter nor the S3
#                                          file system at 1.16.3): the base of the incident's image
#   lineflow-incident-beam:e2e             not lineflow: the Beam KafkaIO pipeline of issue 42's
#                                          incident (incident-beam/, Beam 2.56.0's runner for Flink
#                                          1.16) on the 1.16.3 stand-in, for the drill's
#                                          incident:beam-kafkaio scenario
#   lineflow-job:e2e                       the job image: the production Jib build
#                                          (scripts/image.sh) on top of the stand-in
#   lineflow-job:e2e-next                  the job's "next release" for the upgrade scenarios: the
#                                          same build with images/job-next/next-release.patch
#                                          applied (one more figure in the window state)
#   lineflow/jre-standin:17                a STAND-IN for eclipse-temurin:17-jre: the JRE layer alone
#   lineflow-reconciler:e2e                the reconciler image: its production Jib build
#                                          (make reconciler-image-tar) on top of that JRE
#
# The JRE rootfs is the Debian package closure of openjdk-17-jre-headless, bash, coreutils, sed
# and grep, fetched with `apt-get download` and unpacked (nothing is installed here); image
# tars are docker-save style (manifest.json, config, gzip layers), which both
# `ctr images import` and Jib's tar:// base read. Layers and the operator build are cached in
# $LINEFLOW_IMAGES_CACHE (default .cache/e2e-images) and published to a machine-wide folder,
# $LINEFLOW_IMAGES_SHARED_CACHE (default ~/.cache/lineflow/e2e-images; empty switches it off),
# that other clones reuse. Cache keys hold every input, so a changed recipe builds afresh.
#
# Usage:
#   scripts/e2e-images.sh build             build the image tars (idempotent)
#   scripts/e2e-images.sh operator-build [VERSION]
#                                           build only the operator jars
#   scripts/e2e-images.sh operator-image [VERSION]
#                                           build only the operator's image tar (its jars and the JRE
#                                           layer; nothing of Flink, the job or the reconciler)
#   scripts/e2e-images.sh import SOCK [NS]  build, then import every tar into containerd at SOCK
#                                           (namespace NS, default k8s.io)
#   scripts/e2e-images.sh chart [VERSION]   unpack the operator's Helm chart from the source release
#                                           and print its folder (builds nothing)
#   scripts/e2e-images.sh env               print the image names and tar paths (shell syntax)
# VERSION defaults to $OPERATOR_CHART_VERSION, else chart.env's; another one (the upgrade's "from"
# release, OPERATOR_UPGRADE_FROM of chart.env) builds beside it: jars, chart and image tar are all
# named by version.
# Env: LINEFLOW_OPERATOR_SRC  operator source release (.tar.gz); default
#      ../shared/vendor/flink-kubernetes-operator-VERSION-src.tar.gz, relative to the repository
#      MVN                    Maven command (default: mvn -B -ntp)
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
CACHE="${LINEFLOW_IMAGES_CACHE:-$ROOT/.cache/e2e-images}"
SHARED="${LINEFLOW_IMAGES_SHARED_CACHE-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/lineflow/e2e-images}"
# chart.env's version, unless the environment names another (`make … OPERATOR_CHART_VERSION=X`
# exports it); the operator commands also take one as their second argument.
case "${1:-}" in operator-build | operator-image | chart) OPERATOR_VERSION="$(operator_version "${2:-}")" ;;
  *) OPERATOR_VERSION="$(operator_version "")" ;; esac
FLINK_VERSION="$(sed -n 's:.*<flink.version>\(.*\)</flink.version>.*:\1:p' "$ROOT/pom.xml" | head -1)"
FLINK_IMAGE="lineflow/flink-standin:$FLINK_VERSION-java17"
# The next Flink line: the root POM's flink-2.2 profile (docs/flink-lines.md), the major upgrade's.
NEXT_FLINK_VERSION="$(sed -n '/<id>flink-2.2<\/id>/,/<\/profile>/s:.*<flink.version>\(.*\)</flink.version>.*:\1:p' "$ROOT/pom.xml" | head -1)"
NEXT_FLINK_IMAGE="lineflow/flink-standin:$NEXT_FLINK_VERSION-java17"
# The Flink line of the Beam incident's image: the newest Beam 2.56.0 has a runner for here.
INCIDENT_FLINK_VERSION="$(sed -n 's:.*<flink.version>\(.*\)</flink.version>.*:\1:p' "$ROOT/incident-beam/pom.xml" | head -1)"
INCIDENT_FLINK_IMAGE="lineflow/flink-standin:$INCIDENT_FLINK_VERSION-java17"
INCIDENT_IMAGE="lineflow-incident-beam:e2e"
OPERATOR_IMAGE="lineflow/flink-kubernetes-operator:$OPERATOR_VERSION"
JOB_IMAGE="lineflow-job:e2e"
JRE_IMAGE="lineflow/jre-standin:17"
RECONCILER_IMAGE="lineflow-reconciler:e2e"
IMAGES="$CACHE/images"
FLINK_TAR="$IMAGES/flink-standin.tar"
INCIDENT_FLINK_TAR="$IMAGES/flink-standin-$INCIDENT_FLINK_VERSION.tar"
NEXT_FLINK_TAR="$IMAGES/flink-standin-$NEXT_FLINK_VERSION.tar"
JOB_NEXT_LINE_IMAGE="lineflow-job:e2e-flink-2.2"
JOB_NEXT_LINE_TAR="$IMAGES/lineflow-job-flink-2.2.tar"
JOB_NEXT_LINE_NEXT_IMAGE="lineflow-job:e2e-flink-2.2-next"
JOB_NEXT_LINE_NEXT_TAR="$IMAGES/lineflow-job-flink-2.2-next.tar"
INCIDENT_TAR="$IMAGES/lineflow-incident-beam.tar"
OPERATOR_TAR="$IMAGES/flink-kubernetes-operator-$OPERATOR_VERSION.tar"
JOB_TAR="$IMAGES/lineflow-job.tar"
JOB_NEXT_IMAGE="lineflow-job:e2e-next"
JOB_NEXT_TAR="$IMAGES/lineflow-job-next.tar"
NEXT_PATCH="$ROOT/images/job-next/next-release.patch"
JRE_TAR="$IMAGES/jre-standin.tar"
RECONCILER_TAR="$IMAGES/lineflow-reconciler.tar"
OPERATOR_SRC="$(operator_src "$OPERATOR_VERSION")"
JAVA_HOME_IN_IMAGE=/usr/lib/jvm/java-17-openjdk-amd64
PATH_IN_IMAGE="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# Flink's user and group in the official images; every container here runs as it.
FLINK_UID=9999
# Bump when the rootfs recipe below changes in a way the package list does not show.
JRE_RECIPE=r1
read -r -a MVN <<< "${MVN:-mvn -B -ntp}"
sha() { sha256sum | cut -c1-16; }

# --- cache -----------------------------------------------------------------------------------

# Takes $CACHE/$1 from the machine-wide cache when it is there; true when $CACHE/$1 exists.
from_shared() {
  [[ -e "$CACHE/$1" ]] && return 0
  [[ -n "$SHARED" && -e "$SHARED/$1" ]] || return 1
  mkdir -p "$(dirname "$CACHE/$1")"
  cp -r "$SHARED/$1" "$CACHE/$1.part" && mv "$CACHE/$1.part" "$CACHE/$1"
  log "reused $1 from $SHARED (machine-wide cache)"
}

# Copies $CACHE/$1 to the machine-wide cache (best effort: a read-only one is no failure).
publish() {
  [[ -n "$SHARED" && "$SHARED" != "$CACHE" && ! -e "$SHARED/$1" ]] || return 0
  local tmp
  mkdir -p "$(dirname "$SHARED/$1")" 2>/dev/null \
    && tmp="$(mktemp -d "$(dirname "$SHARED/$1")/.publish.XXXXXX" 2>/dev/null)" || return 0
  if cp -r "$CACHE/$1" "$tmp/x" && chmod -R a+rX "$tmp" && mv "$tmp/x" "$SHARED/$1"; then
    log "published $1 to $SHARED"
  fi
  rm -rf "$tmp"
}

lock() {
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.build.lock"
  flock -n 9 || { log "another build holds $CACHE/.build.lock; waiting for it"; flock 9; }
}

# --- layers and image tars -------------------------------------------------------------------

# Writes folder $1 as gzip layer $2 (every entry once, in byte order of its path, so each folder
# comes before what it holds; owned by root, file modes and symlinks kept) and its uncompressed
# digest to $2.diffid. The entries listed in $3 (relative paths, one per line) are owned by the
# flink user instead: the entry itself, not what lies below it (a folder flink may write into
# can hold files it may not change).
layer() {
  local dir="$1" out="$2" owned="${3:-/dev/null}" raw="$2.raw" runs="$2.runs" run uid
  rm -rf "$raw" "$runs" && mkdir -p "$runs"
  # Runs of consecutive entries of one owner, each appended to the tar with that owner.
  (cd "$dir" && find . | LC_ALL=C sort) | awk -v owned="$owned" -v runs="$runs" '
    BEGIN { while ((getline p < owned) > 0) flink["./" p] = 1 }
    { who = ($0 in flink) ? "flink" : "root"
      if (who != prev) { if (f) close(f); f = sprintf("%s/%05d-%s", runs, ++n, who); prev = who }
      print > f }'
  for run in "$runs"/*; do
    uid=0
    [[ "$run" != *-flink ]] || uid="$FLINK_UID"
    tar -C "$dir" --numeric-owner --owner="$uid" --group="$uid" --no-recursion --verbatim-files-from \
      --no-unquote -rf "$raw" -T "$run"
  done
  rm -rf "$runs"
  echo "sha256:$(sha256sum < "$raw" | cut -d' ' -f1)" > "$out.diffid"
  gzip -n -1 < "$raw" > "$out.part"
  rm -f "$raw"
  mv "$out.part" "$out"
}

# Writes image tar $1 named $2 from config fragment $3 (JSON members of "config") and layers $4…
image_tar() {
  local tar="$1" name="$2" config="$3"; shift 3
  local dir="$tar.d" diffids="" layers="" l d cfg
  rm -rf "$dir" && mkdir -p "$dir"
  for l in "$@"; do
    d="$(cat "$l.diffid")"
    ln "$l" "$dir/${d#sha256:}.tar.gz" 2>/dev/null || cp "$l" "$dir/${d#sha256:}.tar.gz"
    diffids+="${diffids:+,}\"$d\""
    layers+="${layers:+,}\"${d#sha256:}.tar.gz\""
  done
  cfg="{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{$config},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[$diffids]}}"
  d="$(printf '%s' "$cfg" | sha256sum | cut -d' ' -f1)"
  printf '%s' "$cfg" > "$dir/$d.json"
  printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":[%s]}]' "$d" "$name" "$layers" > "$dir/manifest.json"
  mkdir -p "$(dirname "$tar")"
  # Member names without "./": Jib refuses an entry that names the destination folder itself.
  # The layers are named by their digests, so none starts with a dash.
  # shellcheck disable=SC2035
  (cd "$dir" && tar --numeric-owner --owner=0 --group=0 -cf "$tar.part" manifest.json "$d.json" *.tar.gz) && mv "$tar.part" "$tar"
  rm -rf "$dir"
  log "wrote $name to $tar ($(du -h "$tar" | cut -f1))"
}

# JSON array of strings from the arguments (values here carry no quotes or backslashes).
json_array() { local s="" a; for a in "$@"; do s+="${s:+,}\"$a\""; done; echo "[$s]"; }

# --- the JRE rootfs (shared by the Flink stand-in and the operator image) -------------------

# The Debian packages of the rootfs, name=version, resolved as for an empty system.
jre_packages() {
  local empty="$CACHE/work/empty-status"
  mkdir -p "$CACHE/work" && : > "$empty"
  apt-get install -s -qq --no-install-recommends -o Dir::State::status="$empty" \
      openjdk-17-jre-headless bash coreutils dash sed grep 2>/dev/null \
    | sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1=\2/p' | sort
}

JRE_LAYER=""
jre_layer() {
  command -v apt-get >/dev/null || die "apt-get is needed (Debian/Ubuntu) to fetch the JRE packages"
  local pkgs key work start=$SECONDS
  pkgs="$(jre_packages)"
  if [[ -z "$pkgs" ]]; then
    log "apt has no package lists; running apt-get update"
    apt-get update -qq || die "apt-get update failed (run as root, or run it once yourself)"
    pkgs="$(jre_packages)"
  fi
  grep -q '^openjdk-17-jre-headless=' <<<"$pkgs" || die "apt cannot resolve openjdk-17-jre-headless"
  key="jre17-$JRE_RECIPE-$( (echo "$pkgs"; declare -f rootfs_fixups) | sha)"
  JRE_LAYER="$CACHE/layers/$key.tar.gz"
  from_shared "layers/$key.tar.gz.diffid" && from_shared "layers/$key.tar.gz" && return 0
  log "building the JRE 17 rootfs from $(wc -l <<<"$pkgs") Debian packages into $JRE_LAYER"
  work="$CACHE/work/jre"
  rm -rf "$work" && mkdir -p "$work/debs" "$work/rootfs"
  # One argument per package=version line.
  # shellcheck disable=SC2086
  (cd "$work/debs" && apt-get download -qq $pkgs) || die "apt-get download failed"
  # Debian 12 packages still ship /bin, /lib…; the merged-/usr links go in first, as debootstrap does.
  mkdir -p "$work/rootfs/usr/bin" "$work/rootfs/usr/sbin" "$work/rootfs/usr/lib" "$work/rootfs/usr/lib64"
  for d in bin sbin lib lib64; do ln -s "usr/$d" "$work/rootfs/$d"; done
  for deb in "$work"/debs/*.deb; do
    dpkg-deb --fsys-tarfile "$deb" | tar -x --keep-directory-symlink -C "$work/rootfs" \
      || die "could not unpack $deb"
  done
  rootfs_fixups "$work/rootfs"
  mkdir -p "$CACHE/layers"
  layer "$work/rootfs" "$JRE_LAYER"
  rm -rf "$work"
  log "JRE layer built in $((SECONDS - start)) s ($(du -h "$JRE_LAYER" | cut -f1) compressed)"
  publish "layers/$key.tar.gz.diffid"; publish "layers/$key.tar.gz"
}

# What the packages' maintainer scripts would have done, as far as a container needs it.
rootfs_fixups() {
  local r="$1"
  printf 'root:x:0:0:root:/root:/bin/bash\nflink:x:9999:9999:flink:/opt/flink:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' > "$r/etc/passwd"
  printf 'root:x:0:\nflink:x:9999:\nnogroup:x:65534:\n' > "$r/etc/group"
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$r/etc/nsswitch.conf"
  [[ -e "$r/bin/sh" ]] || ln -s dash "$r/usr/bin/sh"
  ln -sf "$JAVA_HOME_IN_IMAGE/bin/java" "$r/usr/bin/java"
  mkdir -p "$r/tmp" "$r/var/tmp" "$r/root" && chmod 1777 "$r/tmp" "$r/var/tmp" && chmod 700 "$r/root"
  # No setuid/setgid programs: nothing in these containers may gain privileges.
  find "$r" -type f -perm /6000 -exec chmod ug-s {} +
  rm -rf "$r"/usr/share/{doc,man,info,locale,lintian} "$r"/var/cache/debconf/*-old
}

# --- the Flink stand-in --------------------------------------------------------------------

# Builds the stand-in of Flink $1 into tar $2, named $3; Maven options after (-Dstandin.no-plugins).
flink_image() {
  local version="$1" tar="$2" name="$3"; shift 3
  local src="$ROOT/images/flink-standin" key stage layer_file start=$SECONDS
  key="flink-$version-$(cat "$src/pom.xml" "$ROOT/pom.xml" "$src"/scripts/* "$src"/conf/* <(declare -f flink_image layer image_tar) \
    <(echo "$JRE_LAYER $*") | sha)"
  if [[ -s "$tar" && "$(cat "$tar.key" 2>/dev/null)" == "$key" ]]; then
    log "$name is up to date: $tar"; return 0
  fi
  log "assembling Flink $version's lib/, plugins/ and opt/ from Maven Central (images/flink-standin)"
  "${MVN[@]}" -q -f "$src/pom.xml" clean package "-Dflink.version=$version" "$@" || die "the stand-in's Maven assembly failed"
  stage="$CACHE/work/flink" layer_file="$CACHE/layers/$key.tar.gz"
  rm -rf "$stage" && mkdir -p "$stage/opt/flink/log" "$stage/opt/flink/plugins" "$stage/opt/flink/opt" "$CACHE/layers"
  cp -r "$src/target/flink/lib" "$stage/opt/flink/"
  for d in plugins opt; do
    [[ ! -d "$src/target/flink/$d" ]] || cp -r "$src/target/flink/$d/." "$stage/opt/flink/$d/"
  done
  cp -r "$src/conf" "$stage/opt/flink/conf"
  cp -r "$src/scripts" "$stage/opt/flink/bin"
  mv "$stage/opt/flink/bin/docker-entrypoint.sh" "$stage/docker-entrypoint.sh"
  chmod -R a+rX,go-w "$stage"
  # Flink writes its logs, and docker-entrypoint.sh links the jars that ENABLE_BUILT_IN_PLUGINS
  # names into plugins/ (the official image owns all of /opt/flink by flink; here only these two).
  printf 'opt/flink/log\nopt/flink/plugins\n' > "$CACHE/work/flink-owned"
  layer "$stage" "$layer_file" "$CACHE/work/flink-owned"
  local env
  env="$(json_array "PATH=/opt/flink/bin:$PATH_IN_IMAGE" "JAVA_HOME=$JAVA_HOME_IN_IMAGE" "FLINK_HOME=/opt/flink" \
    "FLINK_CONF_DIR=/opt/flink/conf" "FLINK_LIB_DIR=/opt/flink/lib" "FLINK_PLUGINS_DIR=/opt/flink/plugins" \
    "FLINK_LOG_DIR=/opt/flink/log" "LANG=C.UTF-8")"
  image_tar "$tar" "$name" \
    "\"User\":\"$FLINK_UID:$FLINK_UID\",\"Env\":$env,\"Entrypoint\":[\"/docker-entrypoint.sh\"],\"Cmd\":[\"help\"],\"WorkingDir\":\"/opt/flink\",\"Labels\":{\"org.opencontainers.image.title\":\"lineflow stand-in for flink:$version-java17\",\"org.opencontainers.image.version\":\"$version\"}" \
    "$JRE_LAYER" "$layer_file"
  echo "$key" > "$tar.key"
  rm -rf "$stage" "$layer_file" "$layer_file.diffid"
  log "$name in $((SECONDS - start)) s"
}

# --- the operator ----------------------------------------------------------------------------

OPERATOR_OUT=""
operator_build() {
  need_operator_src "$OPERATOR_SRC" "$OPERATOR_VERSION"
  local key work tree start=$SECONDS
  # The recipe is in the key: a build from before a change of this function (1.15 needs the
  # logging jars copied) is not reused.
  key="operator-$OPERATOR_VERSION-$(sha < "$OPERATOR_SRC")-$(declare -f operator_build | sha | cut -c1-8)"
  OPERATOR_OUT="$CACHE/$key"
  from_shared "$key" && return 0
  log "building the Flink Kubernetes Operator $OPERATOR_VERSION from $OPERATOR_SRC (a few minutes)"
  work="$CACHE/work/operator"
  rm -rf "$work" && mkdir -p "$work"
  tar xzf "$OPERATOR_SRC" -C "$work"
  # The release tarball holds one top folder, named by Apache.
  # shellcheck disable=SC2012
  tree="$(ls -d "$work"/*/ | head -1)"
  [[ -f "$tree/flink-kubernetes-operator/pom.xml" ]] || die "$OPERATOR_SRC holds no flink-kubernetes-operator module"
  # okhttp: the shaded jar has no HTTP client otherwise; antrun: the api module would download
  # CRDs to compare with; the rest are checks that need nothing at run time.
  (cd "$tree" && "${MVN[@]}" install -pl flink-kubernetes-operator -am -DskipTests \
      -Dfabric8.httpclient.impl=okhttp -Dmaven.antrun.skip=true -Dspotless.check.skip=true \
      -Dcheckstyle.skip=true -Drat.skip=true -Dcyclonedx.skip=true -Dmaven.gitcommitid.skip=true \
      > "$work/build.log" 2>&1) || { tail -30 "$work/build.log" >&2; die "operator build failed, log: $work/build.log"; }
  local out="$OPERATOR_OUT.part"
  rm -rf "$out" && mkdir -p "$out/jars"
  cp "$tree/flink-kubernetes-operator/target/flink-kubernetes-operator-$OPERATOR_VERSION-shaded.jar" \
     "$tree/flink-kubernetes-standalone/target/flink-kubernetes-standalone-$OPERATOR_VERSION.jar" "$out/jars/"
  cp -r "$tree/flink-kubernetes-operator/target/plugins" "$out/plugins"
  # From 1.15 the SLF4J bindings are no longer shaded in: the upstream image puts them in
  # $FLINK_HOME/log/{log4j,logback} and its entry point adds one to the classpath (without one the
  # operator starts with SLF4J's no-op logger and logs nothing).
  local d
  for d in log4j logback; do
    [[ ! -d "$tree/flink-kubernetes-operator/target/$d" ]] || cp -r "$tree/flink-kubernetes-operator/target/$d" "$out/$d"
  done
  echo "$((SECONDS - start))" > "$out/build-seconds"
  mv "$out" "$OPERATOR_OUT"
  rm -rf "$work"
  log "operator built in $((SECONDS - start)) s into $OPERATOR_OUT"
  publish "$key"
}

# The operator's Helm chart from the source release (no build needed); its path in $OPERATOR_CHART.
OPERATOR_CHART=""
operator_chart() {
  need_operator_src "$OPERATOR_SRC" "$OPERATOR_VERSION"
  local dir
  dir="$CACHE/chart-$OPERATOR_VERSION-$(sha < "$OPERATOR_SRC")"
  OPERATOR_CHART="$dir/flink-kubernetes-operator"
  [[ -f "$OPERATOR_CHART/Chart.yaml" ]] && return 0
  rm -rf "$dir.part" && mkdir -p "$dir.part"
  tar xzf "$OPERATOR_SRC" -C "$dir.part" --strip-components=2 --wildcards '*/helm/flink-kubernetes-operator' \
    || die "$OPERATOR_SRC holds no helm/flink-kubernetes-operator"
  mv "$dir.part" "$dir"
}

operator_image() {
  local key stage layer_file start=$SECONDS
  key="$(basename "$OPERATOR_OUT")-$(cat "$ROOT/images/operator/docker-entrypoint.sh" <(declare -f operator_image layer image_tar) \
    <(echo "$JRE_LAYER") | sha)"
  if [[ -s "$OPERATOR_TAR" && "$(cat "$OPERATOR_TAR.key" 2>/dev/null)" == "$key" ]]; then
    log "$OPERATOR_IMAGE is up to date: $OPERATOR_TAR"; return 0
  fi
  stage="$CACHE/work/operator-image" layer_file="$CACHE/layers/$key.tar.gz"
  rm -rf "$stage" && mkdir -p "$stage/flink-kubernetes-operator" "$stage/opt/flink/operator-lib" "$CACHE/layers"
  cp "$OPERATOR_OUT"/jars/*.jar "$stage/flink-kubernetes-operator/"
  cp -r "$OPERATOR_OUT/plugins" "$stage/opt/flink/plugins"
  # 1.15+: the SLF4J bindings where the upstream image keeps them (docker-entrypoint.sh picks one).
  mkdir -p "$stage/opt/flink/log"
  local d
  for d in log4j logback; do
    [[ ! -d "$OPERATOR_OUT/$d" ]] || cp -r "$OPERATOR_OUT/$d" "$stage/opt/flink/log/$d"
  done
  install -m 0755 "$ROOT/images/operator/docker-entrypoint.sh" "$stage/docker-entrypoint.sh"
  chmod -R a+rX,go-w "$stage"
  layer "$stage" "$layer_file"
  local env
  env="$(json_array "PATH=$PATH_IN_IMAGE" "JAVA_HOME=$JAVA_HOME_IN_IMAGE" "FLINK_HOME=/opt/flink" \
    "FLINK_PLUGINS_DIR=/opt/flink/plugins" "OPERATOR_VERSION=$OPERATOR_VERSION" \
    "OPERATOR_JAR=flink-kubernetes-operator-$OPERATOR_VERSION-shaded.jar" \
    "KUBERNETES_STANDALONE_JAR=flink-kubernetes-standalone-$OPERATOR_VERSION.jar" \
    "OPERATOR_LIB=/opt/flink/operator-lib" "OPERATOR_LOG=/opt/flink/log" "LANG=C.UTF-8")"
  image_tar "$OPERATOR_TAR" "$OPERATOR_IMAGE" \
    "\"User\":\"$FLINK_UID:$FLINK_UID\",\"Env\":$env,\"Entrypoint\":[\"/docker-entrypoint.sh\"],\"Cmd\":[\"help\"],\"WorkingDir\":\"/flink-kubernetes-operator\",\"Labels\":{\"org.opencontainers.image.title\":\"flink-kubernetes-operator $OPERATOR_VERSION (built by lineflow from the source release)\",\"org.opencontainers.image.version\":\"$OPERATOR_VERSION\"}" \
    "$JRE_LAYER" "$layer_file"
  echo "$key" > "$OPERATOR_TAR.key"
  rm -rf "$stage" "$layer_file" "$layer_file.diffid"
  log "$OPERATOR_IMAGE in $((SECONDS - start)) s"
}

# --- the job image ---------------------------------------------------------------------------

job_image() {
  local start=$SECONDS key
  # The job's sources and build files and the base: an unchanged job is not rebuilt.
  key="$( (cat "$FLINK_TAR.key" "$ROOT/pom.xml" "$ROOT/job/pom.xml" "$ROOT/scripts/image.sh"
          find "$ROOT/job/src/main" -type f | sort | xargs cat) | sha)"
  if [[ -s "$JOB_TAR" && "$(cat "$JOB_TAR.key" 2>/dev/null)" == "$key" ]]; then
    log "$JOB_IMAGE is up to date: $JOB_TAR"; return 0
  fi
  BASE_IMAGE="tar://$FLINK_TAR" MVN="${MVN[*]}" "$ROOT/scripts/image.sh" tar "$JOB_IMAGE" "$JOB_TAR" >"$CACHE/work/job-image.log" 2>&1 \
    || { tail -30 "$CACHE/work/job-image.log" >&2; die "job image build failed, log: $CACHE/work/job-image.log"; }
  echo "$key" > "$JOB_TAR.key"
  log "wrote $JOB_IMAGE to $JOB_TAR in $((SECONDS - start)) s"
}

# The next release: a copy of the build with the patch applied, built the same way. The patch
# must apply: a next release that silently equals this one would prove nothing about upgrades.
# Arguments: the image and tar to write, the image it is the next release of (its tar, whose key
# holds the job's sources), the base image tar, and Maven options of that line (none for 1.20).
job_next_image() {
  local image="$1" tar="$2" of="$3" base="$4" line_opts="${5:-}" start=$SECONDS key mvn_cmd
  local src="$CACHE/work/job-next" log_file="$CACHE/work/${tar##*/}"
  log_file="${log_file%.tar}-image.log"
  key="$( (cat "$of.key" "$NEXT_PATCH") | sha)"
  if [[ -s "$tar" && "$(cat "$tar.key" 2>/dev/null)" == "$key" ]]; then
    log "$image is up to date: $tar"; return 0
  fi
  rm -rf "$src" && mkdir -p "$src"
  tar -C "$ROOT" --exclude=./.git --exclude=./.cache --exclude=target -cf - . | tar -C "$src" -xf -
  patch -s -p1 -d "$src" < "$NEXT_PATCH" || die "$NEXT_PATCH does not apply to this release's job"
  mvn_cmd="${MVN[*]}${line_opts:+ $line_opts}"
  BASE_IMAGE="tar://$base" MVN="$mvn_cmd" "$src/scripts/image.sh" tar "$image" "$tar" >"$log_file" 2>&1 \
    || { tail -30 "$log_file" >&2; die "next-release image build failed, log: $log_file"; }
  rm -rf "$src"
  echo "$key" > "$tar.key"
  log "wrote $image to $tar in $((SECONDS - start)) s"
}

# The job built for the next Flink line (-Dflink.line=2.2: its own build folders) on that line's
# stand-in, the same Jib build as the job image.
job_next_line_image() {
  local start=$SECONDS key
  key="$( (cat "$NEXT_FLINK_TAR.key" "$ROOT/pom.xml" "$ROOT/job/pom.xml" "$ROOT/scripts/image.sh"
          find "$ROOT"/{rules,settings,job}/src/main -type f | sort | xargs cat) | sha)"
  if [[ -s "$JOB_NEXT_LINE_TAR" && "$(cat "$JOB_NEXT_LINE_TAR.key" 2>/dev/null)" == "$key" ]]; then
    log "$JOB_NEXT_LINE_IMAGE is up to date: $JOB_NEXT_LINE_TAR"; return 0
  fi
  BASE_IMAGE="tar://$NEXT_FLINK_TAR" MVN="${MVN[*]} -Dflink.line=2.2" \
      "$ROOT/scripts/image.sh" tar "$JOB_NEXT_LINE_IMAGE" "$JOB_NEXT_LINE_TAR" >"$CACHE/work/job-next-line-image.log" 2>&1 \
    || { tail -30 "$CACHE/work/job-next-line-image.log" >&2; die "Flink 2.2 job image build failed, log: $CACHE/work/job-next-line-image.log"; }
  echo "$key" > "$JOB_NEXT_LINE_TAR.key"
  log "wrote $JOB_NEXT_LINE_IMAGE to $JOB_NEXT_LINE_TAR in $((SECONDS - start)) s"
}

# The incident's Beam pipeline on the 1.16.3 stand-in, built by Jib as the job image is.
incident_image() {
  local start=$SECONDS key
  key="$( (cat "$INCIDENT_FLINK_TAR.key" "$ROOT/pom.xml" "$ROOT/incident-beam/pom.xml"
          find "$ROOT/incident-beam/src/main" -type f | sort | xargs cat) | sha)"
  if [[ -s "$INCIDENT_TAR" && "$(cat "$INCIDENT_TAR.key" 2>/dev/null)" == "$key" ]]; then
    log "$INCIDENT_IMAGE is up to date: $INCIDENT_TAR"; return 0
  fi
  (cd "$ROOT" && "${MVN[@]}" -pl incident-beam -DskipTests -Dlineflow.image=incident-beam package jib:buildTar \
      "-Djib.from.image=tar://$INCIDENT_FLINK_TAR" "-Dimage=$INCIDENT_IMAGE" "-Djib.outputPaths.tar=$INCIDENT_TAR.part") \
      >"$CACHE/work/incident-image.log" 2>&1 \
    || { tail -30 "$CACHE/work/incident-image.log" >&2; die "incident image build failed, log: $CACHE/work/incident-image.log"; }
  mv "$INCIDENT_TAR.part" "$INCIDENT_TAR"
  echo "$key" > "$INCIDENT_TAR.key"
  log "wrote $INCIDENT_IMAGE to $INCIDENT_TAR in $((SECONDS - start)) s"
}

# The JRE alone, as a base for Jib-built Java services (a stand-in for eclipse-temurin:17-jre).
jre_image() {
  local key
  key="$(cat <(declare -f jre_image image_tar) <(echo "$JRE_LAYER") | sha)"
  if [[ -s "$JRE_TAR" && "$(cat "$JRE_TAR.key" 2>/dev/null)" == "$key" ]]; then
    log "$JRE_IMAGE is up to date: $JRE_TAR"; return 0
  fi
  image_tar "$JRE_TAR" "$JRE_IMAGE" \
    "\"Env\":$(json_array "PATH=$PATH_IN_IMAGE" "JAVA_HOME=$JAVA_HOME_IN_IMAGE" "LANG=C.UTF-8"),\"Labels\":{\"org.opencontainers.image.title\":\"lineflow stand-in for eclipse-temurin:17-jre\"}" \
    "$JRE_LAYER"
  echo "$key" > "$JRE_TAR.key"
}

# The reconciler exactly as `make reconciler-image-tar` builds it, on the JRE stand-in.
reconciler_image() {
  local start=$SECONDS key
  # Everything the image carries: the reconciler and the modules it depends on.
  key="$( (cat "$JRE_TAR.key" "$ROOT/pom.xml" "$ROOT"/{rules,flink-rest,job,reconciler}/pom.xml
          find "$ROOT"/{rules,flink-rest,job,reconciler}/src/main -type f | sort | xargs cat) | sha)"
  if [[ -s "$RECONCILER_TAR" && "$(cat "$RECONCILER_TAR.key" 2>/dev/null)" == "$key" ]]; then
    log "$RECONCILER_IMAGE is up to date: $RECONCILER_TAR"; return 0
  fi
  make -C "$ROOT" --no-print-directory reconciler-image-tar MVN="${MVN[*]}" RECONCILER_IMAGE="$RECONCILER_IMAGE" \
      RECONCILER_BASE_IMAGE="tar://$JRE_TAR" >"$CACHE/work/reconciler-image.log" 2>&1 \
    || { tail -30 "$CACHE/work/reconciler-image.log" >&2; die "reconciler image build failed, log: $CACHE/work/reconciler-image.log"; }
  cp "$ROOT/reconciler/target/jib-image.tar" "$RECONCILER_TAR.part" && mv "$RECONCILER_TAR.part" "$RECONCILER_TAR"
  echo "$key" > "$RECONCILER_TAR.key"
  log "wrote $RECONCILER_IMAGE to $RECONCILER_TAR in $((SECONDS - start)) s"
}

build_all() {
  local start=$SECONDS
  lock
  jre_layer
  jre_image
  flink_image "$FLINK_VERSION" "$FLINK_TAR" "$FLINK_IMAGE"
  flink_image "$NEXT_FLINK_VERSION" "$NEXT_FLINK_TAR" "$NEXT_FLINK_IMAGE"
  flink_image "$INCIDENT_FLINK_VERSION" "$INCIDENT_FLINK_TAR" "$INCIDENT_FLINK_IMAGE" -Dstandin.no-plugins
  operator_build
  operator_image
  job_image
  job_next_image "$JOB_NEXT_IMAGE" "$JOB_NEXT_TAR" "$JOB_TAR" "$FLINK_TAR"
  job_next_line_image
  # The e2e drill on Flink 2.2 (E2E_FLINK_LINE=2.2) upgrades to the next release built for 2.2.
  if [[ "${E2E_FLINK_LINE:-}" == 2.2 ]]; then
    job_next_image "$JOB_NEXT_LINE_NEXT_IMAGE" "$JOB_NEXT_LINE_NEXT_TAR" "$JOB_NEXT_LINE_TAR" "$NEXT_FLINK_TAR" -Dflink.line=2.2
  fi
  incident_image
  reconciler_image
  log "all images in $((SECONDS - start)) s"
}

case "${1:-}" in
  build) build_all ;;
  operator-build) lock; operator_build ;;
  operator-image) lock; jre_layer; operator_build; operator_image ;;
  chart) lock; operator_chart; echo "$OPERATOR_CHART" ;;
  import)
    sock="${2:?usage: e2e-images.sh import CONTAINERD_SOCKET [NAMESPACE]}"; ns="${3:-k8s.io}"
    command -v ctr >/dev/null || die "ctr (containerd) is not installed"
    [[ -S "$sock" ]] || die "$sock is not a socket (is containerd running?)"
    build_all
    tars=("$FLINK_TAR" "$OPERATOR_TAR" "$JOB_TAR" "$JOB_NEXT_TAR" "$JOB_NEXT_LINE_TAR" "$INCIDENT_TAR" "$RECONCILER_TAR")
    [[ "${E2E_FLINK_LINE:-}" != 2.2 ]] || tars+=("$JOB_NEXT_LINE_NEXT_TAR")
    for t in "${tars[@]}"; do
      s=$SECONDS
      ctr --address "$sock" -n "$ns" images import "$t" >/dev/null || die "ctr import of $t failed"
      log "imported $t into $sock ($ns) in $((SECONDS - s)) s"
    done
    ;;
  env)
    printf 'FLINK_IMAGE=%s\nFLINK_TAR=%s\nOPERATOR_IMAGE=%s\nOPERATOR_TAR=%s\nJOB_IMAGE=%s\nJOB_TAR=%s\n' \
      "$FLINK_IMAGE" "$FLINK_TAR" "$OPERATOR_IMAGE" "$OPERATOR_TAR" "$JOB_IMAGE" "$JOB_TAR"
    printf 'JOB_NEXT_IMAGE=%s\nJOB_NEXT_TAR=%s\n' "$JOB_NEXT_IMAGE" "$JOB_NEXT_TAR"
    printf 'JOB_NEXT_LINE_IMAGE=%s\nJOB_NEXT_LINE_TAR=%s\n' "$JOB_NEXT_LINE_IMAGE" "$JOB_NEXT_LINE_TAR"
    printf 'JOB_NEXT_LINE_NEXT_IMAGE=%s\nJOB_NEXT_LINE_NEXT_TAR=%s\n' "$JOB_NEXT_LINE_NEXT_IMAGE" "$JOB_NEXT_LINE_NEXT_TAR"
    printf 'INCIDENT_IMAGE=%s\nINCIDENT_TAR=%s\n' "$INCIDENT_IMAGE" "$INCIDENT_TAR"
    printf 'JRE_IMAGE=%s\nJRE_TAR=%s\nRECONCILER_IMAGE=%s\nRECONCILER_TAR=%s\n' \
      "$JRE_IMAGE" "$JRE_TAR" "$RECONCILER_IMAGE" "$RECONCILER_TAR" ;;
  *) echo "usage: e2e-images.sh build | operator-build [VERSION] | operator-image [VERSION] | import SOCK [NS] | chart [VERSION] | env" >&2; exit 2 ;;
esac
