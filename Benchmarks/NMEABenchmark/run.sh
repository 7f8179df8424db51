#!/usr/bin/env bash
# NMEA read throughput: NMEAFileReader against GPSBabel and pynmea2, same file, same run.
#
#   bash Benchmarks/NMEABenchmark/run.sh [FIXES]     # default 200000 fixes (about 55 MB)
#
# Needs: gpsbabel (apt-get install -y gpsbabel), pynmea2 (pip install pynmea2==1.19.0),
# /usr/bin/time (apt-get install -y time). Writes docs/benchmarks/nmea.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
FIXES=${1:-200000}
RUNS=${RUNS:-5}
PY_RUNS=${PY_RUNS:-3}

command -v gpsbabel >/dev/null || { echo "missing gpsbabel: apt-get install -y gpsbabel" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "missing /usr/bin/time: apt-get install -y time" >&2; exit 1; }
python3 -c 'import pynmea2' 2>/dev/null || { echo "missing pynmea2: pip install pynmea2==1.19.0" >&2; exit 1; }

export LOCSIM_BENCHMARKS=1
swift build -c release --product NMEABenchmark >&2
BIN="$(swift build -c release --show-bin-path)/NMEABenchmark"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
FILE="$WORK/track.nmea"
"$BIN" generate "$FILE" "$FIXES"

measure() {  # measure NAME RUNS COMMAND...: one "NAME wall_seconds maxRSS_KiB" line per run
    local name=$1 runs=$2
    shift 2
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "$name %e %M" -o "$WORK/time" "$@" >"$WORK/out" 2>&1
        cat "$WORK/time"
    done
}
{
    measure NMEAFileReader "$RUNS" "$BIN" read "$FILE" strict
    measure gpsbabel "$RUNS" gpsbabel -i nmea -f "$FILE" -o csv -F /dev/null
    measure pynmea2 "$PY_RUNS" python3 Benchmarks/NMEABenchmark/pynmea2_read.py "$FILE"
} >"$WORK/results"
"$BIN" read "$FILE" strict >"$WORK/ours.json"

python3 - "$FILE" "$WORK/results" "$WORK/ours.json" "$FIXES" <<'PY'
import json, os, statistics, subprocess, sys
path, results, ours, fixes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
size = os.path.getsize(path)
runs = {}
for line in open(results):
    name, seconds, rss = line.split()
    runs.setdefault(name, []).append((float(seconds), int(rss)))
ours = json.load(open(ours))
assert ours["fixes"] == fixes, ours
rows = []
base = statistics.median(s for s, _ in runs["NMEAFileReader"])
for name in ["NMEAFileReader", "gpsbabel", "pynmea2"]:
    med = statistics.median(s for s, _ in runs[name])
    rss = max(r for _, r in runs[name])
    rows.append(f"| {name} | {len(runs[name])} | {med:.2f} | {size / med / 1e6:.1f} | {med / base:.1f}× | {rss / 1024:.0f} |")
swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
babel = subprocess.run(["gpsbabel", "-V"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
import pynmea2
doc = f"""# NMEA read throughput

`NMEAFileReader` (strict mode, 64 KiB chunks, assembling one `Fix` per epoch) against GPSBabel's
NMEA reader and pynmea2 on the same generated file, in the same run.

- File: {fixes:,} fixes written by `NMEAWriter` (talker GN, RMC + GGA + VTG + GSA per fix),
  {size / 1e6:.1f} MB, {4 * fixes:,} sentences.
- Command: `bash Benchmarks/NMEABenchmark/run.sh {fixes}` (release build; medians of the wall
  time of whole processes measured with `/usr/bin/time`, so start-up is included; peak RSS is the
  largest `%M`).
- Machine: 2 cores shared with other work; {swift}; {babel}; pynmea2 {pynmea2.version}.

| reader | runs | median s | MB/s | time vs NMEAFileReader | peak RSS MiB |
|---|---|---|---|---|---|
""" + "\n".join(rows) + """

What each does:
- **NMEAFileReader**: checksum, field validation, epoch assembly into `Fix` values
  (`NMEABenchmark read FILE strict`).
- **GPSBabel**: `gpsbabel -i nmea -f FILE -o csv -F /dev/null`, which also merges sentences
  into track points and writes CSV to /dev/null.
- **pynmea2**: `pynmea2.parse(line, check=True)` on every line plus reading GGA's latitude
  (`Benchmarks/NMEABenchmark/pynmea2_read.py`); it parses sentences only and assembles no fixes.

Memory stays flat for NMEAFileReader: it holds one chunk, one partial line and one epoch.
"""
open("docs/benchmarks/nmea.md", "w").write(doc)
print(doc)
PY
