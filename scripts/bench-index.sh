#!/usr/bin/env bash
# Benchmarks the locsim NearbyIndex against PostGIS in one run (see docs/benchmarks/index.md).
#
#   scripts/bench-index.sh [WORKDIR]
#
# 1. builds Benchmarks/IndexBenchmark in release mode (LOCSIM_BENCHMARKS=1);
# 2. generates the seeded 1M clustered place set and runs our import and queries, plus the
#    144,563 GeoNames places when ../shared/data is present (or GEONAMES=path);
# 3. installs postgresql-15-postgis-3 if missing, starts a private PostgreSQL (initdb as user
#    postgres into WORKDIR, pg_ctl on 127.0.0.1:$BENCH_PG_PORT, default 54329), loads exactly the
#    places our index stored, builds geography + GiST, CLUSTERs, and times the same queries with a
#    plan-cached (PL/pgSQL) ST_DWithin(..., use_spheroid => false) ordered by distance, id;
# 4. prints the comparison table, including whether the ids of 50 sample queries per radius match.
# PostgreSQL is stopped on exit, whatever happens (trap).
#
# Environment: REPS (runs per query, fastest counts; default 3), GEONAMES, BENCH_PG_PORT,
# SKIP_OURS=1 (reuse our results already in WORKDIR, e.g. after fixing the PostgreSQL side).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$(mktemp -d /tmp/locsim-bench-index.XXXXXX)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
chmod 755 "$WORK"
REPS=${REPS:-3}
PORT=${BENCH_PG_PORT:-54329}
PG_BIN=/usr/lib/postgresql/15/bin
GEONAMES=${GEONAMES:-$ROOT/../shared/data/places/geonames-cities1000.csv}
export REPS

echo "== work directory: $WORK"

if [ ! -f /usr/share/postgresql/15/extension/postgis.control ]; then
    echo "== installing postgresql-15-postgis-3"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15-postgis-3 >/dev/null
fi

echo "== building IndexBenchmark (release)"
(cd "$ROOT" && LOCSIM_BENCHMARKS=1 SWIFT_DETERMINISTIC_HASHING=1 swift build -c release --product IndexBenchmark >/dev/null)
BENCH=$ROOT/.build/release/IndexBenchmark

echo "== generating data"
[ -f "$WORK/clustered-1m.csv" ] || "$BENCH" generate "$WORK"

echo "== ours: import and queries"
if [ -f "$GEONAMES" ]; then
    DATASETS="clustered-1m geonames"
else
    DATASETS="clustered-1m"
fi
if [ -n "${SKIP_OURS:-}" ] && [ -f "$WORK/ours.tsv" ]; then
    echo "   (SKIP_OURS: reusing $WORK/ours.tsv)"
elif [ -f "$GEONAMES" ]; then
    "$BENCH" run "$WORK" "$GEONAMES"
else
    echo "   ($GEONAMES not found: GeoNames part skipped)"
    "$BENCH" run "$WORK"
fi

echo "== PostgreSQL + PostGIS on 127.0.0.1:$PORT"
PGDATA=$WORK/pgdata
rm -rf "$PGDATA" "$WORK/socket"
mkdir -p "$WORK/socket" "$PGDATA"
touch "$WORK/postgres.log"
chown postgres "$WORK/socket" "$PGDATA" "$WORK/postgres.log"
chmod 700 "$PGDATA"
runuser -u postgres -- "$PG_BIN/initdb" -D "$PGDATA" -A trust -U postgres --locale=C -E UTF8 >/dev/null
stop_postgres() {
    runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null 2>&1 || true
}
trap stop_postgres EXIT
runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$WORK/postgres.log" -w -o \
    "-p $PORT -k $WORK/socket -c listen_addresses=127.0.0.1 -c shared_buffers=1GB -c work_mem=64MB \
     -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_parallel_workers_per_gather=0" start >/dev/null
PSQL=(psql -h 127.0.0.1 -p "$PORT" -U postgres -X -q -v ON_ERROR_STOP=1 -d postgres)
"${PSQL[@]}" -c "CREATE EXTENSION postgis" -c "SELECT postgis_full_version()" -t | head -c 200; echo

