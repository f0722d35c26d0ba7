#!/usr/bin/env bash
# `make e2e`: lineflow on a real single-node Kubernetes cluster under the real Flink Kubernetes
# Operator, checked cell by cell. Phases, each timed:
#   up          the node (scripts/e2e-cluster.sh up): etcd, API server, controller manager,
#               scheduler, kubelet + containerd, kube-proxy, bridge network, DNS stand-in
#   images      the stand-in Flink base, the job, reconciler and operator images (Jib tars),
#               imported into the node's containerd
#   operator    the operator from its source release's chart (make operator-install)
#   services    real Kafka, PostgreSQL and an S3 server (S3Proxy) on the host, on the node's
#               bridge address; Prometheus and the Alertmanager on loopback, scraping what the
#               deployed PodMonitors select and evaluating the deployed PrometheusRule
#   deploy      `make deploy ENV=e2e` (or e2e-flink-2.2) exactly as a user runs it (schema
#               migration Job included)
#   running     until the operator reports the JobManager READY and the job RUNNING
#   verify      the drill's scenarios (E2E_SCENARIOS, default `steady`), each with the drill's
#               deterministic input, a fault halfway through it, the table exact cell by cell
#               and the in-cluster reconciler HEALTHY afterwards; then no ValidationError and
#               every container non-root
#   undeploy    `make undeploy ENV=e2e`; nothing of lineflow left in the namespace
# The cluster stays up afterwards (make e2e-down stops it); E2E_KEEP=1 also keeps the deployment.
#
# Usage: scripts/e2e.sh
# E2E_SCENARIOS: the drill's scenarios, comma-separated (`make e2e-drill` runs `all`), e.g.
#   "steady,jm-pod-delete"; the list is in docs/e2e.md and drill/src/main/java/io/lineflow/drill/core/Fault.java.
# E2E_ARGS: extra options of the verifier (KubernetesE2e verify), e.g. "--time-per-window 3s".
# E2E_FLINK_LINE (make: FLINK_LINE): 1.20 (default) deploys overlay e2e; 2.2 deploys overlay e2e-flink-2.2 (the
#   flink-2.2 component and the job image built for 2.2), and its upgrades go to the next release
#   built for 2.2. The drill leaves out what needs an older line (docs/flink-lines.md).
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
RUN="${E2E_RUN_DIR:-$ROOT/.cache/e2e-run}"
NS=lineflow-e2e
OPERATOR_NS="$(sed -n 's/^OPERATOR_NAMESPACE=//p' operator-config/chart.env)"
KAFKA_PORT=19092
PG_PORT=15432
S3_PORT=19000
CONTROL_PORT=19099
PROMETHEUS_PORT=19090
ALERTMANAGER_PORT=19093
MAKE="${MAKE:-make}"
read -r -a MVN <<< "${MVN:-mvn -B -ntp}"
E2E_ARGS="${E2E_ARGS:-}"
E2E_SCENARIOS="${E2E_SCENARIOS:-steady}"
mkdir -p "$RUN"
TIMINGS="$RUN/timings.txt"
: > "$TIMINGS"
# A failed run says FAILED, not lib.sh's ERROR.
die() { log "FAILED: $*"; exit 1; }
export E2E_FLINK_LINE="${E2E_FLINK_LINE:-1.20}"
case "$E2E_FLINK_LINE" in
  1.20) OVERLAY=e2e JOB_TAG=e2e ;;
  2.2) OVERLAY=e2e-flink-2.2 JOB_TAG=e2e-flink-2.2 ;;
  *) die "E2E_FLINK_LINE='$E2E_FLINK_LINE': allowed are 1.20 and 2.2" ;;
esac
NEXT_TAG="$JOB_TAG-next"

phase_start=0
phase() {
  local now=$SECONDS
  if [[ -n "${phase_name:-}" ]]; then
    printf '%-10s %5d s\n' "$phase_name" "$((now - phase_start))" >> "$TIMINGS"
  fi
  phase_name="${1:-}"; phase_start=$now
  [[ -z "$phase_name" ]] || log "── $phase_name"
}

# Polls "$@" every 2 s until it succeeds or $1 seconds pass; says what it waited for.
await() {
  local timeout="$1" what="$2"; shift 2
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    (( SECONDS < deadline )) || die "$what: not within $timeout s"
    sleep 2
  done
}

services_pid() { [[ -s "$RUN/services.pid" ]] && cat "$RUN/services.pid"; }
stop_services() {
  local pid
  pid="$(services_pid || true)"
  if [[ -n "$pid" ]] && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q KubernetesE2e; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    # Its process group (setsid below): with it the S3 server it started, which a kill -9 of the
    # services process alone would leave holding its port (PostgreSQL has a session of its own).
    kill -9 -- "-$pid" 2>/dev/null || true
  fi
  rm -f "$RUN/services.pid"
}

