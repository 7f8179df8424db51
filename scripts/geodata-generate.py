#!/usr/bin/env python3
"""Generate a seeded place set for geodata/ (CSV: id,name,lat,lon,kind,level).

Places are scattered uniformly (by area, on the sphere) over either a disc around a centre or a
corridor around a GPX track, at a given density, with kinds drawn by weight and levels drawn from
a range. The same arguments and seed always give the same file, byte for byte.

Examples (the commands that made the committed sets):

    scripts/geodata-generate.py --prefix tokyo --center 35.6812,139.7671 --radius 3000 \
        --density 100 --seed 1 > geodata/tokyo-central.csv
    scripts/geodata-generate.py --prefix mission --center 37.7599,-122.4148 --radius 2000 \
        --density 200 --seed 2 > geodata/sf-mission.csv
    scripts/geodata-generate.py --prefix walk --track tracks/walk.gpx --buffer 300 \
        --density 150 --seed 3 > geodata/walk.csv

Only the Python standard library is used.
"""

import argparse
import math
import random
import re
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference"))
from place_uuid import place_uuid  # noqa: E402  (one definition of the bundled ids' UUIDs)

R = 6_371_008.8  # the sphere of LocationCore's Sphere.radius

DEFAULT_KINDS = "shrine:3,cafe:4,park:2,station:1,shop:4,monument:1,fountain:1"
ADJECTIVES = ["Old", "Quiet", "Mossy", "Golden", "Hidden", "Windy", "Little", "Crimson", "Silver",
              "Sunny", "Misty", "Northern", "Southern", "Twin", "Lantern", "Willow", "Stone", "Harbor"]


def destination(lat, lon, distance, bearing):
    """Great-circle destination on the sphere (degrees, metres, degrees clockwise from north)."""
    d = distance / R
    t = math.radians(bearing)
    p1, l1 = math.radians(lat), math.radians(lon)
    p2 = math.asin(math.sin(p1) * math.cos(d) + math.cos(p1) * math.sin(d) * math.cos(t))
    l2 = l1 + math.atan2(math.sin(t) * math.sin(d) * math.cos(p1), math.cos(d) - math.sin(p1) * math.sin(p2))
    lon2 = (math.degrees(l2) + 180) % 360 - 180
    return math.degrees(p2), lon2


def haversine(a, b):
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(b[1] - a[1]) / 2) ** 2
    return 2 * R * math.asin(min(1, math.sqrt(h)))


def bearing(a, b):
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    dl = math.radians(b[1] - a[1])
    return math.degrees(math.atan2(math.sin(dl) * math.cos(p2),
                                   math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl))) % 360


def read_track(path):
    """Track points of a GPX file, in order (trkpt, then rtept, then wpt)."""
    text = open(path, encoding="utf-8").read()
    for tag in ("trkpt", "rtept", "wpt"):
        points = []
        for attributes in re.findall(r"<%s\b([^>]*)>" % tag, text):
            lat = re.search(r'lat="([^"]+)"', attributes)
            lon = re.search(r'lon="([^"]+)"', attributes)
            if lat and lon:
                points.append((float(lat.group(1)), float(lon.group(1))))
        if len(points) >= 2:
            return points
    sys.exit(f"{path}: no track with at least two points; give a GPX file with <trkpt> elements")


def disc_places(rng, center, radius, count):
    for _ in range(count):
        # Uniform by area: distance ~ R * sqrt(u) (flat-disc approximation, fine for a few km).
        yield destination(center[0], center[1], radius * math.sqrt(rng.random()), rng.uniform(0, 360))


def corridor_places(rng, track, buffer, count):
    lengths = [haversine(a, b) for a, b in zip(track, track[1:])]
    total = sum(lengths)
    for _ in range(count):
        along = rng.uniform(0, total)
        index = 0
        while index < len(lengths) - 1 and along > lengths[index]:
            along -= lengths[index]
            index += 1
        a, b = track[index], track[index + 1]
        course = bearing(a, b)
        on_track = destination(a[0], a[1], along, course)
        side = rng.uniform(-buffer, buffer)
        yield destination(on_track[0], on_track[1], abs(side), course + (90 if side >= 0 else -90))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    area = parser.add_mutually_exclusive_group(required=True)
    area.add_argument("--center", help="LAT,LON of a disc to fill")
    area.add_argument("--track", help="GPX file whose track to surround")
    parser.add_argument("--radius", type=float, default=2000, help="disc radius in metres (with --center)")
    parser.add_argument("--buffer", type=float, default=300, help="corridor half-width in metres (with --track)")
    parser.add_argument("--density", type=float, required=True, help="places per square kilometre")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--prefix", required=True, help="id prefix, unique per file (ids are named PREFIX-NNNNN)")
    parser.add_argument(
        "--id-format", choices=["uuid", "plain"], default="uuid",
        help="uuid: the name-based UUID of PREFIX-NNNNN, as `locsim serve --id-format uuid` maps it "
        "(scripts/reference/place_uuid.py; the game's Location.id is a UUID); plain: PREFIX-NNNNN")
    parser.add_argument("--kinds", default=DEFAULT_KINDS, help="kind:weight,... (default %(default)s)")
    parser.add_argument("--levels", default="1-10", help="level range LOW-HIGH; about 1 in 8 places has none")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    kinds = [(k, float(w)) for k, w in (item.split(":") for item in args.kinds.split(","))]
    low, high = (int(x) for x in args.levels.split("-"))
    if args.center:
        center = tuple(float(x) for x in args.center.split(","))
        area_km2 = math.pi * (args.radius / 1000) ** 2
        count = round(area_km2 * args.density)
        points = list(disc_places(rng, center, args.radius, count))
    else:
        track = read_track(args.track)
        length = sum(haversine(a, b) for a, b in zip(track, track[1:]))
        area_km2 = length * 2 * args.buffer / 1e6
        count = round(area_km2 * args.density)
        points = list(corridor_places(rng, track, args.buffer, count))

    out = sys.stdout
    out.write("id,name,lat,lon,kind,level\n")
    names = {}
    for number, (lat, lon) in enumerate(points):
        kind = rng.choices([k for k, _ in kinds], weights=[w for _, w in kinds])[0]
        level = "" if rng.random() < 0.125 else str(rng.randint(low, high))
        base = f"{rng.choice(ADJECTIVES)} {kind.capitalize()}"
        names[base] = names.get(base, 0) + 1
        name = base if names[base] == 1 else f"{base} {names[base]}"
        place_id = f"{args.prefix}-{number:05d}"
        if args.id_format == "uuid":
            place_id = place_uuid(place_id)
        out.write(f"{place_id},{name},{lat:.7f},{lon:.7f},{kind},{level}\n")
    print(f"{count} places over {area_km2:.2f} km2", file=sys.stderr)


if __name__ == "__main__":
    main()
