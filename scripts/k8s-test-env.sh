#!/usr/bin/env bash
# A real Kubernetes API server for tests: etcd + kube-apiserver on 127.0.0.1, RBAC enforced.
#
# No API server binary is served to every build machine, but Debian's archive is: kube-apiserver
# is built once from Debian's `kubernetes` source package (upstream 1.20.2, with the custom-resource
# validation fix of kube-openapi#230 backported) with Debian's Go 1.19, and runs with Debian's etcd.
# The same build makes the rest of a node (controller-manager, scheduler, kubelet, kube-proxy),
# which scripts/e2e-cluster.sh runs; that script sources this one for the shared functions. Packages are fetched with apt-get through a private apt config
# and unpacked (never installed), so the system's apt setup and packages stay as they are.
#
# The build is cached in $LINEFLOW_K8S_CACHE (default: the project's .cache/k8s, git-ignored).
# A finished build is also published to a machine-wide folder, $LINEFLOW_K8S_SHARED_CACHE
# (default ~/.cache/lineflow/k8s; set it empty to switch this off), from which a fresh clone in
# another folder (CI's) copies it instead of building again. Builds are serialised with a lock,
# so concurrent clones are safe.
#
# Usage:
#   scripts/k8s-test-env.sh build            build and cache the Kubernetes binaries + etcd (idempotent)
#   scripts/k8s-test-env.sh start [STATE]    start etcd + kube-apiserver (free loopback ports)
#   scripts/k8s-test-env.sh stop  [STATE]    stop what `start` started in STATE, nothing else
#   scripts/k8s-test-env.sh status [STATE]   exit 0 when the server in STATE answers
# STATE (default .cache/k8s-env) receives certificates, tokens.csv, kubeconfig, env and logs.
# The admin token is in STATE/env (K8S_TOKEN) and STATE/kubeconfig; `kubectl --kubeconfig
# STATE/kubeconfig` talks to the server.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
K8S_VERSION="1.20.2"
CACHE="${LINEFLOW_K8S_CACHE:-$ROOT/.cache/k8s}"
# Everything that changes the binaries is in the key, so a changed recipe builds afresh.
# r2: kube-openapi#230 backported, and the node's binaries built too.
RECIPE="k8s-$K8S_VERSION-go1.19-r2"
OUT="$CACHE/$RECIPE"
SHARED="${LINEFLOW_K8S_SHARED_CACHE-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/lineflow/k8s}"
# Built from the Kubernetes tree (scripts/e2e-cluster.sh runs a whole node from them); etcd is Debian's.
K8S_CMDS=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy)
APISERVER="$OUT/bin/kube-apiserver"
ETCD="$OUT/bin/etcd"

# --- build ------------------------------------------------------------------------------------

