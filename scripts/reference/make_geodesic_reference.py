#!/usr/bin/env python3
"""Reference tables for LocationCore's geodesy tests, computed with GeographicLib.

Writes, into Tests/LocationCoreTests/Fixtures/:

  geodesic-reference.csv         WGS-84 inverse problem: >= 1,000 random pairs up to 1,000 km
                                 plus hundreds of hard cases (near-antipodal, poles, +-180 deg,
                                 equator, meridians, coincident and very short lines).
  geodesic-direct-reference.csv  WGS-84 direct problem.
  geodesic-other-ellipsoids.csv  Inverse problem on a sphere, a flatter oblate ellipsoid and a
                                 prolate one (random and nearly antipodal pairs).
  spherical-reference.csv        Sphere of radius R = 6,371,008.8 m: haversine distance (computed
                                 here in plain Python), initial bearing and the point a fraction of
                                 the way along the great circle (GeographicLib with f = 0).
  spherical-destination.csv      Sphere: destination from start, bearing and distance.

Every float is written with repr(), which round-trips exactly. The random generator is seeded,
so re-running the script reproduces the files byte for byte (for a given geographiclib version).

Needs: pip install geographiclib   (tested with geographiclib 2.1)
Run from the package root:  python3 scripts/reference/make_geodesic_reference.py
"""

import csv
import math
import os
import random
import sys

from geographiclib.geodesic import Geodesic

WGS84 = Geodesic.WGS84
SPHERE_RADIUS = 6_371_008.8
SPHERE = Geodesic(SPHERE_RADIUS, 0)
SEED = 20_240_517

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FIXTURES = os.path.join(ROOT, "Tests", "LocationCoreTests", "Fixtures")


def lon_norm(lon):
    """Longitude in -180 <= lon < 180, the range LocationCore's Coordinate holds."""
    lon = math.remainder(lon, 360.0)
    if lon >= 180.0:
        lon -= 360.0
    if lon < -180.0:
        lon += 360.0
    return lon + 0.0  # no negative zero from remainder of -0


def lat_clamp(lat):
    return max(-90.0, min(90.0, lat))


def random_point(rng):
    """Uniform on the sphere (area-weighted)."""
    return math.degrees(math.asin(rng.uniform(-1.0, 1.0))), rng.uniform(-180.0, 180.0)


def inverse_row(category, lat1, lon1, lat2, lon2):
    lat1, lat2 = lat_clamp(lat1), lat_clamp(lat2)
    lon1, lon2 = lon_norm(lon1), lon_norm(lon2)
    g = WGS84.Inverse(lat1, lon1, lat2, lon2)
    return [category, lat1, lon1, lat2, lon2, g["s12"], g["azi1"], g["azi2"]]