# --- the cluster ---------------------------------------------------------------------------------
phase up
if scripts/e2e-cluster.sh status >/dev/null 2>&1; then log "the cluster is up already"; else scripts/e2e-cluster.sh up; fi
# KUBECONFIG, BRIDGE_IP, POD_CIDR, CONTAINERD_SOCK, … (export lines)
eval "$(scripts/e2e-cluster.sh env)"
KUBECTL=("$ROOT/bin/kubectl")
[[ "$BRIDGE_IP" == 10.244.0.1 ]] || die "the e2e overlay expects the bridge at 10.244.0.1, the cluster has $BRIDGE_IP"

phase images
"$MAKE" --no-print-directory e2e-images E2E_STATE="${LINEFLOW_E2E_STATE:-$ROOT/.cache/e2e}"

phase operator
# The scenario operator-upgrade (named, or in `all`/`faults`) starts on the release an upgrade
# comes from (chart.env's OPERATOR_UPGRADE_FROM) and upgrades to chart.env's own in the drill.
# That release knows flinkVersion only up to v1_20: on 2.2, `all` and `faults` leave the
# scenario out (as the drill does), and naming it is refused here, before anything is installed.
UPGRADE_FROM="$(sed -n 's/^OPERATOR_UPGRADE_FROM=//p' operator-config/chart.env)"
from_old_operator=false
case ",${E2E_SCENARIOS// /}," in
  *,operator-upgrade,*)
    [[ "$E2E_FLINK_LINE" == 1.20 ]] || die "operator-upgrade cannot run on Flink $E2E_FLINK_LINE: operator $UPGRADE_FROM knows flinkVersion only up to v1_20"
    from_old_operator=true ;;
  *,all,* | *,faults,*) [[ "$E2E_FLINK_LINE" != 1.20 ]] || from_old_operator=true ;;
esac
if [[ "$from_old_operator" == true ]]; then
  [[ -n "$UPGRADE_FROM" ]] || die "operator-upgrade needs OPERATOR_UPGRADE_FROM in operator-config/chart.env"
  "$MAKE" --no-print-directory operator-image OPERATOR_CHART_VERSION="$UPGRADE_FROM"
  from_tar="$(OPERATOR_CHART_VERSION="$UPGRADE_FROM" scripts/e2e-images.sh env | sed -n 's/^OPERATOR_TAR=//p')"
  ctr --address "$CONTAINERD_SOCK" -n k8s.io images import "$from_tar" >/dev/null
  log "operator-upgrade: installing the operator $UPGRADE_FROM first"
  "$MAKE" --no-print-directory operator-install ENV=e2e OPERATOR_CHART_VERSION="$UPGRADE_FROM"
else
  "$MAKE" --no-print-directory operator-install ENV=e2e
fi

# --- Kafka, PostgreSQL and S3 on the host ----------------------------------------------------------
phase services
stop_services
for cmd in prometheus prometheus-alertmanager; do
  command -v "$cmd" >/dev/null || die "$cmd is missing: scripts/e2e-cluster.sh up installs it (make e2e-down, then make e2e again)"
done
umask 077
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$RUN/db-password"
head -c 10 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$RUN/s3-access-key"
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$RUN/s3-secret-key"
umask 022
LINEFLOW_JDBC_PASSWORD="$(cat "$RUN/db-password")"
LINEFLOW_S3_ACCESS_KEY="$(cat "$RUN/s3-access-key")"
LINEFLOW_S3_SECRET_KEY="$(cat "$RUN/s3-secret-key")"
export LINEFLOW_JDBC_PASSWORD LINEFLOW_S3_ACCESS_KEY LINEFLOW_S3_SECRET_KEY
"${MVN[@]}" -q -pl job,drill -am -DskipTests package
DRILL_CP="drill/target/classes:$(cat drill/target/drill.classpath)"
# S3Proxy runs from its own classpath, apart from the drill's (drill/s3-server/pom.xml).
"${MVN[@]}" -q -f drill/s3-server/pom.xml dependency:build-classpath
rm -rf "$RUN/services"
setsid java -Xmx768m -Djava.io.tmpdir="$RUN" -cp "$DRILL_CP" io.lineflow.drill.KubernetesE2e services \
  --host "$BRIDGE_IP" --kafka-port "$KAFKA_PORT" --postgres-port "$PG_PORT" \
  --s3-port "$S3_PORT" --s3-classpath "$ROOT/drill/s3-server/target/s3proxy.classpath" \
  --client-cidr "$POD_CIDR" --dir "$RUN/services" --control-port "$CONTROL_PORT" \
  --prometheus-port "$PROMETHEUS_PORT" --alertmanager-port "$ALERTMANAGER_PORT" </dev/null >"$RUN/services.log" 2>&1 &
