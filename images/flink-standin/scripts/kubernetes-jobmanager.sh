#!/usr/bin/env bash
# What the operator runs in the JobManager container (bash -c "kubernetes-jobmanager.sh kubernetes-application …").
exec "$(dirname "$0")/flink-start.sh" jobmanager "$@"
