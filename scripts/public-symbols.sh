#!/usr/bin/env bash
# Counts the public API of each library product: the symbols `swift package dump-symbol-graph`
# emits at public access (synthesized members left out, so a Codable conformance counts once).
#
#   scripts/public-symbols.sh            a table: module, public symbols (own + extensions of others)
#
# Used to state the public surface before and after an API change (issue #18). Builds the package
# (debug) if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(swift package dump-symbol-graph --skip-synthesized-members 2>&1 | tee /dev/stderr | grep -o "Files written to .*" | sed 's/Files written to //') \
  || { echo "public-symbols: error: dump-symbol-graph failed" >&2; exit 1; }
[ -d "$out" ] || { echo "public-symbols: error: no symbol graph folder in the output" >&2; exit 1; }
products=$(swift package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
print(" ".join(sorted({t for p in package["products"] if "library" in p["type"] for t in p["targets"]})))')
python3 - "$out" $products <<'PY'
import json, pathlib, sys
folder, modules = pathlib.Path(sys.argv[1]), sys.argv[2:]
print("| module | public symbols |")
print("|---|---:|")
total = 0
for module in modules:
    count = 0
    for path in [folder / f"{module}.symbols.json", *folder.glob(f"{module}@*.symbols.json")]:
        if path.exists():
            count += sum(1 for s in json.loads(path.read_text())["symbols"] if s["accessLevel"] in ("public", "open"))
    total += count
    print(f"| `{module}` | {count:,} |")
print(f"| all | {total:,} |")
PY
