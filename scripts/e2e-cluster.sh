#!/usr/bin/env bash
# A real single-node Kubernetes 1.20.2 cluster on this machine, for the end-to-end run: no Docker,
# no kind, nothing prebuilt downloaded.
#
#   etcd + kube-apiserver + kube-controller-manager + kube-scheduler + kubelet + kube-proxy, built
#   from Debian's `kubernetes` source by scripts/k8s-test-env.sh (same cache, machine-wide too);
#   containerd + runc + the CNI plugins + dnsmasq + iptables from Debian packages (installed with
#   apt-get when missing); a bridge pod network; dnsmasq answering Service names (the stand-in for
#   cluster DNS); a pause image and a busybox image of our own, made from Debian's busybox-static.
#
# Everything listens on loopback or on the cluster's own bridge (lineflow0, 10.244.0.1): the API
# server on 10.244.0.1:6443 (pods reach it through the `kubernetes` Service), the kubelet's API on
# 10.244.0.1:10250, dnsmasq on 10.244.0.1:53, health and metrics ports on 127.0.0.1. Nothing is
# routed off the machine: the bridge has no uplink and there is no masquerading to the outside.
#
# Usage (root only):
#   scripts/e2e-cluster.sh up       start the cluster (builds/caches first); ends when the node is Ready
#   scripts/e2e-cluster.sh down     stop what `up` started and remove its network plumbing and mounts
#   scripts/e2e-cluster.sh status   exit 0 when the API server answers and the node is Ready
#   scripts/e2e-cluster.sh env      print the environment (export lines) to use the cluster
#   scripts/e2e-cluster.sh check    prove it works: pods, Services, DNS, API access (leaves nothing)
#   scripts/e2e-cluster.sh restart-node   stop the kubelet and containerd and start them again
#   scripts/e2e-cluster.sh import TAR...   import image tars into the cluster's containerd (k8s.io)
# State (kubeconfig, env, certificates, logs, containerd's root) is in $LINEFLOW_E2E_STATE
# (default .cache/e2e); images imported stay there across down/up, cluster objects do not.
# STATE/env (KEY=value lines) has KUBECONFIG, BRIDGE_IP, POD_CIDR, DNS_SERVER, CONTAINERD_SOCK
# (also as ctr's CONTAINERD_ADDRESS/CONTAINERD_NAMESPACE), PAUSE_IMAGE, BUSYBOX_IMAGE, K8S_*.
set -euo pipefail

# shellcheck source=scripts/k8s-test-env.sh
source "$(dirname "${BASH_SOURCE[0]}")/k8s-test-env.sh"

SELF="$ROOT/scripts/e2e-cluster.sh"
STATE="${LINEFLOW_E2E_STATE:-$ROOT/.cache/e2e}"
BIN="$OUT/bin"
KUBECTL="$ROOT/bin/kubectl"
BRIDGE=lineflow0
NODE_IP=10.244.0.1
POD_CIDR=10.244.0.0/24
SERVICE_CIDR=10.96.0.0/16
API_SERVICE_IP=10.96.0.1
API_PORT=6443
NODE_NAME=lineflow-node
CNI_NETWORK=lineflow
# The node's pods live in their own cgroup subtree, removed by `down`.
CGROUP_ROOT=/lineflow-e2e
SOCK="$STATE/containerd/containerd.sock"
# Images of our own (nothing can be pulled): the pod sandbox and a small shell for checks.
PAUSE_IMAGE=lineflow.local/pause:e2e
BUSYBOX_IMAGE=lineflow.local/busybox:e2e
IMAGES="$CACHE/e2e-images-r1"
# What kubelet, kube-proxy and the bridge plugin change on the host: saved by `up`, put back by `down`.
SYSCTLS=(net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables net.ipv4.conf.all.route_localnet
         vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
         kernel.keys.root_maxkeys kernel.keys.root_maxbytes)
# Written by `up` once it touches the host's network; `down` only removes plumbing when it is there.
PLUMBING="$STATE/plumbing"
# Every process `up` starts (each with STATE/NAME.pid and STATE/NAME.log); all run when it is up.
PROCS=(etcd kube-apiserver containerd dnsmasq dns-sync kube-controller-manager kube-scheduler kubelet kube-proxy)

now() { echo "${EPOCHREALTIME/./}"; }
# Runs phase $1 (the command $2...) and prints its duration.
phase() {
  local name="$1" t0
  shift
  t0="$(now)"
  "$@"
  log "$(printf '%-14s %6.1f s' "$name" "$(( $(now) - t0 ))e-6")"
}
kctl() { "$KUBECTL" --kubeconfig "$STATE/kubeconfig" --request-timeout=10s "$@"; }
ctr_() { ctr --address "$SOCK" --namespace k8s.io --timeout 60s "$@"; }
# Polls `$2...` every half second until it succeeds; after $1 seconds fails with the last output.
wait_for() {
  local secs="$1" out
  shift
  for _ in $(seq $((secs * 2))); do
    out="$("$@" 2>&1)" && return 0
    sleep 0.5
  done
  log "$out"
  return 1
}
# Fails with the tail of process $1's log unless it is still running.
alive() {
  ours "$STATE/$1.pid" || { tail -30 "$STATE/$1.log" >&2; die "$1 exited, log: $STATE/$1.log"; }
}
# Starts process NAME ($1): command $2..., log and pid file in the state dir.
launch() {
  local name="$1"
  shift
  "$@" </dev/null >"$STATE/$name.log" 2>&1 &
  echo $! > "$STATE/$name.pid"
}

