#!/usr/bin/env python3
"""Writes reference.jsonl and variants.jsonl, the independent expectations for NMEAFormatTests.

    pip install pynmea2==1.19.0
    python3 Tests/NMEAFormatTests/Fixtures/make_reference.py   # writes both files beside itself

For seeded random fixes (plus hand-picked edge cases: poles, the antimeridian, midnight, the
day rollover, no fix, missing optional fields) this script

1. formats the RMC, GGA, VTG and GSA sentences the writer should produce, following the
   conventions in docs/reference/nmea.md (ddmm.mmmmm, hhmmss.ss, knots/km/h with 3 decimals, course with
   2, altitude with 2) and lets pynmea2 compute the checksums and render the lines;
2. decodes every line again with pynmea2 and records what pynmea2 reads (latitude, longitude,
   time, date, speed, course, altitude, fix quality, DOPs), so the Swift reader is compared
   with an independent decoder, not with itself.

Each line of reference.jsonl is one JSON object: the fix given to the writer, the expected
text, and pynmea2's decoding of it.

variants.jsonl holds sentence layouts real receivers send (NMEA 2.0 RMC without mode, NMEA 4.10
RMC with navigational status and GSA with system ID, 8-decimal RTK minutes, other talkers, a
lower-case checksum, VTG without mode, DTM in u-blox's 8 fields and in the 2 some receivers send),
written here by hand, checksummed by pynmea2, and
decoded by pynmea2.
"""
import os
import datetime
import json
import math
import random

import pynmea2

SEED = 20261121
COUNT = 400


def nearest(x):
    """Rounds x ≥ 0 to the nearest integer, ties away from zero (the documented convention;
    Python's round() would go to even)."""
    q = math.floor(x)
    return q + 1 if x - q >= 0.5 else q


def angle(value, degree_digits):
    total = nearest(abs(value) * 60 * 10**5)
    whole, minute_units = divmod(total, 60 * 10**5)
    minutes, fraction = divmod(minute_units, 10**5)
    return "%0*d%02d.%05d" % (degree_digits, whole, minutes, fraction)


def fixed(value, decimals):
    units = nearest(abs(value) * 10**decimals)
    sign = "-" if value < 0 and units != 0 else ""
    whole, fraction = divmod(units, 10**decimals)
    return "%s%d.%0*d" % (sign, whole, decimals, fraction)


def sentences(fix, talker):
    centis = nearest(fix["time"] * 100)  # times are after 1980, so positive
    day, centis_of_day = divmod(centis, 8_640_000)
    date = datetime.date(1970, 1, 1) + datetime.timedelta(days=day)
    seconds, hundredths = divmod(centis_of_day, 100)
    hhmmss = "%02d%02d%02d.%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60, hundredths)
    ddmmyy = "%02d%02d%02d" % (date.day, date.month, date.year % 100)
    has_position = fix["mode"] != 1
    if has_position:
        lat = angle(fix["lat"], 2)
        ns = "S" if fix["lat"] < 0 else "N"
        lon = angle(fix["lon"], 3)
        ew = "W" if fix["lon"] < 0 else "E"
    else:
        lat = ns = lon = ew = ""
    speed = fix["speed"] if has_position else None
    knots = fixed(speed * 3600 / 1852, 3) if speed is not None else ""
    kmh = fixed(speed * 3.6, 3) if speed is not None else ""
    course = ""
    if has_position and fix["course"] is not None:
        c = math.fmod(fix["course"], 360.0)
        if c < 0:
            c += 360
        units = nearest(c * 100)
        course = fixed(0 if units >= 36000 else units / 100, 2)
    alt = fixed(fix["alt"], 2) if has_position and fix["alt"] is not None else ""
    mode_indicator = "A" if has_position else "N"
    rmc = pynmea2.RMC(talker, "RMC", (hhmmss, "A" if has_position else "V", lat, ns, lon, ew, knots, course,
                                      ddmmyy, "", "", mode_indicator))
    gga = pynmea2.GGA(talker, "GGA", (hhmmss, lat, ns, lon, ew, "1" if has_position else "0", "", "", alt,
                                      "M" if alt else "", "", "", "", ""))
    vtg = pynmea2.VTG(talker, "VTG", (course, "T", "", "M", knots, "N", kmh, "K", mode_indicator))
    gsa = pynmea2.GSA(talker, "GSA", ("A", str(fix["mode"])) + ("",) * 12 + ("", "", ""))
    return [rmc, gga, vtg, gsa]


