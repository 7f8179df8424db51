# Locust's side of scripts/bench-swarm.sh: the game's nearby request, as fast as each user can.
#
# Each user is one player standing at a seeded point of AREA ("LAT,LNG,RADIUS", the swarm's
# --area) and asks GET /locations/nearby?lat=&lng=&radius=5000 with X-Player-ID: locust-K, one
# request at a time with no wait between them (the swarm's --misbehave 1 players without the
# rule). The body is read but not parsed, the least work a Locust test can do per request, so the
# comparison of client cost favours Locust.
#
#   python3 -m locust -f scripts/bench-swarm-locustfile.py --headless -u 64 -r 64 -t 15s \
#       --host http://127.0.0.1:PORT --only-summary
import itertools
import math
import os
import random

import gevent
from locust import FastHttpUser, constant, events, task

LAT, LNG, RADIUS = (float(part) for part in os.environ.get("AREA", "0,-150,3000").split(","))
_numbers = itertools.count()


def _point(rng):
    """A uniform point within RADIUS metres of the centre (flat-earth offsets: the area is small)."""
    distance = RADIUS * math.sqrt(rng.random())
    bearing = rng.random() * 2 * math.pi
    lat = LAT + math.degrees(distance * math.cos(bearing) / 6_371_008.8)
    lng = LNG + math.degrees(distance * math.sin(bearing) / (6_371_008.8 * math.cos(math.radians(LAT))))
    return lat, (lng + 540) % 360 - 180


@events.init.add_listener
def _fresh_loop_time(**_):
    # gevent's loop caches the time of its last iteration, which can be the start of Locust's
    # imports: on a busy machine they take seconds, and `-t` (gevent.spawn_later) then ends the
    # run that much early. Refresh the cached time before Locust arms that timer.
    gevent.get_hub().loop.update_now()


class Player(FastHttpUser):
    wait_time = constant(0)

    def on_start(self):
        number = next(_numbers)
        lat, lng = _point(random.Random(number))
        self.path = f"/locations/nearby?lat={lat:.7f}&lng={lng:.7f}&radius=5000"
        self.headers = {"X-Player-ID": f"locust-{number}", "Accept": "application/json"}

    @task
    def nearby(self):
        self.client.get(self.path, headers=self.headers, name="/locations/nearby")
