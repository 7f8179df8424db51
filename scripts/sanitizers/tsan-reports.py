#!/usr/bin/env python3
"""Sorts the ThreadSanitizer reports in a test log by where their two accesses are.

    LOCSIM_SANITIZE=thread scripts/test.sh > tsan.log 2>&1
    scripts/sanitizers/tsan-reports.py tsan.log [REPOSITORY]

For each distinct pair of accesses (the first frame of each stack that is in this repository's
Sources or Tests, past the lock itself) it prints how often it was reported and, for each
access, the `withLock` whose closure holds it, or NOT IN withLock.

locsim's one lock, LocationCore's `Locked`, is a pthread mutex on Linux, which TSan sees
(docs/development/sanitizers.md), so every report is a finding to read: two accesses inside
`withLock` closures of different locks, or one outside any. Exit status 1 when there is any report.
"""
import collections
import pathlib
import re
import sys

FRAME = re.compile(r"#\d+ \S+ (?:/(?!\S*/\.build)\S*?)/((?:Sources|Tests)/[^: ]+):(\d+)")


def first_project_frame(stack):
    for match in FRAME.finditer(stack):
        if not match.group(1).endswith("/Concurrency/Locked.swift"):
            return (match.group(1), int(match.group(2)))
    return None


def enclosing_with_lock(root, path, line):
    """The line of the `withLock {` whose closure contains `line`, or None."""
    try:
        source = (root / path).read_text().splitlines()
    except OSError:
        return None
    if "withLock" in source[line - 1]:
        return line
    depth = 0
    for index in range(line - 2, max(-1, line - 80), -1):
        text = re.sub(r'"[^"]*"', "", source[index])
        depth += text.count("}")
        opens = text.count("{")
        if opens > depth:
            if "withLock" in text:
                return index + 1
            depth = 0
        else:
            depth -= opens
    return None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    log = pathlib.Path(sys.argv[1]).read_text(errors="replace")
    root = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else ".")
    reports = log.split("WARNING: ThreadSanitizer: ")[1:]
    pairs = collections.Counter()
    for report in reports:
        kind = report.split("(")[0].strip()
        stacks = report.split("\n\n")[:2]
        pairs[(kind,) + tuple(first_project_frame(stack) for stack in stacks)] += 1
    outside = 0
    for (kind, *accesses), count in pairs.most_common():
        described = []
        for access in accesses:
            if access is None:
                described.append("no frame in this repository")
                continue
            lock = enclosing_with_lock(root, *access)
            if lock is None:
                outside += 1
            described.append(f"{access[0]}:{access[1]} [" + (f"withLock at line {lock}" if lock else "NOT IN withLock") + "]")
        print(f"{count:4} {kind}: " + " <-> ".join(described))
    print(f"{len(reports)} reports, {len(pairs)} distinct, {outside} accesses outside withLock")
    sys.exit(1 if reports else 0)


if __name__ == "__main__":
    main()
