#!/usr/bin/env bash
# Extracts the CRDs of the Flink Kubernetes Operator release lineflow installs from that release's
# source (its Helm chart's crds/ folder: the CRDs `make operator-install` applies), for the tests
# that validate against them: deploy's offline schema check and k8s-it's real API server. The
# operator's API jar on Maven Central here is older than the release installed, so its CRDs are
# not the ones to test against. The source release is read in place, never copied into the repo.
#
# Usage: scripts/operator-crds.sh OUT_DIR   writes OUT_DIR/VERSION/*.yml (replacing what was there)
# VERSION is $OPERATOR_CHART_VERSION, else operator-config/chart.env's.
# Env: LINEFLOW_OPERATOR_SRC  the operator's source release (.tar.gz), as for scripts/e2e-images.sh;
#      default ../shared/vendor/flink-kubernetes-operator-VERSION-src.tar.gz, relative to the repository
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
OUT="${1:?usage: operator-crds.sh OUT_DIR}"
VERSION="$(operator_version "")"
SRC="$(operator_src "$VERSION")"
need_operator_src "$SRC" "$VERSION"

dest="$OUT/$VERSION"
rm -rf "$dest.part" && mkdir -p "$dest.part"
# <release>/helm/flink-kubernetes-operator/crds/NAME.yml -> NAME.yml
tar xzf "$SRC" -C "$dest.part" --strip-components=4 --wildcards '*/helm/flink-kubernetes-operator/crds/*.yml' \
  || die "$SRC holds no helm/flink-kubernetes-operator/crds/*.yml"
rm -rf "$dest" && mv "$dest.part" "$dest"
log "$(find "$dest" -name '*.yml' | wc -l) CRDs from $(basename "$SRC") in $dest"
