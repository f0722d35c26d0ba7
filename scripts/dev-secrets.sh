#!/usr/bin/env bash
# Creates the dev overlay's Secrets with random values if they do not exist yet, so that no
# secret value is ever written to git. Usage: scripts/dev-secrets.sh KUBECTL NAMESPACE
set -euo pipefail
KUBECTL="${1:?kubectl path}"
NS="${2:?namespace}"

random() { head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

if ! "$KUBECTL" -n "$NS" get secret lineflow-db >/dev/null 2>&1; then
  "$KUBECTL" -n "$NS" create secret generic lineflow-db --from-literal=password="$(random)"
fi
if ! "$KUBECTL" -n "$NS" get secret lineflow-s3 >/dev/null 2>&1; then
  "$KUBECTL" -n "$NS" create secret generic lineflow-s3 \
    --from-literal=access-key="lineflow-$(random | head -c 8)" --from-literal=secret-key="$(random)"
fi
