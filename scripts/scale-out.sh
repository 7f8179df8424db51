#!/usr/bin/env bash
# Several `locsim serve` behind nginx, reading from a PostgreSQL streaming replica, all on
# loopback (see docs/guides/scale-out.md):
#
#   scripts/scale-out.sh [WORKDIR]
#
# 1. a PostgreSQL 15 primary with PostGIS (initdb, its own port), geodata/tokyo-central.csv
#    imported with `locsim index import --postgres` (DATA);
# 2. one streaming replica of it (`pg_basebackup -R`, another port);
# 3. three `locsim serve --postgres PRIMARY --replica REPLICA` (reads go to the replica);
# 4. nginx in front (round robin, keep-alive to the upstreams, a request that fails on one
#    upstream with a connection error, a timeout or a 502 is retried on the next; a 503 is not:
#    every server reads the same databases);
# 5. `locsim swarm` through nginx; KILL_AFTER seconds in, one `locsim serve` is killed with
#    SIGKILL; afterwards: requests per upstream from nginx's access log, retries, and the swarm's
#    failures (none expected: every request nginx could retry was retried);
# 6. an import on the primary, polled through nginx until the replica has replayed it;
# 7. with CPU=1: the CPU cost per request of one `locsim serve` and of the nginx hop, from the
#    processes' /proc/PID/stat CPU ticks over a fixed wrk run, straight and through nginx.
# Everything started is stopped on exit, whatever happens (trap), and WORKDIR removed unless given.
#
# Environment: LOCSIM (a locsim binary; default: a release build of this tree), DATA (the place
# file, default geodata/tokyo-central.csv; the swarm plays around Tokyo station), PLAYERS (300),
# DURATION (game time, 120s), SPEED (10), RAMP (game time over which the apps open, 60s),
# KILL_AFTER (wall seconds, 4), CPU (0), WRK_SECONDS (10), LOCSIM_PORT_BASE (the six ports:
# primary, replica, three serves, nginx, from this one on, each checked free; best outside the
# kernel's ephemeral range, /proc/sys/net/ipv4/ip_local_port_range; default: ports the kernel picks).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KEEP=${1:+yes}
WORK=${1:-$(mktemp -d /tmp/locsim-scale-out.XXXXXX)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
# A folder given to keep is a new one: a run's databases and logs are never mixed with another's.
if [ -n "$KEEP" ] && [ -n "$(ls -A "$WORK")" ]; then
    echo "scale-out: $WORK is not empty (a run before this one?); give a new folder, or remove it first: rm -rf $WORK" >&2
    exit 2
fi
PLAYERS=${PLAYERS:-300}
DURATION=${DURATION:-120s}
SPEED=${SPEED:-10}
KILL_AFTER=${KILL_AFTER:-4}
RAMP=${RAMP:-60s}
DATA=${DATA:-$ROOT/geodata/tokyo-central.csv}
CPU=${CPU:-0}
WRK_SECONDS=${WRK_SECONDS:-10}
# The next port: LOCSIM_PORT_BASE, +1, ... (each must be free), else one the kernel picks.
NEXT_PORT=${LOCSIM_PORT_BASE:-}
if [ -n "$NEXT_PORT" ] && ! [[ "$NEXT_PORT" =~ ^[0-9]+$ && "$NEXT_PORT" -ge 1024 && "$NEXT_PORT" -le 65530 ]]; then
    echo "scale-out: LOCSIM_PORT_BASE must be a port within 1024...65530 (six ports from it are used), got '$NEXT_PORT'" >&2
    exit 2
fi
PG=/usr/lib/postgresql/15/bin

for tool in "$PG/pg_ctl" /usr/sbin/nginx; do
    [ -x "$tool" ] || { echo "scale-out: $tool is missing; run scripts/bootstrap.sh" >&2; exit 1; }
done
if [ "$CPU" = 1 ] && ! command -v wrk >/dev/null; then echo "scale-out: CPU=1 needs wrk (apt-get install wrk)" >&2; exit 1; fi

if [ -z "${LOCSIM:-}" ]; then
    echo "== building locsim (release)"
    (cd "$ROOT" && swift build -c release --product locsim >/dev/null)
    LOCSIM=$(cd "$ROOT" && swift build -c release --show-bin-path)/locsim
fi

# PostgreSQL refuses to run as root: as root, its commands run as `postgres`.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
free_port() {
    if [ -z "$NEXT_PORT" ]; then
        python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
        return
    fi
    if ! python3 -c 'import socket,sys; s=socket.socket(); s.bind(("127.0.0.1",int(sys.argv[1])))' "$NEXT_PORT" 2>/dev/null; then
        echo "scale-out: port $NEXT_PORT (from LOCSIM_PORT_BASE) is in use on 127.0.0.1" >&2
        return 1
    fi
    echo "$NEXT_PORT"
}
pg_options() { echo "-p $1 -k $WORK -c listen_addresses=127.0.0.1 -c wal_retrieve_retry_interval=1s"; }

SERVE_PIDS=()
NGINX_PID=""
SWARM_PID=""
cleanup() {
    set +e
    [ -n "$SWARM_PID" ] && kill -TERM "$SWARM_PID" 2>/dev/null
    [ -n "$NGINX_PID" ] && kill -TERM "$NGINX_PID" 2>/dev/null
    for pid in "${SERVE_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
    for data in "$WORK/replica" "$WORK/primary"; do
        [ -f "$data/postmaster.pid" ] && as_pg "$PG/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1
    done
    wait 2>/dev/null
    [ -z "$KEEP" ] && rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export PGPASSWORD=scale-out-secret   # locsim, psql and pg_basebackup read it; no URL carries it
[ "$(id -u)" = 0 ] && chown postgres "$WORK"
echo "$PGPASSWORD" >"$WORK/pw"

# Every port before anything starts: the servers' own outgoing connections take ephemeral ports
# (ip_local_port_range) that a later pick from LOCSIM_PORT_BASE could otherwise collide with.
PORTS=()
for _ in 1 2 3 4 5 6; do
    PORTS+=("$(free_port)")
    if [ -n "$NEXT_PORT" ]; then NEXT_PORT=$((NEXT_PORT + 1)); fi
done
P1=${PORTS[0]} P2=${PORTS[1]} NGINX_PORT=${PORTS[5]}
echo "== primary: PostgreSQL + PostGIS on 127.0.0.1:$P1 ($WORK/primary)"
as_pg "$PG/initdb" -D "$WORK/primary" -U postgres -A scram-sha-256 --pwfile="$WORK/pw" -E UTF8 --locale=C \
    --no-instructions >/dev/null
as_pg "$PG/pg_ctl" -D "$WORK/primary" -l "$WORK/primary.log" -w -o "$(pg_options "$P1")" start >/dev/null
PRIMARY="postgres://postgres@127.0.0.1:$P1/postgres?sslmode=disable"
"$LOCSIM" index import "$DATA" --postgres "$PRIMARY"

echo "== replica: pg_basebackup -R from the primary, on 127.0.0.1:$P2 ($WORK/replica)"
as_pg env PGPASSWORD="$PGPASSWORD" "$PG/pg_basebackup" -h 127.0.0.1 -p "$P1" -U postgres -D "$WORK/replica" -R -X stream -c fast
as_pg "$PG/pg_ctl" -D "$WORK/replica" -l "$WORK/replica.log" -w -o "$(pg_options "$P2")" start >/dev/null
REPLICA="postgres://postgres@127.0.0.1:$P2/postgres?sslmode=disable"
psql_at() { as_pg env PGPASSWORD="$PGPASSWORD" psql -h 127.0.0.1 -p "$1" -U postgres -d postgres -Atc "$2"; }
echo "   in recovery (a standby): $(psql_at "$P2" 'SELECT pg_is_in_recovery()'); places: $(psql_at "$P2" 'SELECT count(*) FROM locsim_place')"

echo "== three locsim serve --postgres (primary) --replica (replica)"
SERVE_PORTS=()
for n in 1 2 3; do
    port=${PORTS[$((n + 1))]}
    # The swarm plays at --speed SPEED: the audit judges its requests in the same game time.
    "$LOCSIM" serve --postgres "$PRIMARY" --replica "$REPLICA" --port "$port" --audit-speed "$SPEED" >"$WORK/serve-$n.log" 2>"$WORK/serve-$n.err" &
    SERVE_PIDS+=($!)
    SERVE_PORTS+=("$port")
done
for n in 0 1 2; do
    for _ in $(seq 1 300); do grep -q 'listening on' "$WORK/serve-$((n + 1)).log" 2>/dev/null && break; sleep 0.1; done
    grep -q 'listening on' "$WORK/serve-$((n + 1)).log" || { echo "serve $((n + 1)) did not start:"; cat "$WORK/serve-$((n + 1)).err"; exit 1; }
    echo "   serve $((n + 1)): http://127.0.0.1:${SERVE_PORTS[$n]} (pid ${SERVE_PIDS[$n]})"
done

echo "== nginx on 127.0.0.1:$NGINX_PORT"
mkdir -p "$WORK/nginx"
cat >"$WORK/nginx/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 4096; }
http {
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    # The upstream that answered (after a retry: every upstream tried, comma-separated).
    log_format upstreams '\$upstream_addr \$upstream_status \$status';
    access_log $WORK/nginx/access.log upstreams buffer=64k flush=1s;
    upstream locsim {
        server 127.0.0.1:${SERVE_PORTS[0]} max_fails=3 fail_timeout=2s;
        server 127.0.0.1:${SERVE_PORTS[1]} max_fails=3 fail_timeout=2s;
        server 127.0.0.1:${SERVE_PORTS[2]} max_fails=3 fail_timeout=2s;
        keepalive 64;
    }
    server {
        listen 127.0.0.1:$NGINX_PORT;
        location / {
            proxy_pass http://locsim;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header X-Forwarded-For \$remote_addr;
            proxy_connect_timeout 1s;
            proxy_read_timeout 10s;
            # GET is idempotent: nginx may resend it even after the upstream had it. Not on 503:
            # every server reads the same databases, and a 503 counted as a failure would take
            # every server out of the upstream at once (nginx then answers 502 itself).
            proxy_next_upstream error timeout http_502;
            proxy_next_upstream_tries 3;
        }
    }
}
EOF
/usr/sbin/nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" &
NGINX_PID=$!
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$NGINX_PORT/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
echo "   /healthz through nginx: $(curl -s "http://127.0.0.1:$NGINX_PORT/healthz")"

replica_xacts() { psql_at "$P2" "SELECT xact_commit FROM pg_stat_database WHERE datname = 'postgres'"; }
primary_xacts() { psql_at "$P1" "SELECT xact_commit FROM pg_stat_database WHERE datname = 'postgres'"; }
R0=$(replica_xacts); Q0=$(primary_xacts)

echo "== swarm: $PLAYERS players, $DURATION of game time at speed $SPEED, through nginx; serve 2 is killed (SIGKILL) after ${KILL_AFTER} s"
"$LOCSIM" swarm --server "http://127.0.0.1:$NGINX_PORT" --players "$PLAYERS" --duration "$DURATION" --speed "$SPEED" \
    --ramp "$RAMP" --format jsonl >"$WORK/swarm.jsonl" 2>"$WORK/swarm.err" &
SWARM_PID=$!
sleep "$KILL_AFTER"
kill -KILL "${SERVE_PIDS[1]}"
echo "   killed serve 2 (pid ${SERVE_PIDS[1]}) at $(date -u +%T)"
wait "$SWARM_PID" || echo "   swarm exited with status $? (see below)"
sleep 1.5   # nginx flushes its access log every second
R1=$(replica_xacts); Q1=$(primary_xacts)

echo "== results"
tail -1 "$WORK/swarm.jsonl" | python3 -c '
import json, sys
s = json.loads(sys.stdin.read())
print("   swarm: %d requests in %.1f s (%.1f/s, peak %d in one second): %d answered 200, %d failed, %d unanswered; statuses %s; errors %s" % (
    s["requests"], s["wall_s"], s["requests_per_s"], s["peak_1s"], s["answered"], s["failed"], s["unanswered"],
    json.dumps(s["status_codes"]), json.dumps(s["errors"])))
print("   latency: p50 %s ms, p99 %s ms, max %s ms" % (s["latency_ms"].get("p50"), s["latency_ms"].get("p99"), s["latency_ms"].get("max")))
'
python3 - "$WORK/nginx/access.log" "${SERVE_PORTS[@]}" <<'PY'
import sys, collections
path, ports = sys.argv[1], sys.argv[2:]
answered, tried, statuses = collections.Counter(), collections.Counter(), collections.Counter()
retried = requests = 0
for line in open(path):
    # "$upstream_addr $upstream_status $status"; after a retry the first two are ", "-separated lists.
    addresses, _, status = line.strip().replace(", ", ",").split(" ")
    addresses = addresses.split(",")
    requests += 1
    statuses[status] += 1
    tried.update(addresses)
    answered[addresses[-1]] += 1
    retried += len(addresses) > 1
print("   nginx: %d requests, final statuses %s; %d retried on another upstream" % (requests, dict(statuses), retried))
for number, port in enumerate(ports, 1):
    address = "127.0.0.1:" + port
    print("   serve %d (%s): answered %d (%.1f %%), tried %d" % (
        number, address, answered[address], 100 * answered[address] / max(1, requests), tried[address]))
PY
echo "   database transactions during the swarm: replica $((R1 - R0)), primary $((Q1 - Q0))"
echo "   serve 1 /healthz: $(curl -s "http://127.0.0.1:${SERVE_PORTS[0]}/healthz" | tr '\n' ' ')"

echo "== an import on the primary, read through nginx (and so through the replica)"
printf 'id,name,lat,lon,kind,level\nscale-out-%s,Fresh Place,35.68120,139.76710,shop,\n' "$$" >"$WORK/more.csv"
START=$(date +%s.%N)
"$LOCSIM" index import "$WORK/more.csv" --postgres "$PRIMARY"
SEEN=""
for _ in $(seq 1 300); do
    if curl -s "http://127.0.0.1:$NGINX_PORT/locations/nearby?lat=35.6812&lng=139.7671&radius=50" | grep -q "\"scale-out-$$\""; then
        SEEN=yes; break
    fi
    sleep 0.02
done
[ -n "$SEEN" ] || { echo "   not visible through nginx within 6 s"; exit 1; }
echo "   visible through nginx $(python3 -c "import time; print('%.0f' % ((time.time() - $START) * 1000))") ms after the import began (import included); on the replica: $(psql_at "$P2" "SELECT count(*) FROM locsim_place WHERE id = 'scale-out-$$'") row"

if [ "$CPU" = 1 ]; then
    echo "== CPU per request (wrk, 4 connections, ${WRK_SECONDS} s, 5 km around Tokyo station)"
    # utime + stime of a process; "replica" sums the replica's postmaster and its children
    # (the backends of the servers' pooled connections, WAL receiver, ...).
    ticks() {
        if [ "$1" = replica ]; then
            local pm; pm=$(head -1 "$WORK/replica/postmaster.pid")
            for p in "$pm" $(pgrep -P "$pm"); do awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null; done | awk '{s += $1} END {print s}'
        else
            awk '{print $14 + $15}' "/proc/$1/stat"
        fi
    }
    HZ=$(getconf CLK_TCK)
    WORKER=$(pgrep -P "$NGINX_PID" | head -1)
    measure() {  # URL, then the pids whose CPU is counted
        local url=$1; shift
        local before=() after=() pid
        for pid in "$@"; do before+=("$(ticks "$pid")"); done
        local out; out=$(wrk -t1 -c4 -d"${WRK_SECONDS}s" "$url")
        for pid in "$@"; do after+=("$(ticks "$pid")"); done
        local requests; requests=$(echo "$out" | awk '/requests in/ {print $1}')
        local i=0 line="   $requests requests ($(echo "$out" | awk '/Requests\/sec/ {print $2}')/s)"
        for pid in "$@"; do
            line+="; $pid: $(python3 -c "print('%.1f' % ((${after[$i]} - ${before[$i]}) / $HZ * 1e6 / $requests))") µs CPU/request"
            i=$((i + 1))
        done
        echo "$line"
    }
    Q="/locations/nearby?lat=35.6812&lng=139.7671&radius=5000"
    echo "   straight to serve 1 (pid ${SERVE_PIDS[0]}; the replica's PostgreSQL processes):"
    measure "http://127.0.0.1:${SERVE_PORTS[0]}$Q" "${SERVE_PIDS[0]}" replica
    echo "   through nginx (serve 1, serve 3 (pid ${SERVE_PIDS[2]}), the nginx worker (pid $WORKER), the replica):"
    measure "http://127.0.0.1:$NGINX_PORT$Q" "${SERVE_PIDS[0]}" "${SERVE_PIDS[2]}" "$WORKER" replica
fi
echo "== done (everything started is stopped now)"
