#!/usr/bin/env python3
"""Expected fixes and fetches under scheduled GPS trouble, computed from the definitions in
docs/guides/scenarios.md ("GPS trouble") independently of locsim's Swift code.

The random streams are the documented ones (the port in
Tests/LocationSimulationTests/Scripts/prng_reference.py): xoshiro256** seeded through SplitMix64, a window's
own stream split off the scenario's in window order (split: a new generator seeded with the
parent's next output), uniform doubles from the top 53 bits, Gaussians by Box-Muller
(sqrt(-2 ln(1-u1)) cos(2 pi u2)). Positions move along great circles on the sphere of radius
6,371,008.8 m.

Track: 900 s north at 1.4 m/s from (51.5007, -0.1246), one fix a second, no accuracy of its
own. Each case applies some windows; the reference lists the true fixes dropped, every reported
fix that differs from its true fix ([index of the true fix, time offset, lat, lon, accuracy or
null]; the others are reported unchanged) and the game's fetches, on the reported fixes' own
times, as [seconds, index of the fix whose position and time were reported]: first usable fix, then more than 100 m from the last fetch's
centre or more than 30 s after it, fixes whose accuracy is worse than 100 m ignored.

Writes Tests/LocationSimulationTests/Fixtures/trouble-reference.json. Needs only Python 3.
Run from the package root:
    python3 scripts/reference/make_trouble_reference.py
"""
import json
import math
import os
import sys

from sphere import R, haversine

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "LocationSimulationTests", "Scripts"))
from prng_reference import Xoshiro256StarStar as Xoshiro  # noqa: E402  (the SeededGenerator port the PRNG tests use)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "Tests", "LocationSimulationTests", "Fixtures", "trouble-reference.json")
ACCURACY_PER_SIGMA = math.sqrt(-2 * math.log(0.32))
CLEAN_ACCURACY = 5.0
REACQUIRE_TAU = 10.0


def destination(lat, lon, distance, bearing):
    delta = distance / R
    theta = math.radians(bearing)
    p1, l1 = math.radians(lat), math.radians(lon)
    sp2 = math.sin(p1) * math.cos(delta) + math.cos(p1) * math.sin(delta) * math.cos(theta)
    p2 = math.asin(max(-1.0, min(1.0, sp2)))
    y = math.sin(theta) * math.sin(delta) * math.cos(p1)
    x = math.cos(delta) - math.sin(p1) * sp2
    l2 = math.degrees(l1 + math.atan2(y, x))
    l2 = math.fmod(l2, 360.0)
    if l2 < -180:
        l2 += 360
    elif l2 >= 180:
        l2 -= 360
    return max(-90.0, min(90.0, math.degrees(p2))), l2


def track():
    lat0, lon0 = 51.5007, -0.1246
    return [(round(lat0 + math.degrees(1.4 * s / R), 7), lon0) for s in range(900)]


def displace(fix, state, sigma):
    dx, dy = sigma * state["east"], sigma * state["north"]
    offset = math.sqrt(dx * dx + dy * dy)
    if offset > 0:
        fix["lat"], fix["lon"] = destination(fix["lat"], fix["lon"], offset, math.degrees(math.atan2(dx, dy)))
    return offset


def step(state, t, tau, level):
    if state["last"] is not None and t > state["last"]:
        phi = math.exp(-(t - state["last"]) / tau)
        drive = math.sqrt(1 - phi * phi)
        state["east"] = phi * state["east"] + drive * state["random"].gaussian()
        state["north"] = phi * state["north"] + drive * state["random"].gaussian()
        if level:
            state["level"] = phi * state["level"] + drive * state["random"].gaussian()
    state["last"] = t


