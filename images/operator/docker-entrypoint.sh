#!/usr/bin/env bash
# Entry point of the operator image built by scripts/e2e-images.sh: the chart runs
# `/docker-entrypoint.sh operator`. Same contract as the upstream image's entry point (classpath
# of the standalone and shaded operator jars plus $OPERATOR_LIB, $LOG_CONFIG and $JVM_ARGS from
# the chart), without the optional jemalloc preload; any other command runs as given.
set -euo pipefail
cd /flink-kubernetes-operator

# From 1.15 the SLF4J binding is not in the shaded jar: the chart's LOGGING_FRAMEWORK (log4j2 or
# logback) picks the folder of $OPERATOR_LOG that goes on the classpath, as upstream. Before 1.15
# neither folder exists and the binding inside the shaded jar is used.
if [[ "${LOGGING_FRAMEWORK:-log4j2}" == logback ]]; then
  LOG_CLASSPATH="${OPERATOR_LOG:-/opt/flink/log}/logback/*"
else
  LOG_CLASSPATH="${OPERATOR_LOG:-/opt/flink/log}/log4j/*"
fi

case "${1:-help}" in
  operator)
    echo "Starting Operator"
    # shellcheck disable=SC2086  # LOG_CONFIG and JVM_ARGS are option lists.
    exec java -cp "./$KUBERNETES_STANDALONE_JAR:./$OPERATOR_JAR:$LOG_CLASSPATH:$OPERATOR_LIB/*" ${LOG_CONFIG:-} ${JVM_ARGS:-} \
      org.apache.flink.kubernetes.operator.FlinkOperator
    ;;
  webhook)
    echo "docker-entrypoint.sh: this image has no webhook jar; install the chart with webhook.create=false" >&2
    exit 1
    ;;
  help)
    echo "usage: /docker-entrypoint.sh operator | COMMAND [ARG…]"
    ;;
  *) exec "$@" ;;
esac
