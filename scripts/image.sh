#!/usr/bin/env bash
# Builds the job image with Jib (no Docker needed).
#
# Usage: scripts/image.sh push IMAGE          build and push IMAGE (registry credentials from
#                                             docker config / credential helpers, as Jib does)
#        scripts/image.sh tar  IMAGE [TAR]    write an image tar (default job/target/jib-image.tar)
# Env:   BASE_IMAGE  base image (default flink:1.20.1-java17; `scratch` or tar://… work offline)
#        MVN         Maven command (default: mvn -B -ntp)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MODE="${1:?usage: image.sh push|tar IMAGE [TAR]}"
IMAGE="${2:?usage: image.sh push|tar IMAGE [TAR]}"
TAR="${3:-$ROOT/job/target/jib-image.tar}"
BASE_IMAGE="${BASE_IMAGE:-flink:1.20.1-java17}"
read -r -a MVN <<< "${MVN:-mvn -B -ntp}"
cd "$ROOT"

case "$MODE" in
  push) goal=jib:build; extra=() ;;
  tar)  goal=jib:buildTar; extra=("-Djib.outputPaths.tar=$TAR") ;;
  *) echo "image.sh: mode must be push or tar, not '$MODE'" >&2; exit 2 ;;
esac
# One reactor from the job's sources to its image: -am builds the modules the job depends on
# here (none comes from the local Maven repository), `package` shades the job and copies the jar
# to job/target/jib-usrlib (job/pom.xml), and -Dlineflow.image=job confines Jib to the job.
"${MVN[@]}" -pl job -am -DskipTests -Dlineflow.image=job package "$goal" \
  -Djib.from.image="$BASE_IMAGE" -Dimage="$IMAGE" "${extra[@]}"
