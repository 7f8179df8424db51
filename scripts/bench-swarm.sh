#!/usr/bin/env bash
# Benchmarks `locsim swarm --server`'s client beside wrk and Locust against one `locsim serve`, in
# one run (see docs/benchmarks/swarm.md, "Client cost per request").
#
#   scripts/bench-swarm.sh [WORKDIR]
#
# 1. installs wrk (apt) and Locust (PyPI, `python3 -m pip install locust`) when missing, and
#    builds locsim in release mode;
# 2. imports geodata/sf-mission.csv into a bench index and starts `locsim serve --db` on a free
#    loopback port (audit on, access log read from a pipe and dropped);
# 3. ROUNDS times, each client alone against that server in turn, for DURATION seconds:
#    - wrk -t2 -c64 on one nearby URL at the centre of AREA (the HTTP ceiling);
#    - `locsim swarm --server … --misbehave 1`: PLAYERS players at --speed 20 that ignore the
#      fetch rule and ask at every fix (20 requests/s each, one at a time: far more than the
#      server answers), one event loop, 64 connections;
#    - Locust headless (scripts/bench-swarm-locustfile.py: FastHttpUser, 64 users, no wait, each
#      user at a seeded point of AREA with its X-Player-ID), one process;
#    and for each: requests/s, the client's CPU (user + system, /usr/bin/time: the command end to
#    end, start-up included) per request, and the server's CPU per request (/proc/PID/stat);
# 4. prints the medians and the ratios: the swarm's rate against wrk's, and Locust's client CPU
#    per request against the swarm's;
# 5. the issue's 1 Hz case: ONE_HZ_PLAYERS walkers (default 20,000) following the rule in real
#    time for 120 s (60 s ramp), alone against the same server: requests/s, the swarm's CPU share
#    of one core and its peak RSS.
# The server is stopped on exit, whatever happens (trap).
#
# Environment: DURATION (seconds per client run, default 15), ROUNDS (default 3), PLAYERS (swarm
# players, default 2000), ONE_HZ_PLAYERS (default 20000; 0 leaves step 5 out), AREA (LAT,LNG,RADIUS of the players, default 0,-150,3000: the middle
# of the Pacific, where the index has no place, so every answer is {"locations":[]} and the
# server does the least per request: the clients are what is compared).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$(mktemp -d /tmp/locsim-bench-swarm.XXXXXX)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
DURATION=${DURATION:-15}
ROUNDS=${ROUNDS:-3}
PLAYERS=${PLAYERS:-2000}
ONE_HZ_PLAYERS=${ONE_HZ_PLAYERS:-20000}
AREA=${AREA:-0,-150,3000}
SPEED=20
CONNECTIONS=64
export AREA

if ! command -v wrk >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
fi
if ! python3 -m locust --version >/dev/null 2>&1; then
    python3 -m pip install -q locust
fi
echo "== $(python3 -m locust --version 2>&1 | head -1); $(wrk --version 2>&1 | head -1)"

echo "== building locsim (release)"
(cd "$ROOT" && SWIFT_DETERMINISTIC_HASHING=1 swift build -c release --product locsim >/dev/null)
LOCSIM=$(cd "$ROOT" && swift build -c release --show-bin-path)/locsim

[ -f "$WORK/bench.sqlite" ] || "$LOCSIM" index import "$ROOT/geodata/sf-mission.csv" --db "$WORK/bench.sqlite" >/dev/null

SERVE_PID=""
cleanup() {
    [ -n "$SERVE_PID" ] && kill -TERM "$SERVE_PID" 2>/dev/null || true
    wait 2>/dev/null || true
}
trap cleanup EXIT

"$LOCSIM" serve --db "$WORK/bench.sqlite" --port 0 \
    > >(head -2 >"$WORK/serve-head.txt"; cat >/dev/null) 2>"$WORK/serve.err" &