def decoded(lines):
    out = {}
    for line in lines:
        m = pynmea2.parse(line, check=True)
        if isinstance(m, pynmea2.RMC):
            out["rmc"] = {
                "lat": m.latitude if m.lat else None,
                "lon": m.longitude if m.lon else None,
                "status": m.status,
                "seconds": (m.timestamp.hour * 3600 + m.timestamp.minute * 60 + m.timestamp.second
                            + m.timestamp.microsecond / 1e6),
                "date": m.datestamp.isoformat(),
                "knots": float(m.spd_over_grnd) if m.spd_over_grnd is not None else None,
                "course": float(m.true_course) if m.true_course is not None else None,
            }
        elif isinstance(m, pynmea2.GGA):
            out["gga"] = {
                "lat": m.latitude if m.lat else None,
                "lon": m.longitude if m.lon else None,
                "quality": m.gps_qual,
                "altitude": float(m.altitude) if m.altitude is not None else None,
            }
        elif isinstance(m, pynmea2.VTG):
            out["vtg"] = {
                "knots": float(m.spd_over_grnd_kts) if m.spd_over_grnd_kts is not None else None,
                "kmh": float(m.spd_over_grnd_kmph) if m.spd_over_grnd_kmph is not None else None,
                "course": float(m.true_track) if m.true_track is not None else None,
            }
        elif isinstance(m, pynmea2.GSA):
            out["gsa"] = {"fixType": int(m.mode_fix_type)}
    return out


def random_fix(rng):
    start = datetime.datetime(1980, 1, 6, tzinfo=datetime.timezone.utc).timestamp()
    end = datetime.datetime(2079, 12, 31, tzinfo=datetime.timezone.utc).timestamp()
    mode = rng.choice([1, 2, 3, 3, 3, 3])
    fix = {
        "time": rng.uniform(start, end),
        "lat": rng.uniform(-90, 90),
        "lon": rng.uniform(-180, 180),
        "alt": rng.uniform(-400, 9000) if mode == 3 or rng.random() < 0.3 else None,
        "speed": rng.uniform(0, 120) if rng.random() < 0.8 else None,
        "course": rng.uniform(0, 360) if rng.random() < 0.8 else None,
        "mode": mode,
    }
    if mode == 1:
        fix.update(lat=None, lon=None, alt=None, speed=None, course=None)
    return fix


def edge_fixes():
    midnight = datetime.datetime(2024, 2, 28, tzinfo=datetime.timezone.utc).timestamp() + 86_400
    return [
        {"time": midnight - 0.004, "lat": 89.99999999, "lon": 179.99999999, "alt": 0.0, "speed": 0.0,
         "course": 359.999, "mode": 3},                          # rounds to 00:00:00.00 on 2024-02-29
        {"time": midnight + 86_400 - 0.01, "lat": -89.99999999, "lon": -179.99999999, "alt": -12.345,
         "speed": 0.0001, "course": 0.0, "mode": 3},             # 23:59:59.99 on 2024-02-29
        {"time": midnight, "lat": -33.8688, "lon": 151.2093, "alt": None, "speed": None, "course": None,
         "mode": 2},                                             # 2D without altitude, speed or course
        {"time": midnight + 1, "lat": 0.0, "lon": 0.0, "alt": 10.0, "speed": 1.0, "course": 90.0,
         "mode": 3},
        {"time": midnight + 2, "lat": -0.000000001, "lon": -0.000000001, "alt": 10.0, "speed": 1.0,
         "course": 90.0, "mode": 3},                             # rounds to zero in the southern/western hemisphere
        {"time": midnight + 3, "lat": None, "lon": None, "alt": None, "speed": None, "course": None,
         "mode": 1},                                             # no fix
        {"time": datetime.datetime(1999, 12, 31, 23, 59, 59, 995000, tzinfo=datetime.timezone.utc).timestamp(),
         "lat": 51.4778, "lon": -0.0015, "alt": 45.0, "speed": 2.5, "course": 270.0, "mode": 3},  # into 2000
        {"time": datetime.datetime(2079, 12, 31, 12, tzinfo=datetime.timezone.utc).timestamp(),
         "lat": -45.0, "lon": 179.999999, "alt": 8848.86, "speed": 340.0, "course": 180.0, "mode": 3},
        {"time": datetime.datetime(1980, 1, 1, tzinfo=datetime.timezone.utc).timestamp(),
         "lat": 45.0, "lon": -179.999999, "alt": 100.0, "speed": 3.0, "course": 45.0, "mode": 2},
    ]


