# Sourced by the feeds benchmarks (scripts/bench-feeds.sh, scripts/bench-feeds-heap.sh): what
# each needs before it starts anything.
#
# bench_setup NAME [WORKDIR] sets ROOT (the repository), WORK (WORKDIR, else a new
# /tmp/locsim-NAME.XXXXXX), LOCSIM (LOCSIM_BIN, else a release build it makes) and PIDS, whose
# processes are killed and reaped on exit; it leaves the shell in ROOT.
bench_setup() {
  local name=$1
  ROOT=$(cd "$(dirname "$0")/.." && pwd)
  WORK=${2:-$(mktemp -d "/tmp/locsim-$name.XXXXXX")}
  mkdir -p "$WORK"
  WORK=$(cd "$WORK" && pwd)
  PIDS=()
  trap bench_cleanup EXIT
  command -v gpspipe > /dev/null || { echo "gpspipe is missing: apt-get install gpsd-clients" >&2; exit 1; }
  cd "$ROOT"
  if [ -n "${LOCSIM_BIN:-}" ]; then
    LOCSIM=$LOCSIM_BIN
  else
    swift build -c release --product locsim >&2
    LOCSIM="$ROOT/.build/release/locsim"
  fi
}

bench_cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}

# A free TCP port on the loopback.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
