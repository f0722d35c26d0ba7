#!/usr/bin/env bash
# Builds the job image with Jib (no Docker needed).
#
# Usage: scripts/image.sh push IMAGE          build and push IMAGE (registry credentials from
#                                             docker config / credential helpers, as Jib does)
#        scripts/image.sh tar  IMAGE [TAR]    write an image tar (default job/target/jib-image.tar)
# Env:   BASE_IMAGE  base image (default flink:1.20.1-java17; `scratch` or tar://… work offline)
#        SKIP_BUILD=1  reuse job/target's shaded jar instead of running `mvn package`
#        MVN         Maven command (default: mvn -B -ntp)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MODE="${1:?usage: image.sh push|tar IMAGE [TAR]}"
IMAGE="${2:?usage: image.sh push|tar IMAGE [TAR]}"
TAR="${3:-$ROOT/job/target/jib-image.tar}"
BASE_IMAGE="${BASE_IMAGE:-flink:1.20.1-java17}"
read -r -a MVN <<< "${MVN:-mvn -B -ntp}"
cd "$ROOT"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  "${MVN[@]}" -pl job -am -DskipTests package
fi
shaded="$(ls job/target/lineflow-job-*.jar 2>/dev/null | grep -v -e '-sources.jar$' -e '-tests.jar$' | head -1 || true)"
[[ -n "$shaded" ]] || { echo "image.sh: no shaded jar in job/target (run without SKIP_BUILD=1)" >&2; exit 1; }
# Jib copies whole folders only; this one holds exactly the file the FlinkDeployment names.
rm -rf job/target/jib-usrlib && mkdir -p job/target/jib-usrlib
cp "$shaded" job/target/jib-usrlib/lineflow-job.jar

case "$MODE" in
  push) goal=jib:build; extra=() ;;
  tar)  goal=jib:buildTar; extra=("-Djib.outputPaths.tar=$TAR") ;;
  *) echo "image.sh: mode must be push or tar, not '$MODE'" >&2; exit 2 ;;
esac
# -am: the rules module comes from this reactor, not the local repository (it skips Jib itself).
"${MVN[@]}" -pl job -am "$goal" -Djib.from.image="$BASE_IMAGE" -Dimage="$IMAGE" "${extra[@]}"
