#!/usr/bin/env bash
# Entry point of the stand-in Flink image (kubernetes.entry.path, /docker-entrypoint.sh).
#
# The operator starts every Flink pod as `/docker-entrypoint.sh bash -c "kubernetes-….sh …"`,
# so this only passes its arguments on with exec: the start scripts then exec java, which ends
# up as PID 1 (a `kill 1` in the pod kills the JVM, as with the official image).
set -euo pipefail

# The official image copies optional plugins from opt/ on request; this image has no opt/, so
# a deployment relying on that would start without its plugin and fail later, far from the cause.
if [[ -n "${ENABLE_BUILT_IN_PLUGINS:-}" ]]; then
  echo "docker-entrypoint.sh: ENABLE_BUILT_IN_PLUGINS='${ENABLE_BUILT_IN_PLUGINS}' is not supported by this" \
    "stand-in image (it ships plugins/metrics-prometheus only, no opt/); use the official flink image" >&2
  exit 1
fi
if [[ $# -eq 0 || "$1" == help ]]; then
  echo "usage: /docker-entrypoint.sh COMMAND [ARG…]   (e.g. bash -c \"kubernetes-jobmanager.sh kubernetes-application\")"
  exit 0
fi
exec "$@"
