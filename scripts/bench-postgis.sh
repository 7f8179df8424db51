#!/usr/bin/env bash
# Benchmarks `locsim serve --postgres` against `locsim serve --db` over HTTP on the same data and
# the same query points, with the textbook PostGIS query measured beside them, in one run
# (see docs/benchmarks/postgis.md).
#
#   scripts/bench-postgis.sh [WORKDIR]
#
# 1. builds locsim and Benchmarks/IndexBenchmark in release mode;
# 2. generates the seeded 1M clustered place set (IndexBenchmark generate, as scripts/bench-serve.sh)
#    and imports it into SQLite (`locsim index import --db`);
# 3. starts a private PostgreSQL 15 + PostGIS 3 (initdb as user postgres into WORKDIR, SCRAM
#    password, a free loopback port, jit off, no parallel workers) and imports the same file with
#    `locsim index import --postgres` (COPY, one transaction, stored in spatial order);
# 4. picks POINTS seeded query points from the place set (the same points as bench-serve.sh);
# 5. starts `locsim serve --db` and `locsim serve --postgres` (as shipped: access log on, to a
#    pipe; audit on) and checks, for every point at 5 km and 100 m, that both answer with the
#    same bytes and that the textbook query (psql) returns the same ids in the same order;
# 6. for 5 km and 100 m, REPS rounds in turn: wrk (2 threads, CONNECTIONS connections, DURATION
#    seconds) cycling through the points against each server, and pgbench (-M prepared, the same
#    number of clients) running the textbook query, the plain GiST query and the tile query (#30) at the points; medians and ratios are
#    printed, with the load average before each round.
# Every process is stopped and the server's data directory removed on exit (trap).
#
# Environment: DURATION (seconds per run, default 10), REPS (rounds, default 5), POINTS (default
# 8), CONNECTIONS (default 4), PG_SHARED_BUFFERS (default 512MB), BASELINE (another locsim binary,
# e.g. an earlier commit's release build: its `serve --postgres` on the same database is measured
# beside this build's in every round, and its answers are checked too), SKIP_BUILD=1 (use the
# release binaries already built, e.g. while another build holds .build's lock).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$(mktemp -d /tmp/locsim-bench-postgis.XXXXXX)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
DURATION=${DURATION:-10}
REPS=${REPS:-5}
POINTS=${POINTS:-8}
CONNECTIONS=${CONNECTIONS:-4}
PG_BIN=/usr/lib/postgresql/15/bin

if [ ! -f /usr/share/postgresql/15/extension/postgis.control ] || ! command -v wrk >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 postgresql-15-postgis-3 wrk >/dev/null
fi
[ "$(id -u)" = 0 ] || { echo "run as root (PostgreSQL is started as user postgres with runuser)"; exit 1; }

echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -z "${SKIP_BUILD:-}" ]; then
    echo "== building (release)"
    # One product per `swift build` (benchmark targets exist only with LOCSIM_BENCHMARKS=1).
    (cd "$ROOT" && SWIFT_DETERMINISTIC_HASHING=1 swift build -c release --product locsim >/dev/null)
    (cd "$ROOT" && LOCSIM_BENCHMARKS=1 SWIFT_DETERMINISTIC_HASHING=1 swift build -c release --product IndexBenchmark >/dev/null)
fi
BIN=$ROOT/.build/release
LOCSIM=$BIN/locsim

echo "== data: $WORK"
[ -f "$WORK/clustered-1m.csv" ] || "$BIN/IndexBenchmark" generate "$WORK"
if [ ! -f "$WORK/clustered-1m.sqlite" ]; then
    start=$(date +%s.%N)
    "$LOCSIM" index import "$WORK/clustered-1m.csv" --db "$WORK/clustered-1m.sqlite" >/dev/null
    echo "   SQLite import: $(python3 -c "print(round($(date +%s.%N) - $start, 1))") s"
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