def inverse_cases(rng):
    rows = []

    # 1. Random pairs up to 1,000 km: random start, azimuth and length (log-uniform from 1 cm,
    #    plus uniform lengths so the long end is well covered).
    for i in range(1500):
        lat1, lon1 = random_point(rng)
        azi = rng.uniform(-180.0, 180.0)
        if i % 2 == 0:
            s = 10.0 ** rng.uniform(-2.0, 6.0)
        else:
            s = rng.uniform(0.0, 1_000_000.0)
        d = WGS84.Direct(lat1, lon1, azi, s)
        rows.append(inverse_row("short", lat1, lon1, d["lat2"], d["lon2"]))

    # 2. Random global pairs, any distance.
    for _ in range(500):
        lat1, lon1 = random_point(rng)
        lat2, lon2 = random_point(rng)
        rows.append(inverse_row("global", lat1, lon1, lat2, lon2))

    # 3. Nearly antipodal: point 2 near the antipode of point 1, offsets from 1e-13 deg to 3 deg,
    #    in latitude, longitude or both, either side.
    for _ in range(300):
        lat1 = rng.choice([rng.uniform(-90.0, 90.0), rng.uniform(-1.0, 1.0), 10.0 ** rng.uniform(-10, 0)])
        lon1 = rng.uniform(-180.0, 180.0)
        dlat = rng.choice([0.0, 1.0, -1.0]) * 10.0 ** rng.uniform(-13.0, 0.5)
        dlon = rng.choice([0.0, 1.0, -1.0]) * 10.0 ** rng.uniform(-13.0, 0.5)
        rows.append(inverse_row("antipodal", lat1, lon1, -lat1 + dlat, lon1 + 180.0 + dlon))
    for lat1 in [0.0, 1e-300, 1e-10, 0.07476, 0.1, 1.0, 10.0, 30.0, 45.0, 60.0, 89.0, 89.999999, 90.0]:
        rows.append(inverse_row("antipodal", lat1, 0.0, -lat1, 180.0))  # exactly antipodal
        rows.append(inverse_row("antipodal", -lat1, 17.25, lat1, -162.75))
    # Equatorial points near 180 deg apart, where the shortest path leaves the equator.
    for dlon in [179.0, 179.3, 179.39, 179.396, 179.3965, 179.3966, 179.4, 179.5, 179.9, 179.99, 179.999999, 180.0]:
        rows.append(inverse_row("antipodal", 0.0, 0.0, 0.0, dlon))
        rows.append(inverse_row("antipodal", 0.0, 0.0, 1e-7, dlon))
        rows.append(inverse_row("antipodal", 1e-7, 0.0, -1e-7, dlon))
    # Pairs that land on or very near the antipodal cut (y ~ 0 in the astroid scaling).
    for _ in range(60):
        lat1 = rng.uniform(-60.0, 60.0)
        lat2 = -lat1 + rng.choice([0.0, 1e-12, -1e-12, 1e-8, -1e-8])
        rows.append(inverse_row("antipodal", lat1, 0.0, lat2, 180.0 - rng.uniform(0.0, 0.6)))

    # 4. Poles: on the pole, very near it, pole to pole.
    for _ in range(120):
        pole = rng.choice([90.0, -90.0])
        near = pole - math.copysign(rng.choice([0.0, 1e-15, 1e-12, 1e-9, 1e-6, 1e-3, 0.5]), pole)
        lat2, lon2 = random_point(rng)
        if rng.random() < 0.3:
            lat2 = rng.choice([90.0, -90.0, 89.9999999, -89.9999999])
        rows.append(inverse_row("pole", near, rng.uniform(-180.0, 180.0), lat2, lon2))
    for lon1, lon2 in [(0.0, 0.0), (0.0, 180.0), (0.0, 90.0), (-180.0, 179.999), (45.0, -135.0), (12.5, 77.0)]:
        rows.append(inverse_row("pole-to-pole", 90.0, lon1, -90.0, lon2))
        rows.append(inverse_row("pole-to-pole", -90.0, lon1, 90.0, lon2))
        rows.append(inverse_row("pole-to-pole", 89.999999999, lon1, -89.999999999, lon2))
        rows.append(inverse_row("pole-to-pole", 90.0, lon1, 90.0, lon2))

    # 5. Across the antimeridian: short and long lines whose longitudes straddle +-180.
    for _ in range(120):
        lat1 = rng.uniform(-89.0, 89.0)
        lon1 = 180.0 - 10.0 ** rng.uniform(-12.0, 1.0)
        lon2 = -180.0 + 10.0 ** rng.uniform(-12.0, 1.0)
        if rng.random() < 0.5:
            lon1, lon2 = lon2, lon1
        lat2 = lat1 + rng.uniform(-1.0, 1.0) * 10.0 ** rng.uniform(-9.0, 1.0)
        rows.append(inverse_row("antimeridian", lat1, lon1, lat2, lon2))
    for lat in [0.0, 30.0, -60.0]:
        rows.append(inverse_row("antimeridian", lat, -180.0, lat, 179.999999))
        rows.append(inverse_row("antimeridian", lat, 179.5, lat, -179.5))

    # 6. Equatorial.
    for _ in range(80):
        lon1 = rng.uniform(-180.0, 180.0)
        dlon = rng.choice([10.0 ** rng.uniform(-9.0, 2.3), rng.uniform(0.0, 179.39)])
        rows.append(inverse_row("equatorial", 0.0, lon1, 0.0, lon1 + rng.choice([1.0, -1.0]) * dlon))

    # 7. Meridional: same meridian, or opposite meridians (through a pole).
    for _ in range(100):
        lon1 = rng.uniform(-180.0, 180.0)
        lat1 = rng.uniform(-90.0, 90.0)
        lat2 = rng.choice([rng.uniform(-90.0, 90.0), lat1 + rng.uniform(-1e-6, 1e-6)])
        lon2 = lon1 if rng.random() < 0.6 else lon1 + 180.0
        rows.append(inverse_row("meridional", lat1, lon1, lat_clamp(lat2), lon2))

    # 8. Coincident points.
    for lat, lon in [(0.0, 0.0), (90.0, 0.0), (-90.0, 123.0), (0.0, -180.0), (45.0, 179.999999999),
                     (-33.8688, 151.2093), (1e-300, 1e-300), (-0.0, -0.0)]:
        rows.append(inverse_row("coincident", lat, lon, lat, lon))
    for _ in range(20):
        lat, lon = random_point(rng)
        rows.append(inverse_row("coincident", lat, lon, lat, lon))

    # 9. Very short: 1 nm to 1 mm, random directions, anywhere (incl. near the poles).
    for _ in range(150):
        lat1, lon1 = random_point(rng)
        if rng.random() < 0.2:
            lat1 = math.copysign(90.0 - 10.0 ** rng.uniform(-9, 0), lat1)
        d = WGS84.Direct(lat1, lon1, rng.uniform(-180.0, 180.0), 10.0 ** rng.uniform(-9.0, -3.0))
        rows.append(inverse_row("very-short", lat1, lon1, d["lat2"], d["lon2"]))

    # 10. Known awkward cases (published in GeographicLib's test suite and bug reports).
    for case in [
        (36.493349428792, 0.0, 36.49334942879201, 0.0000008),
        (0.07476, 0.0, -0.07476, 180.0),
        (0.1, 0.0, -0.1, 180.0),
        (0.0, 0.0, 0.5, 179.5),
        (0.0, 0.0, 0.0, 179.5),
        (-10.0, 0.0, 10.0, 180.0),
        (5.0, 0.00000000000001, 10.0, 180.0),
        (-0.0, -0.0, 0.0, 180.0),
        (40.0, 0.0, 40.0, 0.0000001),
        (89.0, 0.0, -89.0, 179.99999),
        (-45.0, 0.0, 45.0, 179.019),
        (30.0, 0.0, -30.0, 179.9999999999),
        (-30.0, 0.0, 30.0, 179.9999999999),
        (1e-10, 0.0, -1e-10, 179.9999999999),
    ]:
        rows.append(inverse_row("known-hard", *case))
    return rows


