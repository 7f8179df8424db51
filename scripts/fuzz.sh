#!/usr/bin/env bash
# Fuzzes locsim's readers with libFuzzer (Swift's -sanitize=fuzzer,address). See docs/development/fuzzing.md.
#
#   scripts/fuzz.sh TARGET [SECONDS]   one target (gpx, nmea, places, gpsd, scenario, options), 60 s by default
#   scripts/fuzz.sh all [SECONDS]      every target in turn
#   scripts/fuzz.sh --smoke            every target for 20 s (a step of .ci/run)
#   scripts/fuzz.sh --replay TARGET FILE...  run saved inputs once (reproduce a finding)
#
# The corpus grows in .build-fuzz/corpus/TARGET (seeded from the project's own fixtures on every
# run); a crash, a hang (> 10 s for one input) or memory over 2 GB is saved in
# .build-fuzz/findings/TARGET and the script exits 1 naming the file and the command to replay it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=${LOCSIM_FUZZ_DIR:-$root/.build-fuzz}
targets=(gpx nmea places gpsd scenario options)

usage() {
  sed -n '4,7p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

product() {
  case $1 in
    gpx) echo FuzzGPX ;;
    nmea) echo FuzzNMEA ;;
    places) echo FuzzPlaces ;;
    gpsd) echo FuzzGPSDReport ;;
    scenario) echo FuzzScenario ;;
    options) echo FuzzOptions ;;
    *) echo "fuzz: error: unknown target '$1' (known: ${targets[*]})" >&2; exit 2 ;;
  esac
}

# The options target links the whole command (with its default traits: SwiftNIO, Hummingbird,
# postgres-nio); the readers need a few small modules. They build in scratch folders of their own,
# so a reader's run never waits behind the command's build.
# The smoke builds the command without its traits (LOCSIM_FUZZ_TRAITS=none, see
# scripts/fuzz/Package.swift), in folders of its own.
# The smoke builds every target in one scratch folder with one `swift build`, so the modules they
# share (LocationCore, the readers) compile once and the two cores stay busy.
scratch() {
  if [ "${LOCSIM_FUZZ_TRAITS:-}" = none ]; then
    echo "$work/build-smoke"
  else
    if [ "$1" = options ]; then echo "$root/scripts/fuzz/.build"; else echo "$work/build-readers"; fi
  fi
}

# LOCSIM_FUZZ=1 makes the main package export its LocSimCommand library (the options target's
# dependency); it is not a product otherwise.
export LOCSIM_FUZZ=1

build() {
  mkdir -p "$work"
  # The sanitizer runtime links with the toolchain's lld, as every build does (scripts/fuzz/Package.swift).
  local target
  local flags=(-Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing)
  if [ "${LOCSIM_FUZZ_TRAITS:-}" = none ] && [ $# -eq ${#targets[@]} ]; then
    echo "fuzz: building every target (release, fuzzer + address sanitizer, the command without traits)" >&2
    (cd scripts/fuzz && swift build -c release --scratch-path "$(scratch "$1")" "${flags[@]}" 2>&1 \
      | grep -v "Cannot export local symbol" >&2) || { echo "fuzz: error: build failed" >&2; exit 1; }
    return
  fi
  for target in "$@"; do
    echo "fuzz: building $(product "$target") (release, fuzzer + address sanitizer)" >&2
    (cd scripts/fuzz && swift build -c release --product "$(product "$target")" --scratch-path "$(scratch "$target")" \
      "${flags[@]}" 2>&1 | grep -v "Cannot export local symbol" >&2) || { echo "fuzz: error: build failed" >&2; exit 1; }
  done
}

# The built executable of TARGET.
executable() {
  echo "$(cd scripts/fuzz && swift build -c release --scratch-path "$(scratch "$1")" --show-bin-path)/$(product "$1")"
}

# Seeds: the project's own fixtures, cut into the shape each target reads.
seed() {
  local target=$1 dir=$2
  mkdir -p "$dir"
  case $target in
    gpx)
      find Tests/GPXFormatTests/Fixtures -name '*.gpx' -size -64k -exec cp {} "$dir/" \;
      head -c 8000 tracks/sf-mission-walk.gpx > "$dir/track-head.gpx"
      ;;
    nmea)
      python3 - "$dir" <<'EOF'
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
for name in ("reference", "variants"):
    path = pathlib.Path("Tests/NMEAFormatTests/Fixtures") / f"{name}.jsonl"
    for number, line in enumerate(path.read_text().splitlines()[:40]):
        record = json.loads(line)
        text = record.get("text") or record.get("sentence") or ""
        if text:
            (out / f"{name}-{number}.nmea").write_bytes(text.encode())
