#!/usr/bin/env python3
"""Drives headless Chromium through the live map of `locsim serve` (docs/guides/feeds.md).

Usage: livemap-browser-check.py URL PLAYER [SCREENSHOT.png]

Speaks the DevTools protocol over --remote-debugging-pipe (file descriptors 3 and 4), so it needs
nothing but Chromium and Python's standard library. Loads URL (the live map, with #token=T when the
server has a token), checks that PLAYER's marker moves between two DOM states, takes a screenshot,
presses PLAYER's pause button with a real mouse click, and checks that the marker then stays put.
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


def wait_for(what, check, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise RuntimeError(f"timed out waiting for {what}")


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    url, player = sys.argv[1], sys.argv[2]
    screenshot = sys.argv[3] if len(sys.argv) > 3 else None
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not chromium:
        print(json.dumps({"error": "no chromium on PATH"}))
        return 2
    profile = tempfile.mkdtemp(prefix="locsim-livemap-")
    seen = {"url": url, "player": player}
    browser = None
    try:
        browser = DevTools(chromium, profile)
        target = browser.call("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        browser.session = browser.call(
            "Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
        browser.call("Page.enable")
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": 1000, "height": 1100, "deviceScaleFactor": 1, "mobile": False})
        browser.call("Page.navigate", {"url": url})
        marker = f"document.querySelector('#map g.player[data-name=\"{player}\"] circle.position')"
        position = f"(() => {{ const m = {marker}; return m ? [Number(m.dataset.lat), Number(m.dataset.lon)] : null; }})()"
        first = wait_for("the player's marker", lambda: browser.evaluate(position))
        second = wait_for("the marker to move", lambda: (lambda p: p if p and p != first else None)(browser.evaluate(position)))
        seen["moved"] = [first, second]
        if screenshot:
            # Let a fetch circle and its places come in, then take the picture.
            time.sleep(1.5)
            data = browser.call("Page.captureScreenshot", {"format": "png"})["data"]
            import base64
            with open(screenshot, "wb") as out:
                out.write(base64.b64decode(data))
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
        seen["ok"] = held == after
        print(json.dumps(seen))
        return 0 if seen["ok"] else 1
    except Exception as error:  # report what was seen so far, with the reason
        seen["error"] = str(error)
        print(json.dumps(seen))
        return 1
    finally:
        if browser:
            browser.close()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
