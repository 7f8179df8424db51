#!/usr/bin/env bash
# Benchmarks `locsim serve --gpsd-port` with many players and several gpsd clients, beside a
# real gpsd relaying the same NMEA to the same number of clients (see docs/benchmarks/feeds.md).
#
#   scripts/bench-feeds.sh [WORKDIR]
#
# 1. builds locsim in release mode;
# 2. starts `locsim serve` with PLAYERS players (seeded circles around Tokyo, 1 Hz, noise 4 m) and
#    CLIENTS `gpspipe -w` clients, lets it settle WARM seconds, then for SECONDS seconds measures the
#    server's CPU time (utime + stime from /proc), the TPV reports one more client receives, and
#    records the NMEA an extra `gpspipe -r` client receives;
# 3. starts a real gpsd (private port) reading that recorded NMEA from a loopback feed at the same
#    rate it was recorded, with CLIENTS `gpspipe -w` clients, and measures the same for gpsd.
# Everything started is stopped on exit (trap).
#
# Environment: PLAYERS (default 1000), CLIENTS (default 10), DURATION (seconds measured, default 60), WARM (default 5).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$(mktemp -d /tmp/locsim-bench-feeds.XXXXXX)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
PLAYERS=${PLAYERS:-1000}
CLIENTS=${CLIENTS:-10}
SECONDS_MEASURED=${DURATION:-60}
WARM=${WARM:-5}
GPSD=$(command -v gpsd || echo /usr/sbin/gpsd)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
TICKS=$(getconf CLK_TCK)

cd "$ROOT"
swift build -c release --product locsim >&2
LOCSIM="$ROOT/.build/release/locsim"

# Players: circles of 50-500 m around points spread over central Tokyo, each with its own seed.
mapfile -d '' ARGS < <(python3 -c '
import sys
for i in range(1, int(sys.argv[1]) + 1):
    lat = round(35.60 + (i * 7919 % 1000) / 5000, 5)
    lon = round(139.65 + (i * 104729 % 1000) / 4000, 5)
    sys.stdout.write(f"--player\0p{i}=circle:{lat},{lon}:{50 + i % 450} --duration 86400 --noise 4 --seed {i}\0")
' "$PLAYERS")

measure() {  # measure NAME PID PORT: CLIENTS watchers, one counting client, one raw recorder
  local name=$1 pid=$2 port=$3
  local watchers=()
  for ((c = 1; c <= CLIENTS; c++)); do
    gpspipe -w "127.0.0.1:$port" > /dev/null 2>&1 &
    watchers+=($!); PIDS+=($!)
  done
  sleep "$WARM"
  local before after
  before=$(cpu_ticks "$pid")
  timeout -s KILL $((SECONDS_MEASURED + 10)) gpspipe -w -x "$SECONDS_MEASURED" "127.0.0.1:$port" > "$WORK/$name-count.jsonl" 2>/dev/null || true
  after=$(cpu_ticks "$pid")
  for w in "${watchers[@]}"; do kill "$w" 2>/dev/null || true; done
  local tpv
  tpv=$(grep -c '"class":"TPV"' "$WORK/$name-count.jsonl" || true)
  python3 -c "print(f'| $name | $PLAYERS | $CLIENTS | {($after - $before) / $TICKS / $SECONDS_MEASURED * 100:.1f} % | {$tpv / $SECONDS_MEASURED:.0f} |')"
}

echo "| server | players | clients | CPU (of one core) | TPV/s to one client |"
echo "|---|---|---|---|---|"

PORT=$(free_port)
"$LOCSIM" serve --port 0 --gpsd-port "$PORT" "${ARGS[@]}" > "$WORK/serve.log" 2>&1 &
SERVE=$!; PIDS+=($SERVE)
for _ in $(seq 1 600); do grep -q "gpsd protocol on" "$WORK/serve.log" && break; sleep 0.1; done
# The NMEA a relaying gpsd gets: recorded from locsim during the measured window.
(sleep "$WARM"; timeout -s KILL $((SECONDS_MEASURED + 10)) gpspipe -r -x "$SECONDS_MEASURED" "127.0.0.1:$PORT" 2>/dev/null | grep '^\$' > "$WORK/players.nmea" || true) &
RECORDER=$!
measure "locsim serve" "$SERVE" "$PORT"
wait "$RECORDER" || true
kill "$SERVE"; wait "$SERVE" 2>/dev/null || true

# A real gpsd reading the same sentences at the rate they were recorded.
FEED=$(free_port)
GPSD_PORT=$(free_port)
python3 - "$FEED" "$WORK/players.nmea" "$SECONDS_MEASURED" > "$WORK/feeder.log" 2>&1 <<'PY' &
import socket, sys, time
port, path, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
lines = open(path, "rb").read().splitlines()
server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", port)); server.listen(1)
connection, _ = server.accept()
per_tick = max(1, len(lines) // int(seconds * 100))
start = time.monotonic()
while True:  # loop the recording until stopped
    for index in range(0, len(lines), per_tick):
        connection.sendall(b"".join(line + b"\r\n" for line in lines[index:index + per_tick]))
        start += 0.01
        delay = start - time.monotonic()
        if delay > 0: time.sleep(delay)
PY
FEEDER=$!; PIDS+=($FEEDER)
sleep 0.5
"$GPSD" -N -n -S "$GPSD_PORT" "tcp://127.0.0.1:$FEED" > "$WORK/gpsd.log" 2>&1 &
DAEMON=$!; PIDS+=($DAEMON)
sleep 1
measure "gpsd $("$GPSD" -V | awk '{print $2}')" "$DAEMON" "$GPSD_PORT"
echo
echo "recorded NMEA: $(wc -l < "$WORK/players.nmea") sentences in ${SECONDS_MEASURED} s; work files in $WORK"
