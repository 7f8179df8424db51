#!/usr/bin/env python3
"""Real-world GPX cases for the reader tests (issue 17): makes the files and their expected values.

Every input is made here, for the project (no one else's file is copied). For each case the
script writes Tests/GPXFormatTests/Fixtures/realworld/NAME.gpx and NAME.json. Expected values come
from tools independent of locsim:

- point values: gpxpy parsing (for cases with empty or bad values, gpxpy parses the document with
  those elements left out: "an empty element is an absent value", "a bad value is dropped alone");
- text in other encodings: xml.etree (expat) decoding the bytes as they are, or, where the file
  does not declare its encoding, Python's cp1252 codec (the rule locsim documents);
- positions (line, 1-based column in characters): expat's, for the start tag of each element
  concerned and for well-formedness errors.

Run from the package root:

    python3 scripts/reference/make_gpx_realworld_reference.py

Needs: pip install gpxpy
"""
import calendar
import io
import json
import os
import xml.etree.ElementTree as ET
import xml.parsers.expat

import gpxpy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "Tests", "GPXFormatTests", "Fixtures", "realworld")
GPX10 = "http://www.topografix.com/GPX/1/0"
GPX11 = "http://www.topografix.com/GPX/1/1"


def epoch(t):
    if t is None:
        return None
    if t.tzinfo is not None:
        return t.timestamp()
    return calendar.timegm(t.utctimetuple()) + t.microsecond / 1e6


def fix_value(p):
    return p.type_of_gpx_fix


def point_record(p):
    return {
        "lat": p.latitude,
        "lon": p.longitude,
        "ele": p.elevation,
        "time": epoch(p.time),
        "name": p.name,
        "speed": getattr(p, "speed", None),
        "course": getattr(p, "course", None),
        "hdop": p.horizontal_dilution,
        "vdop": p.vertical_dilution,
        "pdop": p.position_dilution,
        "sat": p.satellites,
        "fix": fix_value(p),
    }


def document_record(text):
    """What gpxpy reads from GPX text: every point, in order, per list."""
    gpx = gpxpy.parse(text)
    return {
        "track_names": [t.name for t in gpx.tracks],
        "route_names": [r.name for r in gpx.routes],
        "segments": [[point_record(p) for p in s.points] for t in gpx.tracks for s in t.segments],
        "route_points": [[point_record(p) for p in r.points] for r in gpx.routes],
        "waypoints": [point_record(p) for p in gpx.waypoints],
    }


def start_tag_positions(data, names):
    """(local name, line, 1-based column) of every start tag whose local name is in `names`,
    in document order, as expat reports them."""
    found = []
    parser = xml.parsers.expat.ParserCreate()

    def start(name, attrs):
        local = name.rsplit(":", 1)[-1]
        if local in names:
            found.append((local, parser.CurrentLineNumber, parser.CurrentColumnNumber + 1))

    parser.StartElementHandler = start
    parser.Parse(data, True)
    return found


def write(name, data, expected):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name + ".gpx"), "wb") as f:
        f.write(data)
    expected = {"file": name + ".gpx", **expected,
                "generator": f"gpxpy {getattr(gpxpy, '__version__', '?')}, xml.etree/expat"}
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True, ensure_ascii=True)
        f.write("\n")
    print(f"{name}: {len(data)} bytes")


# MARK: Empty optional elements

VALUE_ELEMENTS = ["ele", "time", "course", "speed", "fix", "sat", "hdop", "vdop", "pdop"]
FULL = {"ele": "12.5", "time": "2024-05-01T10:00:00Z", "course": "45.5", "speed": "1.4", "fix": "3d",
        "sat": "9", "hdop": "0.9", "vdop": "1.2", "pdop": "1.5"}


def point_xml(tag, lat, lon, children):
    inner = "".join(children)
    return f'<{tag} lat="{lat}" lon="{lon}">{inner}</{tag}>'


def empty_forms(element):
    return [f"<{element}/>", f"<{element}></{element}>", f"<{element}> </{element}>",
            f"<{element}>\n  </{element}>"]