PGDIR=$WORK/pg
DB_PID=""
PG_PID=""
OLD_PID=""
cleanup() {
    for pid in "$DB_PID" "$PG_PID" "$OLD_PID"; do
        [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    if [ -d "$PGDIR/data" ]; then
        runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PGDIR/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$PGDIR"
}
trap cleanup EXIT

PG_PORT=$(free_port)
echo "== PostgreSQL + PostGIS on 127.0.0.1:$PG_PORT"
rm -rf "$PGDIR"
mkdir -p "$PGDIR"
export PGPASSWORD=locsim-bench-$RANDOM$RANDOM
echo "$PGPASSWORD" >"$PGDIR/pw"
chown -R postgres "$PGDIR"
runuser -u postgres -- "$PG_BIN/initdb" -D "$PGDIR/data" -U postgres -A scram-sha-256 --pwfile="$PGDIR/pw" \
    --no-instructions -E UTF8 --locale=C >/dev/null
rm "$PGDIR/pw"
runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -o \
    "-p $PG_PORT -k $PGDIR -c listen_addresses=127.0.0.1 -c shared_buffers=${PG_SHARED_BUFFERS:-512MB} \
     -c jit=off -c max_parallel_workers_per_gather=0 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null
URL="postgres://postgres@127.0.0.1:$PG_PORT/postgres?sslmode=disable"
PSQL=(psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -X -q -v ON_ERROR_STOP=1)

start=$(date +%s.%N)
"$LOCSIM" index import "$WORK/clustered-1m.csv" --postgres "$URL" | sed 's/^/   /'
echo "   PostGIS import: $(python3 -c "print(round($(date +%s.%N) - $start, 1))") s"
"${PSQL[@]}" -c "VACUUM ANALYZE locsim_place, locsim_tile"
"$LOCSIM" index stats --postgres "$URL" | sed 's/^/   /'

# The query points: the same seeded sample of the place set as bench-serve.sh.
python3 - "$WORK" "$POINTS" <<'PY'
import csv, random, sys
work, count = sys.argv[1], int(sys.argv[2])
with open(work + "/clustered-1m.csv", newline="") as f:
    rows = list(csv.DictReader(f))
rng = random.Random(2026)
with open(work + "/points.txt", "w") as points:
    for row in rng.sample([r for r in rows if abs(float(r["lat"])) < 80], count):
        points.write(f'{row["lat"]} {row["lon"]}\n')
PY

# start_serve NAME ARGS...: a server as shipped (access log to a pipe, audit on); sets PID_OUT, PORT_OUT.
start_serve() {
    local name=$1 binary=$2
    shift 2
    "$binary" serve "$@" --port 0 --max-radius 5000 \
        > >(head -2 >"$WORK/$name-head.txt"; cat >/dev/null) 2>"$WORK/$name.err" &
    PID_OUT=$!
    for _ in $(seq 1 200); do grep -q 'listening on' "$WORK/$name-head.txt" 2>/dev/null && break; sleep 0.1; done
    PORT_OUT=$(grep -o '127.0.0.1:[0-9]*' "$WORK/$name-head.txt" | head -1 | cut -d: -f2)
    [ -n "$PORT_OUT" ] || { echo "locsim serve $* did not start:"; cat "$WORK/$name.err"; exit 1; }
}
: >"$WORK/db-head.txt"
: >"$WORK/pg-head.txt"
start_serve db "$LOCSIM" --db "$WORK/clustered-1m.sqlite"
DB_PID=$PID_OUT
DB="http://127.0.0.1:$PORT_OUT"
start_serve pg "$LOCSIM" --postgres "$URL"
PG_PID=$PID_OUT
PG="http://127.0.0.1:$PORT_OUT"
echo "== locsim serve --db $DB (pid $DB_PID), locsim serve --postgres $PG (pid $PG_PID)"
OLD=""
if [ -n "${BASELINE:-}" ]; then
    : >"$WORK/old-head.txt"
    start_serve old "$BASELINE" --postgres "$URL"
    OLD_PID=$PID_OUT
    OLD="http://127.0.0.1:$PORT_OUT"
    echo "   baseline $BASELINE serve --postgres: $OLD (pid $OLD_PID)"
fi

# The textbook query, as PostGISPlaceStore.textbookPlaces sends it, for psql and pgbench.
textbook() { # lat lng radius
    echo "SELECT id, name, kind, level, lat_e7, lon_e7 FROM locsim_place \
WHERE ST_DWithin(geog, ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography, $3, false) \
ORDER BY ST_Distance(geog, ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography, false), id COLLATE \"C\";"
}

# The two designs for the database's part of a nearby query (issue #30), measured side by side
# by pgbench, the database alone: "plain" reads the places of locsim_place within the cap with
# the GiST index on geog (a sphere test with a margin: the exact haversine, the order and the
# limit would then be done in Swift, as for the tiles), "tiles" reads the packed tiles of the
# cap's box (every band reads the box's longitudes: slightly more than locsim reads).
plain() { # lat lng radius
    echo "SELECT id, name, kind, level, lat_e7, lon_e7 FROM locsim_place \
WHERE ST_DWithin(geog, ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography, $(python3 -c "print($3 * (1 + 1e-6) + 1e-3)"), false);"
}
tiles() { # lat lng radius
    python3 - "$1" "$2" "$3" <<'PY2'
import math, sys
lat, lng, radius = map(float, sys.argv[1:])
def band(e7): return (min(max(e7, -900000000), 900000000) + 900000000) // 100000
def cell(e7): return (min(max(e7, -1800000000), 1799999999) + 1800000000) // 100000
d = radius / 6371008.8
dlat = math.degrees(d)
dlng = math.degrees(math.asin(min(1, math.sin(d) / max(1e-12, math.cos(math.radians(lat))))))
bands = range(band(int((lat - dlat) * 1e7)), band(int((lat + dlat) * 1e7)) + 1)
low, high = cell(int((lng - dlng) * 1e7)), cell(int((lng + dlng) * 1e7))
lows = ",".join(str(b * 36000 + low) for b in bands)
highs = ",".join(str(b * 36000 + high) for b in bands)
print(f"SELECT string_agg(t.places, ''::bytea) FROM unnest('{{{lows}}}'::integer[], '{{{highs}}}'::integer[]) AS r(low, high) "
      "JOIN locsim_tile t ON t.tile BETWEEN r.low AND r.high;")
PY2
}

echo "== identical answers"
for RADIUS in 5000 100; do
    n=0
    hits=0
    : >"$WORK/textbook-$RADIUS.args"
    while read -r lat lng; do
        n=$((n + 1))
        curl -sf "$DB/locations/nearby?lat=$lat&lng=$lng&radius=$RADIUS" >"$WORK/db-$RADIUS-$n.json"
        curl -sf "$PG/locations/nearby?lat=$lat&lng=$lng&radius=$RADIUS" >"$WORK/pg-$RADIUS-$n.json"
        cmp -s "$WORK/db-$RADIUS-$n.json" "$WORK/pg-$RADIUS-$n.json" || {
            echo "   point $n ($lat $lng) at $RADIUS m: serve --postgres and serve --db answer differently"
            exit 1
        }
        if [ -n "$OLD" ]; then
            curl -sf "$OLD/locations/nearby?lat=$lat&lng=$lng&radius=$RADIUS" | cmp -s "$WORK/db-$RADIUS-$n.json" - || {
                echo "   point $n ($lat $lng) at $RADIUS m: the baseline's serve --postgres answers differently"
                exit 1
            }
        fi
        "${PSQL[@]}" -tA -c "SELECT id FROM ($(textbook "$lat" "$lng" "$RADIUS" | tr -d ';')) q" >"$WORK/textbook-$RADIUS-$n.txt"
        python3 - "$WORK/db-$RADIUS-$n.json" "$WORK/textbook-$RADIUS-$n.txt" "$n" "$RADIUS" <<'PY'
import json, sys
def ids(node):
    if isinstance(node, dict):
        if "id" in node and isinstance(node["id"], str):
            yield node["id"]
        else:
            for value in node.values():
                yield from ids(value)
    elif isinstance(node, list):
        for value in node:
            yield from ids(value)
ours = list(ids(json.load(open(sys.argv[1]))))
theirs = open(sys.argv[2]).read().split()
if ours != theirs:
    first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
    sys.exit(f"   point {sys.argv[3]} at {sys.argv[4]} m: locsim {len(ours)} places, textbook {len(theirs)}; first difference at {first}")
PY
        hits=$((hits + $(wc -l <"$WORK/textbook-$RADIUS-$n.txt")))
        textbook "$lat" "$lng" "$RADIUS" >"$WORK/textbook-$RADIUS-$n.sql"
        plain "$lat" "$lng" "$RADIUS" >"$WORK/plain-$RADIUS-$n.sql"
        tiles "$lat" "$lng" "$RADIUS" >"$WORK/tiles-$RADIUS-$n.sql"
    done <"$WORK/points.txt"
    echo "   $RADIUS m: $n points, $((hits / n)) places per answer on average; serve --postgres = serve --db byte for byte, textbook ids and order equal"
done

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# wrk's request rotation: one path per point, in turn, on every connection.
cat >"$WORK/points.lua" <<'LUA'
local paths, i = {}, 0
init = function(args)
  for line in io.lines(os.getenv("POINTS_FILE")) do
    local lat, lng = line:match("(%S+) (%S+)")
    paths[#paths + 1] = "/locations/nearby?lat=" .. lat .. "&lng=" .. lng .. "&radius=" .. os.getenv("RADIUS")
  end
end
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
LUA

# wrk at radius $1 against $2: "req/s p50 p99 non-2xx".
run_wrk() {
    local out
    out=$(POINTS_FILE=$WORK/points.txt RADIUS=$1 wrk -t 2 -c "$CONNECTIONS" -d "${DURATION}s" --latency -s "$WORK/points.lua" "$2")
    echo "$out" >>"$WORK/wrk.log"
    echo "$(echo "$out" | awk '/^Requests\/sec/ {print $2}') $(echo "$out" | awk '$1 == "50%" {print $2}') \
$(echo "$out" | awk '$1 == "99%" {print $2}') $(echo "$out" | awk '/Non-2xx/ {print $5}' | grep . || echo 0)"
}

# pgbench running query $2 (textbook, plain, tiles) at radius $1, a point chosen at random per transaction.
run_pgbench() {
    local scripts=() out
    for f in "$WORK"/"$2"-"$1"-*.sql; do scripts+=(-f "$f"); done
    out=$(pgbench -h 127.0.0.1 -p "$PG_PORT" -U postgres -n -M prepared -c "$CONNECTIONS" -j 2 -T "$DURATION" "${scripts[@]}" postgres 2>&1)
    echo "$out" >>"$WORK/pgbench.log"
    echo "$out" | awk '/^tps = / {print $3}'
}

: >"$WORK/wrk.log"
: >"$WORK/pgbench.log"
echo "== $REPS rounds of ${DURATION}s per radius, $CONNECTIONS connections, $POINTS points in turn"
for RADIUS in 5000 100; do
    : >"$WORK/db-$RADIUS.txt"
    : >"$WORK/pg-$RADIUS.txt"
    : >"$WORK/tb-$RADIUS.txt"
    : >"$WORK/old-$RADIUS.txt"
    : >"$WORK/plain-$RADIUS.txt"
    : >"$WORK/tiles-$RADIUS.txt"
    for rep in $(seq 1 "$REPS"); do
        load=$(cut -d' ' -f1 /proc/loadavg)
        read -r db dbp50 _ dbbad < <(run_wrk "$RADIUS" "$DB")
        read -r pg pgp50 _ pgbad < <(run_wrk "$RADIUS" "$PG")
        tb=$(run_pgbench "$RADIUS" textbook)
        pl=$(run_pgbench "$RADIUS" plain)
        ti=$(run_pgbench "$RADIUS" tiles)
        echo "$pl" >>"$WORK/plain-$RADIUS.txt"
        echo "$ti" >>"$WORK/tiles-$RADIUS.txt"
        echo "$db" >>"$WORK/db-$RADIUS.txt"
        echo "$pg" >>"$WORK/pg-$RADIUS.txt"
        echo "$tb" >>"$WORK/tb-$RADIUS.txt"
        line="   $RADIUS m round $rep (load $load): --db $db req/s (p50 $dbp50, non-2xx $dbbad), --postgres $pg req/s (p50 $pgp50, non-2xx $pgbad), textbook (pgbench) $tb queries/s, plain $pl, tiles $ti"
        if [ -n "$OLD" ]; then
            read -r old oldp50 _ oldbad < <(run_wrk "$RADIUS" "$OLD")
            echo "$old" >>"$WORK/old-$RADIUS.txt"
            line="$line, baseline --postgres $old req/s (p50 $oldp50, non-2xx $oldbad)"
        fi
        echo "$line"
    done
    db=$(median <"$WORK/db-$RADIUS.txt")
    pg=$(median <"$WORK/pg-$RADIUS.txt")
    tb=$(median <"$WORK/tb-$RADIUS.txt")
    echo "   $RADIUS m median: --db $db req/s, --postgres $pg req/s, textbook $tb queries/s;" \
        "--db/--postgres $(python3 -c "print(round($db / $pg, 2))")x, --db/textbook $(python3 -c "print(round($db / $tb, 1))")x," \
        "--postgres/textbook $(python3 -c "print(round($pg / $tb, 1))")x"
    pl=$(median <"$WORK/plain-$RADIUS.txt")
    ti=$(median <"$WORK/tiles-$RADIUS.txt")
    echo "   $RADIUS m median (pgbench, the database alone): plain $pl queries/s, tiles $ti; tiles/plain $(python3 -c "print(round($ti / $pl, 2))")x"
    if [ -n "$OLD" ]; then
        old=$(median <"$WORK/old-$RADIUS.txt")
        echo "   $RADIUS m baseline --postgres median $old req/s: --db/baseline $(python3 -c "print(round($db / $old, 2))")x," \
            "this build $(python3 -c "print(round($pg / $old, 2))")x the baseline"
    fi
done
echo "== load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
echo "raw output: $WORK/wrk.log, $WORK/pgbench.log"
