#!/usr/bin/env python3
"""The instrument of scripts/bench-feeds.sh: a timing gpsd client, an NMEA relay that timestamps
what it feeds a real gpsd, and the analysis that pairs them (see docs/benchmarks/feeds.md).

  feed-probe.py watch HOST PORT SECONDS OUT
      Watches every device (?WATCH json) for SECONDS and writes one line per TPV read:
      `REALTIME_NS MONOTONIC_NS DEVICE TIME LAT LON`, both times taken as the read() that
      brought the line returned.
  feed-probe.py relay SOURCE_HOST SOURCE_PORT LISTEN_PORT OUT
      Waits for one connection on 127.0.0.1:LISTEN_PORT (a gpsd reading tcp://...), then watches
      SOURCE's NMEA (?WATCH nmea) and writes each epoch (the sentences up to and including VTG) to
      that connection with one send; records `REALTIME_NS RMC` after each send returns.
  feed-probe.py analyse WORK
      Reads WORK/{trace.txt, locsim-watch.txt, relay.txt, gpsd-watch.txt} and prints the latency
      and drift tables (markdown) and a JSON summary to WORK/summary.json.
  feed-probe.py players FIRST LAST
      Writes `--player pI=SPEC` for players FIRST...LAST as NUL-separated arguments: seeded
      circles of 50-500 m around points spread over central Tokyo, 1 Hz, 4 m noise, seed I.
  feed-probe.py add-players HTTP_PORT FIRST LAST
      Adds the same players to a running `locsim serve` through its control API (POST /players).
"""
import json
import os
import signal
import socket
import sys
import time


def watch(host, port, seconds, out):
    sock = socket.create_connection((host, int(port)))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.sendall(b'?WATCH={"enable":true,"json":true};\n')
    end = time.monotonic() + float(seconds)
    pending = b""
    with open(out, "w", buffering=1 << 20) as sink:
        while True:
            data = sock.recv(1 << 16)
            real, mono = time.time_ns(), time.monotonic_ns()
            if not data or mono / 1e9 >= end:
                break
            pending += data
            lines = pending.split(b"\n")
            pending = lines.pop()
            for line in lines:
                if not line.startswith(b'{"class":"TPV"'):
                    continue
                report = json.loads(line)
                if "lat" not in report:
                    continue
                sink.write(f"{real} {mono} {report['device']} {report['time']} {report['lat']} {report['lon']}\n")
    sock.close()


def relay(source_host, source_port, listen_port, out):
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", int(listen_port)))
    server.listen(1)
    print("listening", flush=True)
    target, _ = server.accept()
    target.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    source = socket.create_connection((source_host, int(source_port)))
    source.sendall(b'?WATCH={"enable":true,"nmea":true};\n')
    pending = b""
    epoch = []
    rmc = None
    with open(out, "w", buffering=1 << 20) as sink:
        while True:
            data = source.recv(1 << 16)
            if not data:
                break
            pending += data
            lines = pending.split(b"\n")
            pending = lines.pop()
            for line in lines:
                if not line.startswith(b"$"):
                    continue
                epoch.append(line.rstrip(b"\r") + b"\r\n")
                kind = line[3:6]
                if kind == b"RMC":
                    rmc = line.rstrip(b"\r")
                if kind == b"VTG":  # the epoch's last sentence (GSA, RMC, GGA, VTG)
                    try:
                        target.sendall(b"".join(epoch))
                    except OSError:
                        return
                    real = time.time_ns()
                    if rmc is not None:
                        sink.write(f"{real} {rmc.decode()}\n")
                    epoch, rmc = [], None


def stats(values):
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")
    return {"count": len(ordered), "p50": pick(0.5), "p90": pick(0.9), "p99": pick(0.99),
            "p999": pick(0.999), "max": ordered[-1] if ordered else float("nan")}


def seconds_of_day(iso):  # "2026-11-26T21:30:05.120Z" -> 77405
    clock = iso.split("T")[1]
    return int(clock[0:2]) * 3600 + int(clock[3:5]) * 60 + int(clock[6:8])


def rmc_key(sentence):
    fields = sentence.split(",")
    clock, lat, ns, lon, ew = fields[1], fields[3], fields[4], fields[5], fields[6]
    latitude = int(lat[:2]) + float(lat[2:]) / 60
    longitude = int(lon[:3]) + float(lon[3:]) / 60
    if ns == "S":
        latitude = -latitude
    if ew == "W":
        longitude = -longitude
    second = int(clock[0:2]) * 3600 + int(clock[2:4]) * 60 + int(clock[4:6])
    return (second, round(latitude * 1e5), round(longitude * 1e5))


