#!/usr/bin/env python3
"""A stand-in for the game server's GET /locations/nearby, for HTTPLocationRepositoryTests.

Listens on 127.0.0.1 on a free port, prints "PORT <n>" on stdout, and serves until its stdin is
closed (the test closes it, or the test process dies), so it never outlives the test.

The first path component picks the behaviour: GET /<scenario>/locations/nearby?lat=&lng=&radius=
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


def body(obj):
    return json.dumps(obj).encode()


SCENARIOS = {
    # status, content type, body
    "bad-radius": (400, "application/json",
                   body({"error": {"code": "invalid_parameter", "message": "radius must be between 1 and 50000"}})),
    "bad-lat-text": (400, "text/plain", b"lat is out of range\n"),
    "bad-explicit": (400, "application/json", body({"message": "invalid query", "parameter": "lng"})),
    "unauthorized": (401, "application/json", body({"message": "token expired"})),
    "missing": (404, "application/json", body({"error": "no such route"})),
    "server-error": (500, "application/json", body({"message": "database is down"})),
    "teapot": (418, "text/plain", b"I'm a teapot"),
    "malformed": (200, "application/json", b"{not json"),
    "wrong-shape": (200, "application/json",
                    body({"locations": [{"id": "a", "name": "x", "lat": 1, "lng": 2},
                                        {"id": "b", "name": "y", "lat": "north", "lng": 2}]})),
    "bad-coordinate": (200, "application/json",
                       body({"locations": [{"id": 7, "name": "Nowhere", "lat": 123.0, "lng": 2.0}]})),
    "html": (200, "text/html; charset=utf-8", b"<html><body>captive portal</body></html>"),
    "empty": (200, "application/json", body({"locations": []})),
}


FOLLOW_LOCK = threading.Lock()
FOLLOW_COUNT = [0]
HOLD_LOCK = threading.Lock()
HOLD_COUNT = [0]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, content_type, payload):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        parts = urlsplit(self.path)
        segments = parts.path.strip("/").split("/")
        if len(segments) != 3 or segments[1:] != ["locations", "nearby"]:
            self.send(404, "application/json", body({"message": "unknown path " + parts.path}))
            return
        scenario = segments[0]
        if scenario == "ok":
            # Echo what arrived, so the test can check the query and the headers.
            self.send(200, "application/json", body({"locations": [
                {"id": "echo", "name": self.headers.get("Authorization", ""),
                 "lat": 35.6812, "lng": 139.7671, "location_type": parts.query,
                 "level": None},
                {"id": 42, "name": "Fushimi Inari", "lat": 34.9671, "lng": 135.7727,
                 "location_type": "shrine", "level": 3, "distance_m": 1234.5},
                {"id": "accept", "name": self.headers.get("Accept", ""), "lat": -33.8568, "lng": 151.2153},
            ]}))
        elif scenario == "follow":
            # One place under one id that moves: 0.02° north of the first query's centre (out of
            # any encounter reach), then exactly at each later query's centre.
            with FOLLOW_LOCK:
                FOLLOW_COUNT[0] += 1
                first = FOLLOW_COUNT[0] == 1
            query = dict(pair.split("=", 1) for pair in parts.query.split("&") if "=" in pair)
            lat, lng = float(query["lat"]), float(query["lng"])
            self.send(200, "application/json", body({"locations": [
                {"id": "follower", "name": "Follower", "lat": lat + 0.02 if first else lat, "lng": lng},
            ]}))
        elif scenario == "hold-after-3":
            # Answers the first three requests with no places and holds every later one (the
            # client gives up first); each held request prints "HELD <number>", so a test knows
            # the client is waiting on it.
            with HOLD_LOCK:
                HOLD_COUNT[0] += 1
                number = HOLD_COUNT[0]
            if number <= 3:
                self.send(200, "application/json", body({"locations": []}))
                return
            print("HELD", number, flush=True)
            time.sleep(600)
        elif scenario == "slow":
            time.sleep(5)
            self.send(200, "application/json", body({"locations": []}))
        elif scenario in ("slow-1s", "slow-1s-fail"):
            # A server under load: every answer takes at least a second (then a place, or HTTP 500).
            time.sleep(1)
            if scenario == "slow-1s":
                self.send(200, "application/json", body({"locations": [
                    {"id": "slow", "name": "Slow", "lat": 37.76, "lng": -122.42}]}))
            else:
                self.send(500, "application/json", body({"message": "overloaded"}))
        elif scenario in SCENARIOS:
            self.send(*SCENARIOS[scenario])
        else:
            self.send(404, "application/json", body({"message": "unknown scenario " + scenario}))


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("PORT", server.server_address[1], flush=True)
    sys.stdin.read()  # returns when the test closes our stdin or exits
    os._exit(0)


if __name__ == "__main__":
    main()
