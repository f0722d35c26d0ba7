# shellcheck shell=bash
# The preamble the scripts of this folder share, sourced right after their `set -euo pipefail`
# (it sets no shell options of its own, so a script reads the same with or without it).
# ROOT: the repository, wherever the script is called from (read by the scripts, not here).
# shellcheck disable=SC2034
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Messages go to stderr, tagged with the name the script was started as (e2e-cluster.sh, which
# sources k8s-test-env.sh, logs as "e2e-cluster" in both).
log() { local name="${0##*/}"; echo "${name%.sh}: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# The Flink Kubernetes Operator release to work with: $1 when not empty, else $OPERATOR_CHART_VERSION
# (`make … OPERATOR_CHART_VERSION=X` exports it), else operator-config/chart.env's; dies unless X.Y.Z.
operator_version() {
  local v="${1:-${OPERATOR_CHART_VERSION:-$(sed -n 's/^OPERATOR_CHART_VERSION=//p' "$ROOT/operator-config/chart.env")}}"
  [[ "$v" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "operator version '$v' is not X.Y.Z"
  echo "$v"
}

# The source release (.tar.gz) of operator version $1, read in place: $LINEFLOW_OPERATOR_SRC, else
# ../shared/vendor's, relative to the repository. Nothing is checked here (see need_operator_src).
operator_src() {
  local src="${LINEFLOW_OPERATOR_SRC:-../shared/vendor/flink-kubernetes-operator-$1-src.tar.gz}"
  [[ "$src" == /* ]] || src="$ROOT/$src"
  echo "$src"
}

# Dies unless the source release $1 of operator version $2 is there, naming where to get it.
need_operator_src() {
  [[ -f "$1" ]] || die "the operator's source release $1 is missing; set LINEFLOW_OPERATOR_SRC to" \
    "flink-kubernetes-operator-$2-src.tgz from the Apache archive"
}
