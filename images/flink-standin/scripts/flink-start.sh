#!/usr/bin/env bash
# Starts a Flink 1.20 JobManager or TaskManager of a native-Kubernetes application cluster in the
# stand-in image: the part of Flink's flink-dist start scripts that the operator's pods use.
#
# Usage: flink-start.sh jobmanager kubernetes-application [-D key=value …]
#        flink-start.sh taskmanager [-D key=value …]
# Env:   FLINK_HOME, FLINK_CONF_DIR (the operator's ConfigMap: config.yaml or flink-conf.yaml and
#        log4j-console.properties), FLINK_LOG_DIR, FLINK_TM_JVM_MEM_OPTS (TaskManager heap flags,
#        set by Flink), JVM_ARGS (extra JVM flags).
set -euo pipefail

FLINK_HOME="${FLINK_HOME:-/opt/flink}"
FLINK_CONF_DIR="${FLINK_CONF_DIR:-$FLINK_HOME/conf}"
FLINK_LOG_DIR="${FLINK_LOG_DIR:-$FLINK_HOME/log}"
export FLINK_HOME FLINK_CONF_DIR FLINK_LOG_DIR
CLASSPATH_LIB="$FLINK_HOME/lib/*"
# JDK 17 needs these opened for Flink's serializers and network stack; Flink's distribution sets
# them as env.java.default-opts.all in its conf, which the operator's ConfigMap replaces.
JDK17_DEFAULT_OPTS="--add-exports=java.base/sun.net.util=ALL-UNNAMED --add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED --add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED"
for p in java.lang java.net java.io java.nio sun.nio.ch java.lang.reflect java.text java.time java.util \
         java.util.concurrent java.util.concurrent.atomic java.util.concurrent.locks; do
  JDK17_DEFAULT_OPTS+=" --add-opens=java.base/$p=ALL-UNNAMED"
done

die() { echo "flink-start.sh: $*" >&2; exit 1; }

[[ -d "$FLINK_CONF_DIR" ]] || die "FLINK_CONF_DIR=$FLINK_CONF_DIR is not a directory"
CONF_FILE="$FLINK_CONF_DIR/config.yaml"
[[ -f "$CONF_FILE" ]] || CONF_FILE="$FLINK_CONF_DIR/flink-conf.yaml"
[[ -f "$CONF_FILE" ]] || die "neither config.yaml nor flink-conf.yaml in FLINK_CONF_DIR=$FLINK_CONF_DIR"

# Value of a flat `key: value` line (how Flink's clients write the cluster's conf), last one
# wins, one pair of surrounding quotes removed; $2 when the key is absent.
conf() {
  local v
  v="$(sed -n "s/^[[:space:]]*${1//./\\.}[[:space:]]*:[[:space:]]*\(.*\)$/\1/p" "$CONF_FILE" | tail -n 1)"
  v="${v%"${v##*[![:space:]]}"}"
  if [[ "$v" =~ ^\"(.*)\"$ || "$v" =~ ^\'(.*)\'$ ]]; then v="${BASH_REMATCH[1]}"; fi
  echo "${v:-$2}"
}

role="${1:-}"; shift || true
case "$role" in
  jobmanager)
    [[ "${1:-}" == kubernetes-application ]] \
      || die "jobmanager mode '${1:-}' is not supported; allowed: kubernetes-application"
    shift
    main=org.apache.flink.kubernetes.entrypoint.KubernetesApplicationClusterEntrypoint
    role_opts="$(conf env.java.default-opts.jobmanager '') $(conf env.java.opts.jobmanager '')"
    # Heap, metaspace and direct memory from jobmanager.memory.* (the operator sets the process
    # size), computed by Flink's own BashJavaUtils as flink-dist's scripts do.
    out="$(java -cp "$CLASSPATH_LIB" org.apache.flink.runtime.util.bash.BashJavaUtils \
        GET_JM_RESOURCE_PARAMS --configDir "$FLINK_CONF_DIR" "$@" 2>&1)" \
      || die "computing the JobManager memory failed: $out"
    mapfile -t result <<<"$(sed -n 's/^BASH_JAVA_UTILS_EXEC_RESULT://p' <<<"$out")"
    [[ ${#result[@]} -eq 2 ]] || die "unexpected BashJavaUtils output: $out"
    mem_opts="${result[0]}"
    read -r -a dynamic <<<"${result[1]}"
    args=("${dynamic[@]}" "$@")
    log_name="flink--kubernetes-application-0-${HOSTNAME:-jobmanager}"
    ;;
  taskmanager)
    main=org.apache.flink.kubernetes.taskmanager.KubernetesTaskExecutorRunner
    role_opts="$(conf env.java.default-opts.taskmanager '') $(conf env.java.opts.taskmanager '')"
    [[ -n "${FLINK_TM_JVM_MEM_OPTS:-}" ]] || die "FLINK_TM_JVM_MEM_OPTS is not set (Flink sets it on TaskManager pods)"
    mem_opts="$FLINK_TM_JVM_MEM_OPTS"
    args=(--configDir "$FLINK_CONF_DIR" "$@")
    log_name="flink--kubernetes-taskmanager-0-${HOSTNAME:-taskmanager}"
    ;;
  *) die "role '$role' is not supported; allowed: jobmanager, taskmanager" ;;
esac

mkdir -p "$FLINK_LOG_DIR" 2>/dev/null || true
java_opts="$(conf env.java.default-opts.all "$JDK17_DEFAULT_OPTS") $(conf env.java.opts.all "$(conf env.java.opts '')") $role_opts"
# shellcheck disable=SC2086  # JVM option strings are word lists, as in Flink's scripts.
exec java ${JVM_ARGS:-} $mem_opts $java_opts \
  "-Dlog.file=$FLINK_LOG_DIR/$log_name.log" \
  "-Dlog4j.configurationFile=file:$FLINK_CONF_DIR/log4j-console.properties" \
  "-Dlogback.configurationFile=file:$FLINK_CONF_DIR/logback-console.xml" \
  -classpath "$CLASSPATH_LIB" "$main" "${args[@]}"
