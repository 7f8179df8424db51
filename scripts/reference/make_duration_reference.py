#!/usr/bin/env python3
"""Reference values for LocationCore's Duration conversions (Duration+Conversions.swift).

Writes Tests/LocationCoreTests/Fixtures/duration-conversions.csv with one row per duration, given
as Swift's `components` (whole seconds and remaining attoseconds, both truncated toward zero, so
they share the sign of the duration):

  seconds, attoseconds   the duration
  nearest_seconds        the exact value in seconds rounded once to the nearest double (repr,
                         which round-trips), computed with exact rational arithmetic
  whole_microseconds     the exact value in microseconds truncated toward zero, then clamped to
                         the Int64 range

Rows: hand-picked edge cases (zero, sub-microsecond, negative, the Int64 microsecond limits,
the largest and smallest durations components can express) and seeded random durations from
nanoseconds to centuries. Re-running the script reproduces the file byte for byte.

Needs: Python 3 (standard library only).
"""

import csv
import os
import random
from fractions import Fraction

ATTO = 10**18
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "Tests", "LocationCoreTests", "Fixtures", "duration-conversions.csv")


def components(total_attoseconds):
    """Swift's Duration.components: truncating division by 10^18."""
    sign = -1 if total_attoseconds < 0 else 1
    seconds, attoseconds = divmod(abs(total_attoseconds), ATTO)
    return sign * seconds, sign * attoseconds


def whole_microseconds(total_attoseconds):
    sign = -1 if total_attoseconds < 0 else 1
    micros = sign * (abs(total_attoseconds) // 10**12)
    return max(INT64_MIN, min(INT64_MAX, micros))


def main():
    totals = [
        0,
        1,  # one attosecond
        -1,
        999_999_999_999,  # just under a microsecond
        -999_999_999_999,
        10**12,  # one microsecond
        -(10**12),
        1_999 * 10**9,  # 1,999 ns
        -1_999 * 10**9,
        1_500 * 10**15,  # 1.5 s
        -1_500 * 10**15,
        -250 * 10**15,  # -0.25 s
        100 * 10**15,  # 0.1 s (not a double)
        ATTO - 1,  # the largest attoseconds component
        -(ATTO - 1),
        86_400 * ATTO,  # a day
        INT64_MAX * 10**12,  # exactly Int64.max microseconds
        INT64_MAX * 10**12 + 10**12 - 1,  # the same, plus just under a microsecond
        (INT64_MAX + 1) * 10**12,  # one microsecond more: saturates
        INT64_MIN * 10**12,  # exactly Int64.min microseconds
        (INT64_MIN - 1) * 10**12,  # one microsecond less: saturates
        INT64_MAX * ATTO + ATTO - 1,  # the largest components: (Int64.max s, 10^18 - 1 as)
        INT64_MIN * ATTO - ATTO + 1,  # the smallest
    ]
    rng = random.Random(20250611)
    for _ in range(150):
        magnitude = 10 ** rng.randint(9, 28)  # 1 ns ... about 300 years
        totals.append(rng.randint(-magnitude, magnitude))

    with open(OUT, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["seconds", "attoseconds", "nearest_seconds", "whole_microseconds"])
        for total in totals:
            seconds, attoseconds = components(total)
            assert INT64_MIN <= seconds <= INT64_MAX
            nearest = float(Fraction(total, ATTO))
            writer.writerow([seconds, attoseconds, repr(nearest), whole_microseconds(total)])


if __name__ == "__main__":
    main()
