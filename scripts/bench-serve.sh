#!/usr/bin/env bash
# Benchmarks `locsim serve` over HTTP/1.1 beside Redis GEOSEARCH on the same data and the same
# query points, in one run (see docs/benchmarks/serve.md).
#
#   scripts/bench-serve.sh [WORKDIR]
#
# 1. builds locsim, Benchmarks/IndexBenchmark and Benchmarks/HelloServer (a bare Hummingbird
#    server, the HTTP stack's ceiling) in release mode;
# 2. generates the seeded 1M clustered place set (IndexBenchmark generate) and imports it;
# 3. picks POINTS seeded query points from the place set (default 8);
# 4. starts a private redis-server on a free loopback port (no persistence) loaded with the same
#    places (GEOADD), `locsim serve --db` (access log on, to a pipe; audit on) and HelloServer;
# 5. for 5 km and 100 m, REPS times alternating: wrk (4 connections) cycling through the points
#    (a Lua script rotates the request path) against GET /locations/nearby, and redis-benchmark
#    (4 connections) running GEOSEARCH ... BYRADIUS r m ASC WITHDIST WITHCOORD at each point in
#    turn (rate = requests over summed time); the median run of each is reported with the ratio;
#    Beside each rate, the server process's CPU time per request (user + system, from /proc):
#    the rates depend on where the scheduler puts four processes on the cores (Redis's 100 m rate
#    has ranged from 18,000 to 48,000 per second here), the CPU per request much less;
# 6. wrk (4 connections) on HelloServer's /hello (bare Hummingbird, and bare SwiftNIO without
#    Hummingbird) and locsim's /healthz: the HTTP layer alone, with the same CPU figure;
#    Then 5 km again with `Accept-Encoding: gzip` (the answer's size both ways, REPS rounds);
# 7. wrk with 64 connections for latency percentiles, then a SOAK-second run (half 5 km, half
#    100 m) with the server's RSS at the start, the middle and the end.
# Every server is stopped on exit, whatever happens (trap).
#
# Environment: DURATION (seconds per wrk run, default 10), REPS (default 3), POINTS (default 8),
# SOAK (seconds, default 60; the issue asks for 600), BASELINE (another locsim binary, e.g. an
# earlier commit's release build: its `serve` is measured beside this one's in each run).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$(mktemp -d /tmp/locsim-bench-serve.XXXXXX)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
DURATION=${DURATION:-10}
REPS=${REPS:-3}
POINTS=${POINTS:-8}
SOAK=${SOAK:-60}
WRK_THREADS=${WRK_THREADS:-2}
# `locsim serve` runs as shipped: every route in Hummingbird's tasks on Swift's pool. HelloServer's
# second instance runs its tasks on SERVE_LOOPS event loops (default one per core), its third is
# SwiftNIO alone on as many.
SERVE_LOOPS=${SERVE_LOOPS:-$(nproc)}

for tool in redis-server redis-benchmark redis-cli wrk; do
    if ! command -v "$tool" >/dev/null; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server redis-tools wrk >/dev/null
        break
    fi
done

echo "== building (release)"
(cd "$ROOT" && SWIFT_DETERMINISTIC_HASHING=1 swift build -c release --product locsim >/dev/null)
(cd "$ROOT" && LOCSIM_BENCHMARKS=1 SWIFT_DETERMINISTIC_HASHING=1 swift build -c release --product IndexBenchmark >/dev/null)
(cd "$ROOT" && LOCSIM_BENCHMARKS=1 SWIFT_DETERMINISTIC_HASHING=1 swift build -c release --product HelloServer >/dev/null)
BIN=$(cd "$ROOT" && swift build -c release --show-bin-path)
LOCSIM=$BIN/locsim

echo "== data: $WORK"
[ -f "$WORK/clustered-1m.csv" ] || "$BIN/IndexBenchmark" generate "$WORK"
[ -f "$WORK/clustered-1m.sqlite" ] || "$LOCSIM" index import "$WORK/clustered-1m.csv" --db "$WORK/clustered-1m.sqlite" >/dev/null

