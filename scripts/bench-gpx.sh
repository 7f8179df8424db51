#!/usr/bin/env bash
# GPX read throughput: locsim (release) against GPSBabel and gpxpy on the same generated file,
# in the same run. Reports median wall time, throughput, peak RSS and ratios, and writes
# docs/benchmarks/gpx.md.
#
#   scripts/bench-gpx.sh [POINTS] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
points=${1:-500000}
runs=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

command -v gpsbabel >/dev/null || { echo "installing gpsbabel"; apt-get install -y -qq gpsbabel >/dev/null; }
[ -x /usr/bin/time ] || { echo "installing time"; apt-get install -y -qq time >/dev/null; }
python3 -c "import gpxpy" 2>/dev/null || pip install -q gpxpy

echo "building locsim and GPXBenchmark (release)…"
export LOCSIM_BENCHMARKS=1
SWIFT_DETERMINISTIC_HASHING=1 swift build -c release --product locsim >/dev/null
SWIFT_DETERMINISTIC_HASHING=1 swift build -c release --product GPXBenchmark >/dev/null
locsim=$(swift build -c release --show-bin-path)/locsim
reader=$(swift build -c release --show-bin-path)/GPXBenchmark

file="$work/big.gpx"
python3 scripts/make_big_gpx.py "$file" "$points"
bytes=$(stat -c %s "$file")
echo "input: $points points, $bytes bytes"

measure() { # name, command...: prints "seconds peak_kib" for each run
  local name=$1; shift
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$work/t" "$@" >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
    cat "$work/t"
  done > "$work/$name.runs"
}

measure locsim "$reader" "$file"
measure locsim-stats "$locsim" track stats "$file" --format json
measure gpsbabel gpsbabel -i gpx -f "$file" -o csv -F /dev/null
measure gpxpy python3 -c "import gpxpy,sys; gpxpy.parse(open(sys.argv[1]))" "$file"
# The alternatives to the two hand-written readers (issue 18.9): Foundation's XMLParser(stream:)
# doing the same counting, and Date.ISO8601FormatStyle against UTCTimestamp on the file's times.
measure xmlparser "$reader" --xmlparser "$file"
ours_count=$("$reader" "$file")
xml_count=$("$reader" --xmlparser "$file")
[ "$ours_count" = "$xml_count" ] || { echo "readers disagree: '$ours_count' vs '$xml_count'"; exit 1; }
timestamps=$("$reader" --timestamps "$file")
echo "timestamps: $timestamps"

python3 - "$work" "$bytes" "$points" "$runs" <<'PY' | tee "$work/table"
import statistics, sys
work, size, points, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = {}
for name in ["locsim", "locsim-stats", "xmlparser", "gpsbabel", "gpxpy"]:
    runs_ = [tuple(map(float, line.split())) for line in open(f"{work}/{name}.runs")]
    t = statistics.median(r[0] for r in runs_)
    rss = max(r[1] for r in runs_) / 1024
    rows[name] = (t, rss)
ours = rows["locsim"][0]
print("| reader | median time (s) | throughput (MB/s) | peak RSS (MB) | locsim is faster by |")
print("|---|---:|---:|---:|---:|")
for name, (t, rss) in rows.items():
    ratio = "—" if name.startswith("locsim") else f"{t / ours:.1f}×"
    print(f"| {name} | {t:.2f} | {size / 1e6 / t:.1f} | {rss:.1f} | {ratio} |")
PY

# Flat memory: the same reader on a file ten times larger (about 580 MB), once.
big="$work/huge.gpx"
python3 scripts/make_big_gpx.py "$big" $((points * 10))
rm -f "$file"
big_bytes=$(stat -c %s "$big")
/usr/bin/time -f "%e %M" -o "$work/t" "$reader" "$big" >/dev/null
read -r big_seconds big_kib < "$work/t"
rm -f "$big"
echo "flat memory: $big_bytes bytes in ${big_seconds}s, peak RSS $((big_kib / 1024)) MB"

