#!/usr/bin/env python3
"""Expected deliveries and fetches under the phone's delivery rules, computed from the rules'
definitions (docs/guides/scenarios.md, "Delivery rules") independently of locsim.

Tracks (made here, deterministic, 1 fix a second, positions written to 7 decimals):
- walk-stop-walk: 600 s north at 1.4 m/s, 400 s standing (wandering up to 4 m), 600 s east.
- drive: 1,800 s north-east at 15 m/s.
Cases apply one rule to one track. For each case the reference lists the deliveries (the time,
the indices of the fixes delivered, and for approximate location the snapped position), the
number of withheld fixes per reason, and the times at which the game's fetch rule fetches when
the app reads only the last fix of each delivery at the delivery's time: the first usable
delivery, then more than 100 m from the last fetch's centre or more than 30 s after it, fixes
with a horizontal accuracy worse than 100 m ignored (and, with maximumFixAge, fixes older than
that when delivered).

The app's lifecycle: a case's "app" lists moves [t, "background" | "foreground"], each applied
before the fix at that time. In the background nothing is delivered (a batch held is delivered
at the move); on returning, the last fix offered in the foreground is delivered at once, with its
own time (approximate, under approximate location), then fixes as the rule allows; an automatic
pause ends. A fix withheld by an automatic pause is not known: the receiver is powered down.

Distances: haversine on the sphere of radius 6,371,008.8 m (the fetch rule's).
Writes Tests/MapFeatureTests/Fixtures/delivery-reference.json. Needs only Python 3.
Run from the package root:
    python3 scripts/reference/make_delivery_reference.py
"""
import json
import math
import os

from sphere import R, haversine

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "Tests", "MapFeatureTests", "Fixtures", "delivery-reference.json")
T0 = 1_760_000_000  # 2025-10-09T08:53:20Z, whole seconds


def move(point, north, east):
    lat = point[0] + math.degrees(north / R)
    lon = point[1] + math.degrees(east / (R * math.cos(math.radians(lat))))
    return (lat, lon)


def rounded(point):
    return (round(point[0], 7), round(point[1], 7))


def walk_stop_walk():
    start = (37.7599, -122.4148)
    points = []
    for s in range(600):
        points.append(rounded(move(start, 1.4 * s, 0)))
    stop = move(start, 1.4 * 600, 0)
    for s in range(400):
        # A receiver's wander while standing: a slow circle of 4 m.
        angle = 2 * math.pi * s / 97
        points.append(rounded(move(stop, 4 * math.sin(angle), 4 * math.cos(angle) - 4)))
    for s in range(600):
        points.append(rounded(move(stop, 0, 1.4 * s)))
    return points


def drive():
    start = (35.6812, 139.7671)
    return [rounded(move(start, 15 * s * math.sqrt(0.5), 15 * s * math.sqrt(0.5))) for s in range(1800)]


def snap(point, cell):
    row_deg = cell / (R * math.pi / 180)
    row = math.floor(point[0] / row_deg)
    lat = min(90.0, max(-90.0, (row + 0.5) * row_deg))
    col_deg = min(360.0, row_deg / max(math.cos(math.radians(lat)), 1e-12))
    col = math.floor((point[1] + 180) / col_deg)
    lon = -180 + (col + 0.5) * col_deg
    if lon >= 180:
        lon -= 360
    return (lat, lon), cell * math.sqrt(2) / 2


def deliver(points, rule, app=()):
    """Applies one rule and the app's moves between foreground and background; returns deliveries
    [(time, [indices], position or None, accuracy)] and withheld counts by reason."""
    deliveries, withheld = [], {}
    last = None  # index of the last delivered (accepted) fix
    known = None  # index of the last fix offered in the foreground
    batch, deadline = [], None
    pause = rule.get("pause")
    stay, paused = None, False
    background = False
    moves = list(app)

    def hold(reason):
        withheld[reason] = withheld.get(reason, 0) + 1

    for i, p in enumerate(points):
        t = T0 + i
        if deadline is not None and t > deadline:
            deliveries.append((deadline, batch, None, None))
            batch, deadline = [], None
        # The app's moves at or before this fix's time come first.
        while moves and T0 + moves[0][0] <= t:
            at, state = moves.pop(0)
            if state == "background" and not background:
                background = True
                if deadline is not None:
                    deliveries.append((T0 + at, batch, None, None))
                    batch, deadline = [], None
            elif state == "foreground":
                background, paused, stay = False, False, None
                if known is not None:
                    last = known
                    if rule["service"] == "reducedAccuracy":
                        deliveries.append((T0 + at, [known], *snap(points[known], rule["cellSize"])))
                    else:
                        deliveries.append((T0 + at, [known], None, None))
        if background:
            hold("inBackground")
            continue
        if pause:
            if paused:
                hold("pausedAutomatically")
                continue
            if stay is None or haversine(p, stay[0]) > pause["radius"]:
                stay = (p, t)
            elif t - stay[1] >= pause["after"]:
                paused = True
                hold("pausedAutomatically")
                continue
        known = i
        d = haversine(p, points[last]) if last is not None else 0
        dt = t - (T0 + last) if last is not None else 0
        kind = rule["service"]
        if kind == "standard":
            f = rule.get("distanceFilter")
            if last is not None and f is not None and d <= f:
                hold("withinDistanceFilter")
                continue
        elif kind == "significantChange":
            if last is not None and (d < 500 or dt < 300):
                hold("noSignificantChange")
                continue
        elif kind == "reducedAccuracy":
            if last is not None and dt < rule["minimumInterval"]:
                hold("tooSoon")
                continue
            last = i
            position, accuracy = snap(p, rule["cellSize"])
            deliveries.append((t, [i], position, accuracy))
            continue
        elif kind == "fused":
            if last is not None and dt < rule["minimumInterval"]:
                hold("tooSoon")
                continue
            if last is not None and d < rule["minimumDistance"]:
                hold("tooClose")
                continue
            if rule["maximumDelay"] > 0:
                last = i
                if not batch:
                    deadline = t + rule["maximumDelay"]
                batch = batch + [i]
                continue
        last = i
        deliveries.append((t, [i], None, None))
    if deadline is not None:
        deliveries.append((deadline, batch, None, None))
    return deliveries, withheld