# --- host prerequisites -----------------------------------------------------------------------

require_root() {
  [[ $EUID == 0 ]] || die "must run as root (it starts a kubelet, containerd, iptables rules and a bridge); running as uid $EUID"
}

# Installs the Debian packages the node needs when their commands are missing; and Prometheus and
# the Alertmanager, which the e2e services run beside the node (scripts/e2e.sh).
packages() {
  local want=() pkg cmd pair
  for pair in containerd:containerd ctr:containerd runc:runc /usr/lib/cni/bridge:containernetworking-plugins \
              iptables:iptables conntrack:conntrack dnsmasq:dnsmasq-base prometheus:prometheus \
              prometheus-alertmanager:prometheus-alertmanager; do
    cmd="${pair%%:*}" pkg="${pair#*:}"
    if [[ "$cmd" == /* ]]; then [[ -x "$cmd" ]] && continue; else command -v "$cmd" >/dev/null && continue; fi
    [[ " ${want[*]} " == *" $pkg "* ]] || want+=("$pkg")
  done
  [[ ${#want[@]} == 0 ]] && return 0
  command -v apt-get >/dev/null || die "missing ${want[*]}, and there is no apt-get to install them (Debian/Ubuntu needed)"
  log "installing ${want[*]} with apt-get"
  timeout 300 apt-get -qq update || die "apt-get update failed or took over 5 minutes"
  DEBIAN_FRONTEND=noninteractive timeout 600 apt-get -qq install -y --no-install-recommends "${want[@]}" >/dev/null \
    || die "apt-get install ${want[*]} failed or took over 10 minutes"
}

# The pause and busybox images as docker-save tars, made once from Debian's busybox-static.
images() {
  [[ -s "$IMAGES/pause.tar" && -s "$IMAGES/busybox.tar" ]] && return 0
  local work="$IMAGES.work"
  rm -rf "$work" && mkdir -p "$work/deb"
  apt_options "$work/apt"
  timeout 300 apt-get "${APTOPT[@]}" update || die "apt-get update (private lists) failed or took over 5 minutes"
  (cd "$work/deb" && timeout 300 apt-get "${APTOPT[@]}" download busybox-static) \
    || die "could not download busybox-static from Debian"
  dpkg-deb -x "$work"/deb/busybox-static_*.deb "$work/x"
  python3 - "$work/x/bin/busybox" "$work" "$PAUSE_IMAGE" "$BUSYBOX_IMAGE" <<'PY' || die "could not write the image tars"
import hashlib, io, json, os, subprocess, sys, tarfile

busybox, work, pause_name, busybox_name = sys.argv[1:5]
applets = subprocess.run([busybox, "--list"], capture_output=True, text=True, check=True).stdout.split()

def entry(tar, name, kind=tarfile.REGTYPE, mode=0o755, data=b"", link=""):
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.mtime, info.uid, info.gid = kind, mode, 0, 0, 0
    info.size = len(data)
    info.linkname = link
    tar.addfile(info, io.BytesIO(data) if data else None)

def layer(with_applets):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for d in ("bin", "etc", "tmp"):
            entry(tar, d, tarfile.DIRTYPE, 0o1777 if d == "tmp" else 0o755)
        entry(tar, "bin/busybox", data=open(busybox, "rb").read())
        entry(tar, "etc/passwd", mode=0o644, data=b"root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/tmp:/bin/sh\n")
        entry(tar, "etc/group", mode=0o644, data=b"root:x:0:\nnogroup:x:65534:\n")
        if with_applets:
            for a in applets:
                if a != "busybox":
                    entry(tar, "bin/" + a, tarfile.SYMTYPE, 0o777, link="busybox")
    return buf.getvalue()

def image(path, name, with_applets, config):
    data = layer(with_applets)
    diff = hashlib.sha256(data).hexdigest()
    cfg = json.dumps({"architecture": "amd64", "os": "linux", "config": config,
                      "rootfs": {"type": "layers", "diff_ids": ["sha256:" + diff]}}, sort_keys=True).encode()
    cfg_name = hashlib.sha256(cfg).hexdigest() + ".json"
    manifest = json.dumps([{"Config": cfg_name, "RepoTags": [name], "Layers": [diff + "/layer.tar"]}]).encode()
    with tarfile.open(path + ".part", "w", format=tarfile.USTAR_FORMAT) as tar:
        entry(tar, diff, tarfile.DIRTYPE)
        entry(tar, diff + "/layer.tar", mode=0o644, data=data)
        entry(tar, cfg_name, mode=0o644, data=cfg)
        entry(tar, "manifest.json", mode=0o644, data=manifest)
    os.replace(path + ".part", path)

# The sandbox only has to exist: sleep as PID 1, unprivileged (kubelet kills it with SIGKILL).
image(work + "/pause.tar", pause_name, False,
      {"Entrypoint": ["/bin/busybox", "sleep", "2147483647"], "User": "65535:65535", "WorkingDir": "/"})
image(work + "/busybox.tar", busybox_name, True,
      {"Cmd": ["/bin/sh"], "Env": ["PATH=/bin"], "User": "65534:65534", "WorkingDir": "/tmp"})
PY
  mkdir -p "$IMAGES" && mv "$work/pause.tar" "$work/busybox.tar" "$IMAGES/"
  rm -rf "$work"
}

# --- network ----------------------------------------------------------------------------------

# Saves the host settings this node changes (once: a second `up` keeps the first values).
save_sysctls() {
  [[ -s "$STATE/sysctls.saved" ]] && return 0
  local k
  for k in "${SYSCTLS[@]}"; do
    [[ -e "/proc/sys/${k//.//}" ]] && echo "$k=$(cat "/proc/sys/${k//.//}")"
  done > "$STATE/sysctls.saved"
}

OWNER_TAG="lineflow-e2e:"
# The bridge exists already. A cluster whose every process is gone (its session was killed before
# `down`, e.g. a CI run on a machine where someone left a cluster up) is taken down through its own
# state dir; a live one, or one nobody can name, stops this `up` with what to do.
stale_bridge() {
  local alias owner p
  alias="$(cat "/sys/class/net/$BRIDGE/ifalias" 2>/dev/null || true)"
  [[ "$alias" == "$OWNER_TAG"* ]] || die "a network interface $BRIDGE exists that this script did not make; remove it (ip link del $BRIDGE)"
  owner="${alias#"$OWNER_TAG"}"
  [[ -d "$owner" ]] || die "$BRIDGE was left by a cluster whose state dir $owner is gone; remove it (ip link del $BRIDGE; $BIN/kube-proxy --cleanup)"
  for p in "${PROCS[@]}"; do
    ours "$owner/$p.pid" "$owner" || continue
    die "$BRIDGE belongs to the cluster running from $owner (one cluster per machine); stop it: LINEFLOW_E2E_STATE=$owner $SELF down"
  done
  log "$BRIDGE was left by the cluster of $owner, none of whose processes runs any more: taking it down"
  LINEFLOW_E2E_STATE="$owner" "$SELF" down || die "could not take down the stale cluster of $owner"
  ! ip link show "$BRIDGE" >/dev/null 2>&1 || die "$BRIDGE still exists after taking down the stale cluster of $owner"
}

network() {
  [[ -e /proc/sys/net/bridge/bridge-nf-call-iptables ]] \
    || modprobe br_netfilter 2>/dev/null || [[ -e /proc/sys/net/bridge/bridge-nf-call-iptables ]] \
    || die "the kernel has no br_netfilter (Services between pods on the bridge need it)"
  ip link show "$BRIDGE" >/dev/null 2>&1 && stale_bridge
  local chains
  chains="$(for t in filter nat mangle; do iptables -t "$t" -S 2>/dev/null; done | grep -cE '^-N (KUBE|CNI)-' || true)"
  [[ "$chains" == 0 ]] || die "iptables already has $chains KUBE-*/CNI-* chains: another Kubernetes node on this machine?"
  touch "$PLUMBING"
  save_sysctls
  ip link add "$BRIDGE" type bridge || die "could not create bridge $BRIDGE"
  # Names its owner, so that a later `up` from another state dir can say whose it is.
  ip link set "$BRIDGE" alias "$OWNER_TAG$STATE"
  # Either step failing is fatal, which is what `A && B || die` means here.
  # shellcheck disable=SC2015
  ip addr add "$NODE_IP/24" dev "$BRIDGE" && ip link set "$BRIDGE" up || die "could not bring $BRIDGE up as $NODE_IP/24"
  # The host reaches ClusterIPs through the bridge too, not through its default route.
  ip route add "$SERVICE_CIDR" dev "$BRIDGE" src "$NODE_IP" || die "could not route $SERVICE_CIDR to $BRIDGE"
  # Routing between pods and Services (kube-proxy's DNAT on this host), and iptables on bridged traffic.
  sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1 || die "could not set ip_forward / bridge-nf-call-iptables"
  mkdir -p "$STATE/cni/net.d" "$STATE/cni/ipam"
  cat > "$STATE/cni/net.d/10-$CNI_NETWORK.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "$CNI_NETWORK",
  "plugins": [
    {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "dataDir": "$STATE/cni/ipam",
              "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$NODE_IP"}]],
              "routes": [{"dst": "$SERVICE_CIDR"}]}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
}