echo $! > "$RUN/services.pid"
# rc is assigned inside the trap's own command.
# shellcheck disable=SC2154
trap 'rc=$?; [[ "${E2E_KEEP:-0}" = 1 ]] || stop_services; exit $rc' EXIT
await 180 "Kafka, PostgreSQL, S3, Prometheus and the Alertmanager" grep -q "e2e services ready" "$RUN/services.log"

# --- deploy as a user would ---------------------------------------------------------------------
phase deploy
# A clean slate: an earlier run's deployment (E2E_KEEP=1, or a failed run) is undeployed first.
# The namespace itself stays: `make operator-install` made it and put the operator's Role in it;
# deleting the namespace would take that Role away (and, with a FlinkDeployment still in it,
# hang in Terminating because the operator may no longer finish its finalizer: seen here).
undeploy_all() {
  "$MAKE" --no-print-directory undeploy ENV="$OVERLAY" NAMESPACE="$NS" KUBECTL="${KUBECTL[0]}" >/dev/null
  "${KUBECTL[@]}" -n "$NS" delete configmap lineflow-lineflow-health --ignore-not-found >/dev/null
  await 300 "undeploy to leave nothing of lineflow in $NS" nothing_left
  "${KUBECTL[@]}" -n "$NS" delete secret lineflow-db lineflow-s3 --ignore-not-found >/dev/null
}
left() {
  "${KUBECTL[@]}" -n "$NS" get flinkdeployments,deployments,pods,services,jobs,configmaps,pvc -o name \
    | grep -v '^configmap/kube-root-ca.crt$' || true
}
nothing_left() { [[ -z "$(left)" ]]; }
if [[ -n "$(left)" ]]; then
  log "undeploying the previous run's lineflow from $NS"
  undeploy_all
fi
"${KUBECTL[@]}" create namespace "$NS" --dry-run=client -o yaml | "${KUBECTL[@]}" apply -f - >/dev/null
"${KUBECTL[@]}" -n "$NS" create secret generic lineflow-db --from-file=password="$RUN/db-password" \
  --dry-run=client -o yaml | "${KUBECTL[@]}" apply -f - >/dev/null
"${KUBECTL[@]}" -n "$NS" create secret generic lineflow-s3 --from-file=access-key="$RUN/s3-access-key" \
  --from-file=secret-key="$RUN/s3-secret-key" --dry-run=client -o yaml | "${KUBECTL[@]}" apply -f - >/dev/null
# The production overlay's PodMonitors and PrometheusRule need the Prometheus Operator's CRDs:
# stand-ins (the real ones are in no package this machine can reach; see the files' comment).
"${KUBECTL[@]}" apply -f k8s-it/src/test/resources/crds/ >/dev/null
"${KUBECTL[@]}" wait --for=condition=Established --timeout=60s \
  crd/podmonitors.monitoring.coreos.com crd/prometheusrules.monitoring.coreos.com >/dev/null
"$MAKE" --no-print-directory deploy ENV="$OVERLAY" NAMESPACE="$NS" KUBECTL="${KUBECTL[0]}"