apt_options() {
  local apt="$1" sources
  mkdir -p "$apt/parts" "$apt/lists/partial" "$apt/archives/partial"
  sources=(/etc/apt/sources.list.d/*.sources)
  if [[ -e "${sources[0]}" ]]; then
    rm -f "$apt/parts"/*
    for f in "${sources[@]}"; do
      # deb for binaries, deb-src for the source package, from the same archives
      sed 's/^Types: deb$/Types: deb deb-src/' "$f" > "$apt/parts/$(basename "$f")"
    done
    APTOPT=(-o Dir::Etc::SourceList=/dev/null)
  else
    sed -n 's/^deb \(.*\)$/deb \1\ndeb-src \1/p' /etc/apt/sources.list > "$apt/sources.list"
    APTOPT=(-o "Dir::Etc::SourceList=$apt/sources.list")
  fi
  APTOPT+=(-o "Dir::Etc::SourceParts=$apt/parts" -o "Dir::State::Lists=$apt/lists"
           -o "Dir::Cache::Archives=$apt/archives" -o APT::Sandbox::User=root -qq)
}

# True when directory $1 holds every binary of the recipe.
has_build() {
  local b
  for b in "${K8S_CMDS[@]}" etcd; do [[ -x "$1/$b" ]] || return 1; done
}

# Built with Go >= 1.16, Kubernetes 1.20's OpenAPI validator takes "", 0 and false for null (its
# zero-value test compares two reflect.Values), so custom resources carrying them are refused
# (kubernetes#99804). The upstream fix, kube-openapi#230, drops that clause: both vendored copies
# of the validator get it, and a tree that does not read as expected stops the build.
backport_zero_value_fix() {
  local f bad='	if data == nil || reflect.DeepEqual(reflect.Zero(reflect.TypeOf(data)), reflect.ValueOf(data)) {'
  for f in vendor/k8s.io/kube-openapi/pkg/validation/validate/type.go vendor/github.com/go-openapi/validate/type.go; do
    [[ -f "$1/$f" ]] || die "kube-openapi#230 backport: $f is missing from the source tree"
    [[ "$(grep -cxF -- "$bad" "$1/$f")" == 1 ]] \
      || die "kube-openapi#230 backport: $f does not have exactly one line '${bad#	}'"
    python3 - "$1/$f" "$bad" <<'PY'
import sys
path, bad = sys.argv[1], sys.argv[2]
text = open(path).read()
open(path, "w").write(text.replace(bad + "\n", "\tif data == nil {\n"))
PY
    grep -qxF '	if data == nil {' "$1/$f" || die "kube-openapi#230 backport: editing $f failed"
  done
}

build() {
  has_build "$OUT/bin" && return 0
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.build.lock"
  if ! flock -n 9; then
    log "another build holds $CACHE/.build.lock; waiting for it"
    flock 9
  fi
  has_build "$OUT/bin" && return 0
  if [[ -n "$SHARED" ]] && has_build "$SHARED/$RECIPE/bin"; then
    rm -rf "$OUT/bin.part" && mkdir -p "$OUT" && cp -r "$SHARED/$RECIPE/bin" "$OUT/bin.part"
    rm -rf "${OUT:?}/bin" && mv "$OUT/bin.part" "$OUT/bin"
    log "reused the build in $SHARED/$RECIPE (machine-wide cache)"
    return 0
  fi
  command -v apt-get >/dev/null || die "apt-get is needed (Debian/Ubuntu) to fetch Go, etcd and the Kubernetes sources"
  local start=$SECONDS work="$OUT.build" what=() b
  rm -rf "$work" && mkdir -p "$work/deb" "$work/src"
  apt_options "$work/apt"
  log "building Kubernetes $K8S_VERSION (${K8S_CMDS[*]}) once into $OUT (about 20 minutes on 2 cores)"
  apt-get "${APTOPT[@]}" update || die "apt-get update failed"
  (cd "$work/src" && apt-get "${APTOPT[@]}" source --download-only kubernetes) \
    || die "Debian source package 'kubernetes' could not be fetched"
  (cd "$work/deb" && apt-get "${APTOPT[@]}" download golang-1.19-go golang-1.19-src etcd-server \
      rsync libpopt0 golang-github-modern-go-reflect2-dev) \
    || die "could not download golang-1.19-go, etcd-server, rsync or reflect2 from Debian"
  for d in "$work"/deb/*.deb; do dpkg-deb -x "$d" "$work/deb/x"; done
  # Debian names the tarball; the first match is the one apt fetched.
  # shellcheck disable=SC2012
  tar xzf "$(ls "$work"/src/kubernetes_*.orig.tar.gz | head -1)" -C "$work/src"
  local tree="$work/src/kubernetes-$K8S_VERSION"
  [[ -d "$tree" ]] || die "expected kubernetes-$K8S_VERSION in the Debian source package, found: $(ls "$work/src")"
  # The vendored reflect2 1.0.1 crashes under Go >= 1.18; Debian's 1.0.2 sources work.
  local r="$tree/vendor/github.com/modern-go/reflect2"
  rm -f "$r"/*.go && cp "$work"/deb/x/usr/share/gocode/src/github.com/modern-go/reflect2/*.go "$r"/ && rm -f "$r"/*_test.go
  backport_zero_value_fix "$tree"
  for b in "${K8S_CMDS[@]}"; do what+=("cmd/$b"); done
  log "fetched and patched in $((SECONDS - start)) s; compiling (log: $work/make.log)"
  (
    export GOROOT="$work/deb/x/usr/lib/go-1.19" LD_LIBRARY_PATH="$work/deb/x/usr/lib/x86_64-linux-gnu"
    export CGO_ENABLED=0 GOPROXY=off GOFLAGS='' GOCACHE="$work/gocache" HOME="$work"
    export PATH="$GOROOT/bin:$work/deb/x/usr/bin:$PATH"
    cd "$tree" && make WHAT="${what[*]}" >"$work/make.log" 2>&1
  ) || { tail -30 "$work/make.log" >&2; die "Kubernetes build failed, log: $work/make.log"; }
  rm -rf "$OUT/bin.part" && mkdir -p "$OUT/bin.part"
  for b in "${K8S_CMDS[@]}"; do install -m 0755 "$tree/_output/bin/$b" "$OUT/bin.part/$b"; done
  install -m 0755 "$work/deb/x/usr/bin/etcd" "$OUT/bin.part/etcd"
  rm -rf "${OUT:?}/bin" && mv "$OUT/bin.part" "$OUT/bin"
  echo "$((SECONDS - start))" > "$OUT/build-seconds"
  rm -rf "$work"
  publish
  log "built in $((SECONDS - start)) s: ${K8S_CMDS[*]} and etcd in $OUT/bin"
}

# Copies the build to the machine-wide cache (best effort: a read-only one is no failure).
publish() {
  [[ -n "$SHARED" && "$SHARED/$RECIPE" != "$OUT" ]] || return 0
  local tmp
  mkdir -p "$SHARED" 2>/dev/null && tmp="$(mktemp -d "$SHARED/.publish.XXXXXX" 2>/dev/null)" && chmod 755 "$tmp" || return 0
  if cp -r "$OUT/bin" "$tmp/bin" && [[ ! -e "$SHARED/$RECIPE" ]] && mv "$tmp" "$SHARED/$RECIPE"; then
    log "published the build to $SHARED/$RECIPE for other clones on this machine"
  else
    rm -rf "$tmp"
  fi
}

# --- run (scripts/e2e-cluster.sh sources this file and uses these functions) --------------------

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# True when the process in pid file $1 is alive and still the one we started (its command line
# names the state dir: $2, default $STATE), so a recycled pid is never signalled.
ours() {
  local pid
  [[ -s "$1" ]] || return 1
  pid="$(cat "$1")"
  [[ -r "/proc/$pid/cmdline" ]] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "${2:-$STATE}"
}

# Stops the processes STATE/NAME.pid for each NAME, in the order given, and nothing else.
stop_pids() {
  local name f pid
  for name in "$@"; do
    f="$STATE/$name.pid"
    if ours "$f"; then
      pid="$(cat "$f")"
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
      log "stopped $name (pid $pid)"
    fi
    rm -f "$f"
  done
}

stop() { stop_pids kube-apiserver etcd; }

status() {
  [[ -s "$STATE/env" ]] || return 1
  # shellcheck disable=SC1091
  (source "$STATE/env" && curl -fs --max-time 3 --cacert "$STATE/pki/ca.crt" \
      -H "Authorization: Bearer $K8S_TOKEN" "$K8S_SERVER/readyz" >/dev/null)
}

# Issues STATE/pki/NAME.{key,crt} from the state's CA (made on first use) for subject $2 with the
# openssl extension lines $3; an existing certificate with the same extensions is kept.
issue() {
  local pki="$STATE/pki" name="$1" subject="$2" ext="$3"
  mkdir -p "$pki"
  if [[ ! -s "$pki/ca.crt" ]]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=lineflow-test-ca" \
      -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null || die "openssl could not make a CA in $pki"
  fi
  [[ -s "$pki/$name.crt" && "$(cat "$pki/$name.ext" 2>/dev/null)" == "$ext" ]] && return 0
  printf '%s\n' "$ext" > "$pki/$name.ext"
  # Either step failing is fatal, which is what `A && B || die` means here.
  # shellcheck disable=SC2015
  openssl req -newkey rsa:2048 -nodes -subj "$subject" -keyout "$pki/$name.key" -out "$pki/$name.csr" 2>/dev/null \
    && openssl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
         -days 3650 -extfile "$pki/$name.ext" -out "$pki/$name.crt" 2>/dev/null \
    || die "openssl could not issue $pki/$name.crt"
}

# The CA, the API server's serving certificate for the subjectAltNames $1, the ServiceAccount keys.
certs() {
  local pki="$STATE/pki"
  issue apiserver "/CN=kube-apiserver" "$(printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth' "$1")"
  if [[ ! -s "$pki/sa.pub" ]]; then
    # Either step failing is fatal, which is what `A && B || die` means here.
    # shellcheck disable=SC2015
    openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null && openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null \
      || die "openssl could not make the ServiceAccount keys in $pki"
  fi
}

# STATE/tokens.csv: a fresh admin token (system:masters, then in $TOKEN), the lines of $1 and of
# LINEFLOW_K8S_TOKENS ("token,user,uid,groups" each).
tokens() {
  TOKEN="$(openssl rand -hex 24)"
  {
    echo "$TOKEN,lineflow-admin,lineflow-admin,system:masters"
    [[ -z "${1:-}" ]] || printf '%s\n' "$1"
    [[ -z "${LINEFLOW_K8S_TOKENS:-}" ]] || printf '%s\n' "$LINEFLOW_K8S_TOKENS"
  } > "$STATE/tokens.csv"
  chmod 600 "$STATE/tokens.csv"
}

# Starts etcd on free loopback ports with an empty data dir; its URL is then in $ETCD_URL.
start_etcd() {
  local etcd_port peer_port
  etcd_port="$(free_port)"; peer_port="$(free_port)"
  ETCD_URL="http://127.0.0.1:$etcd_port"
  rm -rf "$STATE/etcd-data"
  "$ETCD" --name lineflow-test --data-dir "$STATE/etcd-data" \
    --listen-client-urls "$ETCD_URL" --advertise-client-urls "$ETCD_URL" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "lineflow-test=http://127.0.0.1:$peer_port" \
    --unsafe-no-fsync --log-level warn </dev/null >"$STATE/etcd.log" 2>&1 &
  echo $! > "$STATE/etcd.pid"
  for _ in $(seq 100); do
    curl -fsS --max-time 1 "$ETCD_URL/health" >/dev/null 2>&1 && return 0
    ours "$STATE/etcd.pid" || { tail -20 "$STATE/etcd.log" >&2; die "etcd exited, log: $STATE/etcd.log"; }
    sleep 0.1
  done
  tail -20 "$STATE/etcd.log" >&2
  die "etcd not healthy after 10 s, log: $STATE/etcd.log"
}

# Starts kube-apiserver on $1:$2 against $ETCD_URL with what every environment shares (TLS from
# certs, tokens.csv, ServiceAccount keys, services in 10.96.0.0/16), plus the flags $3...
start_apiserver() {
  local address="$1" port="$2"
  shift 2
  "$APISERVER" --etcd-servers="$ETCD_URL" \
    --insecure-port=0 --secure-port="$port" --bind-address="$address" --advertise-address="$address" \
    --tls-cert-file="$STATE/pki/apiserver.crt" --tls-private-key-file="$STATE/pki/apiserver.key" \
    --client-ca-file="$STATE/pki/ca.crt" --cert-dir="$STATE/pki" \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$STATE/pki/sa.pub" --service-account-signing-key-file="$STATE/pki/sa.key" \
    --api-audiences=https://kubernetes.default.svc \
    --token-auth-file="$STATE/tokens.csv" --service-cluster-ip-range=10.96.0.0/16 --allow-privileged=true \
    --v=1 "$@" </dev/null >"$STATE/kube-apiserver.log" 2>&1 &
  echo $! > "$STATE/kube-apiserver.pid"
}

# Writes kubeconfig $1: server $2 with the state's CA, user $3 with token $4.
kubeconfig() {
  cat > "$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: lineflow-test
  cluster: {server: "$2", certificate-authority: "$STATE/pki/ca.crt"}
users:
- name: $3
  user: {token: "$4"}
contexts:
- name: lineflow-test
  context: {cluster: lineflow-test, user: $3, namespace: default}
current-context: lineflow-test
EOF
  chmod 600 "$1"
}

# STATE/env and STATE/kubeconfig for the admin ($TOKEN) at server $1; then waits up to 60 s for
# the server to be ready.
admin_access() {
  cat > "$STATE/env" <<EOF
K8S_SERVER=$1
K8S_TOKEN=$TOKEN
K8S_CA=$STATE/pki/ca.crt
K8S_KUBECONFIG=$STATE/kubeconfig
EOF
  kubeconfig "$STATE/kubeconfig" "$1" lineflow-admin "$TOKEN"
  for _ in $(seq 600); do
    status && return 0
    ours "$STATE/kube-apiserver.pid" || { tail -30 "$STATE/kube-apiserver.log" >&2; die "kube-apiserver exited, log: $STATE/kube-apiserver.log"; }
    sleep 0.1
  done
  tail -30 "$STATE/kube-apiserver.log" >&2
  die "kube-apiserver not ready after 60 s, log: $STATE/kube-apiserver.log"
}

start() {
  if status; then log "already running: $(grep K8S_SERVER "$STATE/env")"; return 0; fi
  build
  stop
  mkdir -p "$STATE"
  # rc is assigned inside the trap's own command.
  # shellcheck disable=SC2154
  trap 'rc=$?; if [[ $rc != 0 ]]; then log "start failed, stopping what it started"; stop; fi' EXIT
  certs "IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc"
  tokens ""
  start_etcd
  local api_port
  api_port="$(free_port)"
  # No controller-manager runs (so no token controller): the ServiceAccount admission plugin
  # would refuse every pod for lack of a token Secret. Pods are only stored here anyway.
  start_apiserver 127.0.0.1 "$api_port" --authorization-mode=RBAC --disable-admission-plugins=ServiceAccount
  admin_access "https://127.0.0.1:$api_port"
  trap - EXIT
  log "kube-apiserver $K8S_VERSION ready at https://127.0.0.1:$api_port (RBAC); kubeconfig: $STATE/kubeconfig"
}

# Run as a command (sourced, it only defines the above).
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  cmd="${1:-start}"
  STATE="$(mkdir -p "${2:-$ROOT/.cache/k8s-env}" && cd "${2:-$ROOT/.cache/k8s-env}" && pwd)"
  case "$cmd" in
    build) build; publish ;;
    start) start ;;
    stop) stop ;;
    status) status ;;
    *) echo "usage: $0 build | start [STATE] | stop [STATE] | status [STATE]" >&2; exit 2 ;;
  esac
fi
