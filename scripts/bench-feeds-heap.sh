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

. "$(dirname "$0")/lib/bench.sh"
PLAYERS=${PLAYERS:-1000}
CLIENTS=${CLIENTS:-10}
SECONDS_MEASURED=${DURATION:-240}
USE_HEAPTRACK=${HEAPTRACK:-1}
if [ "$USE_HEAPTRACK" = 1 ]; then
  command -v heaptrack > /dev/null || { echo "heaptrack is missing: apt-get install heaptrack" >&2; exit 1; }
fi
bench_setup feeds-heap "${1:-}"
PROBE="$ROOT/scripts/feed-probe.py"

GPSD_PORT=$(free_port)
HTTP_PORT=$(free_port)
mapfile -d '' FIRST < <(python3 "$PROBE" players 1 1)
SERVE_ARGS=(serve --port "$HTTP_PORT" --gpsd-port "$GPSD_PORT" "${FIRST[@]}")
if [ "$USE_HEAPTRACK" = 1 ]; then
  heaptrack -o "$WORK/heaptrack.locsim" "$LOCSIM" "${SERVE_ARGS[@]}" > "$WORK/serve.log" 2>&1 &
else
  "$LOCSIM" "${SERVE_ARGS[@]}" > "$WORK/serve.log" 2>&1 &
fi
PIDS+=($!)
for _ in $(seq 1 3000); do grep -q "gpsd protocol on" "$WORK/serve.log" && break; sleep 0.1; done
grep -q "gpsd protocol on" "$WORK/serve.log" || { cat "$WORK/serve.log" >&2; exit 1; }
# The server itself (under heaptrack, a child of its script), found by its command line: a
# LOCSIM_BIN of another name (an earlier build's copy) is no process called `locsim`.
SERVE=$(pgrep -n -f "^$LOCSIM serve --port $HTTP_PORT ")

python3 "$PROBE" add-players "$HTTP_PORT" 2 "$PLAYERS"

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
    --print-leaks 0 --peak-limit 25 > "$WORK/peaks.txt" 2>/dev/null || true
  tail -6 "$WORK/peaks.txt"
  echo "peak consumers: $WORK/peaks.txt"
fi