def direct_cases(rng):
    rows = []

    def row(category, lat1, lon1, azi1, s12):
        lat1, lon1 = lat_clamp(lat1), lon_norm(lon1)
        g = WGS84.Direct(lat1, lon1, azi1, s12)
        rows.append([category, lat1, lon1, azi1, s12, g["lat2"], lon_norm(g["lon2"]), g["azi2"]])

    for i in range(600):
        lat1, lon1 = random_point(rng)
        s = 10.0 ** rng.uniform(-3.0, 6.0) if i % 2 == 0 else rng.uniform(0.0, 1_000_000.0)
        row("short", lat1, lon1, rng.uniform(-180.0, 180.0), s)
    for _ in range(300):
        lat1, lon1 = random_point(rng)
        row("global", lat1, lon1, rng.uniform(-180.0, 180.0), rng.uniform(-20_000_000.0, 20_000_000.0))
    for _ in range(60):
        lat1, lon1 = random_point(rng)
        row("wrap", lat1, lon1, rng.uniform(-180.0, 180.0), rng.uniform(20_000_000.0, 120_000_000.0))
    for _ in range(60):
        pole = rng.choice([90.0, -90.0, 89.999999, -89.999999])
        row("pole", pole, rng.uniform(-180.0, 180.0), rng.uniform(-180.0, 180.0), rng.uniform(0.0, 20_000_000.0))
    for azi in [0.0, 90.0, 180.0, -90.0, -180.0, 45.0, 360.0, 540.0, -720.0]:
        for lat1 in [0.0, 45.0, -89.0]:
            row("cardinal", lat1, 179.0, azi, 5_000_000.0)
    for _ in range(40):
        row("equatorial", 0.0, rng.uniform(-180.0, 180.0), rng.choice([90.0, -90.0]), rng.uniform(0.0, 40_000_000.0))
    row("zero", 12.0, 34.0, 56.0, 0.0)
    row("zero", 90.0, 0.0, 0.0, 0.0)
    return rows


OTHER_ELLIPSOIDS = [
    ("sphere", 6_371_008.8, 0.0),
    ("oblate-1/60", 6_400_000.0, 1 / 60),
    ("prolate-1/150", 6_400_000.0, -1 / 150),
]


def other_ellipsoid_cases(rng):
    rows = []
    for name, a, f in OTHER_ELLIPSOIDS:
        geod = Geodesic(a, f)
        for i in range(160):
            lat1, lon1 = random_point(rng)
            if i < 80:
                lat2, lon2 = random_point(rng)
            else:  # nearly antipodal
                lat1 = rng.uniform(-60.0, 60.0)
                lat2 = -lat1 + rng.choice([0.0, 1.0, -1.0]) * 10.0 ** rng.uniform(-12.0, 0.3)
                lon2 = lon1 + 180.0 + rng.choice([0.0, 1.0, -1.0]) * 10.0 ** rng.uniform(-12.0, 0.3)
            lat1, lat2 = lat_clamp(lat1), lat_clamp(lat2)
            lon1, lon2 = lon_norm(lon1), lon_norm(lon2)
            g = geod.Inverse(lat1, lon1, lat2, lon2)
            rows.append([name, a, f, lat1, lon1, lat2, lon2, g["s12"], g["azi1"], g["azi2"]])
    return rows