# --- control plane ----------------------------------------------------------------------------

control_plane() {
  certs "IP:$NODE_IP,IP:$API_SERVICE_IP,IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  issue kubelet "/CN=$NODE_NAME" "$(printf 'subjectAltName=IP:%s,DNS:%s\nextendedKeyUsage=serverAuth' "$NODE_IP" "$NODE_NAME")"
  issue apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" "extendedKeyUsage=clientAuth"
  # One static token per component, each with the identity its default RBAC is bound to.
  local c lines="" t name user group
  declare -gA COMPONENT_TOKEN=()
  for c in "kubelet|system:node:$NODE_NAME|system:nodes" "kube-controller-manager|system:kube-controller-manager|" \
           "kube-scheduler|system:kube-scheduler|" "kube-proxy|system:kube-proxy|"; do
    IFS='|' read -r name user group <<< "$c"
    t="$(openssl rand -hex 24)"
    COMPONENT_TOKEN[$name]="$t"
    lines+="$t,$user,$name${group:+,$group}"$'\n'
  done
  tokens "${lines%$'\n'}"
  start_etcd
  start_apiserver "$NODE_IP" "$API_PORT" --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
    --kubelet-preferred-address-types=InternalIP --kubelet-certificate-authority="$STATE/pki/ca.crt" \
    --kubelet-client-certificate="$STATE/pki/apiserver-kubelet-client.crt" \
    --kubelet-client-key="$STATE/pki/apiserver-kubelet-client.key"
  admin_access "https://$NODE_IP:$API_PORT"
  mkdir -p "$STATE/kubeconfigs"
  for c in "${!COMPONENT_TOKEN[@]}"; do
    kubeconfig "$STATE/kubeconfigs/$c" "https://$NODE_IP:$API_PORT" "$c" "${COMPONENT_TOKEN[$c]}"
  done
}

