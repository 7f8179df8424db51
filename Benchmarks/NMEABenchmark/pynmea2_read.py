#!/usr/bin/env python3
"""The pynmea2 side of the NMEA read benchmark: parse every sentence of FILE with checksum
checking (pynmea2.parse(line, check=True)) and read the position fields, printing one JSON line
like NMEABenchmark's. pynmea2 parses sentences only; it does not merge them into fixes."""
import json
import resource
import sys
import time

import pynmea2


def main(path):
    started = time.perf_counter()
    sentences = 0
    latitude_sum = 0.0
    with open(path, "r", encoding="ascii", newline="") as f:
        for line in f:
            message = pynmea2.parse(line.strip(), check=True)
            sentences += 1
            if isinstance(message, pynmea2.types.talker.GGA) and message.lat:
                latitude_sum += message.latitude
    seconds = time.perf_counter() - started
    import os
    print(json.dumps({"sentences": sentences, "seconds": seconds, "bytes": os.path.getsize(path),
                      "maxRSSKiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      "checksum": latitude_sum}))


if __name__ == "__main__":
    main(sys.argv[1])
