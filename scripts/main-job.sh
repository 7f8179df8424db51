#!/usr/bin/env bash
# The main job: installs what is missing, builds locsim (release) and runs it on a shipped walk.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
swift build -c release --product locsim
bin=$(swift build -c release --show-bin-path)
track=${1:-tracks/tokyo-marunouchi-walk.gpx}
"$bin/locsim" track stats "$track"
