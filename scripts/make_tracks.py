#!/usr/bin/env python3
"""Generates the walks shipped in tracks/ (seeded, reproducible).

    python3 scripts/make_tracks.py

Each walk follows a list of street corners (coordinates read off a map, rounded to 1e-4°,
about 10 m) along WGS-84 geodesics (GeographicLib), at a walking pace that varies from leg to
leg, pausing at some corners as a pedestrian does at lights. Positions carry correlated GPS-like
noise (first-order Gauss-Markov, sigma 3 m, correlation time 20 s) and are recorded at 1 Hz with
elevation and HDOP, like a phone's GPX export. Needs: pip install geographiclib
"""
import math
import os
import random

from geographiclib.geodesic import Geodesic

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WALKS = {
    "tokyo-marunouchi-walk": {
        "seed": 11,
        "start": 1_730_000_000,  # 2024-10-27T03:33:20Z
        "elevation": 5.0,
        "corners": [
            (35.6812, 139.7671, "Tokyo Station, Marunouchi Central exit"),
            (35.6839, 139.7614, "Wadakura Gate"),
            (35.6862, 139.7664, "Otemachi"),
            (35.6840, 139.7745, "Nihonbashi bridge"),
            (35.6805, 139.7700, "Yaesu"),
            (35.6768, 139.7702, "Kyobashi"),
            (35.6717, 139.7650, "Ginza 4-chome crossing"),
            (35.6750, 139.7630, "Yurakucho"),
            (35.6812, 139.7671, "Tokyo Station, Marunouchi Central exit"),
        ],
    },
    "sf-mission-walk": {
        "seed": 23,
        "start": 1_731_000_000,  # 2024-11-07T17:20:00Z
        "elevation": 20.0,
        "corners": [
            (37.7651, -122.4197, "16th St Mission BART"),
            (37.7648, -122.4219, "16th St & Valencia St"),
            (37.7616, -122.4216, "18th St & Valencia St"),
            (37.7613, -122.4269, "18th St & Dolores St (Dolores Park)"),
            (37.7567, -122.4264, "22nd St & Dolores St"),
            (37.7524, -122.4206, "24th St & Valencia St"),
            (37.7522, -122.4184, "24th St Mission BART"),
            (37.7651, -122.4197, "16th St Mission BART"),
        ],
    },
}

SIGMA = 3.0
TAU = 20.0


def walk(spec):
    rng = random.Random(spec["seed"])
    geod = Geodesic.WGS84
    t = float(spec["start"])
    ele = spec["elevation"]
    noise_n = noise_e = 0.0
    rho = math.exp(-1.0 / TAU)
    points = []

    def emit(lat, lon):
        nonlocal noise_n, noise_e, ele, t
        noise_n = rho * noise_n + math.sqrt(1 - rho * rho) * rng.gauss(0, SIGMA)
        noise_e = rho * noise_e + math.sqrt(1 - rho * rho) * rng.gauss(0, SIGMA)
        ele += rng.gauss(0, 0.15)
        north = geod.Direct(lat, lon, 0, noise_n)
        moved = geod.Direct(north["lat2"], north["lon2"], 90, noise_e)
        points.append((moved["lat2"], moved["lon2"], ele, t, rng.uniform(0.7, 1.6)))
        t += 1.0

    corners = spec["corners"]
    for (lat1, lon1, _), (lat2, lon2, _) in zip(corners, corners[1:]):
        line = geod.InverseLine(lat1, lon1, lat2, lon2)
        speed = rng.uniform(1.2, 1.6)
        s = 0.0
        while s < line.s13:
            p = line.Position(s)
            emit(p["lat2"], p["lon2"])
            s += speed + rng.gauss(0, 0.1)
        if rng.random() < 0.5:  # waiting at the lights
            for _ in range(rng.randint(15, 45)):
                emit(lat2, lon2)
    return points


def iso(t):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def main():
    for name, spec in WALKS.items():
        points = walk(spec)
        path = os.path.join(ROOT, "tracks", name + ".gpx")
        with open(path, "w") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
            f.write('<gpx version="1.1" creator="locsim scripts/make_tracks.py" xmlns="http://www.topografix.com/GPX/1/1">\n')
            f.write(f"  <metadata><name>{name}</name><desc>Generated: see tracks/README.md</desc></metadata>\n")
            f.write(f"  <trk><name>{name}</name><trkseg>\n")
            for lat, lon, ele, t, hdop in points:
                f.write(f'    <trkpt lat="{lat:.7f}" lon="{lon:.7f}"><ele>{ele:.1f}</ele><time>{iso(t)}</time><hdop>{hdop:.1f}</hdop></trkpt>\n')
            f.write("  </trkseg></trk>\n</gpx>\n")
        print(f"{path}: {len(points)} points, {points[-1][3] - points[0][3]:.0f} s")


if __name__ == "__main__":
    main()
