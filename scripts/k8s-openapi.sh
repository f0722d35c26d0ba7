#!/usr/bin/env bash
# Fetches Kubernetes' own OpenAPI document (api/openapi-spec/swagger.json) for offline
# validation of core kinds, and caches it under .cache/.
#
# No schema store is reachable from every build machine, but Debian's archive is: its
# `kubernetes` source package (1.20.2) carries the upstream swagger.json. A private apt
# configuration under .cache/ is used, so the system's apt setup is left as it is.
#
# Usage: scripts/k8s-openapi.sh [OUT_FILE]   (default .cache/k8s-openapi/swagger.json)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${1:-$ROOT/.cache/k8s-openapi/swagger.json}"
SRC_PKG="kubernetes"
# Debian bookworm carries upstream 1.20.2 (as 1.20.5+really1.20.2-…); a Debian security
# revision may replace the package, so the upstream source folder is what is pinned.
EXPECT_DIR="kubernetes-1.20.2"

if [[ -s "$OUT" ]]; then
  exit 0
fi
command -v apt-get >/dev/null || { echo "k8s-openapi.sh: needs apt-get (Debian/Ubuntu) to fetch the Kubernetes source package" >&2; exit 1; }

APT="$ROOT/.cache/apt"
mkdir -p "$APT/parts" "$APT/lists/partial" "$APT/src" "$(dirname "$OUT")"
sources=(/etc/apt/sources.list.d/*.sources)
if [[ -e "${sources[0]}" ]]; then
  for f in "${sources[@]}"; do
    sed 's/^Types: deb$/Types: deb-src/' "$f" > "$APT/parts/$(basename "$f")"
  done
  LISTOPT=(-o Dir::Etc::SourceList=/dev/null)
else
  sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > "$APT/sources.list"
  LISTOPT=(-o "Dir::Etc::SourceList=$APT/sources.list")
fi
APTOPT=("${LISTOPT[@]}" -o "Dir::Etc::SourceParts=$APT/parts" -o "Dir::State::Lists=$APT/lists"
        -o APT::Sandbox::User=root -qq)

echo "k8s-openapi.sh: fetching Debian source package $SRC_PKG for swagger.json" >&2
apt-get "${APTOPT[@]}" update
(cd "$APT/src" && apt-get "${APTOPT[@]}" source --download-only "$SRC_PKG")
# Debian names the tarball; the first match is the one apt fetched.
# shellcheck disable=SC2012
tarball="$(ls "$APT"/src/${SRC_PKG}_*.orig.tar.gz | head -1)"
tmp="$(mktemp -d "$APT/x.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
tar xzf "$tarball" -C "$tmp" --wildcards '*/api/openapi-spec/swagger.json'
found="$(cd "$tmp" && find . -name swagger.json | head -1)"
if [[ "$found" != "./$EXPECT_DIR/api/openapi-spec/swagger.json" ]]; then
  echo "k8s-openapi.sh: expected $EXPECT_DIR/api/openapi-spec/swagger.json in $tarball, found '$found'" >&2
  exit 1
fi
mv "$tmp/$found" "$OUT.part"
mv "$OUT.part" "$OUT"
rm -f "$APT"/src/*.tar.* "$APT"/src/*.dsc
echo "k8s-openapi.sh: $(wc -c < "$OUT") bytes in $OUT" >&2
