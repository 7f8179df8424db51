#!/usr/bin/env python3
"""Reference values for LocationIndex's FNV-1a hash and the ids and names derived from it.

The hash decides values users keep: place ids derived during import (GeoNames rows, GeoJSON
features without an id) and the name of the default database's cache file. This script computes
them independently, so a change to the Swift code that would change them fails
Tests/LocationIndexTests/StableIDTests.swift. It writes
Tests/LocationIndexTests/Fixtures/stable-ids.json with

  hashes        FNV-1a 64 of the UTF-8 of some texts (16 lower-case hex digits)
  geoNames      the ids of Fixtures/geonames-sample.csv in file order: "gn" + 12 base-36 digits
                of the hash of the row's lat, lon, name, admin1, admin2, cc joined by U+001F,
                with "-2", "-3"... for a repeated identical row
  geoJSON       features without ids: name, latitude, longitude and the derived id: "gj" + 12
                base-36 digits of the hash of name, latitude x 1e7 and longitude x 1e7 (rounded
                half away from zero, longitude 180 written as -180) joined by U+001F
  fingerprint   the hash in the default database's file name for Fixtures/fingerprint-geodata/
                (its .csv files in name order), for each index schema version 1...20: FNV-1a 64
                over "schema <version>", NUL, then per file its name, NUL, its bytes, NUL

Needs: Python 3 (standard library only).
"""

import csv
import json
import os
from decimal import ROUND_HALF_UP, Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "Tests", "LocationIndexTests", "Fixtures")

OFFSET_BASIS = 0xCBF29CE484222325
PRIME = 0x100000001B3
MASK = (1 << 64) - 1


def fnv1a64(data, value=OFFSET_BASIS):
    for byte in data:
        value = ((value ^ byte) * PRIME) & MASK
    return value


def base36(value, digits):
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = []
    for _ in range(digits):
        value, digit = divmod(value, 36)
        out.append(alphabet[digit])
    return "".join(reversed(out))


def derived(prefix, text):
    return prefix + base36(fnv1a64(text.encode("utf-8")), 12)


def e7(degrees):
    # Decimal(float) is the float's exact value; the product is the float product Swift computes.
    return int(Decimal(degrees * 1e7).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def geonames_ids(path):
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header = [name.strip().lower() for name in rows[0]]
    columns = [header.index(name) for name in ["lat", "lon", "name", "admin1", "admin2", "cc"]]
    seen, ids = {}, []
    for row in rows[1:]:
        identifier = derived("gn", "\x1f".join(row[c] for c in columns))
        seen[identifier] = seen.get(identifier, 0) + 1
        ids.append(identifier if seen[identifier] == 1 else "%s-%d" % (identifier, seen[identifier]))
    return ids


def geojson_case(name, latitude, longitude):
    latitude_e7, longitude_e7 = e7(latitude), e7(longitude)
    if longitude_e7 >= 1_800_000_000:
        longitude_e7 -= 3_600_000_000
    text = "%s\x1f%d\x1f%d" % (name, latitude_e7, longitude_e7)
    return {"name": name, "latitude": latitude, "longitude": longitude, "id": derived("gj", text)}


def fingerprint(directory, schema_version):
    value = fnv1a64(("schema %d" % schema_version).encode("utf-8"))
    value = fnv1a64(b"\0", value)
    for name in sorted(n for n in os.listdir(directory) if n.endswith(".csv")):
        value = fnv1a64(name.encode("utf-8") + b"\0", value)
        with open(os.path.join(directory, name), "rb") as handle:
            value = fnv1a64(handle.read() + b"\0", value)
    return "%016x" % value


def main():
    texts = ["", "a", "foobar", "Café Zürich\x1f473769000\x1f85417000", "東京タワー 🗼"]
    geodata = os.path.join(FIXTURES, "fingerprint-geodata")
    reference = {
        "hashes": [{"text": t, "fnv1a64": "%016x" % fnv1a64(t.encode("utf-8"))} for t in texts],
        "geoNames": geonames_ids(os.path.join(FIXTURES, "geonames-sample.csv")),
        "geoJSON": [
            geojson_case("Opera House", -33.8568, 151.2153),
            geojson_case("Null Island", 0.0, 0.0),
            geojson_case("Date Line 東", -16.5, 180.0),
            geojson_case("Half tie", 0.00000005, -0.00000015),
        ],
        "fingerprint": {str(v): fingerprint(geodata, v) for v in range(1, 21)},
    }
    with open(os.path.join(FIXTURES, "stable-ids.json"), "w") as handle:
        json.dump(reference, handle, ensure_ascii=True, indent=1)
        handle.write("\n")


if __name__ == "__main__":
    main()