VARIANTS = [
    "GNRMC,123519.123,A,4807.038123,N,01131.000456,E,022.4,084.4,230394,003.1,W,D,S",
    "GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W",
    "GLRMC,000001.50,A,0000.00010,S,00000.00010,W,0.0,,010100,,,A",
    "GARMC,235959.75,A,8959.99999,N,17959.99999,W,1.5,359.99,311216,0.5,E,R",
    "GBRMC,101010.00,V,,,,,,,150720,,,N",
    "BDGGA,010203.45,3352.12345,S,15112.54321,E,1,08,0.9,12.5,M,21.3,M,,",
    "GNGGA,132819.60,4134.49795459,S,09345.03431408,E,4,10,0.9,278.161,M,-31.442,M,6.6,0133",
    "GPGGA,235959.999,0000.0000,N,18000.0000,W,5,04,12.5,-10.0,M,,M,,",
    "GPGGA,120000.00,,,,,0,00,99.99,,,,,,",
    "GNGSA,A,3,44,34,25,11,19,23,38,,,,,,2.5,1.7,1.8,4",
    "GPGSA,M,2,01,02,03,04,05,06,07,08,09,10,11,12,0.8,0.6,0.5",
    "GPGSA,A,1,,,,,,,,,,,,,,,",
    "GPVTG,054.7,T,034.4,M,005.5,N,010.2,K",
    "GNVTG,359.95,T,,M,0.029,N,0.053,K,A",
    "GAVTG,,T,,M,,N,,K,N",
    "GPDTM,W84,,0.0,N,0.0,E,0.0,W84",
    "GPDTM,W84,C",
    "GNDTM,999,,0.08,S,0.07,W,-2.8,W84",
    "GPDTM,P90,,0.1234,N,12.5,E,,W84",
    "GPDTM,S85,,,,,,,W84",
    "GPDTM,N27,A,1.0,S,0.5,E,12.25,W84",
]


def variant(text):
    m = pynmea2.parse("$" + text)
    line = m.render()
    if text.startswith("GARMC"):
        line = line[:-2] + line[-2:].lower()  # a receiver that writes lower-case hex
    m = pynmea2.parse(line, check=True)
    out = {"sentence": line, "type": m.sentence_type, "talker": m.talker}

    def number(value):
        return float(value) if value not in (None, "") else None

    if m.sentence_type in ("RMC", "GGA"):
        out["lat"] = m.latitude if m.lat else None
        out["lon"] = m.longitude if m.lon else None
        t = m.timestamp
        out["seconds"] = t.hour * 3600 + t.minute * 60 + t.second + t.microsecond / 1e6
    if m.sentence_type == "RMC":
        out["status"] = m.status
        out["date"] = m.datestamp.isoformat() if m.datestamp else None
        out["knots"] = number(m.spd_over_grnd)
        out["course"] = number(m.true_course)
        variation = number(m.mag_variation)
        out["variation"] = None if variation is None or not m.mag_var_dir else (
            -variation if m.mag_var_dir == "W" else variation)
        out["mode"] = m.mode_indicator or None
        out["navigationalStatus"] = m.nav_status or None
    elif m.sentence_type == "GGA":
        out["quality"] = m.gps_qual
        out["satellitesInUse"] = int(m.num_sats) if m.num_sats else None
        out["hdop"] = number(m.horizontal_dil)
        out["altitude"] = number(m.altitude)
        out["geoidSeparation"] = number(m.geo_sep)
        out["age"] = number(m.age_gps_data)
        out["station"] = m.ref_station_id or None
    elif m.sentence_type == "VTG":
        out["courseTrue"] = number(m.true_track)
        out["courseMagnetic"] = number(m.mag_track)
        out["knots"] = number(m.spd_over_grnd_kts)
        out["kmh"] = number(m.spd_over_grnd_kmph)
        out["mode"] = m.faa_mode or None
    elif m.sentence_type == "GSA":
        out["selection"] = m.mode or None
        out["fixType"] = int(m.mode_fix_type) if m.mode_fix_type else None
        out["satelliteIDs"] = [int(getattr(m, "sv_id%02d" % i)) for i in range(1, 13) if getattr(m, "sv_id%02d" % i)]
        out["pdop"] = number(m.pdop)
        out["hdop"] = number(m.hdop)
        out["vdop"] = number(m.vdop)
        out["systemID"] = int(m.data[17], 16) if len(m.data) > 17 and m.data[17] else None
    elif m.sentence_type == "DTM":
        def signed(value, direction, negative):
            value = number(value)
            return None if value is None else (-value if direction == negative else value)
        out["localDatum"] = m.datum or None
        out["subdivision"] = m.subd_datum or None
        out["latitudeOffset"] = signed(m.lat, m.lat_dir, "S")
        out["longitudeOffset"] = signed(m.lon, m.lon_dir, "W")
        out["altitudeOffset"] = number(m.altitude)
        out["referenceDatum"] = m.datum_code or None
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    rng = random.Random(SEED)
    fixes = edge_fixes() + [random_fix(rng) for _ in range(COUNT)]
    with open(os.path.join(here, "reference.jsonl"), "w") as out:
        for index, fix in enumerate(fixes):
            talker = "GN" if index % 2 else "GP"
            lines = [str(s) for s in sentences(fix, talker)]
            out.write(json.dumps({"fix": fix, "talker": talker, "text": "".join(l + "\r\n" for l in lines),
                                  "pynmea2": decoded(lines)}, sort_keys=True) + "\n")
    with open(os.path.join(here, "variants.jsonl"), "w") as out:
        for text in VARIANTS:
            out.write(json.dumps(variant(text), sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