def make_empty_elements():
    """Every optional element the reader understands, empty in each form, on waypoints, track
    points and route points; the other values present so only the empty one is missing."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<gpx version="1.0" creator="locsim make_gpx_realworld_reference.py" xmlns="{GPX10}">']
    waypoints, trackpoints, routepoints = [], [], []
    lat = 48.0
    for element in VALUE_ELEMENTS:
        for form in empty_forms(element):
            lat += 0.001
            children = []
            for other in VALUE_ELEMENTS:
                # GPX 1.0 order: ele, time, course, speed, …, name after them.
                children.append(form if other == element else f"<{other}>{FULL[other]}</{other}>")
            children.append(f"<name>{element} as {form.replace('<', '[').replace('>', ']').strip()}</name>")
            waypoints.append(point_xml("wpt", f"{lat:.4f}", "11.5", children))
            trackpoints.append(point_xml("trkpt", f"{lat:.4f}", "11.6", children))
            routepoints.append(point_xml("rtept", f"{lat:.4f}", "11.7", children))
    # Empty names: on a point, on the track and on the route.
    for form in empty_forms("name")[:2]:
        waypoints.append(point_xml("wpt", "47.5", "11.5", ["<ele>1</ele>", form]))
    lines += ["  " + w for w in waypoints]
    lines.append("  <rte><name></name>")
    lines += ["    " + r for r in routepoints]
    lines.append("  </rte>")
    lines.append("  <trk><name/><trkseg>")
    lines += ["    " + t for t in trackpoints]
    lines.append("  </trkseg></trk>")
    lines.append("</gpx>")
    text = "\n".join(lines) + "\n"
    # The same document with every empty value element left out (a name keeps its whitespace,
    # and only an empty name is left out).
    root = ET.fromstring(text.encode())
    for parent in root.iter():
        for child in list(parent):
            local = child.tag.rsplit("}", 1)[-1]
            content = child.text or ""
            if (local in VALUE_ELEMENTS and not content.strip()) or (local == "name" and content == ""):
                parent.remove(child)
    ET.register_namespace("", GPX10)
    cleaned = ET.tostring(root, encoding="unicode")
    write("empty-elements", text.encode(), {"strict": True, **document_record(cleaned)})


# MARK: Bad optional values (lenient)

BAD = {"ele": ("high", "invalidNumber"), "time": ("yesterday", "invalidTime"), "course": ("north", "invalidNumber"),
       "speed": ("fast", "invalidNumber"), "fix": ("4d", "invalidNumber"), "sat": ("many", "invalidNumber"),
       "hdop": ("x", "invalidNumber"), "vdop": ("1.2.3", "invalidNumber"), "pdop": ("NaN", "invalidNumber")}


def make_bad_values():
    """Track points each with one bad optional value among good ones; one point with a bad
    latitude (skipped whole); the good values of every point survive."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<gpx version="1.0" creator="locsim make_gpx_realworld_reference.py" xmlns="{GPX10}">',
             "  <trk><name>bad values</name><trkseg>"]
    clean_lines = list(lines)
    second = 0
    for element in VALUE_ELEMENTS:
        second += 1
        good = {k: v for k, v in FULL.items()}
        good["time"] = f"2024-05-01T10:00:{second:02d}Z"
        children = [f"<{k}>{BAD[k][0] if k == element else good[k]}</{k}>" for k in VALUE_ELEMENTS]
        kept = [f"<{k}>{good[k]}</{k}>" for k in VALUE_ELEMENTS if k != element]
        lat = f"{35 + second / 1000:.3f}"
        lines.append("    " + point_xml("trkpt", lat, "139.7", children))
        clean_lines.append("    " + point_xml("trkpt", lat, "139.7", kept))
    lines.append('    <trkpt lat="abc" lon="139.7"><ele>3</ele><time>2024-05-01T10:00:30Z</time></trkpt>')
    tail = ["  </trkseg></trk>", "</gpx>"]
    text = "\n".join(lines + tail) + "\n"
    cleaned = "\n".join(clean_lines + tail) + "\n"
    # Where the problems are: each bad element's start tag, and the bad point's start tag.
    problems = []
    for (local, line, column) in start_tag_positions(text.encode(), set(VALUE_ELEMENTS) | {"trkpt"}):
        if local == "trkpt":
            if line == len(lines):  # the point with lat="abc"
                problems.append({"line": line, "column": column, "code": "invalidCoordinate"})
            continue
        index = line - 4  # point lines start on line 4
        if 0 <= index < len(VALUE_ELEMENTS) and VALUE_ELEMENTS[index] == local:
            problems.append({"line": line, "column": column, "code": BAD[local][1]})
    write("bad-values", text.encode(), {
        "strict": False, "problems": problems, "skipped_points": 1, "dropped_values": len(VALUE_ELEMENTS),
        **document_record(cleaned)})


