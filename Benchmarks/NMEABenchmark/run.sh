#!/usr/bin/env bash
# NMEA read throughput: NMEAFileReader against GPSBabel and pynmea2, same files, same run: one
# file of RMC, GGA, VTG and GSA, and one where every fix also has a moving multi-constellation
# sky (3 GSA and 7 GSV a fix, which the reader assembles into each fix's sky).
#
#   bash Benchmarks/NMEABenchmark/run.sh [FIXES]     # default 200000 fixes a file
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
"$BIN" generate "$WORK/plain.nmea" "$FIXES"
"$BIN" generate "$WORK/sky.nmea" "$FIXES" sky

measure() {  # measure FILE NAME RUNS COMMAND...: one "FILE NAME wall_seconds maxRSS_KiB" line per run
    local file=$1 name=$2 runs=$3
    shift 3
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "$file $name %e %M" -o "$WORK/time" "$@" >"$WORK/out" 2>&1
        cat "$WORK/time"
    done
}
for file in plain sky; do
    echo "NMEABenchmark: reading $file.nmea ($(du -m "$WORK/$file.nmea" | cut -f1) MB)" >&2
    measure "$file" NMEAFileReader "$RUNS" "$BIN" read "$WORK/$file.nmea" strict
    measure "$file" gpsbabel "$RUNS" gpsbabel -i nmea -f "$WORK/$file.nmea" -o csv -F /dev/null
    measure "$file" pynmea2 "$PY_RUNS" python3 Benchmarks/NMEABenchmark/pynmea2_read.py "$WORK/$file.nmea"
    "$BIN" read "$WORK/$file.nmea" strict >"$WORK/$file.json"
done >"$WORK/results"

python3 - "$WORK" "$WORK/results" "$FIXES" <<'PY'
import json, os, statistics, subprocess, sys
work, results, fixes = sys.argv[1], sys.argv[2], int(sys.argv[3])
runs = {}
for line in open(results):
    file, name, seconds, rss = line.split()
    runs.setdefault((file, name), []).append((float(seconds), int(rss)))
tables = {}
for file in ["plain", "sky"]:
    size = os.path.getsize(f"{work}/{file}.nmea")
    lines = sum(1 for _ in open(f"{work}/{file}.nmea"))
    ours = json.load(open(f"{work}/{file}.json"))
    assert ours["fixes"] == fixes, ours
    assert ours["satellites"] == (24 * fixes if file == "sky" else 0), ours
    base = statistics.median(s for s, _ in runs[(file, "NMEAFileReader")])
    rows = []
    for name in ["NMEAFileReader", "gpsbabel", "pynmea2"]:
        med = statistics.median(s for s, _ in runs[(file, name)])
        rss = max(r for _, r in runs[(file, name)])
        rows.append(f"| {name} | {len(runs[(file, name)])} | {med:.2f} | {size / med / 1e6:.1f} | {med / base:.1f}× | {rss / 1024:.0f} |")
    tables[file] = (size, lines, "\n".join(rows))
swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
babel = subprocess.run(["gpsbabel", "-V"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
import pynmea2
header = "| reader | runs | median s | MB/s | time vs NMEAFileReader | peak RSS MiB |\n|---|---|---|---|---|---|\n"
plain, sky = tables["plain"], tables["sky"]
doc = f"""# NMEA read throughput

`NMEAFileReader` (strict mode, 64 KiB chunks, assembling one `Fix` per epoch) against GPSBabel's
NMEA reader and pynmea2 on the same generated files, in the same run.

- Command: `bash Benchmarks/NMEABenchmark/run.sh {fixes}` (release build; medians of the wall
  time of whole processes measured with `/usr/bin/time`, so start-up is included; peak RSS is the
  largest `%M`).
- Machine: 2 cores shared with other work; {swift}; {babel}; pynmea2 {pynmea2.version}.

## Fixes alone

{fixes:,} fixes written by `NMEAWriter` (talker GN, RMC + GGA + VTG + GSA per fix),
{plain[0] / 1e6:.1f} MB, {plain[1]:,} sentences.

{header}{plain[2]}

## Fixes with a receiver's sky

The same {fixes:,} fixes, each with a sky of 24 satellites (10 GPS, 8 GLONASS, 6 Galileo; 16 used)
whose azimuths and signals change every epoch, as a multi-constellation receiver tells it: RMC, GGA,
VTG, a GSA for each constellation and 7 GSV a fix ({sky[0] / 1e6:.1f} MB, {sky[1]:,} sentences).
`NMEAFileReader` gives every fix its sky (`fix.receiver?.sky`, 24 satellites numbered as gpsd
numbers them, checked by the script), a new one each epoch.

{header}{sky[2]}

What each does:
- **NMEAFileReader**: checksum, field validation, epoch assembly into `Fix` values, and each
  fix's sky from its GSA and GSV (`NMEABenchmark read FILE strict`).
- **GPSBabel**: `gpsbabel -i nmea -f FILE -o csv -F /dev/null`, which also merges sentences
  into track points and writes CSV to /dev/null.
- **pynmea2**: `pynmea2.parse(line, check=True)` on every line plus reading GGA's latitude
  (`Benchmarks/NMEABenchmark/pynmea2_read.py`); it parses sentences only and assembles no fixes.

Memory stays flat for NMEAFileReader: it holds one chunk, one partial line, one epoch and one sky.
"""
open("docs/benchmarks/nmea.md", "w").write(doc)
print(doc)
PY
