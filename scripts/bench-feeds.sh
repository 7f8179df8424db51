#!/usr/bin/env bash
# Benchmarks `locsim serve --gpsd-port` with many players and several gpsd clients, beside a
# real gpsd relaying the same NMEA to the same number of clients, both at once in one run
# (see docs/benchmarks/feeds.md for the method and the results).
#
#   scripts/bench-feeds.sh [WORKDIR]
#
# 1. builds locsim in release mode;
# 2. starts `locsim serve` with PLAYERS players (seeded circles around Tokyo, 1 Hz, noise 4 m) and
#    LOCSIM_FEED_TRACE (one line per fix: when the player published it), and CLIENTS `gpspipe -w`
#    clients;
# 3. starts a real gpsd (private port) whose one device reads the NMEA of every player from
#    scripts/feed-probe.py's relay (a client of locsim that sends each epoch to gpsd with one write
#    and notes when), and CLIENTS `gpspipe -w` clients of gpsd;
# 4. after WARM seconds, for DURATION seconds: one timing client (feed-probe.py watch) on each
#    server, both servers' CPU time (utime + stime from /proc), locsim's RSS every minute, the
#    load average every minute;
# 5. pairs the timings (feed-probe.py analyse): fix-to-client latency of both, each player's drift.
# Everything started is stopped on exit (trap).
#
# Environment: PLAYERS (default 1000), CLIENTS (default 10), DURATION (seconds measured, default
# 600), WARM (default 30), LOCSIM_BIN (another locsim binary to measure, e.g. an earlier
# commit's release build; nothing is built then).
set -euo pipefail

. "$(dirname "$0")/lib/bench.sh"
GPSD=$(command -v gpsd || echo /usr/sbin/gpsd)
[ -x "$GPSD" ] || { echo "gpsd is missing: apt-get install gpsd" >&2; exit 1; }
PLAYERS=${PLAYERS:-1000}
CLIENTS=${CLIENTS:-10}
SECONDS_MEASURED=${DURATION:-600}
WARM=${WARM:-30}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
sleep_until() { local left=$(( $1 - $(date +%s) )); if (( left > 0 )); then sleep "$left"; fi; }
TICKS=$(getconf CLK_TCK)
bench_setup bench-feeds "${1:-}"
PROBE="$ROOT/scripts/feed-probe.py"

# Players: circles of 50-500 m around points spread over central Tokyo, each with its own seed.
mapfile -d '' ARGS < <(python3 "$PROBE" players 1 "$PLAYERS")

PORT=$(free_port)
LOCSIM_FEED_TRACE="$WORK/trace.txt" "$LOCSIM" serve --port 0 --gpsd-port "$PORT" "${ARGS[@]}" > "$WORK/serve.log" 2>&1 &
SERVE=$!; PIDS+=($SERVE)
for _ in $(seq 1 3000); do grep -q "gpsd protocol on" "$WORK/serve.log" && break; sleep 0.1; done
grep -q "gpsd protocol on" "$WORK/serve.log" || { cat "$WORK/serve.log" >&2; exit 1; }

# The real gpsd: its one device is the relay of locsim's NMEA (every player's epochs).
FEED=$(free_port)
GPSD_PORT=$(free_port)
python3 "$PROBE" relay 127.0.0.1 "$PORT" "$FEED" "$WORK/relay.txt" > "$WORK/relay.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do grep -q listening "$WORK/relay.log" && break; sleep 0.1; done
"$GPSD" -N -n -S "$GPSD_PORT" "tcp://127.0.0.1:$FEED" > "$WORK/gpsd.log" 2>&1 &
DAEMON=$!; PIDS+=($DAEMON)
sleep 1

for port in "$PORT" "$GPSD_PORT"; do
  for ((c = 1; c <= CLIENTS; c++)); do
    gpspipe -w "127.0.0.1:$port" > /dev/null 2>&1 &
    PIDS+=($!)
  done
done
sleep "$WARM"

echo "load average at start: $(load)" | tee "$WORK/load.txt"
RSS_START=$(rss_kb "$SERVE"); GPSD_RSS_START=$(rss_kb "$DAEMON")
LOCSIM_BEFORE=$(cpu_ticks "$SERVE"); GPSD_BEFORE=$(cpu_ticks "$DAEMON")
python3 "$PROBE" watch 127.0.0.1 "$PORT" "$SECONDS_MEASURED" "$WORK/locsim-watch.txt" &
LOCSIM_PROBE=$!; PIDS+=($LOCSIM_PROBE)
python3 "$PROBE" watch 127.0.0.1 "$GPSD_PORT" "$SECONDS_MEASURED" "$WORK/gpsd-watch.txt" &
GPSD_PROBE=$!; PIDS+=($GPSD_PROBE)
echo "minute rss_kb(locsim) rss_kb(gpsd) load" > "$WORK/samples.txt"
echo "0 $RSS_START $GPSD_RSS_START $(load)" >> "$WORK/samples.txt"
START=$(date +%s)
for ((m = 1; m * 60 < SECONDS_MEASURED; m++)); do
  sleep_until $((START + m * 60))
  echo "$m $(rss_kb "$SERVE") $(rss_kb "$DAEMON") $(load)" >> "$WORK/samples.txt"
done
sleep_until $((START + SECONDS_MEASURED))
LOCSIM_AFTER=$(cpu_ticks "$SERVE"); GPSD_AFTER=$(cpu_ticks "$DAEMON")
RSS_END=$(rss_kb "$SERVE"); GPSD_RSS_END=$(rss_kb "$DAEMON")
ELAPSED=$(( $(date +%s) - START ))
echo "$(( SECONDS_MEASURED / 60 )) $RSS_END $GPSD_RSS_END $(load)" >> "$WORK/samples.txt"
echo "load average at end: $(load)" | tee -a "$WORK/load.txt"
wait "$LOCSIM_PROBE" "$GPSD_PROBE" || true
# Everything stops before the pairing: the relay and locsim's trace write their last lines as they go.
bench_cleanup
PIDS=()

echo
echo "| server | players | clients | CPU (of one core) | TPV/s to the timing client | RSS start → end |"
echo "|---|---|---|---|---|---|"
row() {  # row NAME BEFORE AFTER WATCHFILE RSS_START RSS_END
  python3 -c "
import sys
name, before, after, watch, rss0, rss1 = sys.argv[1:7]
reads = sum(1 for _ in open(watch))
print(f'| {name} | $PLAYERS | $CLIENTS | {(int(after) - int(before)) / $TICKS / $ELAPSED * 100:.1f} % | {reads / $SECONDS_MEASURED:.0f} | {int(rss0):,} → {int(rss1):,} kB |')
" "$@"
}
row "locsim serve" "$LOCSIM_BEFORE" "$LOCSIM_AFTER" "$WORK/locsim-watch.txt" "$RSS_START" "$RSS_END"
row "gpsd $("$GPSD" -V | awk '{print $2}')" "$GPSD_BEFORE" "$GPSD_AFTER" "$WORK/gpsd-watch.txt" "$GPSD_RSS_START" "$GPSD_RSS_END"
echo
python3 "$PROBE" analyse "$WORK"
echo
echo "samples (minute, RSS kB locsim, RSS kB gpsd, load average):"
cat "$WORK/samples.txt"
echo "measured ${ELAPSED} s; work files in $WORK"