# MARK: Encodings


def encoded_document(names, declaration, extra_first_lines=0):
    """A GPX 1.1 file naming its track, points and waypoints with `names`; the first
    `extra_first_lines` lines after the root are plain ASCII comments (to put the first
    non-ASCII character far into the file)."""
    head = '<?xml version="1.0"' + (f' encoding="{declaration}"' if declaration else "") + "?>"
    lines = [head, f'<gpx version="1.1" creator="locsim make_gpx_realworld_reference.py" xmlns="{GPX11}">']
    lines += [f"  <!-- plain ASCII line {i} to move the first non-ASCII byte along -->" for i in range(extra_first_lines)]
    lines.append(f"  <wpt lat=\"46.5\" lon=\"7.9\"><name>{names[0]}</name><desc>{names[1]}</desc></wpt>")
    lines.append(f"  <trk><name>{names[1]}</name><trkseg>")
    for i, name in enumerate(names):
        lines.append(f'    <trkpt lat="{46.5 + i / 1000:.3f}" lon="7.9"><ele>{1000 + i}</ele>'
                     f"<time>2024-05-01T10:00:{i:02d}Z</time><name>{name}</name></trkpt>")
    lines.append("  </trkseg></trk>")
    lines.append("</gpx>")
    return "\n".join(lines) + "\n"


LATIN1_NAMES = ["Café Zoë", "Straße nach Düsseldorf", "Ñandú ½ Ø", "Gipfel 2° © ±", "Âge ß°"]
CP1252_NAMES = ["Café „Zoë“", "€ 5 – Straße", "‘Œuvre’ Šibenik ™", "Gipfel 2° … —", "Ÿ ž ƒ •"]
UNICODE_NAMES = ["東京駅 Tokyo", "Café Zoë", "🏔 Mönch", "Ελληνικά € „x“", "𝄞 music"]


def position_of_error(data):
    """(line, 1-based column) where expat stops, or None."""
    try:
        ET.fromstring(data)
    except ET.ParseError as error:
        line, column = error.position
        return {"line": line, "column": column + 1}
    return None


def make_encoding(name, names, declaration, codec, bom=b"", extra_first_lines=0, expat_reads_bytes=True):
    text = encoded_document(names, declaration, extra_first_lines)
    data = bom + text.encode(codec)
    if expat_reads_bytes:
        # xml.etree decodes the bytes itself: the names it reads are the reference.
        root = ET.fromstring(data)
    else:
        # Undeclared and not UTF-8: the reference decodes as windows-1252 (the documented rule).
        root = ET.fromstring(data.decode("cp1252").encode("utf-8"))
    etree_names = [e.text for e in root.iter(f"{{{GPX11}}}name")]
    expected = document_record(text)
    assert etree_names[0] == expected["waypoints"][0]["name"], (etree_names, expected)
    assert etree_names[1:] == expected["track_names"] + [p["name"] for p in expected["segments"][0]]
    # The same file with an unknown entity after the non-ASCII text of the third point's name:
    # where the error is, in lines and characters.
    broken_text = text.replace(names[2] + "</name>", names[2] + "&bogus;</name>")
    broken = bom + broken_text.encode(codec)
    at = position_of_error(broken if expat_reads_bytes else broken.decode("cp1252").encode("utf-8"))
    assert at is not None
    write(name, data, {"strict": True, "encoding": expected_encoding(codec, bom, declaration),
                       "etree_names": etree_names, "error_at": at, **document_record(text)})
    with open(os.path.join(OUT, name + "-broken.gpx"), "wb") as f:
        f.write(broken)


