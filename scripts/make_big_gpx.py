#!/usr/bin/env python3
"""Writes a large, realistic GPX 1.1 track for the reader benchmark (seeded, reproducible).

    python3 scripts/make_big_gpx.py OUT.gpx [POINTS] [SEED] [LAT LON]

A 1 Hz walk with GPS-like jitter, elevation, time and HDOP on every point: 500,000 points
make about 52 MB. LAT LON is where the walk starts (default Tokyo Station).
"""
import math
import random
import sys
import time

out = sys.argv[1]
points = int(sys.argv[2]) if len(sys.argv) > 2 else 500_000
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
lat, lon = (float(sys.argv[4]), float(sys.argv[5])) if len(sys.argv) > 5 else (35.681236, 139.767125)
ele, heading = 40.0, 0.0
start = 1_700_000_000
with open(out, "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    f.write('<gpx version="1.1" creator="locsim make_big_gpx.py" xmlns="http://www.topografix.com/GPX/1/1">\n')
    f.write("<trk><name>benchmark walk</name>\n")
    for i in range(points):
        if i % 100_000 == 0:
            f.write(("</trkseg>\n" if i else "") + "<trkseg>\n")
        heading += rng.gauss(0, 0.2)
        lat += 1.4 * math.cos(heading) / 111_320
        lon += 1.4 * math.sin(heading) / (111_320 * math.cos(math.radians(lat)))
        ele += rng.gauss(0, 0.3)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start + i))
        f.write(
            f'<trkpt lat="{lat:.7f}" lon="{lon:.7f}"><ele>{ele:.1f}</ele>'
            f"<time>{stamp}</time><hdop>{rng.uniform(0.6, 2.5):.1f}</hdop></trkpt>\n"
        )
    f.write("</trkseg>\n</trk>\n</gpx>\n")
