#!/usr/bin/env python3
"""Drives headless Chromium through the live map of `locsim serve` (docs/guides/feeds.md).

Usage: livemap-browser-check.py URL PLAYER [SCREENSHOT.png]
       livemap-browser-check.py reload URL PLAYER BEFORE.png AFTER.png [WORLD.png]

Speaks the DevTools protocol over --remote-debugging-pipe (file descriptors 3 and 4), so it needs
nothing but Chromium and Python's standard library. Loads URL (the live map, with #token=T when the
server has a token), checks that PLAYER's marker moves between two DOM states, takes a screenshot,
presses PLAYER's pause button with a real mouse click, and checks that the marker then stays put.
With `reload`: loads URL mid-run, takes BEFORE.png, reloads the page, and checks that PLAYER's
trail is drawn from the server's history at once (about as many points as the player has sent
fixes), that the fetch circles and places drawn before are drawn again, that the progress shown
matches the API's `fraction` and moves on with the player, and takes AFTER.png; then adds a player
in London through the API, checks that no name label lies over another or over a marker and that
the scale bar reads a length that fits the view (WORLD.png), and removes that player.

Prints one JSON line of what it saw; exit status 0 when every check held, 1 otherwise, 2 when
Chromium cannot be started.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class DevTools:
    def __init__(self, chromium, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def wire():
            # Copies first, so neither end lands on the other's number; the rest is closed after.
            read_end, write_end = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", "--remote-debugging-pipe", "--user-data-dir=" + profile,
             "--window-size=1000,1100", "about:blank"],
            pass_fds=(3, 4), preexec_fn=wire,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.pending = b""
        self.next_id = 0
        self.session = None

    def call(self, method, params=None, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.pending:
                chunk = os.read(self.from_chrome, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the DevTools pipe")
                self.pending += chunk
            raw, self.pending = self.pending.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        return result.get("result", {}).get("value")

    def close(self):
        try:
            self.call("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def find_chromium():
    """The Chromium on PATH, or None after printing the error the caller reports."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not chromium:
        print(json.dumps({"error": "no chromium on PATH"}))
    return chromium