phase running
fd_status() {
  "${KUBECTL[@]}" -n "$NS" get flinkdeployment lineflow \
    -o jsonpath='{.status.jobManagerDeploymentStatus}/{.status.jobStatus.state}/{.status.lifecycleState}'
}
running() { [[ "$(fd_status)" == READY/RUNNING/* ]]; }
deadline=$((SECONDS + 600))
until running; do
  if (( SECONDS > deadline )); then
    "${KUBECTL[@]}" -n "$NS" get flinkdeployment,pods,events >&2 || true
    die "FlinkDeployment not READY/RUNNING within 600 s (now: $(fd_status))"
  fi
  sleep 3
done
log "operator status: $(fd_status)"

# --- the checks -------------------------------------------------------------------------------------
phase verify
# The upgrade scenarios roll out the job's next release (lineflow-job:e2e-next, or :e2e-flink-2.2-next
# on 2.2: this build plus images/job-next/next-release.patch, one more figure in the window state)
# under new tags, as a registry would serve them. It must be another image, or the upgrades would
# prove nothing.
images="$(ctr --address "$CONTAINERD_SOCK" -n k8s.io images ls)"
digest() { awk -v suffix="/lineflow-job:$1" 'substr($1, length($1) - length(suffix) + 1) == suffix { print $3; exit }' <<< "$images"; }
next_image="$(awk -v suffix="/lineflow-job:$NEXT_TAG" 'substr($1, length($1) - length(suffix) + 1) == suffix { print $1; exit }' <<< "$images")"
[[ -n "$next_image" && -n "$(digest "$JOB_TAG")" ]] || die "lineflow-job:$JOB_TAG and :$NEXT_TAG must both be in the node's containerd"
[[ "$(digest "$JOB_TAG")" != "$(digest "$NEXT_TAG")" ]] || die "lineflow-job:$NEXT_TAG is the same image as :$JOB_TAG"
for tag in e2e-upgrade-1 e2e-upgrade-2; do
  ctr --address "$CONTAINERD_SOCK" -n k8s.io images tag --force "$next_image" "${next_image%:"$NEXT_TAG"}:$tag" >/dev/null
done
# E2E_ARGS is split into the verifier's options.
# shellcheck disable=SC2086
java -cp "$DRILL_CP" io.lineflow.drill.KubernetesE2e verify \
  --bootstrap "$BRIDGE_IP:$KAFKA_PORT" --jdbc-url "jdbc:postgresql://$BRIDGE_IP:$PG_PORT/lineflow" \
  --namespace "$NS" --operator-namespace "$OPERATOR_NS" --kubectl "${KUBECTL[0]}" \
  --overlay "$ROOT/kustomize/overlays/$OVERLAY" --work "$RUN" --services "http://127.0.0.1:$CONTROL_PORT" \
  --cluster-script "$ROOT/scripts/e2e-cluster.sh" --containerd-socket "$CONTAINERD_SOCK" --scenarios "$E2E_SCENARIOS" --report "$RUN/report" \
  --prometheus "http://127.0.0.1:$PROMETHEUS_PORT" --alertmanager "http://127.0.0.1:$ALERTMANAGER_PORT" \
  --dashboard "$ROOT/manifests/monitoring/dashboards/lineflow.json" \
  --operator-upgrade "$MAKE --no-print-directory -C $ROOT operator-install ENV=e2e KUBECTL=${KUBECTL[0]}" $E2E_ARGS \
  || die "the drill failed: a table not exact, a control not caught, the reconciler or its audit not agreeing, an alert missing or left firing, or a dashboard query without data (report in $RUN/report)"

if "${KUBECTL[@]}" get events -A --field-selector reason=ValidationError -o name | grep -q .; then
  "${KUBECTL[@]}" get events -A --field-selector reason=ValidationError >&2
  die "the operator reported a ValidationError"
fi
log "no ValidationError event"

# Every container of lineflow and of the operator, as the kernel sees it: its process's real uid.
nonroot=0
while read -r task pid _; do
  labels="$(ctr --address "$CONTAINERD_SOCK" -n k8s.io containers info "$task" 2>/dev/null \
    | python3 -c 'import json,sys; l=json.load(sys.stdin)["Labels"]; print(l.get("io.kubernetes.pod.namespace",""), l.get("io.kubernetes.pod.name",""), l.get("io.kubernetes.container.name","sandbox"))')"
  read -r pod_ns pod container <<< "$labels"
  [[ "$pod_ns" == "$NS" || "$pod_ns" == "$OPERATOR_NS" ]] || continue
  uid="$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")"
  [[ "$uid" != 0 ]] || die "container $container of pod $pod_ns/$pod runs as root"
  nonroot=$((nonroot + 1))
done < <(ctr --address "$CONTAINERD_SOCK" -n k8s.io tasks ls | awk 'NR > 1 && $3 == "RUNNING"')
(( nonroot > 0 )) || die "found no running container of $NS or $OPERATOR_NS to check"
log "$nonroot containers of $NS and $OPERATOR_NS checked: none runs as root"

# --- leave nothing behind -------------------------------------------------------------------------
phase undeploy
if [[ "${E2E_KEEP:-0}" = 1 ]]; then
  log "E2E_KEEP=1: the deployment stays; make undeploy ENV=$OVERLAY NAMESPACE=$NS removes it"
else
  undeploy_all
  log "nothing of lineflow left in $NS (only the operator's own RBAC)"
  # The bucket, after the cancel: retained checkpoints (RETAIN_ON_CANCELLATION), each with its
  # metadata, and RocksDB's incremental files in the job's shared/ folder.
  keys="$(curl -sf "http://127.0.0.1:$CONTROL_PORT/s3/keys")" || die "could not list the S3 bucket"
  retained="$(grep -cE '^checkpoints/[0-9a-f]{32}/chk-[0-9]+/_metadata$' <<< "$keys" || true)"
  shared="$(grep -cE '^checkpoints/[0-9a-f]{32}/shared/.' <<< "$keys" || true)"
  (( retained > 0 )) || die "no retained checkpoint (checkpoints/<job>/chk-N/_metadata) in the bucket after the undeploy"
  (( shared > 0 )) || die "no RocksDB incremental file (checkpoints/<job>/shared/) in the bucket after the undeploy"
  log "the bucket keeps $retained retained checkpoints and $shared incremental RocksDB files after the undeploy"
fi
phase
echo "== e2e passed; phase times:"
cat "$TIMINGS"