# The query points: POINTS places of the set, seeded (most fall in a cluster, as players do), and
# the Redis protocol for loading the same places (GEOADD in batches of 1,000). Redis's geohash
# holds latitudes within ±85.05112878° only: the few background places nearer the poles stay
# out (no query point is near them).
python3 - "$WORK" "$POINTS" <<'PY'
import csv, random, sys
work, count = sys.argv[1], int(sys.argv[2])
with open(work + "/clustered-1m.csv", newline="") as f:
    rows = list(csv.DictReader(f))
rng = random.Random(2026)
with open(work + "/points.txt", "w") as points:
    for row in rng.sample([r for r in rows if abs(float(r["lat"])) < 80], count):
        points.write(f'{row["lat"]} {row["lon"]}\n')
def bulk(text):
    data = text.encode()
    return b"$%d\r\n%s\r\n" % (len(data), data)
with open(work + "/geoadd.resp", "wb") as out:
    kept = [r for r in rows if abs(float(r["lat"])) <= 85.05112878]
    for start in range(0, len(kept), 1000):
        batch = kept[start:start + 1000]
        out.write(b"*%d\r\n" % (2 + 3 * len(batch)) + bulk("GEOADD") + bulk("places"))
        for row in batch:
            out.write(bulk(row["lon"]) + bulk(row["lat"]) + bulk(row["id"]))
PY

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

SERVE_PID=""
REDIS_PID=""
HELLO_PID=""
HELLO_LOOPS_PID=""
HELLO_NIO_PID=""
BASE_PID=""
cleanup() {
    for pid in "$SERVE_PID" "$REDIS_PID" "$HELLO_PID" "$HELLO_LOOPS_PID" "$HELLO_NIO_PID" "$BASE_PID"; do
        [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
}
trap cleanup EXIT

REDIS_PORT=$(free_port)
echo "== redis-server on 127.0.0.1:$REDIS_PORT"
redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
REDIS_PID=$!
for _ in $(seq 1 100); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
redis-cli -p "$REDIS_PORT" --pipe <"$WORK/geoadd.resp" | tail -1
echo "   redis holds $(redis-cli -p "$REDIS_PORT" zcard places) places"

echo "== locsim serve"
# As shipped: the access log on (read from a pipe and dropped after the startup lines), the audit on.
"$LOCSIM" serve --db "$WORK/clustered-1m.sqlite" --port 0 --max-radius 5000 \
    > >(head -2 >"$WORK/serve-head.txt"; cat >/dev/null) 2>"$WORK/serve.err" &
SERVE_PID=$!
for _ in $(seq 1 200); do grep -q 'listening on' "$WORK/serve-head.txt" 2>/dev/null && break; sleep 0.1; done
PORT=$(grep -o '127.0.0.1:[0-9]*' "$WORK/serve-head.txt" | head -1 | cut -d: -f2)
[ -n "$PORT" ] || { echo "locsim serve did not start:"; cat "$WORK/serve.err"; exit 1; }
BASE="http://127.0.0.1:$PORT"
echo "   $BASE (pid $SERVE_PID)"

OLD=""
if [ -n "${BASELINE:-}" ]; then
    "$BASELINE" serve --db "$WORK/clustered-1m.sqlite" --port 0 --max-radius 5000 \
        > >(head -2 >"$WORK/baseline-head.txt"; cat >/dev/null) 2>"$WORK/baseline.err" &
    BASE_PID=$!
    for _ in $(seq 1 200); do grep -q 'listening on' "$WORK/baseline-head.txt" 2>/dev/null && break; sleep 0.1; done
    OLD="http://127.0.0.1:$(grep -o '127.0.0.1:[0-9]*' "$WORK/baseline-head.txt" | head -1 | cut -d: -f2)"
    echo "   baseline $BASELINE: $OLD"
fi

HELLO_PORT=$(free_port)
"$BIN/HelloServer" "$HELLO_PORT" >"$WORK/hello.log" 2>&1 &
HELLO_PID=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$HELLO_PORT/hello" >/dev/null && break; sleep 0.1; done
# The same bare server with its tasks on NIO's event loops (no hop to Swift's pool).
HELLO_LOOPS_PORT=$(free_port)
"$BIN/HelloServer" "$HELLO_LOOPS_PORT" "$SERVE_LOOPS" >"$WORK/hello-loops.log" 2>&1 &
HELLO_LOOPS_PID=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$HELLO_LOOPS_PORT/hello" >/dev/null && break; sleep 0.1; done
# The same answer from SwiftNIO's HTTP/1.1 pipeline alone, on as many event loops.
HELLO_NIO_PORT=$(free_port)
"$BIN/HelloServer" "$HELLO_NIO_PORT" nio "$SERVE_LOOPS" >"$WORK/hello-nio.log" 2>&1 &
HELLO_NIO_PID=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$HELLO_NIO_PORT/hello" >/dev/null && break; sleep 0.1; done

# wrk's request rotation: one path per point, in turn, on every connection.
cat >"$WORK/points.lua" <<'LUA'
local paths, i = {}, 0
-- WRK_GZIP=1: every request admits a gzipped answer, as a phone's URLSession does.
local headers = os.getenv("WRK_GZIP") == "1" and { ["Accept-Encoding"] = "gzip" } or nil
init = function(args)
  for line in io.lines(os.getenv("POINTS_FILE")) do
    local lat, lng = line:match("(%S+) (%S+)")
    paths[#paths + 1] = "/locations/nearby?lat=" .. lat .. "&lng=" .. lng .. "&radius=" .. os.getenv("RADIUS")
  end
end
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i], headers)
end
LUA

rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$SERVE_PID/status"; }
# CPU time (user + system) a process has used, in clock ticks.
TICK=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# Microseconds of CPU per request: ticks before, ticks after, requests.
per_request() { python3 -c "print(round(($2 - $1) * 1e6 / $TICK / $3, 1))"; }
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# wrk against the points at radius $1 with $2 connections for $3 seconds (on $4, default this
# build's server, whose process is $5, default this build's): "req/s p50 p99 non-2xx µs-CPU/request".
run_wrk() {
    local out pid=${5:-$SERVE_PID} before after
    before=$(ticks "$pid")
    out=$(POINTS_FILE=$WORK/points.txt RADIUS=$1 wrk -t "$WRK_THREADS" -c "$2" -d "${3}s" --latency -s "$WORK/points.lua" "${4:-$BASE}")
    after=$(ticks "$pid")
    echo "$out" >>"$WORK/wrk.log"
    echo "$(echo "$out" | awk '/^Requests\/sec/ {print $2}') $(echo "$out" | awk '$1 == "50%" {print $2}') \
$(echo "$out" | awk '$1 == "99%" {print $2}') $(echo "$out" | awk '/Non-2xx/ {print $5}' | grep . || echo 0) \
$(per_request "$before" "$after" "$(echo "$out" | awk '/requests in/ {print $1}')")"
}

# wrk on a plain URL $1 served by process $2, 4 connections: "req/s µs-CPU/request".
run_plain() {
    local out before after
    before=$(ticks "$2")
    out=$(wrk -t "$WRK_THREADS" -c 4 -d "${DURATION}s" "$1")
    after=$(ticks "$2")
    echo "$(echo "$out" | awk '/^Requests\/sec/ {print $2}') $(per_request "$before" "$after" "$(echo "$out" | awk '/requests in/ {print $1}')")"
}

