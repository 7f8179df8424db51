#!/usr/bin/env bash
# Renders a replay report to PNG with headless Chromium (Debian `chromium`), for the README.
#
#   scripts/render-report.sh [TRACK.gpx] [OUT.png]
set -euo pipefail
cd "$(dirname "$0")/.."
track=${1:-tracks/tokyo-marunouchi-walk.gpx}
out=${2:-docs/images/replay-report.png}
command -v chromium >/dev/null || {
  echo "installing chromium (headless rendering only)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
}
swift build -c release --product locsim >&2
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin/locsim" replay "$track" --fast --radius 1500 --report "$work/report.html" > /dev/null
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=960,1120 \
  --screenshot="$work/shot.png" "file://$work/report.html" 2>/dev/null
mv "$work/shot.png" "$out"
echo "wrote $out" >&2
