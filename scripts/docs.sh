#!/usr/bin/env bash
# Builds the DocC documentation of every library product (the `.library` lines of Package.swift)
# with swift-docc-plugin, and fails on any DocC warning: an unresolved ``Symbol`` link in a
# catalog or a doc comment, a parameter the signature does not have, and so on.
#
#   scripts/docs.sh            # all library products; the archives go to .build/docs/
#
# One plugin invocation covers every target, so SwiftPM plans and builds once; the symbol graphs
# come from the same debug build `swift build` makes (.ci/run runs this after scripts/test.sh,
# so nothing is compiled again). Preview one module in a browser with
#   swift package --disable-sandbox preview-documentation --target MapFeature
set -euo pipefail
cd "$(dirname "$0")/.."

targets=()
while IFS= read -r name; do targets+=(--target "$name"); done < <(
  sed -n 's/^ *\.library(name: "\([A-Za-z0-9_]*\)".*/\1/p' Package.swift)
[ ${#targets[@]} -gt 0 ] || { echo "docs: no .library products found in Package.swift" >&2; exit 1; }

# The plugin is a dependency only when LOCSIM_DOCS is set (Package.swift), as a development tool.
export LOCSIM_DOCS=1
out=.build/docs
mkdir -p "$out"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "docs: building documentation for $(( ${#targets[@]} / 2 )) library products" >&2
start=$SECONDS
status=0
# Combined documentation builds the modules in dependency order, each linked against the archives
# of the modules it imports, so ``LocationCore/Fix`` in MapFeature's docs resolves (and a link to
# something that is not public fails). --warnings-as-errors makes `docc convert` exit non-zero on
# any warning, and the plugin then fails the command.
# A fixed hash seed keeps SwiftPM's trait flags in one order (scripts/test.sh says why).
SWIFT_DETERMINISTIC_HASHING=1 swift package --allow-writing-to-directory "$out" \
  generate-documentation "${targets[@]}" --output-path "$out" \
  --enable-experimental-combined-documentation --warnings-as-errors 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
  echo "docs: failed with $(grep -c '^error: ' "$log" || true) DocC errors (warnings count as errors); see above" >&2
  exit 1
fi
echo "docs: $out/ in $(( SECONDS - start )) s, no warnings" >&2