# --- containerd -------------------------------------------------------------------------------

containerd_() {
  local c="$STATE/containerd"
  mkdir -p "$c/root" "$c/state" "$c/runc" "$c/opt"
  # Its own socket, root and state, so a system containerd (if any) is never touched.
  cat > "$c/config.toml" <<EOF
version = 2
root = "$c/root"
state = "$c/state"
[grpc]
  address = "$SOCK"
[plugins."io.containerd.internal.v1.opt"]
  path = "$c/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # This machine kind refuses a negative oom_score_adj even to root; the CRI gives sandboxes -998.
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$c/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$STATE/cni/net.d"
    max_conf_num = 1
EOF
  launch containerd containerd --config "$c/config.toml"
  wait_for 30 containerd_answers || { alive containerd; die "containerd did not answer on $SOCK within 30 s"; }
  import "$IMAGES/pause.tar" "$IMAGES/busybox.tar"
}

containerd_answers() { [[ -S "$SOCK" ]] && ctr --address "$SOCK" --timeout 5s version >/dev/null; }

import() {
  local tar
  for tar in "$@"; do
    [[ -s "$tar" ]] || die "no image tar at $tar"
    ctr_ images import "$tar" >/dev/null || die "ctr could not import $tar into $SOCK (namespace k8s.io)"
  done
}

# --- DNS stand-in -----------------------------------------------------------------------------

dns() {
  mkdir -p "$STATE/dns"
  : > "$STATE/dns/hosts"
  chmod 755 "$STATE/dns" && chmod 644 "$STATE/dns/hosts"
  # Only on the bridge address, only hosts-file answers: every other name is NXDOMAIN (`--local=/#/`,
  # no upstream, nothing leaves the machine), so a pod's search list moves on at once, and an AAAA
  # query for a Service gets an empty answer instead of a refusal.
  launch dnsmasq dnsmasq --keep-in-foreground --conf-file=/dev/null --log-facility=- \
    --listen-address="$NODE_IP" --bind-interfaces --no-resolv --no-hosts --addn-hosts="$STATE/dns/hosts" \
    --local=/#/ --pid-file= --cache-size=0
  sleep 0.3
  alive dnsmasq
  launch dns-sync bash "$SELF" dns-sync "$STATE"
}

# The stand-in's data: every Service with a ClusterIP as <svc>.<ns>, <svc>.<ns>.svc and
# <svc>.<ns>.svc.cluster.local, rewritten when it changes (dnsmasq rereads it on SIGHUP).
dns_sync() {
  local hosts="$STATE/dns/hosts" next="$STATE/dns/hosts.next"
  local q='{range .items[*]}{.spec.clusterIP} {.metadata.name}.{.metadata.namespace} {.metadata.name}.{.metadata.namespace}.svc {.metadata.name}.{.metadata.namespace}.svc.cluster.local{"\n"}{end}'
  while ours "$STATE/dnsmasq.pid"; do
    if kctl get services -A -o jsonpath="$q" > "$next.raw"; then
      grep -E '^[0-9]' "$next.raw" | sort > "$next" || true
      if ! cmp -s "$next" "$hosts"; then
        cat "$next" > "$hosts"
        kill -HUP "$(cat "$STATE/dnsmasq.pid")"
        echo "$(date -u +%T) $(wc -l < "$hosts") Services"
      fi
    fi
    sleep 1
  done
}

