#!/usr/bin/env bash
# Where the memory of `locsim serve` with many players goes: the heap by call site (heaptrack)
# and the RSS each minute (docs/benchmarks/feeds.md, "Where the memory is").
#
#   scripts/bench-feeds-heap.sh [WORKDIR]
#
# The same players as scripts/bench-feeds.sh (seeded circles around Tokyo, 1 Hz, noise 4 m) and
# CLIENTS `gpspipe -w` clients, but only the first player is on the command line: heaptrack
# cannot record a 1,000-player command line (its line writer asserts), so the others are added
# through the control API (POST /players), the path a page or a test takes. HEAPTRACK=0 measures
# the RSS alone, without heaptrack's own overhead.
#
# Environment: PLAYERS (default 1000), CLIENTS (default 10), DURATION (seconds, default 240),
# HEAPTRACK (default 1), LOCSIM_BIN (a locsim binary to measure; otherwise a release build).
# Everything started is stopped on exit (trap).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$(mktemp -d /tmp/locsim-feeds-heap.XXXXXX)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
PLAYERS=${PLAYERS:-1000}
CLIENTS=${CLIENTS:-10}
SECONDS_MEASURED=${DURATION:-240}
USE_HEAPTRACK=${HEAPTRACK:-1}
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

command -v gpspipe > /dev/null || { echo "gpspipe is missing: apt-get install gpsd-clients" >&2; exit 1; }
if [ "$USE_HEAPTRACK" = 1 ]; then
  command -v heaptrack > /dev/null || { echo "heaptrack is missing: apt-get install heaptrack" >&2; exit 1; }
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

cd "$ROOT"
if [ -n "${LOCSIM_BIN:-}" ]; then
  LOCSIM=$LOCSIM_BIN
else
  swift build -c release --product locsim >&2
  LOCSIM="$ROOT/.build/release/locsim"
fi

player() { # the spec of player $1, as scripts/bench-feeds.sh makes it
  python3 -c '
import sys
i = int(sys.argv[1])
lat = round(35.60 + (i * 7919 % 1000) / 5000, 5)
lon = round(139.65 + (i * 104729 % 1000) / 4000, 5)
print(f"circle:{lat},{lon}:{50 + i % 450} --duration 86400 --noise 4 --seed {i}")' "$1"
}

GPSD_PORT=$(free_port)
HTTP_PORT=$(free_port)
SERVE_ARGS=(serve --port "$HTTP_PORT" --gpsd-port "$GPSD_PORT" --player "p1=$(player 1)")
if [ "$USE_HEAPTRACK" = 1 ]; then
  heaptrack -o "$WORK/heaptrack.locsim" "$LOCSIM" "${SERVE_ARGS[@]}" > "$WORK/serve.log" 2>&1 &
else
  "$LOCSIM" "${SERVE_ARGS[@]}" > "$WORK/serve.log" 2>&1 &
fi
PIDS+=($!)
for _ in $(seq 1 3000); do grep -q "gpsd protocol on" "$WORK/serve.log" && break; sleep 0.1; done
grep -q "gpsd protocol on" "$WORK/serve.log" || { cat "$WORK/serve.log" >&2; exit 1; }
SERVE=$(pgrep -n -x locsim)

python3 - "$HTTP_PORT" "$PLAYERS" <<'PY'
import json, sys, urllib.request
port, players = sys.argv[1], int(sys.argv[2])
for i in range(2, players + 1):
    lat = round(35.60 + (i * 7919 % 1000) / 5000, 5)
    lon = round(139.65 + (i * 104729 % 1000) / 4000, 5)
    spec = f"circle:{lat},{lon}:{50 + i % 450} --duration 86400 --noise 4 --seed {i}"
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/players", data=json.dumps({"name": f"p{i}", "spec": spec}).encode(),
        headers={"Content-Type": "application/json"}, method="POST")
    urllib.request.urlopen(request).read()
PY

for ((c = 1; c <= CLIENTS; c++)); do
  gpspipe -w "127.0.0.1:$GPSD_PORT" > /dev/null 2>&1 &
  PIDS+=($!)
done
echo "second rss_kb threads" | tee "$WORK/samples.txt"
for ((s = 0; s <= SECONDS_MEASURED; s += 60)); do
  echo "$s $(awk '/^VmRSS/ {print $2}' "/proc/$SERVE/status") $(ls "/proc/$SERVE/task" | wc -l)" | tee -a "$WORK/samples.txt"
  (( s + 60 <= SECONDS_MEASURED )) && sleep 60
done
kill -INT "$SERVE"
wait "${PIDS[0]}" || true
if [ "$USE_HEAPTRACK" = 1 ]; then
  heaptrack_print -f "$WORK/heaptrack.locsim.zst" --print-peaks 1 --print-allocators 0 --print-temporary 0 \
    --print-leaks 0 --print-histogram 0 --peak-limit 25 > "$WORK/peaks.txt" 2>/dev/null || true
  tail -6 "$WORK/peaks.txt"
  echo "peak consumers: $WORK/peaks.txt"
fi
