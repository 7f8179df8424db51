#!/usr/bin/env python3
"""Reference outputs for LocationSimulation's SeededGenerator, from an independent Python port of
SplitMix64 (Steele, Lea, Flood 2014) and xoshiro256** (Blackman, Vigna 2018).

Writes Fixtures/prng-reference.json:
  {"<seed>": {"raw": [hex u64 ...], "unit": [float ...], "gaussian": [float ...]}}
where "unit" and "gaussian" restart from a fresh generator with the same seed, and "gaussian"
is Box-Muller (cosine branch) on two unit draws u1, u2: sqrt(-2 ln(1 - u1)) * cos(2 pi u2).

Run: python3 Tests/LocationSimulationTests/Scripts/prng_reference.py
"""
import json
import math
import os

MASK = (1 << 64) - 1


def splitmix64(state):
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK


class Xoshiro256StarStar:
    def __init__(self, seed):
        sm = splitmix64(seed)
        self.s = [next(sm) for _ in range(4)]

    def next(self):
        s = self.s
        result = (rotl((s[1] * 5) & MASK, 7) * 9) & MASK
        t = (s[1] << 17) & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def unit(self):
        return (self.next() >> 11) * 2.0**-53

    def gaussian(self):
        u1 = 1 - self.unit()
        u2 = self.unit()
        return math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)

    def split(self):
        """A new generator seeded with this one's next output (SeededGenerator.split())."""
        return Xoshiro256StarStar(self.next())


def main():
    out = {}
    for seed in [0, 1, 42, 0xDEADBEEF, MASK]:
        g = Xoshiro256StarStar(seed)
        raw = ["%016x" % g.next() for _ in range(16)]
        g = Xoshiro256StarStar(seed)
        unit = [g.unit() for _ in range(16)]
        g = Xoshiro256StarStar(seed)
        gauss = [g.gaussian() for _ in range(16)]
        out[str(seed)] = {"raw": raw, "unit": unit, "gaussian": gauss}

    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "Fixtures", "prng-reference.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