# --- node -------------------------------------------------------------------------------------

# The kubelet in its own cgroup subtree, with the DNS stand-in as cluster DNS.
kubelet_() {
  mkdir -p "$STATE/kubelet"
  local cg
  for cg in /sys/fs/cgroup/*/; do
    if [[ -e "$cg/cgroup.procs" && ! -L "${cg%/}" ]]; then mkdir -p "$cg${CGROUP_ROOT#/}"; fi
  done
  echo "nameserver $NODE_IP" > "$STATE/resolv.conf"
  cat > "$STATE/kubelet-config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: $STATE/pki/kubelet.crt
tlsPrivateKeyFile: $STATE/pki/kubelet.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $STATE/pki/ca.crt}
authorization: {mode: Webhook}
cgroupDriver: cgroupfs
cgroupRoot: $CGROUP_ROOT
clusterDNS: [$NODE_IP]
clusterDomain: cluster.local
resolvConf: $STATE/resolv.conf
volumePluginDir: $STATE/kubelet/volume-plugins
failSwapOn: false
# Images cannot be pulled again here: never collect them.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 5%, imagefs.available: 5%}
# Kubernetes 1.20's kubelet finishes some pod work only when it resyncs the pod (every minute by
# default): a terminated pod's object stayed up to 70 s after its container had exited, and a
# passed startup probe made the pod Ready only a minute later. Newer kubelets act on both at once;
# the operator waits on both in an upgrade (docs/e2e-cluster.md).
syncFrequency: 10s
EOF
  launch kubelet "$BIN/kubelet" --config="$STATE/kubelet-config.yaml" --kubeconfig="$STATE/kubeconfigs/kubelet" \
    --container-runtime=remote --container-runtime-endpoint="unix://$SOCK" --root-dir="$STATE/kubelet" \
    --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" --v=1
}

node() {
  launch kube-controller-manager "$BIN/kube-controller-manager" --kubeconfig="$STATE/kubeconfigs/kube-controller-manager" \
    --port=0 --secure-port=0 --leader-elect=false --use-service-account-credentials=true \
    --service-account-private-key-file="$STATE/pki/sa.key" --root-ca-file="$STATE/pki/ca.crt" \
    --allocate-node-cidrs=false --v=1
  launch kube-scheduler "$BIN/kube-scheduler" --kubeconfig="$STATE/kubeconfigs/kube-scheduler" \
    --port=0 --secure-port=0 --leader-elect=false --v=1
  kubelet_
  launch kube-proxy "$BIN/kube-proxy" --kubeconfig="$STATE/kubeconfigs/kube-proxy" --proxy-mode=iptables \
    --hostname-override="$NODE_NAME" --bind-address="$NODE_IP" --cluster-cidr="$POD_CIDR" \
    --nodeport-addresses="$NODE_IP/32" --healthz-bind-address=127.0.0.1:10256 --metrics-bind-address=127.0.0.1:10249 \
    --conntrack-max-per-core=0 --conntrack-tcp-timeout-established=0 --conntrack-tcp-timeout-close-wait=0 --v=1
  for p in kube-controller-manager kube-scheduler kubelet kube-proxy; do sleep 0.2; alive "$p"; done
  wait_for 120 node_ready || { alive kubelet; die "node $NODE_NAME not Ready within 120 s, log: $STATE/kubelet.log"; }
  # The token controller is what makes the ServiceAccount admission plugin let pods in.
  wait_for 60 sa_token_ready || { alive kube-controller-manager; die "no ServiceAccount token Secret within 60 s, log: $STATE/kube-controller-manager.log"; }
  wait_for 30 kctl -n default get serviceaccount default || die "no default ServiceAccount within 30 s"
}

sa_token_ready() {
  [[ -n "$(kctl -n default get secret -o name --field-selector type=kubernetes.io/service-account-token)" ]]
}

node_ready() {
  [[ "$(kctl get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" == True ]]
}

# Adds the cluster's facts to STATE/env (which has the API server's K8S_* already).
write_env() {
  cat >> "$STATE/env" <<EOF
KUBECONFIG=$STATE/kubeconfig
NODE_NAME=$NODE_NAME
BRIDGE=$BRIDGE
BRIDGE_IP=$NODE_IP
POD_CIDR=$POD_CIDR
SERVICE_CIDR=$SERVICE_CIDR
DNS_SERVER=$NODE_IP
CLUSTER_DOMAIN=cluster.local
CONTAINERD_SOCK=$SOCK
CONTAINERD_ADDRESS=$SOCK
CONTAINERD_NAMESPACE=k8s.io
PAUSE_IMAGE=$PAUSE_IMAGE
BUSYBOX_IMAGE=$BUSYBOX_IMAGE
EOF
}

up() {
  require_root
  # A running cluster is kept (its node may be Ready again in a moment, e.g. a kubelet restart).
  if processes_running && wait_for 60 cluster_ready; then log "already up; kubeconfig: $STATE/kubeconfig"; return 0; fi
  local t0
  t0="$(now)"
  mkdir -p "$STATE"
  # Leftovers of an earlier run that was not brought down.
  phase cleanup down
  phase packages packages
  phase tools "$ROOT/scripts/tools.sh" "$ROOT/bin"
  phase build build
  phase images images
  trap 'rc=$?; if [[ $rc != 0 ]]; then log "up failed, undoing what it did"; down; fi' EXIT
  phase network network
  phase control-plane control_plane
  phase containerd containerd_
  phase dns dns
  phase node node
  write_env
  trap - EXIT
  log "$(printf '%-14s %6.1f s' total "$(( $(now) - t0 ))e-6")"
  log "up: node $NODE_NAME Ready at $NODE_IP; API https://$NODE_IP:$API_PORT; DNS $NODE_IP:53"
  log "use it:  source <($SELF env)   (kubeconfig $STATE/kubeconfig)"
}

# A node restart as an administrator makes one (a package upgrade, a configuration change): the
# kubelet and containerd stopped, then started again on the same state. The containers run on
# under their shims meanwhile; containerd finds them again, the kubelet its pods, and the node
# turns Ready. (A reboot, which would also stop the containers, is not this.)
restart_node() {
  require_root
  cluster_ready || die "no cluster is up (or its node is not Ready): make e2e-up"
  local t0
  t0="$(now)"
  stop_pids kubelet containerd
  containerd_
  kubelet_
  sleep 0.2
  alive kubelet
  wait_for 120 node_ready || { alive kubelet; die "node $NODE_NAME not Ready within 120 s after the restart, log: $STATE/kubelet.log"; }
  log "$(printf 'kubelet and containerd restarted; node Ready again after %.1f s' "$(( $(now) - t0 ))e-6")"
}

processes_running() {
  for p in "${PROCS[@]}"; do ours "$STATE/$p.pid" || return 1; done
}

# The API server answers (k8s-test-env.sh's status), every process runs, the node is Ready.
cluster_ready() {
  status && processes_running && node_ready
}

# --- down -------------------------------------------------------------------------------------

# Kills every container of this containerd (its shims too) and removes them, so no mount stays;
# with them go what the kubelet and the CNI library keep outside the state dir for each: the pod's
# log folder, the container's log link, the CNI result cache.
containers_gone() {
  [[ -S "$SOCK" ]] && ours "$STATE/containerd.pid" || return 0
  local id uid
  for id in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true; done
  for id in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks delete -f "$id" >/dev/null 2>&1 || true; done
  for id in $(ctr_ containers ls -q 2>/dev/null); do
    uid="$(ctr_ containers info "$id" 2>/dev/null | sed -n 's/.*"io.kubernetes.pod.uid": "\([0-9a-f-]*\)".*/\1/p' | head -1)"
    if [[ -n "$uid" ]]; then rm -rf /var/log/pods/*_"$uid"; fi
    rm -f /var/log/containers/*-"$id".log /var/lib/cni/results/*-"$id"-*
    ctr_ containers delete "$id" >/dev/null 2>&1 || true
  done
}

# Shims outlive containerd; ours name its socket on their command line.
shims_gone() {
  local f
  # The names are /proc/PID/cmdline, one word each.
  # shellcheck disable=SC2013
  for f in $(grep -lsaF -- "$SOCK" /proc/[0-9]*/cmdline); do
    if grep -qsa containerd-shim "$f"; then f="${f#/proc/}"; kill -9 "${f%/cmdline}" 2>/dev/null || true; fi
  done
}