# Junk fails in bounded time and memory (issue 17): a 1 GB sparse file (all NUL bytes) and a
# 300 MB <name>, through the same reader, once each.
junk="$work/junk.gpx"
junk_row() { # label: runs the reader on $junk, prints a table row
  /usr/bin/time -f "%e %M" -o "$work/t" "$reader" "$junk" >"$work/out" 2>&1 || true
  read -r s kib < <(tail -1 "$work/t")
  echo "| $1 | $s | $((kib / 1024)) | \`$(sed 's/^[^:]*://' "$work/out" | cut -c1-60)…\` |"
}
truncate -s 1G "$junk"
sparse_row=$(junk_row "1 GB sparse file (\`truncate -s 1G\`)")
{ printf '<gpx version="1.1"><trk><name>'; head -c 300000000 /dev/zero | tr '\0' x; printf '</name></trk></gpx>\n'; } > "$junk"
name_row=$(junk_row "300 MB \`<name>\`")
rm -f "$junk"
echo "$sparse_row"; echo "$name_row"

{
  echo "# GPX read throughput"
  echo
  echo "Command: \`scripts/bench-gpx.sh $points $runs\` (release build; $runs runs each, median wall time;"
  echo "peak RSS is the largest of the runs, from /usr/bin/time)."
  echo
  echo "Input: \`scripts/make_big_gpx.py\`, $points track points with ele, time and hdop, $bytes bytes."
  echo "\`locsim\` is GPXFormat's streaming reader alone (Benchmarks/GPXBenchmark: read every point,"
  echo "count them), the same work as the competitors: GPSBabel runs \`gpsbabel -i gpx -f FILE -o csv -F"
  echo "/dev/null\`, gpxpy runs \`gpxpy.parse(open(FILE))\`. \`locsim-stats\` is the whole"
  echo "\`locsim track stats FILE --format json\` command, which also sums WGS-84 geodesic lengths"
  echo "(about 3 µs per pair of points); ratios are against the reader alone."
  echo
  echo "Machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d); shared and noisy, so compare ratios."
  echo
  cat "$work/table"
  echo
  echo "Flat memory: locsim on a file ten times larger ($((points * 10)) points, $big_bytes bytes) took"
  echo "${big_seconds} s with a peak RSS of $((big_kib / 1024)) MB: memory does not grow with the file."
  echo
  echo "Targets (issue 2): at least 10× both competitors; peak memory ≤ 64 MB while streaming. (The"
  echo "benchmark binary links Foundation and FoundationXML for the comparison below, which adds about"
  echo "8 MB to every peak RSS here; the reader's own memory is what stays flat.)"
  echo
  echo "## The hand-written readers against Foundation's (issue 18.9)"
  echo
  echo "\`xmlparser\` above is Foundation's \`XMLParser(stream:)\` (libxml2 underneath) doing the same"
  echo "counting as \`locsim\`: points with a valid lat/lon, times parsed with \`UTCTimestamp\`; both print"
  echo "the same counts ($ours_count). Timestamps alone, every \`<time>\` of the file parsed five times by each"
  echo "parser in one process (median per timestamp; both give identical dates, which the run checks):"
  echo
  echo "    $timestamps"
  echo
  echo "The decision, from these numbers, is in [docs/reference/gpx.md](../reference/gpx.md#why-a-hand-written-reader)."
  echo
  echo "## Junk input"
  echo
  echo "The same reader on junk (issue 17: before, the sparse file took 96–100 s and 2.1 GB, the"
  echo "name 900 MB): a NUL byte fails at once, and one text or tag is limited to 16 MiB."
  echo
  echo "| input | time (s) | peak RSS (MB) | error |"
  echo "|---|---:|---:|---|"
  echo "$sparse_row"
  echo "$name_row"
} > docs/benchmarks/gpx.md
echo "wrote docs/benchmarks/gpx.md"
