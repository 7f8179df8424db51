#!/usr/bin/env python3
"""The competitor in MapBenchmark: the same 24-hour replay in Python/numpy.

Reads the walk (CSV: seconds,lat,lon per fix, written by MapBenchmark) and the GeoNames places,
applies the game's fetch rule (first; more than 100 m, haversine on R = 6,371,008.8 m; more than
30 s) with an instant server, answering each fetch with the places within the radius by a
vectorised numpy scan. Prints one JSON line: the replay loop's wall time (loading excluded), the
number of fetches, and the total number of places answered, so MapBenchmark can check that both
did the same work.

Usage: map_replay_reference.py WALK_CSV GEONAMES_CSV RADIUS_M
"""
import csv
import json
import math
import sys
import time

import numpy as np

R = 6_371_008.8


def main():
    walk_path, places_path, radius = sys.argv[1], sys.argv[2], float(sys.argv[3])
    walk = np.loadtxt(walk_path, delimiter=",")
    with open(places_path, encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    lat = np.radians(np.array([float(r[0]) for r in rows]))
    lon = np.radians(np.array([float(r[1]) for r in rows]))
    cos_lat = np.cos(lat)

    start = time.perf_counter()
    anchor = None
    fetches = answered = 0
    for seconds, la, lo in walk:
        micros = round(seconds * 1e6)
        p1, l1 = math.radians(la), math.radians(lo)
        if anchor is not None:
            p0, l0, t0 = anchor
            h = math.sin((p1 - p0) / 2) ** 2 + math.cos(p0) * math.cos(p1) * math.sin((l1 - l0) / 2) ** 2
            moved = 2 * R * math.asin(min(1.0, math.sqrt(h))) > 100
            if not moved and micros - t0 <= 30_000_000:
                continue
        anchor = (p1, l1, micros)
        h = np.sin((lat - p1) / 2) ** 2 + math.cos(p1) * cos_lat * np.sin((lon - l1) / 2) ** 2
        answered += int(np.count_nonzero(2 * R * np.arcsin(np.minimum(1.0, np.sqrt(h))) <= radius))
        fetches += 1
    elapsed = time.perf_counter() - start
    print(json.dumps({"seconds": elapsed, "fetches": fetches, "answered": answered}))


if __name__ == "__main__":
    main()
