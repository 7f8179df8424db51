#!/usr/bin/env python3
"""The UUID `locsim serve --id-format uuid` sends for each place id given as an argument, one a
line: the id itself when it is already a UUID (8-4-4-4-12 hex digits), else the RFC 9562
version-5 UUID of its UTF-8 in locsim's namespace, which is the version-5 UUID of the DNS name
place-id.locsim.invalid. Computed with Python's uuid module, independently of the Swift code
(Tests/NearbyServerTests/PlaceUUIDTests.swift runs it), and used by scripts/geodata-generate.py.

Needs: Python 3 (standard library only).
"""

import re
import sys
import uuid

NAMESPACE = uuid.uuid5(uuid.NAMESPACE_DNS, "place-id.locsim.invalid")
UUID_FORM = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def place_uuid(place_id: str) -> str:
    if UUID_FORM.match(place_id):
        return place_id
    return str(uuid.uuid5(NAMESPACE, place_id))


if __name__ == "__main__":
    for argument in sys.argv[1:]:
        print(place_uuid(argument))
