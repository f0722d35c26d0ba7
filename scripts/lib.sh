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
