#!/usr/bin/env python3
"""Expected replay figures for the phone recordings in ../shared/data/tracks and the project's own
tracks/*.gpx, computed with gpxpy
(an independent GPX reader) and the replay rules of docs/guides/replay.md written out again in Python:

- a point older than the latest kept point is dropped;
- a point at the same time as its predecessor is kept (a "repeated timestamp");
- a segment break, or a step > 60 s between kept points, is a gap;
- 1 Hz resampling: grid times g = 0, 1, 2, ... s after the first point, up to the last; a grid time
  strictly inside a gap yields no fix (one equal to a point's time always does).

Only aggregate figures are written (no coordinates or timestamps from the recordings), to
Fixtures/shared-track-expectations.json as {"shared": {name: ...}, "project": {name: ...}}.
Run from the package root:
  python3 Tests/LocationSimulationTests/Scripts/shared_track_expectations.py
"""
import json
import os

import gpxpy

GAP = 60.0
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", "..", ".."))
folders = {
    "shared": os.path.normpath(os.path.join(root, "..", "shared", "data", "tracks")),
    "project": os.path.join(root, "tracks"),
}


def expectations(tracks):
    out = {}
    for name in sorted(os.listdir(tracks)):
        if not name.endswith(".gpx"):
            continue
        with open(os.path.join(tracks, name)) as f:
            gpx = gpxpy.parse(f)
        kept = []  # (t seconds since epoch, break_before)
        repeated = backwards = time_gaps = segment_breaks = 0
        latest = None
        last_segment = None
        segment_id = 0
        points = 0
        for track in gpx.tracks:
            for segment in track.segments:
                for p in segment.points:
                    points += 1
                    t = p.time.timestamp()
                    brk = False
                    if latest is not None:
                        if t < latest:
                            backwards += 1
                            continue
                        if t == latest:
                            repeated += 1
                        if segment_id != last_segment:
                            segment_breaks += 1
                            brk = True
                        elif t - latest > GAP:
                            time_gaps += 1
                            brk = True
                    latest = t
                    last_segment = segment_id
                    kept.append((t, brk))
                segment_id += 1
        t0 = kept[0][0]
        offsets = [t - t0 for t, _ in kept]
        duration = offsets[-1]
        resampled = 0
        i = 0
        g = 0
        while g <= duration:
            while i + 1 < len(offsets) and offsets[i + 1] <= g:
                i += 1
            if offsets[i] == g or i + 1 >= len(offsets) or not kept[i + 1][1]:
                resampled += 1
            g += 1
        out[name] = {
            "points": points,
            "kept": len(kept),
            "repeatedTimestamps": repeated,
            "droppedBackwards": backwards,
            "timeGaps": time_gaps,
            "segmentBreaks": segment_breaks,
            "durationSeconds": duration,
            "resampled1HzCount": resampled,
        }
    return out


out = {key: expectations(folder) for key, folder in folders.items()}

with open(os.path.join(here, "..", "Fixtures", "shared-track-expectations.json"), "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
    f.write("\n")
