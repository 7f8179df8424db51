"""The fetch rule's sphere for the reference scripts: radius 6,371,008.8 m, haversine distance."""
import math

R = 6_371_008.8


def haversine(a, b):
    """Great-circle metres between (lat, lon) pairs in degrees."""
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    dp, dl = p2 - p1, math.radians(b[1] - a[1])
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * R * math.asin(min(1.0, math.sqrt(h)))
