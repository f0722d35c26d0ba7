#!/usr/bin/env bash
# Entry point of the stand-in Flink image (kubernetes.entry.path, /docker-entrypoint.sh).
#
# The operator starts every Flink pod as `/docker-entrypoint.sh bash -c "kubernetes-….sh …"`,
# so this only passes its arguments on with exec: the start scripts then exec java, which ends
# up as PID 1 (a `kill 1` in the pod kills the JVM, as with the official image).
#
# ENABLE_BUILT_IN_PLUGINS works as in the official image: jar names of $FLINK_HOME/opt, separated
# by `;` (or blanks); each is linked, before the command runs, into a folder of its own under the
# plugins directory, named like the jar without `.jar` (flink-s3-fs-hadoop-1.20.1.jar ends up in
# plugins/flink-s3-fs-hadoop-1.20.1/), where Flink's plugin loader finds it. A link, as upstream
# does, rather than a copy: the S3 jars are 30 MB and more, written anew at every container start.
set -euo pipefail

die() { echo "docker-entrypoint.sh: $*" >&2; exit 1; }

enable_built_in_plugins() {
  local home="${FLINK_HOME:-/opt/flink}"
  local opt="$home/opt" plugins="${FLINK_PLUGINS_DIR:-$home/plugins}" list="${ENABLE_BUILT_IN_PLUGINS:-}"
  local names=() name available jar
  read -r -d '' -a names <<< "${list//;/ }" || true
  [[ ${#names[@]} -gt 0 ]] || return 0
  # Every name is checked before anything changes, so a typo stops the pod here, with what
  # there is to choose from, and not at the first s3:// path long after the start.
  for name in "${names[@]}"; do
    if [[ "$name" == */* || ! -f "$opt/$name" ]]; then
      # A glob, not find: the image has bash, coreutils, sed and grep, no findutils.
      available=""
      for jar in "$opt"/*.jar; do
        [[ ! -f "$jar" ]] || available+="${available:+ }${jar##*/}"
      done
      die "ENABLE_BUILT_IN_PLUGINS='$list' names '$name', which is not in $opt;" \
        "allowed: ${available:-nothing (no jar in $opt)}"
    fi
  done
  [[ -d "$plugins" && -w "$plugins" ]] \
    || die "ENABLE_BUILT_IN_PLUGINS is set, but the plugins directory $plugins is not a directory writable by uid $(id -u)"
  for name in "${names[@]}"; do
    mkdir -p "$plugins/${name%.jar}"
    ln -sfn "$opt/$name" "$plugins/${name%.jar}/$name"
    echo "docker-entrypoint.sh: enabled plugin $name in $plugins/${name%.jar}/"
  done
}

enable_built_in_plugins
if [[ $# -eq 0 || "$1" == help ]]; then
  echo "usage: /docker-entrypoint.sh COMMAND [ARG…]   (e.g. bash -c \"kubernetes-jobmanager.sh kubernetes-application\")"
  echo "env:   ENABLE_BUILT_IN_PLUGINS='a.jar;b.jar'  jars of \$FLINK_HOME/opt to enable as plugins first"
  exit 0
fi
exec "$@"