def run(points, windows, seed):
    random = Xoshiro(seed)
    states = []
    for w in windows:
        st = {"random": random.split(), "east": 0.0, "north": 0.0, "level": 0.0, "last": None, "done": False, "bearing": 0.0}
        if w["kind"] in ("signalLoss", "coldStart"):
            st["east"] = st["random"].gaussian()
            st["north"] = st["random"].gaussian()
        elif w["kind"] == "urbanCanyon":
            st["east"] = st["random"].gaussian()
            st["north"] = st["random"].gaussian()
            st["level"] = st["random"].gaussian()
        elif w["kind"] == "jump":
            st["bearing"] = w["bearing"] if w.get("bearing") is not None else st["random"].unit() * 360
        states.append(st)
    span = max([w["age"] for w in windows if w["kind"] == "stale"] or [0])
    history, reported = [], []
    for i, p in enumerate(points):
        t = float(i)
        fix = {"index": i, "t": t, "lat": p[0], "lon": p[1], "accuracy": None}
        dropped = False
        for w, st in zip(windows, states):
            begin, end = w["at"], w["at"] + w.get("for", 0)
            if t < begin or st["done"]:
                continue
            kind = w["kind"]
            if kind in ("signalLoss", "coldStart"):
                if t < end:
                    dropped = True
                    break
                progress = (t - end) / w["recovery"]
                if progress >= 1:
                    st["done"] = True
                    continue
                settled = fix["accuracy"] if fix["accuracy"] is not None else CLEAN_ACCURACY
                accuracy = w["initialAccuracy"] + (settled - w["initialAccuracy"]) * progress
                step(st, t, REACQUIRE_TAU, False)
                displace(fix, st, accuracy / ACCURACY_PER_SIGMA)
                fix["accuracy"] = accuracy
            elif kind == "urbanCanyon":
                if t >= end:
                    st["done"] = True
                    continue
                step(st, t, w["correlationTime"], True)
                lo, hi = w["accuracy"]
                accuracy = lo + (hi - lo) * 0.5 * math.erfc(-st["level"] / math.sqrt(2.0))
                displace(fix, st, accuracy / ACCURACY_PER_SIGMA)
                fix["accuracy"] = accuracy
            elif kind == "jump":
                st["done"] = True
                fix["lat"], fix["lon"] = destination(fix["lat"], fix["lon"], w["distance"], st["bearing"])
                if w["honest"]:
                    fix["accuracy"] = max(fix["accuracy"] if fix["accuracy"] is not None else CLEAN_ACCURACY, w["distance"])
            elif kind == "stale":
                st["done"] = True
                wanted = t - w["age"]
                old = [h for h in history if h["t"] <= wanted]
                if old:
                    fix = dict(old[-1])
        if dropped:
            continue
        if span > 0:
            history.append(dict(fix))
        reported.append((i, fix))
    return reported


def fetches(reported):
    made, centre, at = [], None, None
    for _, f in reported:
        if f["accuracy"] is not None and f["accuracy"] > 100:
            continue
        p = (f["lat"], f["lon"])
        if centre is None or haversine(centre, p) > 100 or f["t"] - at > 30:
            made.append([f["t"], f["index"]])
            centre, at = p, f["t"]
    return made


CASES = [
    ("no trouble", 1, []),
    ("signal loss 60 s at 5 min", 7, [{"kind": "signalLoss", "at": 300, "for": 60, "initialAccuracy": 50, "recovery": 30}]),
    ("cold start 40 s", 3, [{"kind": "coldStart", "at": 0, "for": 40, "initialAccuracy": 65, "recovery": 60}]),
    ("street canyon 4 min", 11, [{"kind": "urbanCanyon", "at": 120, "for": 240, "accuracy": [20, 80], "correlationTime": 30}]),
    ("jump 300 m, dishonest", 5, [{"kind": "jump", "at": 200, "distance": 300, "bearing": 90, "honest": False}]),
    ("jump 300 m, honest", 5, [{"kind": "jump", "at": 200, "distance": 300, "bearing": 90, "honest": True}]),
    ("jump 150 m, seeded bearing", 9, [{"kind": "jump", "at": 200, "distance": 150, "honest": False}]),
    ("stale fix from 2 minutes before", 2, [{"kind": "stale", "at": 400, "age": 120}]),
    ("tunnel, then a canyon and a jump", 13, [
        {"kind": "signalLoss", "at": 100, "for": 45, "initialAccuracy": 50, "recovery": 30},
        {"kind": "urbanCanyon", "at": 500, "for": 120, "accuracy": [20, 80], "correlationTime": 30},
        {"kind": "jump", "at": 560, "distance": 250, "honest": True}]),
]


def main():
    points = track()
    out = {"track": [list(p) for p in points], "cases": []}
    for name, seed, windows in CASES:
        reported = run(points, windows, seed)
        kept = {i for i, _ in reported}
        changed = [[i, f["t"], f["lat"], f["lon"], f["accuracy"]] for i, f in reported
                   if (f["t"], f["lat"], f["lon"], f["accuracy"]) != (float(i), points[i][0], points[i][1], None)]
        out["cases"].append({
            "name": name, "seed": seed, "windows": windows,
            "dropped": [i for i in range(len(points)) if i not in kept],
            "changed": changed,
            "fetches": fetches(reported),
        })
    with open(OUT, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    for case in out["cases"]:
        print(f'{case["name"]}: {len(case["dropped"])} dropped, {len(case["changed"])} changed, {len(case["fetches"])} fetches')


if __name__ == "__main__":
    main()
