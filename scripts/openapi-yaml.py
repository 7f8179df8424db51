#!/usr/bin/env python3
"""Writes docs/openapi.yaml from serve's OpenAPI document (Sources/NearbyServer/Contract/openapi.json,
the one `GET /openapi.json` answers), or with --check, fails when the YAML says anything else.

    python3 scripts/openapi-yaml.py           # after editing openapi.json
    python3 scripts/openapi-yaml.py --check   # what the tests run (ServeContractTests)

Needs PyYAML (schemathesis, which scripts/bootstrap.sh installs, brings it).
"""
import json
import pathlib
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = ROOT / "Sources/NearbyServer/Contract/openapi.json"
TARGET = ROOT / "docs/openapi.yaml"
HEADER = (
    "# locsim serve's HTTP contract (OpenAPI 3), the document `GET /openapi.json` answers.\n"
    "# Written by scripts/openapi-yaml.py from Sources/NearbyServer/Contract/openapi.json: edit that\n"
    "# file and run the script; the tests fail when the two differ.\n"
)


class _Dumper(yaml.SafeDumper):
    """Writes a text of several lines as a literal block, so the descriptions read as written."""


def _text(dumper, value):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def main() -> int:
    document = json.loads(SOURCE.read_text(encoding="utf-8"))
    if "--check" in sys.argv[1:]:
        if not TARGET.exists():
            print(f"{TARGET.relative_to(ROOT)}: missing; run python3 scripts/openapi-yaml.py", file=sys.stderr)
            return 1
        written = yaml.safe_load(TARGET.read_text(encoding="utf-8"))
        if written != document:
            print(
                f"{TARGET.relative_to(ROOT)} differs from {SOURCE.relative_to(ROOT)}; run python3 scripts/openapi-yaml.py",
                file=sys.stderr,
            )
            return 1
        return 0
    text = yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)
    TARGET.write_text(HEADER + text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