def analyse(work):
    summary = {}
    # locsim: published (trace) -> the probe's read of the TPV, paired by player and fix time.
    published = {}
    with open(os.path.join(work, "trace.txt")) as trace:
        for line in trace:
            ns, player, stamp = line.split()
            published[(player, stamp)] = int(ns)
    latencies = []
    per_player = {}
    with open(os.path.join(work, "locsim-watch.txt")) as reads:
        for line in reads:
            real, mono, device, stamp, _, _ = line.split()
            player = device.rsplit("/", 1)[1]
            start = published.get((player, stamp))
            if start is not None:
                latencies.append((int(real) - start) / 1e6)
            per_player.setdefault(player, []).append((int(mono), stamp, start))
    summary["locsim_latency_ms"] = stats(latencies)
    summary["locsim_reads"] = sum(len(v) for v in per_player.values())
    summary["locsim_matched"] = len(latencies)

    # gpsd: the relay's send of the epoch -> the probe's read of the TPV, paired by time and position.
    sent = {}
    with open(os.path.join(work, "relay.txt")) as relayed:
        for line in relayed:
            ns, sentence = line.split(" ", 1)
            try:
                sent.setdefault(rmc_key(sentence.strip()), int(ns))
            except (ValueError, IndexError):
                continue
    gpsd_latencies = []
    gpsd_reads = 0
    with open(os.path.join(work, "gpsd-watch.txt")) as reads:
        for line in reads:
            real, _, _, stamp, lat, lon = line.split()
            gpsd_reads += 1
            key = (seconds_of_day(stamp), round(float(lat) * 1e5), round(float(lon) * 1e5))
            start = sent.pop(key, None)  # the first TPV of an epoch (gpsd may report one twice)
            if start is not None:
                gpsd_latencies.append((int(real) - start) / 1e6)
    summary["gpsd_latency_ms"] = stats(gpsd_latencies)
    summary["gpsd_reads"] = gpsd_reads
    summary["gpsd_matched"] = len(gpsd_latencies)

    # Drift: per player, the read time of each fix against the schedule its fix times give (1x):
    # (read_i - read_0) - (time_i - time_0), from the first fix the probe read.
    def unix_ms(stamp):
        seconds = seconds_of_day(stamp)
        return seconds * 1000 + int(stamp.split(".")[1][:3]) if "." in stamp else seconds * 1000

    end_drifts, worst_drifts, publish_end = [], [], []
    for player, reads in per_player.items():
        if len(reads) < 2:
            continue
        mono0, stamp0, _ = reads[0]
        day0 = stamp0.split("T")[0]
        worst = 0.0
        drift = 0.0
        publish_drift = 0.0
        published0 = next((p for _, _, p in reads if p is not None), None)
        stamp_p0 = next((s for _, s, p in reads if p is not None), None)
        for mono, stamp, published_ns in reads:
            days = 0 if stamp.split("T")[0] == day0 else 1  # a run across midnight UTC
            planned = unix_ms(stamp) + days * 86_400_000 - unix_ms(stamp0)
            drift = (mono - mono0) / 1e6 - planned
            worst = max(worst, abs(drift))
            if published_ns is not None and published0 is not None:
                days = 0 if stamp.split("T")[0] == stamp_p0.split("T")[0] else 1
                planned = unix_ms(stamp) + days * 86_400_000 - unix_ms(stamp_p0)
                publish_drift = (published_ns - published0) / 1e6 - planned
        end_drifts.append(abs(drift))
        worst_drifts.append(worst)
        if published0 is not None:
            publish_end.append(abs(publish_drift))
    summary["players"] = len(end_drifts)
    summary["drift_end_ms"] = stats(end_drifts)
    summary["drift_worst_ms"] = stats(worst_drifts)
    summary["drift_published_end_ms"] = stats(publish_end)
    span = [reads[-1][0] - reads[0][0] for reads in per_player.values() if reads]
    summary["drift_span_s"] = (max(span) / 1e9) if span else 0

    with open(os.path.join(work, "summary.json"), "w") as out:
        json.dump(summary, out, indent=1)
    row = lambda name, s: (f"| {name} | {s['count']} | {s['p50']:.3f} | {s['p90']:.3f} | {s['p99']:.3f} | "
                           f"{s['p999']:.3f} | {s['max']:.3f} |")
    print("| fix → client read (ms) | fixes paired | p50 | p90 | p99 | p99.9 | max |")
    print("|---|---|---|---|---|---|---|")
    print(row("locsim serve (published → TPV read)", summary["locsim_latency_ms"]))
    print(row("gpsd (epoch sent → TPV read)", summary["gpsd_latency_ms"]))
    l, g = summary["locsim_latency_ms"], summary["gpsd_latency_ms"]
    print(f"\np99 difference locsim − gpsd: {l['p99'] - g['p99']:+.3f} ms (target ≤ +1 ms); "
          f"p50 ratio locsim/gpsd: {l['p50'] / g['p50']:.2f}")
    print(f"paired: locsim {summary['locsim_matched']} of {summary['locsim_reads']} TPVs read, "
          f"gpsd {summary['gpsd_matched']} of {summary['gpsd_reads']}")
    print(f"\n| drift over {summary['drift_span_s']:.0f} s, {summary['players']} players (ms) | p50 | p99 | max |")
    print("|---|---|---|---|")
    for name, key in (("client read, at the last fix", "drift_end_ms"),
                      ("client read, worst fix of each player", "drift_worst_ms"),
                      ("published (trace), at the last fix", "drift_published_end_ms")):
        s = summary[key]
        print(f"| {name} | {s['p50']:.2f} | {s['p99']:.2f} | {s['max']:.2f} |")


def player_spec(i):
    lat = round(35.60 + (i * 7919 % 1000) / 5000, 5)
    lon = round(139.65 + (i * 104729 % 1000) / 4000, 5)
    return f"circle:{lat},{lon}:{50 + i % 450} --duration 86400 --noise 4 --seed {i}"


def players(first, last):
    for i in range(int(first), int(last) + 1):
        sys.stdout.write(f"--player\0p{i}={player_spec(i)}\0")


def add_players(http_port, first, last):
    import urllib.request
    for i in range(int(first), int(last) + 1):
        body = json.dumps({"name": f"p{i}", "spec": player_spec(i)}).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{http_port}/players", data=body, headers={"Content-Type": "application/json"},
            method="POST")
        urllib.request.urlopen(request).read()


if __name__ == "__main__":
    # Stopped by the benchmark (SIGTERM): close the record files so nothing buffered is lost.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    command, arguments = sys.argv[1], sys.argv[2:]
    commands = {"watch": watch, "relay": relay, "analyse": analyse, "players": players, "add-players": add_players}
    commands[command](*arguments)
