#!/usr/bin/env python3
"""Reference for PhoneRecordingReplayTests: the game's fetch rule, reimplemented independently.

Reads the three phone recordings in ../shared/data/tracks with gpxpy and the GeoNames places in
../shared/data/places/geonames-cities1000.csv, and replays each track the way the map screen
does with an instant server: fetch on the first fix, when a fix is more than 100 m (haversine on
R = 6,371,008.8 m) from the last fetch, or more than 30 s after it (whole microseconds). Each
fetch counts the places within 5,000 m (inclusive). Writes phone-replays.json beside this
folder: per track, every fetch as [seconds after the first fix, reason, places], and how many
distinct places were ever shown. Only derived numbers are written, no GeoNames rows.

Usage (from the package root):
    python3 Tests/MapFeatureTests/Fixtures/reference/phone_replays.py [SHARED_DATA_DIR]
Needs: gpxpy, numpy.
"""
import csv
import json
import os
import sys

import gpxpy
import numpy as np

R = 6_371_008.8
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
DATA = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "data")
TRACKS = ["berkeley-run-2015", "orinda-walk-2018", "tokyo-iphone-2018"]


def haversine(lat1, lon1, lat2, lon2):
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dphi = p2 - p1
    dlmb = np.radians(lon2 - lon1)
    h = np.sin(dphi / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dlmb / 2) ** 2
    return 2 * R * np.arcsin(np.minimum(1.0, np.sqrt(h)))


def main():
    with open(os.path.join(DATA, "places", "geonames-cities1000.csv"), encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    lat = np.array([float(r[0]) for r in rows])
    lon = np.array([float(r[1]) for r in rows])
    result = {}
    for name in TRACKS:
        with open(os.path.join(DATA, "tracks", name + ".gpx"), encoding="utf-8") as f:
            gpx = gpxpy.parse(f)
        points = [p for t in gpx.tracks for s in t.segments for p in s.points]
        epoch = points[0].time
        anchor = None
        fetches, shown = [], set()
        for p in points:
            micros = (p.time - epoch) // __import__("datetime").timedelta(microseconds=1)
            if anchor is None:
                reason = "first"
            elif float(haversine(p.latitude, p.longitude, anchor[0], anchor[1])) > 100:
                reason = "moved"
            elif micros - anchor[2] > 30_000_000:
                reason = "elapsed"
            else:
                continue
            anchor = (p.latitude, p.longitude, micros)
            inside = np.nonzero(haversine(p.latitude, p.longitude, lat, lon) <= 5_000)[0]
            shown.update(inside.tolist())
            fetches.append([micros / 1e6, reason, int(len(inside))])
        result[name] = {"fixes": len(points), "fetches": fetches, "placesShown": len(shown)}
    out = os.path.join(HERE, "..", "phone-replays.json")
    with open(out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    for name, r in result.items():
        print(name, len(r["fetches"]), "fetches,", r["placesShown"], "places shown")


if __name__ == "__main__":
    main()