# Unmounts everything under the state dir (pod volumes, sandbox /dev/shm, netns, rootfs), deepest first.
mounts_gone() {
  local m
  for m in $(findmnt -rn -o TARGET | grep -F -- "$STATE/" | awk '{ print length, $0 }' | sort -rn | cut -d' ' -f2-); do
    umount "$m" 2>/dev/null || umount -l "$m" || log "WARNING: could not unmount $m"
  done
}

# Removes every KUBE-*/CNI-* chain (kube-proxy's, the kubelet's, portmap's) and the jumps to them.
chains_gone() {
  local ipt t rule c chains
  for ipt in iptables ip6tables; do
    command -v "$ipt" >/dev/null || continue
    for t in filter nat mangle; do
      chains="$("$ipt" -t "$t" -S 2>/dev/null | sed -n 's/^-N \(\(KUBE\|CNI\)-[^ ]*\)$/\1/p')" || continue
      [[ -n "$chains" ]] || continue
      { "$ipt" -t "$t" -S | grep -E '^-A [A-Z]+ .*-j (KUBE|CNI)-' | grep -vE '^-A (KUBE|CNI)-' || true; } | while read -r rule; do
        eval "\"$ipt\" -t $t -D ${rule#-A }"
      done
      for c in $chains; do "$ipt" -t "$t" -F "$c"; done
      for c in $chains; do "$ipt" -t "$t" -X "$c"; done
    done
  done
}

