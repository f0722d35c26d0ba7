#!/usr/bin/env bash
# A real Kubernetes API server for tests: etcd + kube-apiserver on 127.0.0.1, RBAC enforced.
#
# No API server binary is served to every build machine, but Debian's archive is: kube-apiserver
# is built once from Debian's `kubernetes` source package (upstream 1.20.2) with Debian's Go 1.19,
# and runs with Debian's etcd. Packages are fetched with apt-get through a private apt config
# and unpacked (never installed), so the system's apt setup and packages stay as they are.
#
# The build is cached in $LINEFLOW_K8S_CACHE (default: the project's .cache/k8s, git-ignored).
# A finished build is also published to a machine-wide folder, $LINEFLOW_K8S_SHARED_CACHE
# (default ~/.cache/lineflow/k8s; set it empty to switch this off), from which a fresh clone in
# another folder (CI's) copies it instead of building again. Builds are serialised with a lock,
# so concurrent clones are safe.
#
# Usage:
#   scripts/k8s-test-env.sh build            build and cache kube-apiserver + etcd (idempotent)
#   scripts/k8s-test-env.sh start [STATE]    start etcd + kube-apiserver (free loopback ports)
#   scripts/k8s-test-env.sh stop  [STATE]    stop what `start` started in STATE, nothing else
#   scripts/k8s-test-env.sh status [STATE]   exit 0 when the server in STATE answers
# STATE (default .cache/k8s-env) receives certificates, tokens.csv, kubeconfig, env and logs.
# The admin token is in STATE/env (K8S_TOKEN) and STATE/kubeconfig; `kubectl --kubeconfig
# STATE/kubeconfig` talks to the server.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
K8S_VERSION="1.20.2"
CACHE="${LINEFLOW_K8S_CACHE:-$ROOT/.cache/k8s}"
# Everything that changes the binaries is in the key, so a changed recipe builds afresh.
RECIPE="k8s-$K8S_VERSION-go1.19-r1"
OUT="$CACHE/$RECIPE"
SHARED="${LINEFLOW_K8S_SHARED_CACHE-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/lineflow/k8s}"
APISERVER="$OUT/bin/kube-apiserver"
ETCD="$OUT/bin/etcd"
log() { echo "k8s-test-env: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

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

build() {
  [[ -x "$APISERVER" && -x "$ETCD" ]] && return 0
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.build.lock"
  if ! flock -n 9; then
    log "another build holds $CACHE/.build.lock; waiting for it"
    flock 9
  fi
  [[ -x "$APISERVER" && -x "$ETCD" ]] && return 0
  if [[ -n "$SHARED" && -x "$SHARED/$RECIPE/bin/kube-apiserver" && -x "$SHARED/$RECIPE/bin/etcd" ]]; then
    mkdir -p "$OUT/bin"
    cp "$SHARED/$RECIPE/bin/etcd" "$ETCD.part" && mv "$ETCD.part" "$ETCD"
    cp "$SHARED/$RECIPE/bin/kube-apiserver" "$APISERVER.part" && mv "$APISERVER.part" "$APISERVER"
    log "reused the build in $SHARED/$RECIPE (machine-wide cache)"
    return 0
  fi
  command -v apt-get >/dev/null || die "apt-get is needed (Debian/Ubuntu) to fetch Go, etcd and the Kubernetes sources"
  local start=$SECONDS work="$OUT.build"
  rm -rf "$work" && mkdir -p "$work/deb" "$work/src"
  apt_options "$work/apt"
  log "building kube-apiserver $K8S_VERSION once into $OUT (about 7-10 minutes on 2 cores)"
  apt-get "${APTOPT[@]}" update || die "apt-get update failed"
  (cd "$work/src" && apt-get "${APTOPT[@]}" source --download-only kubernetes) \
    || die "Debian source package 'kubernetes' could not be fetched"
  (cd "$work/deb" && apt-get "${APTOPT[@]}" download golang-1.19-go golang-1.19-src etcd-server \
      rsync libpopt0 golang-github-modern-go-reflect2-dev) \
    || die "could not download golang-1.19-go, etcd-server, rsync or reflect2 from Debian"
  for d in "$work"/deb/*.deb; do dpkg-deb -x "$d" "$work/deb/x"; done
  tar xzf "$(ls "$work"/src/kubernetes_*.orig.tar.gz | head -1)" -C "$work/src"
  local tree="$work/src/kubernetes-$K8S_VERSION"
  [[ -d "$tree" ]] || die "expected kubernetes-$K8S_VERSION in the Debian source package, found: $(ls "$work/src")"
  # The vendored reflect2 1.0.1 crashes under Go >= 1.18; Debian's 1.0.2 sources work.
  local r="$tree/vendor/github.com/modern-go/reflect2"
  rm -f "$r"/*.go && cp "$work"/deb/x/usr/share/gocode/src/github.com/modern-go/reflect2/*.go "$r"/ && rm -f "$r"/*_test.go
  (
    export GOROOT="$work/deb/x/usr/lib/go-1.19" LD_LIBRARY_PATH="$work/deb/x/usr/lib/x86_64-linux-gnu"
    export CGO_ENABLED=0 GOPROXY=off GOFLAGS= GOCACHE="$work/gocache" HOME="$work"
    export PATH="$GOROOT/bin:$work/deb/x/usr/bin:$PATH"
    cd "$tree" && make WHAT=cmd/kube-apiserver >"$work/make.log" 2>&1
  ) || { tail -30 "$work/make.log" >&2; die "kube-apiserver build failed, log: $work/make.log"; }
  mkdir -p "$OUT/bin"
  install -m 0755 "$tree/_output/bin/kube-apiserver" "$APISERVER.part"
  install -m 0755 "$work/deb/x/usr/bin/etcd" "$ETCD.part"
  mv "$ETCD.part" "$ETCD" && mv "$APISERVER.part" "$APISERVER"
  echo "$((SECONDS - start))" > "$OUT/build-seconds"
  rm -rf "$work"
  publish
  log "built in $((SECONDS - start)) s: $APISERVER, $ETCD"
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

# --- run --------------------------------------------------------------------------------------

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# True when the process in pid file $1 is alive and still the one we started (its command line
# names the state dir), so a recycled pid is never signalled.
ours() {
  local pid
  [[ -s "$1" ]] || return 1
  pid="$(cat "$1")"
  [[ -r "/proc/$pid/cmdline" ]] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$STATE"
}

stop() {
  local f pid
  for f in "$STATE/kube-apiserver.pid" "$STATE/etcd.pid"; do
    if ours "$f"; then
      pid="$(cat "$f")"
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
      log "stopped $(basename "$f" .pid) (pid $pid)"
    fi
    rm -f "$f"
  done
}

status() {
  [[ -s "$STATE/env" ]] || return 1
  # shellcheck disable=SC1091
  (source "$STATE/env" && curl -fs --max-time 3 --cacert "$STATE/pki/ca.crt" \
      -H "Authorization: Bearer $K8S_TOKEN" "$K8S_SERVER/readyz" >/dev/null)
}

certs() {
  local pki="$STATE/pki"
  mkdir -p "$pki"
  [[ -s "$pki/apiserver.crt" ]] && return 0
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=lineflow-test-ca" \
    -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" \
    -keyout "$pki/apiserver.key" -out "$pki/apiserver.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n' > "$pki/ext"
  openssl x509 -req -in "$pki/apiserver.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 3650 -extfile "$pki/ext" -out "$pki/apiserver.crt" 2>/dev/null
  openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
}

start() {
  if status; then log "already running: $(grep K8S_SERVER "$STATE/env")"; return 0; fi
  build
  stop
  mkdir -p "$STATE"
  trap 'rc=$?; if [[ $rc != 0 ]]; then log "start failed, stopping what it started"; stop; fi' EXIT
  certs
  local token etcd_port peer_port api_port
  token="$(openssl rand -hex 24)"
  # Static tokens: the admin (system:masters) and one per extra line of LINEFLOW_K8S_TOKENS.
  {
    echo "$token,lineflow-admin,lineflow-admin,system:masters"
    [[ -z "${LINEFLOW_K8S_TOKENS:-}" ]] || printf '%s\n' "$LINEFLOW_K8S_TOKENS"
  } > "$STATE/tokens.csv"
  chmod 600 "$STATE/tokens.csv"
  etcd_port="$(free_port)"; peer_port="$(free_port)"; api_port="$(free_port)"
  rm -rf "$STATE/etcd-data"
  "$ETCD" --name lineflow-test --data-dir "$STATE/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "lineflow-test=http://127.0.0.1:$peer_port" \
    --unsafe-no-fsync --log-level warn </dev/null >"$STATE/etcd.log" 2>&1 &
  echo $! > "$STATE/etcd.pid"
  for _ in $(seq 100); do
    curl -fsS --max-time 1 "http://127.0.0.1:$etcd_port/health" >/dev/null 2>&1 && break
    ours "$STATE/etcd.pid" || { tail -20 "$STATE/etcd.log" >&2; die "etcd exited"; }
    sleep 0.1
  done
  # No controller-manager runs (so no token controller): the ServiceAccount admission plugin
  # would refuse every pod for lack of a token Secret. Pods are only stored here anyway.
  "$APISERVER" --etcd-servers="http://127.0.0.1:$etcd_port" \
    --insecure-port=0 --secure-port="$api_port" --bind-address=127.0.0.1 --advertise-address=127.0.0.1 \
    --tls-cert-file="$STATE/pki/apiserver.crt" --tls-private-key-file="$STATE/pki/apiserver.key" \
    --client-ca-file="$STATE/pki/ca.crt" --cert-dir="$STATE/pki" \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$STATE/pki/sa.pub" --service-account-signing-key-file="$STATE/pki/sa.key" \
    --api-audiences=https://kubernetes.default.svc \
    --token-auth-file="$STATE/tokens.csv" --authorization-mode=RBAC \
    --service-cluster-ip-range=10.96.0.0/16 --allow-privileged=true \
    --disable-admission-plugins=ServiceAccount \
    --v=1 </dev/null >"$STATE/kube-apiserver.log" 2>&1 &
  echo $! > "$STATE/kube-apiserver.pid"
  cat > "$STATE/env" <<EOF
K8S_SERVER=https://127.0.0.1:$api_port
K8S_TOKEN=$token
K8S_CA=$STATE/pki/ca.crt
K8S_KUBECONFIG=$STATE/kubeconfig
EOF
  cat > "$STATE/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: lineflow-test
  cluster: {server: "https://127.0.0.1:$api_port", certificate-authority: "$STATE/pki/ca.crt"}
users:
- name: lineflow-admin
  user: {token: "$token"}
contexts:
- name: lineflow-test
  context: {cluster: lineflow-test, user: lineflow-admin, namespace: default}
current-context: lineflow-test
EOF
  chmod 600 "$STATE/kubeconfig"
  for _ in $(seq 600); do
    status && break
    ours "$STATE/kube-apiserver.pid" || { tail -30 "$STATE/kube-apiserver.log" >&2; die "kube-apiserver exited"; }
    sleep 0.1
  done
  status || { tail -30 "$STATE/kube-apiserver.log" >&2; die "kube-apiserver not ready after 60 s"; }
  trap - EXIT
  log "kube-apiserver $K8S_VERSION ready at https://127.0.0.1:$api_port (RBAC); kubeconfig: $STATE/kubeconfig"
}

cmd="${1:-start}"
STATE="$(mkdir -p "${2:-$ROOT/.cache/k8s-env}" && cd "${2:-$ROOT/.cache/k8s-env}" && pwd)"
case "$cmd" in
  build) build; publish ;;
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 build | start [STATE] | stop [STATE] | status [STATE]" >&2; exit 2 ;;
esac