for DATASET in $DATASETS; do
    T=${DATASET//-/_}
    echo "== PostGIS: loading $DATASET"
    start=$(date +%s)
    "${PSQL[@]}" <<SQL
CREATE TABLE staging_$T(id text, name text, lat float8, lon float8);
\copy staging_$T FROM '$WORK/$DATASET.tsv'
CREATE TABLE place_$T AS
  SELECT id, name, lat, lon, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography AS geog FROM staging_$T;
DROP TABLE staging_$T;
ALTER TABLE place_$T ADD PRIMARY KEY (id);
CREATE INDEX place_${T}_geog ON place_$T USING gist(geog);
CLUSTER place_$T USING place_${T}_geog;
ANALYZE place_$T;
CREATE TABLE query_$T(n serial PRIMARY KEY, lat float8, lon float8);
\copy query_$T(lat, lon) FROM '$WORK/$DATASET-queries.tsv'
CREATE TYPE hit_$T AS (id text, name text, lat float8, lon float8, distance float8);
-- Static SQL in PL/pgSQL is prepared once and its plan cached: the prepared-statement path.
CREATE FUNCTION bench_$T(radius float8, reps int)
RETURNS TABLE(qn int, best_us float8, hits int, ids text) LANGUAGE plpgsql AS \$\$
DECLARE
  q record; center geography; t0 timestamptz; elapsed float8; best float8; result hit_$T[]; i int;
BEGIN
  FOR q IN SELECT * FROM query_$T ORDER BY n LOOP
    center := ST_SetSRID(ST_MakePoint(q.lon, q.lat), 4326)::geography;
    best := 'Infinity';
    FOR i IN 0..reps LOOP  -- run 0 warms up
      t0 := clock_timestamp();
      SELECT array_agg(ROW(p.id, p.name, p.lat, p.lon, p.d)::hit_$T ORDER BY p.d, p.id) INTO result
        FROM (SELECT id, name, lat, lon, ST_Distance(geog, center, false) AS d
              FROM place_$T WHERE ST_DWithin(geog, center, radius, false)) p;
      elapsed := extract(epoch FROM clock_timestamp() - t0) * 1e6;
      IF i > 0 THEN best := least(best, elapsed); END IF;
    END LOOP;
    qn := q.n; best_us := best; hits := coalesce(cardinality(result), 0);
    ids := CASE WHEN q.n <= 50 THEN (SELECT coalesce(string_agg(h.id, ',' ORDER BY o), '')
                                      FROM unnest(result) WITH ORDINALITY AS h(id, name, lat, lon, distance, o))
           END;
    RETURN NEXT;
  END LOOP;
END \$\$;
SQL
    echo "   loaded, indexed and clustered in $(($(date +%s) - start)) s"
    for RADIUS in 100 5000 50000; do
        "${PSQL[@]}" <<SQL
CREATE TEMP TABLE result AS SELECT * FROM bench_$T($RADIUS, $REPS);
\copy (SELECT ids FROM result WHERE qn <= 50 ORDER BY qn) TO '$WORK/postgis-ids-$DATASET-$RADIUS.txt'
\copy (SELECT '$DATASET', $RADIUS, round(percentile_disc(0.5) WITHIN GROUP (ORDER BY best_us)::numeric, 1), round(percentile_disc(0.99) WITHIN GROUP (ORDER BY best_us)::numeric, 1), round((count(*) / (sum(best_us) / 1e6))::numeric), round(avg(hits)::numeric, 1) FROM result) TO '$WORK/postgis-$DATASET-$RADIUS.tsv'
SQL
        cat "$WORK/postgis-$DATASET-$RADIUS.tsv"
    done
done
{
    printf 'dataset\tradius\tp50_us\tp99_us\tqps\tmean_hits\n'
    cat "$WORK"/postgis-*-*.tsv
} >"$WORK/postgis.tsv"

echo "== comparison"
"$BENCH" report "$WORK"
cat "$WORK/ours-notes.tsv"
