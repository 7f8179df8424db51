#!/usr/bin/env bash
# Compares two IndexBenchmark binaries (e.g. before and after a storage change) on the same data
# in one session, alternating them so machine load hits both alike (see docs/benchmarks/index.md).
#
#   scripts/bench-index-ab.sh OLD_BINARY NEW_BINARY WORKDIR [ROUNDS]
#
# Build each binary from its commit with
#   LOCSIM_BENCHMARKS=1 swift build -c release --product IndexBenchmark && cp .build/release/IndexBenchmark OUT
# WORKDIR must hold clustered-1m.csv (`IndexBenchmark generate WORKDIR`); each binary imports into
# WORKDIR/old or WORKDIR/new. ROUNDS (default 3) runs of `IndexBenchmark run` each, REPS=3 inside;
# prints the median over the rounds of every p50/p99, import time and size figure, and whether
# the sample ids of both binaries are identical.
set -euo pipefail
OLD=$(realpath "$1"); NEW=$(realpath "$2"); WORK=$(realpath "$3"); ROUNDS=${4:-3}
GEONAMES=${GEONAMES:-$(cd "$(dirname "$0")/.." && pwd)/../shared/data/places/geonames-cities1000.csv}
export REPS=${REPS:-3}
for side in old new; do
    mkdir -p "$WORK/$side"
    ln -sf "$WORK/clustered-1m.csv" "$WORK/$side/clustered-1m.csv"
    : > "$WORK/$side/rounds.tsv"
    : > "$WORK/$side/notes.tsv"
done
for round in $(seq "$ROUNDS"); do
    for side in old new; do
        binary=$OLD; [ "$side" = new ] && binary=$NEW
        echo "round $round $side (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
        "$binary" run "$WORK/$side" "$GEONAMES" > "$WORK/$side/round-$round.log"
        tail -n +2 "$WORK/$side/ours.tsv" >> "$WORK/$side/rounds.tsv"
        awk -F'\t' '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); print $1 "\t" kv[1] "\t" kv[2] } }' \
            "$WORK/$side/ours-notes.tsv" >> "$WORK/$side/notes.tsv"
    done
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf 'data\tradius\told p50\tnew p50\told p99\tnew p99\n'
for key in $(cut -f1,2 "$WORK/old/rounds.tsv" | tr '\t' ':' | sort -u); do
    set_name=${key%%:*}; radius=${key##*:}
    row=()
    for column in 3 4; do
        for side in old new; do
            row+=("$(awk -F'\t' -v s="$set_name" -v r="$radius" -v c="$column" '$1 == s && $2 == r { print $c }' \
                "$WORK/$side/rounds.tsv" | median)")
        done
    done
    printf '%s\t%s m\t%s\t%s\t%s\t%s\n' "$set_name" "$radius" "${row[@]}"
done
printf '\ndata\tfigure\told\tnew (medians over %s rounds)\n' "$ROUNDS"
for key in $(cut -f1,2 "$WORK/old/notes.tsv" "$WORK/new/notes.tsv" | tr '\t' ':' | sort -u); do
    set_name=${key%%:*}; figure=${key##*:}
    values=()
    for side in old new; do
        if [ "$figure" = import_s ]; then
            values+=("$(awk -F'\t' -v s="$set_name" '$1 == s && $2 == "import_s" { print $3 }' "$WORK/$side/notes.tsv" | median)")
        else
            values+=("$(awk -F'\t' -v s="$set_name" -v f="$figure" '$1 == s && $2 == f { print $3 }' "$WORK/$side/notes.tsv" | tail -1)")
        fi
    done
    printf '%s\t%s\t%s\t%s\n' "$set_name" "$figure" "${values[@]}"
done
for file in "$WORK"/old/ours-ids-*.txt; do
    name=$(basename "$file")
    if cmp -s "$file" "$WORK/new/$name"; then echo "sample ids identical: $name"; else echo "sample ids DIFFER: $name"; fi
done
