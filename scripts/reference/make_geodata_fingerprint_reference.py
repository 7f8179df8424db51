#!/usr/bin/env python3
"""Expected cache-file fingerprints for DefaultPlaceDatabase, computed independently of locsim.

The default database is cached as geodata-<fingerprint>.sqlite, where the fingerprint is FNV-1a 64
(offset basis 0xcbf29ce484222325, prime 0x100000001b3) over:

    b"schema <index schema version>"  NUL
    then for each CSV, in name order:  <file name, UTF-8>  NUL  <file bytes>  NUL

written as 16 lower-case hex digits. A locsim that computed it differently would not recognise
databases that earlier versions built. This script hashes the CSVs in
Tests/LocationIndexTests/Fixtures/geodata-fingerprint/ for schema versions 1 to 12 and writes
Tests/LocationIndexTests/Fixtures/geodata-fingerprint.csv (schema_version,fingerprint); the test
picks the row of the schema version it opens.

Run from the package root:  python3 scripts/reference/make_geodata_fingerprint_reference.py
Needs only the standard library.
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "Tests", "LocationIndexTests", "Fixtures")
GEODATA = os.path.join(FIXTURES, "geodata-fingerprint")
OUT = os.path.join(FIXTURES, "geodata-fingerprint.csv")


def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for byte in data:
        h ^= byte
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def fingerprint(schema_version: int) -> str:
    data = b"schema %d" % schema_version + b"\0"
    # Sorted by name as Swift compares strings; the fixture names are ASCII, where both agree.
    for name in sorted(n for n in os.listdir(GEODATA) if n.endswith(".csv")):
        with open(os.path.join(GEODATA, name), "rb") as f:
            data += name.encode("utf-8") + b"\0" + f.read() + b"\0"
    return "%016x" % fnv1a64(data)


def main() -> None:
    with open(OUT, "w", newline="") as out:
        out.write("schema_version,fingerprint\n")
        for version in range(1, 13):
            out.write("%d,%s\n" % (version, fingerprint(version)))


if __name__ == "__main__":
    main()