def fetches(points, deliveries, maximum_fix_age=None):
    """The game's rule on the last fix of each delivery, at the delivery's time: [time, index]."""
    made, centre, at = [], None, None
    for t, indices, position, accuracy in deliveries:
        p = position if position is not None else points[indices[-1]]
        if accuracy is not None and accuracy > 100:
            continue
        if maximum_fix_age is not None and t - (T0 + indices[-1]) > maximum_fix_age:
            continue
        if centre is None or haversine(centre, p) > 100 or t - at > 30:
            made.append([t - T0, indices[-1]])
            centre, at = p, t
    return made


TRACKS = {"walk-stop-walk": walk_stop_walk(), "drive": drive()}
CASES = [
    ("every fix", "walk-stop-walk", {"service": "standard"}),
    ("distanceFilter 50", "walk-stop-walk", {"service": "standard", "distanceFilter": 50}),
    ("distanceFilter 50, pauses after 120 s", "walk-stop-walk",
     {"service": "standard", "distanceFilter": 50, "pause": {"radius": 25, "after": 120}}),
    ("every fix, pauses after 120 s", "walk-stop-walk",
     {"service": "standard", "pause": {"radius": 25, "after": 120}}),
    ("significant change, walking", "walk-stop-walk", {"service": "significantChange"}),
    ("significant change, driving", "drive", {"service": "significantChange"}),
    ("approximate location, driving", "drive", {"service": "reducedAccuracy", "cellSize": 5000, "minimumInterval": 900}),
    ("approximate location, 1 km cells every 60 s", "drive",
     {"service": "reducedAccuracy", "cellSize": 1000, "minimumInterval": 60}),
    ("fused 5 s / 10 m, batched 60 s", "walk-stop-walk",
     {"service": "fused", "minimumInterval": 5, "minimumDistance": 10, "maximumDelay": 60}),
    ("fused 10 s, no batching", "walk-stop-walk",
     {"service": "fused", "minimumInterval": 10, "minimumDistance": 0, "maximumDelay": 0}),
    ("background 2 minutes while walking", "walk-stop-walk",
     {"service": "standard", "app": [[300, "background"], [420, "foreground"]]}),
    ("background 2 minutes while walking, maximumFixAge 10 s", "walk-stop-walk",
     {"service": "standard", "app": [[300, "background"], [420, "foreground"]], "maximumFixAge": 10}),
    ("distanceFilter 50, paused, back from the background", "walk-stop-walk",
     {"service": "standard", "distanceFilter": 50, "pause": {"radius": 25, "after": 120},
      "app": [[1100, "background"], [1200, "foreground"]]}),
    ("approximate location 1 km / 60 s, back from the background", "drive",
     {"service": "reducedAccuracy", "cellSize": 1000, "minimumInterval": 60,
      "app": [[300, "background"], [420, "foreground"]]}),
    ("fused batched 60 s, background mid-batch", "walk-stop-walk",
     {"service": "fused", "minimumInterval": 5, "minimumDistance": 10, "maximumDelay": 60,
      "app": [[130, "background"], [200, "foreground"]]}),
]


def main():
    out = {"t0": T0, "tracks": {name: [list(p) for p in pts] for name, pts in TRACKS.items()}, "cases": []}
    for name, track, rule in CASES:
        deliveries, withheld = deliver(TRACKS[track], rule, rule.get("app", ()))
        out["cases"].append({
            "name": name, "track": track, "rule": rule,
            "deliveries": [
                {"t": t - T0, "fixes": idx, **({"snapped": [round(pos[0], 12), round(pos[1], 12)], "accuracy": acc}
                                                if pos is not None else {})}
                for t, idx, pos, acc in deliveries],
            "withheld": withheld,
            "fetches": fetches(TRACKS[track], deliveries, rule.get("maximumFixAge")),
        })
    with open(OUT, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    for case in out["cases"]:
        print(f'{case["name"]}: {len(case["deliveries"])} deliveries, withheld {case["withheld"]}, '
              f'{len(case["fetches"])} fetches')


if __name__ == "__main__":
    main()