def open_browser(chromium, profile):
    """A headless Chromium with one blank page attached, 1000 x 1100 CSS pixels."""
    browser = DevTools(chromium, profile)
    target = browser.call("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
    browser.session = browser.call(
        "Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
    browser.call("Page.enable")
    browser.call("Emulation.setDeviceMetricsOverride",
                 {"width": 1000, "height": 1100, "deviceScaleFactor": 1, "mobile": False})
    return browser


def wait_for(what, check, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise RuntimeError(f"timed out waiting for {what}")


def screenshot_to(browser, path):
    import base64
    data = browser.call("Page.captureScreenshot", {"format": "png"})["data"]
    with open(path, "wb") as out:
        out.write(base64.b64decode(data))


# What the page shows of PLAYER, and what the API says of it at the same moment.
SHOWN = """(async () => {
  const name = %s;
  const line = document.querySelector('#map g.player[data-name="' + name + '"] polyline.track');
  const row = document.getElementById('player-' + name);
  const answer = await fetch('/players/' + encodeURIComponent(name), {headers});
  const api = await answer.json();
  const text = row ? row.querySelector('.progress').textContent : null;
  return {points: line ? line.getAttribute('points').trim().split(/\\s+/).length : 0,
    shown: text, shownFraction: text && text.endsWith(' %%') ? parseFloat(text) / 100 : null,
    fraction: api.fraction === undefined ? null : api.fraction, fixes: api.fixes, state: api.state,
    fetches: document.querySelectorAll('#map g.player[data-name="' + name + '"] circle.fetch').length,
    places: document.querySelectorAll('#map g.player[data-name="' + name + '"] circle.place').length};
})()"""

# Every name label's box and every marker's, the scale bar's text and length.
LAYOUT = """(() => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return {labels: [...document.querySelectorAll('#map text.label')].map(e => ({name: e.textContent, box: box(e)})),
    markers: [...document.querySelectorAll('#map circle.position')].map(e => ({name: e.closest('g.player').dataset.name, box: box(e)})),
    scale: document.querySelector('#map g.scale text').textContent,
    bar: (l => Number(l.getAttribute('x2')) - Number(l.getAttribute('x1')))(document.querySelector('#map g.scale line'))};
})()"""


def overlaps(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def run_check(url, player, check):
    """Opens `url` in a headless Chromium and runs `check(browser, seen, failures)`; prints what
    was seen (with the failures, or the error that stopped it) as one JSON object. Exit status:
    0 when nothing failed, 1 otherwise, 2 without Chromium."""
    chromium = find_chromium()
    if not chromium:
        return 2
    profile = tempfile.mkdtemp(prefix="locsim-livemap-")
    seen = {"url": url, "player": player}
    failures = []
    browser = None
    try:
        browser = open_browser(chromium, profile)
        browser.call("Page.navigate", {"url": url})
        check(browser, seen, failures)
    except Exception as error:  # report what was seen so far, with the reason
        seen["error"] = str(error)
    finally:
        if browser:
            browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    seen["failures"] = failures
    seen["ok"] = not failures and "error" not in seen
    print(json.dumps(seen))
    return 0 if seen["ok"] else 1


def reload_check(url, player, before_shot, after_shot, world_shot):
    def check(browser, seen, failures):
        shown = SHOWN % json.dumps(player)
        first = wait_for("the player's trail", lambda: (lambda s: s if s and s["points"] > 1 else None)(browser.evaluate(shown)))
        # Let the fetch circles and places of the opening come in, then the first picture.
        time.sleep(1.0)
        loaded = browser.evaluate(shown)
        seen["loaded"] = loaded
        screenshot_to(browser, before_shot)
        browser.call("Page.reload", {"ignoreCache": True})
        # Right after the reload: the trail comes from the server's history, not from fixes since.
        again = wait_for("the trail after the reload", lambda: (lambda s: s if s and s["points"] > 1 else None)(browser.evaluate(shown)))
        seen["reloaded"] = again
        if again["points"] < 0.9 * min(again["fixes"], 2000):
            failures.append(f"after the reload the trail has {again['points']} points for {again['fixes']} fixes")
        time.sleep(1.0)
        settled = browser.evaluate(shown)
        seen["settled"] = settled
        if settled["fetches"] < loaded["fetches"] or (loaded["places"] > 0 and settled["places"] == 0):
            failures.append(f"fetch circles or places lost in the reload: {loaded} then {settled}")
        # The progress moves with the player and matches the API's.
        time.sleep(2.0)
        later = browser.evaluate(shown)
        seen["later"] = later
        for moment in (settled, later):
            if moment["fraction"] is None or moment["shownFraction"] is None:
                failures.append(f"no fraction to compare: {moment}")
            elif abs(moment["fraction"] - moment["shownFraction"]) > 0.01:
                failures.append(f"progress shown {moment['shown']}, the API's fraction {moment['fraction']}")
        if later["shown"] == settled["shown"] and later["fraction"] != settled["fraction"]:
            failures.append(f"the progress stayed at {later['shown']} while the player moved")
        screenshot_to(browser, after_shot)
        # Players across the world: labels clear of each other and of the markers, a scale that fits.
        added = browser.evaluate("""(async () => (await fetch('/players', {method: 'POST', headers: Object.assign({'Content-Type': 'application/json'}, headers),
          body: JSON.stringify({name: 'london', spec: 'line:51.5074,-0.1278:51.5155,-0.1410'})})).status)()""")
        seen["added"] = added
        wait_for("the player in London on the map", lambda: browser.evaluate(
            "document.querySelector('#map g.player[data-name=\"london\"] circle.position') !== null"))
        time.sleep(0.5)
        layout = browser.evaluate(LAYOUT)
        seen["layout"] = layout
        labels = layout["labels"]
        for i, a in enumerate(labels):
            for b in labels[i + 1:]:
                if overlaps(a["box"], b["box"]):
                    failures.append(f"labels {a['name']} and {b['name']} overlap")
            for marker in layout["markers"]:
                if overlaps(a["box"], marker["box"]):
                    failures.append(f"label {a['name']} lies over the marker of {marker['name']}")
        import re
        match = re.fullmatch(r"(\d+) (m|km)", layout["scale"])
        if not match or (match.group(2) == "m" and int(match.group(1)) >= 1000) or not 40 <= layout["bar"] <= 160:
            failures.append(f"scale bar {layout['scale']!r}, {layout['bar']} px long")
        if world_shot:
            screenshot_to(browser, world_shot)
        browser.evaluate("(async () => (await fetch('/players/london', {method: 'DELETE', headers})).status)()")

    return run_check(url, player, check)


def main():
    if len(sys.argv) >= 6 and sys.argv[1] == "reload":
        return reload_check(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6] if len(sys.argv) > 6 else None)
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    url, player = sys.argv[1], sys.argv[2]
    screenshot = sys.argv[3] if len(sys.argv) > 3 else None

    def check(browser, seen, failures):
        marker = f"document.querySelector('#map g.player[data-name=\"{player}\"] circle.position')"
        position = f"(() => {{ const m = {marker}; return m ? [Number(m.dataset.lat), Number(m.dataset.lon)] : null; }})()"
        first = wait_for("the player's marker", lambda: browser.evaluate(position))
        second = wait_for("the marker to move", lambda: (lambda p: p if p and p != first else None)(browser.evaluate(position)))
        seen["moved"] = [first, second]
        if screenshot:
            # Let a fetch circle and its places come in, then take the picture.
            time.sleep(1.5)
            screenshot_to(browser, screenshot)
            seen["screenshot"] = screenshot
        button = f"document.querySelector('button[data-player=\"{player}\"][data-action=\"pause\"]')"
        box = wait_for("the pause button", lambda: browser.evaluate(
            f"(() => {{ const b = {button}; if (!b) return null; const r = b.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()"))
        for kind in ("mousePressed", "mouseReleased"):
            browser.call("Input.dispatchMouseEvent",
                         {"type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1})
        wait_for("the player's row to say paused", lambda: browser.evaluate(
            f"(() => {{ const r = document.getElementById('player-{player}'); return r && r.dataset.state === 'paused'; }})()"))
        # A fix may have been on its way as the button was pressed: take the position once settled.
        time.sleep(0.5)
        held = browser.evaluate(position)
        time.sleep(2.0)
        after = browser.evaluate(position)
        seen["paused"] = [held, after]
        if held != after:
            failures.append(f"the paused player moved from {held} to {after}")

    return run_check(url, player, check)


if __name__ == "__main__":
    sys.exit(main())
