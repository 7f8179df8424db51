#!/usr/bin/env python3
"""Expected values for the GPX reader tests, computed independently of locsim.

Parsing is gpxpy's; lengths are GeographicLib's WGS-84 geodesics (Karney), summed between
consecutive track points of each segment. Writes one JSON file per input into
Tests/GPXFormatTests/Fixtures/reference/. Run from the package root:

    python3 scripts/reference/make_gpx_reference.py

Inputs: every GPX fixture of the test target, and the real recordings in ../shared/data/tracks
when that folder is present (their expected values are committed; the recordings are not).
Needs: pip install gpxpy geographiclib
"""
import calendar
import glob
import json
import os
import sys

import gpxpy
from geographiclib.geodesic import Geodesic

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "Tests", "GPXFormatTests", "Fixtures")
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data", "tracks")
OUT = os.path.join(FIXTURES, "reference")


def epoch(t):
    if t is None:
        return None
    if t.tzinfo is not None:
        return t.timestamp()
    # GPX times without an offset are UTC.
    return calendar.timegm(t.utctimetuple()) + t.microsecond / 1e6


def normal_lon(lon):
    return -180.0 if lon == 180 else lon


def point_record(p):
    return {
        "lat": p.latitude,
        "lon": p.longitude,
        "ele": p.elevation,
        "time": epoch(p.time),
        "name": p.name,
    }


def reference(path, sample_every):
    with open(path, encoding="utf-8-sig") as f:
        gpx = gpxpy.parse(f.read())
    geod = Geodesic.WGS84
    distance = 0.0
    track_points = []
    segments = 0
    for track in gpx.tracks:
        for segment in track.segments:
            segments += 1
            for a, b in zip(segment.points, segment.points[1:]):
                distance += geod.Inverse(a.latitude, a.longitude, b.latitude, b.longitude)["s12"]
            track_points.extend(segment.points)
    times = [epoch(p.time) for p in track_points if p.time is not None]
    route_points = [p for r in gpx.routes for p in r.points]
    everything = track_points + route_points + list(gpx.waypoints)
    sampled = [(i, point_record(p)) for i, p in enumerate(track_points)
               if i % sample_every == 0 or i == len(track_points) - 1]
    return {
        "file": os.path.basename(path),
        "tracks": len(gpx.tracks),
        "segments": segments,
        "points": len(track_points),
        "route_points": len(route_points),
        "waypoints": len(gpx.waypoints),
        "distance_m": distance,
        "duration_s": (times[-1] - times[0]) if times and times[-1] >= times[0] else None,
        "track_names": [t.name for t in gpx.tracks],
        # locsim normalises longitude 180 to -180 (the same meridian), so the box does too.
        "bbox": None if not everything else {
            "min_lat": min(p.latitude for p in everything),
            "min_lon": min(normal_lon(p.longitude) for p in everything),
            "max_lat": max(p.latitude for p in everything),
            "max_lon": max(normal_lon(p.longitude) for p in everything),
        },
        "sampled_track_points": [{"index": i, **r} for i, r in sampled],
        "route_point_records": [point_record(p) for p in route_points],
        "waypoint_records": [point_record(p) for p in gpx.waypoints],
        "generator": f"gpxpy {gpxpy.__version__ if hasattr(gpxpy, '__version__') else '?'}, geographiclib Geodesic.WGS84",
    }


def main():
    os.makedirs(OUT, exist_ok=True)
    inputs = [(p, 1) for p in sorted(glob.glob(os.path.join(FIXTURES, "*.gpx")))]
    if os.path.isdir(SHARED):
        inputs += [(p, 25) for p in sorted(glob.glob(os.path.join(SHARED, "*.gpx")))]
    else:
        print(f"note: {SHARED} not found; only the project's fixtures are referenced", file=sys.stderr)
    for path, every in inputs:
        data = reference(path, every)
        target = os.path.join(OUT, os.path.splitext(os.path.basename(path))[0] + ".json")
        with open(target, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"{target}: {data['points']} points, {data['distance_m']:.3f} m")


if __name__ == "__main__":
    main()