SERVE_PID=$!
for _ in $(seq 1 200); do grep -q 'listening on' "$WORK/serve-head.txt" 2>/dev/null && break; sleep 0.1; done
PORT=$(grep -o '127.0.0.1:[0-9]*' "$WORK/serve-head.txt" | head -1 | cut -d: -f2)
[ -n "$PORT" ] || { echo "locsim serve did not start:"; cat "$WORK/serve.err"; exit 1; }
BASE="http://127.0.0.1:$PORT"
IFS=, read -r LAT LNG _ <<<"$AREA"
URL="$BASE/locations/nearby?lat=$LAT&lng=$LNG&radius=5000"
echo "== locsim serve on $BASE (pid $SERVE_PID); $WORK"
curl -sf "$URL" >/dev/null || { echo "no answer from $URL"; exit 1; }

TICKS=$(getconf CLK_TCK)
server_cpu() { awk -v t="$TICKS" '{print ($14 + $15) / t}' "/proc/$SERVE_PID/stat"; }
time_cpu() { tail -1 "$1" | awk '{print $2 + $3}'; }
time_wall() { tail -1 "$1" | awk '{print $1}'; }

# Records one client run: round, client, requests, failures, requests/s as the client reports it,
# wall s, client CPU s, server CPU s.
record() { echo "$*" >>"$WORK/runs.txt"; }

run_wrk() {
    local s0 s1 out
    s0=$(server_cpu)
    /usr/bin/time -o "$WORK/time.txt" -f "%e %U %S" wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" "$URL" >"$WORK/wrk-$1.txt"
    s1=$(server_cpu)
    out=$(awk '/requests in/ {n = $1} /Non-2xx/ {bad = $5} /^Requests\/sec/ {rate = $2} END {print n, bad + 0, rate}' "$WORK/wrk-$1.txt")
    record "$1 wrk $out $(time_wall "$WORK/time.txt") $(time_cpu "$WORK/time.txt") $(python3 -c "print($s1 - $s0)")"
}

run_swarm() {
    local s0 s1 out
    s0=$(server_cpu)
    /usr/bin/time -o "$WORK/time.txt" -f "%e %U %S" "$LOCSIM" swarm --server "$BASE" --players "$PLAYERS" --speed "$SPEED" \
        --duration "$((DURATION * SPEED))s" --ramp 0 --area "$AREA" --misbehave 1 --threads 1 --connections "$CONNECTIONS" \
        --format jsonl >"$WORK/swarm-$1.jsonl"
    s1=$(server_cpu)
    out=$(tail -1 "$WORK/swarm-$1.jsonl" | python3 -c 'import json, sys; s = json.load(sys.stdin); print(s["requests"], s["failed"] + s["unanswered"], s["requests_per_s"])')
    record "$1 swarm $out $(time_wall "$WORK/time.txt") $(time_cpu "$WORK/time.txt") $(python3 -c "print($s1 - $s0)")"
}

