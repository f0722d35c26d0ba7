#!/usr/bin/env bash
# Installs the Debian packages a make target runs besides Java, given as command:package pairs; by
# default those of `make test`: promtool (package prometheus), which checks and unit-tests the
# shipped alert rules, and shellcheck, which lints the project's shell scripts (`make soak` asks for
# iptables, which makes its network partitions). Prints nothing when they are already there;
# otherwise installs them with apt-get (root), or stops with what to install.
#
# Usage: scripts/test-tools.sh [command:package ...]
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

pairs=("$@")
[[ ${#pairs[@]} -gt 0 ]] || pairs=(promtool:prometheus shellcheck:shellcheck)
want=()
for pair in "${pairs[@]}"; do
  cmd="${pair%%:*}" pkg="${pair#*:}"
  command -v "$cmd" >/dev/null || want+=("$pkg")
done
[[ ${#want[@]} == 0 ]] && exit 0

[[ "$(id -u)" == 0 ]] || die "missing ${want[*]}: run \`sudo apt-get install ${want[*]}\` (or the make target as root)"
command -v apt-get >/dev/null || die "missing ${want[*]}, and there is no apt-get to install them (Debian/Ubuntu needed)"
log "installing ${want[*]} with apt-get"
# A fresh machine's package lists may be missing or old: update them only when the install fails.
if ! DEBIAN_FRONTEND=noninteractive timeout 600 apt-get -qq install -y --no-install-recommends "${want[@]}" >/dev/null; then
  timeout 300 apt-get -qq update || die "apt-get update failed or took over 5 minutes"
  DEBIAN_FRONTEND=noninteractive timeout 600 apt-get -qq install -y --no-install-recommends "${want[@]}" >/dev/null \
    || die "apt-get install ${want[*]} failed or took over 10 minutes"
fi
