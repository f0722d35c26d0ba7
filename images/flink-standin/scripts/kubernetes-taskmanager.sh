#!/usr/bin/env bash
# What the JobManager runs in each TaskManager pod (bash -c "kubernetes-taskmanager.sh -D …").
exec "$(dirname "$0")/flink-start.sh" taskmanager "$@"