def haversine(lat1, lon1, lat2, lon2):
    """The haversine formula on the IUGG mean-radius sphere, in plain Python floats."""
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    h = (math.sin((phi2 - phi1) / 2) ** 2
         + math.cos(phi1) * math.cos(phi2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2)
    return 2 * SPHERE_RADIUS * math.asin(min(1.0, math.sqrt(h)))


def spherical_cases(rng):
    rows = []
    starts = []
    for i in range(400):
        lat1, lon1 = random_point(rng)
        if i < 300:
            d = SPHERE.Direct(lat1, lon1, rng.uniform(-180.0, 180.0), 10.0 ** rng.uniform(0.0, 7.2))
            lat2, lon2 = d["lat2"], lon_norm(d["lon2"])
        else:
            lat2, lon2 = random_point(rng)
        starts.append((lat1, lon_norm(lon1), lat2, lon2))
    for case in [(0.0, -179.5, 0.0, 179.5), (51.5, -0.12, 51.5, -0.12), (89.9, 0.0, 89.9, 180.0),
                 (-90.0, 0.0, -89.0, 45.0), (35.6812, 139.7671, 34.7025, 135.4959)]:
        starts.append(case)
    for lat1, lon1, lat2, lon2 in starts:
        g = SPHERE.Inverse(lat1, lon1, lat2, lon2)
        distance = haversine(lat1, lon1, lat2, lon2)
        # Independent cross-check: the great-circle solution of GeographicLib with f = 0.
        if abs(distance - g["s12"]) > 1e-6:
            sys.exit(f"haversine and GeographicLib disagree for {lat1},{lon1} -> {lat2},{lon2}")
        bearing = g["azi1"] % 360.0 if distance > 0 else 0.0
        fraction = rng.choice([rng.uniform(0.0, 1.0), rng.uniform(-0.5, 1.5), 0.5])
        line = SPHERE.InverseLine(lat1, lon1, lat2, lon2)
        p = line.Position(fraction * line.s13)
        rows.append([lat1, lon1, lat2, lon2, distance, bearing, fraction, p["lat2"], lon_norm(p["lon2"])])
    return rows


def spherical_destination_cases(rng):
    rows = []
    for i in range(300):
        lat1, lon1 = random_point(rng)
        bearing = rng.uniform(0.0, 360.0)
        distance = 10.0 ** rng.uniform(-1.0, 7.3) * (1 if i % 10 else -1)
        d = SPHERE.Direct(lat1, lon1, bearing, distance)
        rows.append([lat1, lon_norm(lon1), bearing, distance, d["lat2"], lon_norm(d["lon2"])])
    # From either pole, where the bearing is from the pole's own meridian (its longitude): a
    # circle about a pole goes round. Fixed values, so the random rows above stay as they were.
    for lat1 in (90.0, -90.0):
        for lon1 in (0.0, 30.0, -120.0):
            for step in range(8):
                bearing = 45.0 * step + 10.0
                for distance in (100.0, 1.0e4, 1.0e6, -2.5e5, 1.5e7, 2.5e7):
                    d = SPHERE.Direct(lat1, lon1, bearing, distance)
                    rows.append([lat1, lon_norm(lon1), bearing, distance, d["lat2"], lon_norm(d["lon2"])])
    return rows


def write(name, header, rows):
    path = os.path.join(FIXTURES, name)
    with open(path, "w", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        for row in rows:
            writer.writerow([repr(float(v)) if isinstance(v, float) else v for v in row])
    print(f"{path}: {len(rows)} rows")


def main():
    rng = random.Random(SEED)
    write("geodesic-reference.csv", ["category", "lat1", "lon1", "lat2", "lon2", "s12", "azi1", "azi2"],
          inverse_cases(rng))
    write("geodesic-direct-reference.csv", ["category", "lat1", "lon1", "azi1", "s12", "lat2", "lon2", "azi2"],
          direct_cases(rng))
    write("geodesic-other-ellipsoids.csv",
          ["ellipsoid", "a", "f", "lat1", "lon1", "lat2", "lon2", "s12", "azi1", "azi2"],
          other_ellipsoid_cases(rng))
    write("spherical-reference.csv",
          ["lat1", "lon1", "lat2", "lon2", "distance", "bearing", "fraction", "lat_f", "lon_f"],
          spherical_cases(rng))
    write("spherical-destination.csv", ["lat1", "lon1", "bearing", "distance", "lat2", "lon2"],
          spherical_destination_cases(rng))


if __name__ == "__main__":
    main()