# redis-benchmark at radius $1, $2 requests per point, every point in turn: total requests over
# summed time, and redis-server's µs of CPU per request.
run_redis() {
    local total=0 seconds=0 rps before after
    before=$(ticks "$REDIS_PID")
    while read -r lat lng; do
        rps=$(redis-benchmark -p "$REDIS_PORT" -c 4 -n "$2" --csv \
            GEOSEARCH places FROMLONLAT "$lng" "$lat" BYRADIUS "$1" m ASC WITHDIST WITHCOORD | awk -F'","' 'NR == 2 {print $2}')
        total=$((total + $2))
        seconds=$(python3 -c "print($seconds + $2 / $rps)")
    done <"$WORK/points.txt"
    after=$(ticks "$REDIS_PID")
    echo "$(python3 -c "print(round($total / $seconds, 1))") $(per_request "$before" "$after" "$total")"
}

: >"$WORK/wrk.log"
for RADIUS in 5000 100; do
    OURS=0
    THEIRS=0
    while read -r lat lng; do
        OURS=$((OURS + $(curl -s "$BASE/locations/nearby?lat=$lat&lng=$lng&radius=$RADIUS" | grep -o '"id":' | wc -l)))
        THEIRS=$((THEIRS + $(redis-cli -p "$REDIS_PORT" GEOSEARCH places FROMLONLAT "$lng" "$lat" BYRADIUS "$RADIUS" m ASC COUNT 1000000 | wc -l)))
    done <"$WORK/points.txt"
    echo "== radius $RADIUS m, $POINTS points: locsim $((OURS / POINTS)) places per answer, redis $((THEIRS / POINTS))"
    N=$([ "$RADIUS" = 5000 ] && echo 40 || echo 10000)
    : >"$WORK/ours-$RADIUS.txt"
    : >"$WORK/redis-$RADIUS.txt"
    : >"$WORK/old-$RADIUS.txt"
    : >"$WORK/ours-cpu-$RADIUS.txt"
    : >"$WORK/redis-cpu-$RADIUS.txt"
    for rep in $(seq 1 "$REPS"); do
        read -r rps p50 _ bad cpu < <(run_wrk "$RADIUS" 4 "$DURATION")
        read -r redis redis_cpu < <(run_redis "$RADIUS" "$N")
        echo "$rps" >>"$WORK/ours-$RADIUS.txt"
        echo "$redis" >>"$WORK/redis-$RADIUS.txt"
        echo "$cpu" >>"$WORK/ours-cpu-$RADIUS.txt"
        echo "$redis_cpu" >>"$WORK/redis-cpu-$RADIUS.txt"
        line="   run $rep: locsim $rps req/s (p50 $p50, non-2xx $bad, $cpu µs CPU/req), redis $redis req/s ($redis_cpu µs CPU/req)"
        if [ -n "$OLD" ]; then
            read -r old _ _ _ _ < <(run_wrk "$RADIUS" 4 "$DURATION" "$OLD" "$BASE_PID")
            echo "$old" >>"$WORK/old-$RADIUS.txt"
            line="$line, baseline $old req/s"
        fi
        echo "$line"
    done
    ours=$(median <"$WORK/ours-$RADIUS.txt")
    theirs=$(median <"$WORK/redis-$RADIUS.txt")
    ours_cpu=$(median <"$WORK/ours-cpu-$RADIUS.txt")
    theirs_cpu=$(median <"$WORK/redis-cpu-$RADIUS.txt")
    line="   median: locsim $ours req/s, redis $theirs req/s, ratio $(python3 -c "print(round($ours / $theirs, 2))"); \
CPU per request: locsim $ours_cpu µs, redis $theirs_cpu µs (locsim/redis $(python3 -c "print(round($ours_cpu / $theirs_cpu, 2))"))"
    if [ -n "$OLD" ]; then
        old=$(median <"$WORK/old-$RADIUS.txt")
        line="$line; baseline $old req/s (ratio $(python3 -c "print(round($old / $theirs, 2))")), this build $(python3 -c "print(round($ours / $old, 2))")x the baseline"
    fi
    echo "$line"
