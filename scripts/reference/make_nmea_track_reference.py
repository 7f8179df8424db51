#!/usr/bin/env python3
"""Expected `locsim track stats` figures for the NMEA receiver logs in ../shared/data/gpsd,
computed without locsim: GPSBabel converts each log to GPX (`gpsbabel -i nmea -f LOG -o gpx -F
OUT`), gpxpy reads that GPX, and GeographicLib sums the WGS-84 geodesic distance between
consecutive track points of each segment (the definition `track stats` documents).

Only aggregate figures are written (no coordinates or times from the logs), to
Tests/locsimTests/Golden/reference-nmea-track-stats.json as
{"generator": ..., "logs": {NAME: {"points", "segments", "distance_m", "duration_s"}}}.
Run from the package root:

    python3 scripts/reference/make_nmea_track_reference.py

Needs: gpsbabel (apt-get install gpsbabel), pip install gpxpy geographiclib
"""
import json
import os
import subprocess
import tempfile

import geographiclib
import gpxpy
from geographiclib.geodesic import Geodesic

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOGS = os.path.normpath(os.path.join(ROOT, "..", "shared", "data", "gpsd"))
OUT = os.path.join(ROOT, "Tests", "locsimTests", "Golden", "reference-nmea-track-stats.json")


def figures(log):
    with tempfile.TemporaryDirectory() as folder:
        converted = os.path.join(folder, "out.gpx")
        subprocess.run(["gpsbabel", "-i", "nmea", "-f", log, "-o", "gpx", "-F", converted], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(converted) as f:
            gpx = gpxpy.parse(f)
    points = 0
    segments = 0
    distance = 0.0
    times = []
    for track in gpx.tracks:
        for segment in track.segments:
            segments += 1
            previous = None
            for p in segment.points:
                points += 1
                if previous is not None:
                    distance += Geodesic.WGS84.Inverse(previous.latitude, previous.longitude,
                                                       p.latitude, p.longitude)["s12"]
                previous = p
                if p.time is not None:
                    times.append(p.time.timestamp())
    # As gpxpy's get_duration: none when the last time is before the first.
    duration = times[-1] - times[0] if times and times[-1] >= times[0] else None
    return {"points": points, "segments": segments, "distance_m": distance, "duration_s": duration}


def main():
    version = subprocess.run(["gpsbabel", "-V"], capture_output=True, text=True).stdout.strip()
    logs = {}
    for name in sorted(os.listdir(LOGS)):
        if name.endswith(".log"):
            logs[name[:-4]] = figures(os.path.join(LOGS, name))
            print(name, logs[name[:-4]])
    result = {"generator": f"{version}; gpxpy {gpxpy.__version__}; geographiclib {geographiclib.__version__}",
              "logs": logs}
    with open(OUT, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
