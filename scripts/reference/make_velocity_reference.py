#!/usr/bin/env python3
"""Expected speed and course of replayed fixes whose recording lacks them, computed with gpxpy and
GeographicLib, independently of locsim.

The rule (docs/guides/replay.md, "Speed and course"): a fix with a position that has no recorded
speed or course takes them from the move it is part of: the WGS-84 geodesic to the next point
(its length over the time between the two, its azimuth at the start), or, for the last point of
a segment, the geodesic from the point before (its azimuth at the end). A segment break or a step
longer than the gap threshold (60 s) ends a segment. A move of length 0 gives speed 0 and no
course; a fix whose speed (recorded or derived) is 0 gets no course. Two points at one time give
nothing. Courses are degrees clockwise from north in [0, 360).

Writes Tests/LocationSimulationTests/Fixtures/velocity-reference.json: for each input, the
points in file order, each [speed, course] (null where none).
Inputs: the test fixture velocity-rules.gpx (GPX 1.0, whose points may carry speed and course)
and the bundled tracks/sf-mission-walk.gpx. Values are written to 12 significant digits.
Needs: pip install gpxpy geographiclib      Run from the package root:
    python3 scripts/reference/make_velocity_reference.py
"""
import calendar
import json
import os

import gpxpy
from geographiclib.geodesic import Geodesic

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "Tests", "LocationSimulationTests", "Fixtures")
INPUTS = [
    ("velocity-rules", os.path.join(FIXTURES, "velocity-rules.gpx")),
    ("sf-mission-walk", os.path.join(ROOT, "tracks", "sf-mission-walk.gpx")),
]
GAP_THRESHOLD = 60.0


def seconds(t):
    return calendar.timegm(t.utctimetuple()) + t.microsecond / 1e6


def course(azimuth):
    c = azimuth % 360.0
    return 0.0 if c == 360.0 else c


def velocity(a, b, at_end):
    dt = b["t"] - a["t"]
    if dt <= 0:
        return None
    line = Geodesic.WGS84.Inverse(a["lat"], a["lon"], b["lat"], b["lon"])
    if line["s12"] == 0:
        return (0.0, None)
    return (line["s12"] / dt, course(line["azi2"] if at_end else line["azi1"]))


def expected(path):
    with open(path, encoding="utf-8") as f:
        gpx = gpxpy.parse(f)
    points = []
    for track in gpx.tracks:
        for s, segment in enumerate(track.segments):
            for i, p in enumerate(segment.points):
                brk = bool(points) and (i == 0 or seconds(p.time) - points[-1]["t"] > GAP_THRESHOLD)
                points.append({"lat": p.latitude, "lon": p.longitude, "t": seconds(p.time), "break": brk,
                               "speed": p.speed, "course": p.course})
    out = []
    for i, p in enumerate(points):
        speed, crs = p["speed"], p["course"]
        if speed is None or crs is None:
            if i + 1 < len(points) and not points[i + 1]["break"]:
                move = velocity(p, points[i + 1], False)
            elif i > 0 and not p["break"]:
                move = velocity(points[i - 1], p, True)
            else:
                move = None
            if move is not None:
                if speed is None:
                    speed = move[0]
                if crs is None and speed != 0 and move[1] is not None:
                    crs = move[1]
        out.append([rounded(speed), rounded(crs)])
    return out


def rounded(x):
    return None if x is None else float("%.12g" % x)


def main():
    reference = {name: expected(path) for name, path in INPUTS}
    target = os.path.join(FIXTURES, "velocity-reference.json")
    with open(target, "w", encoding="utf-8") as f:
        f.write("{\n" + ",\n".join(f'"{k}": ' + json.dumps(v, separators=(",", ":")) for k, v in reference.items()) + "\n}")
        f.write("\n")
    print(f"wrote {os.path.relpath(target, ROOT)}: " + ", ".join(f"{k} {len(v)} points" for k, v in reference.items()))


if __name__ == "__main__":
    main()