run_locust() {
    local s0 s1 out
    s0=$(server_cpu)
    # Locust exits 1 when a request failed; the failures are counted below instead.
    /usr/bin/time -o "$WORK/time.txt" -f "%e %U %S" python3 -m locust -f "$ROOT/scripts/bench-swarm-locustfile.py" --headless \
        -u "$CONNECTIONS" -r "$CONNECTIONS" -t "${DURATION}s" --host "$BASE" --only-summary --csv "$WORK/locust-$1" \
        >"$WORK/locust-$1.log" 2>&1 || true
    s1=$(server_cpu)
    out=$(python3 -c '
import csv, sys
row = next(r for r in csv.DictReader(open(sys.argv[1])) if r["Name"] == "Aggregated")
print(row["Request Count"], row["Failure Count"], row["Requests/s"])' "$WORK/locust-$1_stats.csv")
    record "$1 locust $out $(time_wall "$WORK/time.txt") $(time_cpu "$WORK/time.txt") $(python3 -c "print($s1 - $s0)")"
}

: >"$WORK/runs.txt"
: >"$WORK/load.txt"
for round in $(seq 1 "$ROUNDS"); do
    echo "== round $round, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    cut -d' ' -f1-3 /proc/loadavg >>"$WORK/load.txt"
    run_wrk "$round"
    run_swarm "$round"
    run_locust "$round"
    grep "^$round " "$WORK/runs.txt" | awk '{printf "   %-6s %8d requests (%d failed), %8.1f req/s, %6.2f s wall; client %6.2f s CPU = %6.1f us/request; server %6.1f us/request\n", $2, $3, $4, $5, $6, $7, 1e6 * $7 / $3, 1e6 * $8 / $3}'
done
echo "== load average after the rounds $(cut -d' ' -f1-3 /proc/loadavg)"

# Locust's start-up alone (Python importing Locust, gevent and the rest), part of its CPU above.
/usr/bin/time -o "$WORK/time.txt" -f "%e %U %S" python3 -c 'import locust.main' 2>/dev/null
echo "== importing Locust alone: $(time_cpu "$WORK/time.txt") s CPU"

python3 - "$WORK/runs.txt" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    _, client, requests, failed, rate, _, cpu, server = line.split()
    runs.setdefault(client, []).append((int(requests), int(failed), float(rate), float(cpu), float(server)))
median = {}
print("== medians over %d rounds" % len(runs["wrk"]))
for client in ("wrk", "swarm", "locust"):
    rate = statistics.median(q for _, _, q, _, _ in runs[client])
    cpu = statistics.median(1e6 * c / r for r, _, _, c, _ in runs[client])
    server = statistics.median(1e6 * s / r for r, _, _, _, s in runs[client])
    failed = sum(f for _, f, _, _, _ in runs[client])
    median[client] = (rate, cpu)
    print("   %-6s %9.1f req/s  client %7.1f us CPU/request  server %6.1f us CPU/request  (%d failed in all)" % (client, rate, cpu, server, failed))
print("   swarm rate / wrk rate:                   %.2f (target >= 0.5)" % (median["swarm"][0] / median["wrk"][0]))
print("   swarm rate / Locust rate:                %.2f" % (median["swarm"][0] / median["locust"][0]))
print("   Locust CPU per request / swarm's:        %.1f" % (median["locust"][1] / median["swarm"][1]))
print("   swarm CPU per request / wrk's:           %.1f" % (median["swarm"][1] / median["wrk"][1]))
PY

if [ "$ONE_HZ_PLAYERS" -gt 0 ]; then
    echo "== $ONE_HZ_PLAYERS walkers at 1 Hz for 120 s (60 s ramp), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    s0=$(server_cpu)
    /usr/bin/time -o "$WORK/time.txt" -f "%e %U %S %M" "$LOCSIM" swarm --server "$BASE" --players "$ONE_HZ_PLAYERS" --duration 120s \
        --ramp 60s --area "$AREA" --mix walk=1 --format jsonl >"$WORK/swarm-1hz.jsonl"
    s1=$(server_cpu)
    read -r wall user sys rss < <(tail -1 "$WORK/time.txt")
    tail -1 "$WORK/swarm-1hz.jsonl" | python3 -c '
import json, sys
s = json.load(sys.stdin)
wall, user, sys_, rss, server = (float(v) for v in sys.argv[1:])
print("   %d requests, %.1f/s (peak %d in one second), %d answered, %d failed; latency p50 %.1f ms, p99 %.1f ms"
      % (s["requests"], s["requests_per_s"], s["peak_1s"], s["answered"], s["failed"] + s["unanswered"],
         s["latency_ms"]["p50"], s["latency_ms"]["p99"]))
print("   swarm CPU %.2f s user + %.2f s sys over %.2f s wall = %.2f core; max RSS %d KiB; server %.1f us CPU/request"
      % (user, sys_, wall, (user + sys_) / wall, rss, 1e6 * server / s["requests"]))' "$wall" "$user" "$sys" "$rss" "$(python3 -c "print($s1 - $s0)")"
    echo "== load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
fi