cgroups_gone() {
  local cg
  for cg in /sys/fs/cgroup/*/"${CGROUP_ROOT#/}"; do
    [[ -d "$cg" ]] || continue
    find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null || true
    if [[ -d "$cg" ]]; then log "WARNING: cgroup $cg still in use"; fi
  done
}

down() {
  require_root
  local t0
  t0="$(now)"
  phase stop-node stop_pids kube-controller-manager kube-scheduler kubelet
  phase containers containers_gone
  phase containerd stop_pids containerd
  shims_gone
  phase stop-rest stop_pids dns-sync dnsmasq kube-proxy kube-apiserver etcd
  phase mounts mounts_gone
  # What is outside the state dir only when this state dir made it (another state's `up` must
  # not lose its bridge or cgroups to this `down`).
  if [[ -e "$PLUMBING" ]]; then
    # Neither a missing kube-proxy nor a failed cleanup stops `down`: `|| true` covers both.
    # shellcheck disable=SC2015
    [[ -x "$BIN/kube-proxy" ]] && timeout 60 "$BIN/kube-proxy" --cleanup >/dev/null 2>&1 || true
    phase iptables chains_gone
    ip link del "$BRIDGE" 2>/dev/null || true
    cgroups_gone
    # The folders of what containers_gone removed, when nothing else uses them.
    rmdir /var/lib/cni/results /var/lib/cni 2>/dev/null || true
    rmdir /var/log/pods /var/log/containers 2>/dev/null || true
    # Folders the shims and fifos made under /run/containerd, unless a system containerd runs.
    if [[ -d /run/containerd && ! -S /run/containerd/containerd.sock ]]; then
      find /run/containerd -depth -type d -empty -delete 2>/dev/null || true
    fi
  fi
  if [[ -s "$STATE/sysctls.saved" ]]; then
    sysctl -q -p "$STATE/sysctls.saved" >/dev/null || log "WARNING: could not restore $(tr '\n' ' ' < "$STATE/sysctls.saved")"
    rm -f "$STATE/sysctls.saved"
  fi
  findmnt -rn -o TARGET | grep -qF -- "$STATE/" && die "mounts under $STATE remain: $(findmnt -rn -o TARGET | grep -F -- "$STATE/")"
  rm -rf --one-file-system "$STATE/kubelet" "$STATE/containerd/state" "$STATE/containerd/runc" "$STATE/cni" "$STATE/dns" \
    "$SOCK" "$SOCK.ttrpc" \
    "$STATE/env" "$PLUMBING"
  log "$(printf '%-14s %6.1f s' down-total "$(( $(now) - t0 ))e-6")"
}

# --- check ------------------------------------------------------------------------------------

# Asks the DNS stand-in for name $1 (A record) as any resolver on the host would; prints the address.
dns_query() {
  python3 - "$NODE_IP" "$1" <<'PY'
import random, socket, struct, sys
server, name = sys.argv[1], sys.argv[2]
qid = random.randrange(65536)
query = struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0) + b"".join(
    bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\0" + struct.pack(">HH", 1, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
s.sendto(query, (server, 53))
reply = s.recv(512)
if reply[3] & 0x0F or struct.unpack(">H", reply[6:8])[0] == 0:
    sys.exit("no address for %s (rcode %d)" % (name, reply[3] & 0x0F))
print(socket.inet_ntoa(reply[-4:]))
PY
}

# Proves the cluster works as the end-to-end run needs it: an unprivileged pod on the pod network
# serves through a Service; another finds that Service by name (search list, as a JVM would) and
# the API server through the `kubernetes` Service with its ServiceAccount token; the host's view
# of the same name matches. Leaves nothing behind.
check() {
  cluster_ready || die "the cluster is not up (make e2e-up)"
  local ns=e2e-check out ip
  kctl delete namespace "$ns" --ignore-not-found --wait=true --timeout=60s >/dev/null
  kctl apply -f - >/dev/null <<EOF || die "could not create the check's objects"
apiVersion: v1
kind: Namespace
metadata: {name: $ns}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: checker, namespace: $ns}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: read-services, namespace: $ns}
rules: [{apiGroups: [""], resources: [services], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: checker-read-services, namespace: $ns}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: read-services}
subjects: [{kind: ServiceAccount, name: checker, namespace: $ns}]
---
apiVersion: v1
kind: Service
metadata: {name: echo, namespace: $ns}
spec:
  selector: {app: echo}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: echo, namespace: $ns, labels: {app: echo}}
spec:
  securityContext: {runAsNonRoot: true, runAsUser: 65534, runAsGroup: 65534}
  containers:
  - name: httpd
    image: $BUSYBOX_IMAGE
    imagePullPolicy: Never
    command: [sh, -c, 'mkdir /tmp/www && echo "served by \$(hostname) as \$(id -u)" > /tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www']
    ports: [{containerPort: 8080}]
    securityContext: {allowPrivilegeEscalation: false}
EOF
  wait_for 90 kctl -n "$ns" wait pod/echo --for=condition=Ready --timeout=5s \
    || { kctl -n "$ns" describe pod echo >&2; die "pod echo not Ready within 90 s"; }
  # The client starts after the Service exists, so the DNS stand-in has had a second to learn it.
  wait_for 10 dns_query "echo.$ns.svc.cluster.local" >/dev/null || die "the DNS stand-in does not know echo.$ns"
  kctl apply -f - >/dev/null <<EOF || die "could not create the client pod"
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: $ns}
spec:
  serviceAccountName: checker
  restartPolicy: Never
  securityContext: {runAsNonRoot: true, runAsUser: 65534, runAsGroup: 65534}
  containers:
  - name: client
    image: $BUSYBOX_IMAGE
    imagePullPolicy: Never
    securityContext: {allowPrivilegeEscalation: false}
    command:
    - sh
    - -ec
    - |
      sa=/var/run/secrets/kubernetes.io/serviceaccount
      echo "uid \$(id -u), pod IP \$(hostname -i)"
      grep -E '^(search|nameserver|options)' /etc/resolv.conf
      echo "by short name: \$(timeout 5 wget -q -O - http://echo.$ns/)"
      echo "by full name: \$(timeout 5 wget -q -O - http://echo.$ns.svc.cluster.local/)"
      api="https://kubernetes.default.svc"
      echo "API as ServiceAccount: \$(timeout 5 wget -q -O - --no-check-certificate \\
        --header "Authorization: Bearer \$(cat \$sa/token)" \$api/api/v1/namespaces/$ns/services/echo | grep -o '"clusterIP": *"[0-9.]*"')"
      if refused="\$(timeout 5 wget -q -O /dev/null --no-check-certificate --header "Authorization: Bearer \$(cat \$sa/token)" \\
           \$api/api/v1/namespaces/kube-system/services 2>&1)"; then
        echo "RBAC not enforced: kube-system readable"; exit 1
      fi
      echo "API outside the Role: \$(echo "\$refused" | grep -o 'HTTP/1.1 [0-9]*')"
EOF
  wait_for 90 pod_done "$ns" client || die "pod client did not finish within 90 s"
  out="$(kctl -n "$ns" logs client)"
  echo "$out"
  [[ "$(kctl -n "$ns" get pod client -o jsonpath='{.status.phase}')" == Succeeded ]] || die "the client's checks failed (above)"
  ip="$(kctl -n "$ns" get service echo -o jsonpath='{.spec.clusterIP}')"
  grep -q "by short name: served by echo as 65534" <<< "$out" || die "echo.$ns did not answer through its Service by short name"
  grep -q "API as ServiceAccount: \"clusterIP\": *\"$ip\"" <<< "$out" || die "the API server did not answer the ServiceAccount"
  grep -q "API outside the Role: HTTP/1.1 403" <<< "$out" || die "the API server did not refuse what the Role does not grant"
  [[ "$(dns_query "echo.$ns")" == "$ip" ]] || die "the host-side query for echo.$ns is not $ip"
  echo "host: echo.$ns -> $(dns_query "echo.$ns") at $NODE_IP:53"
  kctl delete namespace "$ns" --wait=true --timeout=120s >/dev/null || die "could not delete namespace $ns"
  log "check passed"
}

pod_done() {
  [[ "$(kctl -n "$1" get pod "$2" -o jsonpath='{.status.phase}')" =~ ^(Succeeded|Failed)$ ]]
}

env_() {
  grep -q '^BRIDGE_IP=' "$STATE/env" 2>/dev/null || die "no cluster is up (no $STATE/env); run: make e2e-up"
  sed 's/^/export /' "$STATE/env"
}

# Run as a command (sourced, it only defines the above).
[[ "${BASH_SOURCE[0]}" == "$0" ]] || return 0
case "${1:-}" in
  up) up ;;
  down) down ;;
  status)
    if cluster_ready; then kctl get node -o wide; else log "not up (or not Ready): $STATE"; exit 1; fi ;;
  env) env_ ;;
  check) check ;;
  restart-node) restart_node ;;
  import) shift; [[ $# -gt 0 ]] || die "usage: $0 import IMAGE.tar..."; import "$@" ;;
  dns-sync) STATE="$2"; dns_sync ;;
  *) echo "usage: $0 up | down | status | env | check | restart-node | import IMAGE.tar..." >&2; exit 2 ;;
esac