def expected_encoding(codec, bom, declaration):
    if codec in ("utf-16-le", "utf-16-be"):
        return "UTF-16LE" if codec == "utf-16-le" else "UTF-16BE"
    if codec == "utf-8":
        return "UTF-8"
    if codec == "latin-1" and declaration:
        return "ISO-8859-1"
    # Undeclared bytes that are not UTF-8 are read as windows-1252 (the documented rule).
    return "windows-1252"


def make_encodings():
    make_encoding("latin1-declared", LATIN1_NAMES, "ISO-8859-1", "latin-1")
    make_encoding("windows1252-declared", CP1252_NAMES, "windows-1252", "cp1252")
    make_encoding("windows1252-undeclared", CP1252_NAMES, None, "cp1252", extra_first_lines=40,
                  expat_reads_bytes=False)
    make_encoding("latin1-undeclared-early", LATIN1_NAMES, None, "latin-1", expat_reads_bytes=False)
    make_encoding("utf16le-bom", UNICODE_NAMES, "UTF-16", "utf-16-le", bom=b"\xff\xfe")
    make_encoding("utf16be-bom", UNICODE_NAMES, "UTF-16", "utf-16-be", bom=b"\xfe\xff")
    make_encoding("utf16le-no-bom", UNICODE_NAMES, "UTF-16", "utf-16-le")
    make_encoding("utf8-bom", UNICODE_NAMES, "UTF-8", "utf-8", bom=b"\xef\xbb\xbf")
    make_encoding("utf8-undeclared", UNICODE_NAMES, None, "utf-8")


# MARK: Times going backwards


def make_backwards_times():
    """Track points whose time steps back within a segment and across a segment break, a
    repeated time (not a reversal), a route with its own reversal, and waypoints."""
    times = [  # (segment, seconds); the latest time so far decides what is a reversal
        (0, 0), (0, 10), (0, 20), (0, 15), (0, 20), (0, 30), (0, 25), (0, 26), (0, 40),
        (1, 35), (1, 50), (1, 60), (1, 60), (1, 55), (1, 70),
    ]
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<gpx version="1.1" creator="locsim make_gpx_realworld_reference.py" xmlns="{GPX11}">']
    lines.append('  <wpt lat="1.0" lon="1.0"><time>2024-05-01T09:00:10Z</time></wpt>')
    lines.append('  <wpt lat="1.1" lon="1.0"><time>2024-05-01T09:00:05Z</time></wpt>')
    lines.append("  <rte><name>plan</name>")
    for i, second in enumerate([0, 30, 20, 40]):
        lines.append(f'    <rtept lat="{2 + i / 100:.2f}" lon="2.0"><time>2024-05-01T08:00:{second:02d}Z</time></rtept>')
    lines.append("  </rte>")
    lines.append("  <rte><name>second plan, its own times</name>")
    lines.append('    <rtept lat="3.0" lon="3.0"><time>2024-05-01T07:00:00Z</time></rtept>')
    lines.append("  </rte>")
    lines.append("  <trk><name>walk</name>")
    segment = -1
    for i, (s, second) in enumerate(times):
        if s != segment:
            if segment >= 0:
                lines.append("    </trkseg>")
            lines.append("    <trkseg>")
            segment = s
        stamp = f"2024-05-01T10:{second // 60:02d}:{second % 60:02d}Z"
        lines.append(f'      <trkpt lat="{35 + i / 10000:.4f}" lon="139.7"><time>{stamp}</time></trkpt>')
    lines += ["    </trkseg>", "  </trk>", "</gpx>"]
    text = "\n".join(lines) + "\n"
    gpx = gpxpy.parse(text)
    positions = start_tag_positions(text.encode(), {"wpt", "rtept", "trkpt"})
    kinds = {"wpt": "wpt", "rtept": "rtept", "trkpt": "trkpt"}
    points = ([("wpt", p, None) for p in gpx.waypoints]
              + [("rtept", p, r) for r, route in enumerate(gpx.routes) for p in route.points]
              + [("trkpt", p, None) for t in gpx.tracks for s in t.segments for p in s.points])
    # expat lists the points in document order, which is the order above (wpt, rte, trk).
    assert [k for k, _, _ in points] == [local for local, _, _ in positions]
    assert all(p.time is not None for _, p, _ in points)
    reversals = []
    latest = {}
    for (kind, point, route), (_, line, column) in zip(points, positions):
        key = (kind, route)
        t = epoch(point.time)
        if key in latest and t < latest[key]:
            reversals.append({"kind": kinds[kind], "line": line, "column": column, "time": t, "latest": latest[key]})
        else:
            latest[key] = t
    track_times = [epoch(p.time) for t in gpx.tracks for s in t.segments for p in s.points]
    write("backwards-times", text.encode(), {
        "strict": True, "reversals": reversals,
        "track_reversals": sum(1 for r in reversals if r["kind"] == "trkpt"),
        "duration_s": track_times[-1] - track_times[0] if track_times[-1] >= track_times[0] else None,
        **document_record(text)})