EOF
      ;;
    places)
      { printf '\x00'; head -c 4000 geodata/sf-mission.csv; } > "$dir/csv"
      { printf '\x01'; cat Tests/LocationIndexTests/Fixtures/geonames-sample.csv; } > "$dir/geonames"
      python3 - "$dir/geojson" <<'EOF'
import csv, json, sys
rows = list(csv.DictReader(open("geodata/tokyo-central.csv")))[:20]
features = [{"type": "Feature", "id": r["id"], "geometry": {"type": "Point", "coordinates": [float(r["lon"]), float(r["lat"])]},
             "properties": {"name": r["name"], "kind": r["kind"], **({"level": int(r["level"])} if r["level"] else {})}} for r in rows]
open(sys.argv[1], "wb").write(b"\x02" + json.dumps({"type": "FeatureCollection", "features": features}).encode())
EOF
      ;;
    gpsd)
      split -l 6 -d Tests/LocationGPSDTests/Fixtures/gpsd/session-3.22.jsonl "$dir/session-"
      # A SKY as gpsd 3.22 writes it (the one class with an array that libgps decodes), then a fix.
      cat > "$dir/sky" <<'EOF'
{"class":"SKY","device":"/dev/ttyACM0","xdop":0.61,"ydop":0.83,"vdop":1.52,"tdop":0.90,"hdop":1.03,"gdop":2.07,"pdop":1.84,"nSat":3,"uSat":2,"satellites":[{"PRN":7,"el":61.0,"az":212.0,"ss":44.0,"used":true,"gnssid":0,"svid":7},{"PRN":72,"el":12.0,"az":31.0,"used":true,"gnssid":6,"svid":8,"sigid":1,"freqid":3,"health":1},{"PRN":131,"az":150.0,"ss":0.0,"used":false,"gnssid":1,"svid":131}]}
{"class":"TPV","device":"/dev/ttyACM0","mode":2,"time":"2026-11-30T10:00:00.000Z","lat":35.68,"lon":139.76}
EOF
      ;;
    scenario)
      # The shipped scenarios, and the scenario files in the guide's code blocks.
      cp tracks/scenarios/*.json "$dir/"
      python3 - "$dir" docs/guides/scenarios.md <<'EOF'
import pathlib, re, sys
text = pathlib.Path(sys.argv[2]).read_text()
for number, block in enumerate(re.findall(r"```json\n(.*?)```", text, re.S)):
    (pathlib.Path(sys.argv[1]) / f"guide-{number}.json").write_text(block)
EOF
      ;;
    options)
      # Every `locsim ...` command line in the README and docs, its arguments joined by NUL (what
      # the target splits at); the option names and subcommands also go into a dictionary.
      python3 - "$dir" "$work/options.dict" README.md docs/*.md docs/{guides,reference,development}/*.md docs/benchmarks/README.md <<'EOF'
import pathlib, re, shlex, sys
out, dictionary, sources = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3:]
lines, words = set(), set()
def commands(path):
    fenced = False
    for line in pathlib.Path(path).read_text().splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        for text in [line] if fenced else re.findall(r"`([^`]+)`", line):
            match = re.search(r"(?:^|[\s/])locsim ((?:[a-z]|--?[a-z]).*)", text)
            if match:
                yield match.group(1)
for source in sources:
    for text in commands(source):
        try:
            arguments = shlex.split(text, comments=True)
        except ValueError:
            continue
        kept = []
        for argument in arguments:
            if argument in ("|", "&&", ";", "&", "\\") or argument.startswith((">", "2>", "<")):
                break
            kept.append(argument)
        if kept:
            lines.add("\0".join(kept))
            words.update(a.split("=")[0] for a in kept if re.fullmatch(r"--?[a-z][a-z0-9-]*(=.*)?", a))
            if re.fullmatch(r"[a-z]+", kept[0]):
                words.add(kept[0])
# Every option and subcommand the help pages name (their goldens), for the dictionary.
for golden in pathlib.Path("Tests/locsimTests/Golden").glob("help-*.txt"):
    words.update(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]+", golden.read_text()))
    words.update(golden.stem.removeprefix("help-").split("-"))
for number, text in enumerate(sorted(lines)):
    (out / f"docs-{number}").write_bytes(text.encode())
dictionary.write_text("".join(f'"{w}"\n' for w in sorted(words)))
EOF
      ;;
  esac
}

run() {
  local target=$1 seconds=$2 exe corpus findings log
  exe=$(executable "$target")
  corpus="$work/corpus/$target"
  findings="$work/findings/$target"
  log="$work/$target.log"
  seed "$target" "$corpus"
  mkdir -p "$findings"
  local dict=() fixed=()
  [ "${LOCSIM_FUZZ_SEED:-}" ] && fixed=(-seed="$LOCSIM_FUZZ_SEED")
  [ -f "scripts/fuzz/$target.dict" ] && dict=(-dict="scripts/fuzz/$target.dict")
  [ "$target" = options ] && dict=(-dict="$work/options.dict")
  # libFuzzer's -timeout is wall time: on a machine busy with other work a niced fuzzer can go
  # 10 s without the CPU and "time out" on an input that takes milliseconds. Such a timeout is
  # replayed at once; if the replay finishes well inside the limit it is set aside as starved-*
  # (not a finding) and fuzzing goes on for the rest of the time asked for.
  local limit=${LOCSIM_FUZZ_TIMEOUT:-10}
  echo "fuzz: $target for ${seconds} s (corpus $corpus, log $log)" >&2
  local left=$seconds cpu=0 runs=0 start status part partcpu partruns TIMEFORMAT='%U %S'
  while [ "$left" -gt 0 ]; do
    status=0
    start=$SECONDS
    # -max_total_time is wall time; the CPU time the target really got is measured beside it and
    # reported, so fuzzing effort can be stated in CPU-minutes.
    { time "$exe" "$corpus" "${dict[@]}" "${fixed[@]}" -max_total_time="$left" -timeout="$limit" -rss_limit_mb=2048 \
      -max_len=16384 -artifact_prefix="$findings/" -print_final_stats=1 > "$log" 2>&1 || status=$?; } 2> "$work/$target.cpu"
    partcpu=$(awk '{ printf "%.0f", $1 + $2 }' "$work/$target.cpu")
    cpu=$((cpu + partcpu))
    partruns=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    [ -z "$partruns" ] && partruns=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#' || echo 0)
    runs=$((runs + ${partruns:-0}))
    left=$((left - (SECONDS - start)))
    [ "$status" -eq 0 ] && break
    local artifact
    artifact=$(grep -o "Test unit written to [^ ]*" "$log" | tail -1 | sed 's/Test unit written to //')
    if [ -n "$artifact" ] && [ "$(basename "$artifact" | cut -d- -f1)" = timeout ]; then
      local t0=$SECONDS
      if timeout "$limit" "$exe" -runs=1 "$artifact" > /dev/null 2>&1; then
        local starved
        starved="$findings/starved-$(basename "$artifact" | cut -d- -f2-)"
        mv "$artifact" "$starved"
        echo "fuzz: note: $target: a timeout whose input replays in $((SECONDS - t0)) s (the fuzzer was starved of CPU, not a hang); set aside as $starved, fuzzing on" >&2
        continue
      fi
    fi
    echo "fuzz: error: $target found a problem after $runs runs: ${artifact:-see $log}" >&2
    grep -m 3 -E "ERROR: (AddressSanitizer|libFuzzer)|Fatal error|SUMMARY" "$log" >&2 || true
    echo "hint: replay it with: scripts/fuzz.sh --replay $target ${artifact:-FILE}" >&2
    return 1
  done
  echo "fuzz: $target: $runs runs in ${seconds} s (${cpu} s of CPU), no crash, hang or leak; corpus $(ls "$corpus" | wc -l) inputs" >&2
}

[ $# -ge 1 ] || usage
case $1 in
  --smoke)
    # A fixed seed: the smoke is a regression check in CI, not a search that may turn red by luck.
    export LOCSIM_FUZZ_SEED=${LOCSIM_FUZZ_SEED:-1}
    export LOCSIM_FUZZ_TRAITS=none
    build "${targets[@]}"
    failed=0
    for target in "${targets[@]}"; do run "$target" 20 || failed=1; done
    exit $failed
    ;;
  --replay)
    [ $# -ge 3 ] || usage
    target=$2; shift 2
    build "$target"
    exec "$(executable "$target")" -runs=1 "$@"
    ;;
  all)
    build "${targets[@]}"
    failed=0
    for target in "${targets[@]}"; do run "$target" "${2:-60}" || failed=1; done
    exit $failed
    ;;
  -h|--help) usage ;;
  *)
    product "$1" > /dev/null
    build "$1"
    run "$1" "${2:-60}"
    ;;
esac
