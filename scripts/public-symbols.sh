#!/usr/bin/env bash
# Counts the public surface of every target: declarations marked `public` or `open` (imports not
# counted), the Swift lines of the target, and the ratio per 1,000 lines; then the totals.
#
#   scripts/public-symbols.sh          the table (Markdown)
#   scripts/public-symbols.sh --check  also fail when the package has more than 25 public
#                                      declarations per 1,000 lines, or a target that is not a
#                                      library product declares anything public
#
# A declaration is public only where an app developer imports it: the library products in
# Package.swift. Everything else the package shares between its own targets is `package`.
set -euo pipefail
cd "$(dirname "$0")/.."
check=${1:-}
products=$(sed -n 's/^ *\.library(name: "\([A-Za-z0-9_]*\)".*/\1/p' Package.swift | tr '\n' ' ')
python3 - "$check" $products <<'PY'
import pathlib, re, sys
check, products = sys.argv[1] == "--check", set(sys.argv[2:])
declaration = re.compile(r"^\s*(@[A-Za-z_]+(\([^)]*\))?\s+)*(public|open)\s+(?!import\b)[A-Za-z@]")
rows, failures = [], []
total_public = total_lines = 0
for target in sorted(p for p in pathlib.Path("Sources").iterdir() if p.is_dir()):
    public = lines = 0
    for file in target.rglob("*.swift"):
        text = file.read_text().split("\n")
        lines += len(text) - (1 if text and text[-1] == "" else 0)
        public += sum(1 for line in text if declaration.match(line))
    if lines == 0:
        continue
    total_public += public
    total_lines += lines
    kind = "product" if target.name in products else "—"
    rows.append(f"| `{target.name}` | {kind} | {public:,} | {lines:,} | {public * 1000 / lines:.1f} |")
    if target.name not in products and public > 0:
        failures.append(f"{target.name} is not a library product but declares {public} public symbols")
ratio = total_public * 1000 / total_lines
print("| target | product | public declarations | lines | per 1,000 lines |")
print("|---|---|---:|---:|---:|")
print("\n".join(rows))
print(f"| all | | {total_public:,} | {total_lines:,} | {ratio:.1f} |")
if ratio > 25:
    failures.append(f"{ratio:.1f} public declarations per 1,000 lines (at most 25)")
if check and failures:
    for failure in failures:
        print(f"public-symbols: {failure}", file=sys.stderr)
    sys.exit(1)
PY
