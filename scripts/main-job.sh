#!/usr/bin/env bash
# The main job: installs what is missing, builds locsim (release) and replays a shipped walk
# through the game's map logic in virtual time against the bundled places, with its report.
#
#   scripts/main-job.sh [TRACK.gpx] [more locsim replay options]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
echo "main-job: building locsim (release; the first build takes a few minutes)…" >&2
# Replay needs neither the HTTP server nor PostGIS: leaving those traits out skips building
# Hummingbird, SwiftNIO and postgres-nio (docs/architecture.md, "Build traits").
swift build -c release --product locsim --disable-default-traits >&2
bin=$(swift build -c release --disable-default-traits --show-bin-path)
track=tracks/tokyo-marunouchi-walk.gpx
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then track=$1; shift; fi
"$bin/locsim" replay "$track" --fast --report replay-report.html "$@"
echo "main-job: open replay-report.html in a browser for the map and timeline" >&2