# MARK: A recording cut off mid-write (lenient)


def complete_points(data):
    """How many points of each kind expat has seen end (their end tag read) in `data`, which
    may stop anywhere: (waypoints, route points per route, track points per segment)."""
    waypoints, routes, segments = 0, [], []
    parser = xml.parsers.expat.ParserCreate()

    def start(name, attrs):
        local = name.rsplit(":", 1)[-1]
        if local == "rte":
            routes.append(0)
        elif local == "trkseg":
            segments.append(0)

    def end(name):
        nonlocal waypoints
        local = name.rsplit(":", 1)[-1]
        if local == "wpt":
            waypoints += 1
        elif local == "rtept":
            routes[-1] += 1
        elif local == "trkpt":
            segments[-1] += 1

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.Parse(data, False)  # not the end: no error for what is still open
    return waypoints, routes, segments


def make_truncated():
    """A phone's recording cut off mid-write (the app killed while writing): waypoints, a route
    and a track of two segments, the file ending inside the <time> of the second segment's fourth
    point. Expected: the points whose end tag came before the cut (expat, fed the bytes without
    being told they end), with gpxpy's values of the same points in the whole file, and where
    the input ends (expat's error for the cut file)."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<gpx version="1.1" creator="locsim make_gpx_realworld_reference.py" xmlns="{GPX11}">',
             '  <wpt lat="35.6800" lon="139.7600"><time>2024-05-01T09:59:00Z</time><name>start</name></wpt>',
             "  <rte><name>plan</name>"]
    for i in range(3):
        lines.append(f'    <rtept lat="{35.68 + i / 1000:.3f}" lon="139.761"></rtept>')
    lines += ["  </rte>", "  <trk><name>cut walk</name>"]
    second = 0
    for count in (8, 6):
        lines.append("    <trkseg>")
        for _ in range(count):
            lines.append(f'      <trkpt lat="{35.6812 + second / 10000:.4f}" lon="139.7671"><ele>{40 + second / 2}</ele>'
                         f"<time>2024-05-01T10:00:{second:02d}Z</time></trkpt>")
            second += 1
        lines.append("    </trkseg>")
    lines += ["  </trk>", "</gpx>"]
    text = "\n".join(lines) + "\n"
    marker = "<time>2024-05-01T10:00:11"  # the second segment's fourth point
    data = text[:text.index(marker) + len("<time>2024-05-01T10")].encode()
    waypoints, routes, segments = complete_points(data)
    whole = document_record(text)
    expected = {
        "track_names": whole["track_names"],
        "route_names": whole["route_names"][:len(routes)],
        "segments": [whole["segments"][i][:n] for i, n in enumerate(segments)],
        "route_points": [whole["route_points"][i][:n] for i, n in enumerate(routes)],
        "waypoints": whole["waypoints"][:waypoints],
    }
    assert sum(segments) == 11 and routes == [3] and waypoints == 1, (segments, routes, waypoints)
    write("truncated", data, {"strict": False, "truncation": position_of_error(data), **expected})


def main():
    make_empty_elements()
    make_bad_values()
    make_encodings()
    make_backwards_times()
    make_truncated()


if __name__ == "__main__":
    main()