done

# The 5 km answer with gzip (a client that sends Accept-Encoding: gzip), beside the plain one above.
PLAIN_BYTES=0
GZIP_BYTES=0
while read -r lat lng; do
    PLAIN_BYTES=$((PLAIN_BYTES + $(curl -s "$BASE/locations/nearby?lat=$lat&lng=$lng&radius=5000" | wc -c)))
    GZIP_BYTES=$((GZIP_BYTES + $(curl -s -H 'Accept-Encoding: gzip' "$BASE/locations/nearby?lat=$lat&lng=$lng&radius=5000" | wc -c)))
done <"$WORK/points.txt"
echo "== radius 5000 m with gzip, 4 connections: $((GZIP_BYTES / POINTS)) bytes an answer (plain $((PLAIN_BYTES / POINTS)))"
: >"$WORK/gzip-5000.txt"
: >"$WORK/gzip-cpu-5000.txt"
for rep in $(seq 1 "$REPS"); do
    read -r rps p50 _ bad cpu < <(WRK_GZIP=1 run_wrk 5000 4 "$DURATION")
    echo "$rps" >>"$WORK/gzip-5000.txt"
    echo "$cpu" >>"$WORK/gzip-cpu-5000.txt"
    echo "   run $rep: locsim $rps req/s (p50 $p50, non-2xx $bad, $cpu µs CPU/req)"
done
gzipped=$(median <"$WORK/gzip-5000.txt")
echo "   median: $gzipped req/s, $(median <"$WORK/gzip-cpu-5000.txt") µs CPU/req; $(python3 -c "print(round($gzipped / $(median <"$WORK/redis-5000.txt"), 1))")x Redis's 5 km median above"

echo "== the HTTP layer alone, 4 connections, ${DURATION}s each: req/s, µs CPU per request"
echo "   HelloServer GET /hello (Hummingbird's defaults):  $(run_plain "http://127.0.0.1:$HELLO_PORT/hello" "$HELLO_PID")"
echo "   HelloServer GET /hello (tasks on $SERVE_LOOPS event loop(s)): $(run_plain "http://127.0.0.1:$HELLO_LOOPS_PORT/hello" "$HELLO_LOOPS_PID")"
echo "   HelloServer GET /hello (SwiftNIO alone, $SERVE_LOOPS event loop(s)): $(run_plain "http://127.0.0.1:$HELLO_NIO_PORT/hello" "$HELLO_NIO_PID")"
echo "   locsim GET /healthz:     $(run_plain "$BASE/healthz" "$SERVE_PID")"
if [ -n "$OLD" ]; then
    echo "   baseline GET /healthz:   $(run_plain "$OLD/healthz" "$BASE_PID")"
    kill -TERM "$BASE_PID" 2>/dev/null || true
    BASE_PID=""
fi

echo "== 64 connections, ${DURATION}s each"
for RADIUS in 5000 100; do
    read -r rps p50 p99 bad cpu < <(run_wrk "$RADIUS" 64 "$DURATION")
    echo "   radius $RADIUS m: $rps req/s, p50 $p50, p99 $p99, non-2xx $bad, $cpu µs CPU/req"
done

echo "== soak: ${SOAK}s at 64 connections, first half 5 km, second half 100 m"
echo "   RSS at start: $(rss)"
HALF=$((SOAK / 2))
read -r rps p50 p99 bad _ < <(run_wrk 5000 64 "$HALF")
echo "   5 km, ${HALF}s: $rps req/s, p99 $p99, non-2xx $bad; RSS $(rss)"
read -r rps p50 p99 bad _ < <(run_wrk 100 64 "$((SOAK - HALF))")
echo "   100 m, $((SOAK - HALF))s: $rps req/s, p99 $p99, non-2xx $bad; RSS at end: $(rss)"
echo "raw wrk output: $WORK/wrk.log"
