"""A small client of headless Chromium over the DevTools protocol on a pipe
(--remote-debugging-pipe: commands on fd 3, replies on fd 4, each message JSON
ended by a NUL byte). Standard library only; every wait has a deadline, and
the browser is killed when the client closes or anything fails.
"""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

CHROMIUM = "/usr/bin/chromium"


class BrowserError(RuntimeError):
    pass


class Browser:
    def __init__(self, width=1400, height=900, timeout=30):
        if not os.access(CHROMIUM, os.X_OK):
            raise BrowserError(f"{CHROMIUM} is missing: install Debian's chromium "
                               "(scripts/install-deps)")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="hdtrace-chromium-")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-extensions", "--hide-scrollbars", "--mute-audio",
                 f"--user-data-dir={self.profile}", f"--window-size={width},{height}",
                 "--remote-debugging-pipe", "about:blank"]
        # The browser expects the pipe on fds 3 and 4; a shell moves them there.
        # (Through fds 103/104, since the pipe's own fds may be 3 or 4.)
        script = (f"exec 103<&{to_browser_read} 104>&{from_browser_write}; "
                  f"exec {to_browser_read}<&- {from_browser_write}>&-; "
                  "exec 3<&103 4>&104 103<&- 104>&-; exec \"$@\"")
        self.process = subprocess.Popen(
            ["/bin/bash", "-c", script, "chromium", CHROMIUM, *flags],
            pass_fds=(to_browser_read, from_browser_write), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next_id = 0
        self._events = []
        self.session = None
        try:
            target = self.command("Target.createTarget", url="about:blank")["targetId"]
            self.session = self.command("Target.attachToTarget", targetId=target,
                                        flatten=True)["sessionId"]
            self.command("Page.enable")
            self.command("Runtime.enable")
            self.command("Emulation.setDeviceMetricsOverride", width=width, height=height,
                         deviceScaleFactor=1, mobile=False)
        except BaseException:
            self.close()
            raise

    # --- protocol
    def _send(self, message):
        data = json.dumps(message).encode() + b"\0"
        while data:
            written = os.write(self._to_browser, data)
            data = data[written:]

    def _receive(self, deadline):
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BrowserError("timed out waiting for Chromium")
            ready, _, _ = select.select([self._from_browser], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed the pipe: " + self._stderr())
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def _stderr(self):
        if self.process.poll() is None:
            return "(still running)"
        return self.process.stderr.read().decode(errors="replace")[-2000:]

    def command(self, method, **params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        self._send(message)
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._events.append(reply)

    def wait_for_event(self, method):
        deadline = time.monotonic() + self.timeout
        while True:
            for index, event in enumerate(self._events):
                if event.get("method") == method:
                    del self._events[index]
                    return event
            self._events.append(self._receive(deadline))

    # --- conveniences
    def open(self, url):
        self._events.clear()
        self.command("Page.navigate", url=url)
        self.wait_for_event("Page.loadEventFired")

    def evaluate(self, expression):
        result = self.command("Runtime.evaluate", expression=expression, returnByValue=True,
                              awaitPromise=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def console_errors(self):
        return [event for event in self._events
                if event.get("method") == "Runtime.exceptionThrown"]

    def mouse_move(self, x, y):
        self.command("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)

    def wheel(self, x, y, delta_y):
        self.command("Input.dispatchMouseEvent", type="mouseWheel", x=x, y=y, deltaX=0,
                     deltaY=delta_y)

    def key(self, key):
        if len(key) == 1:
            self.command("Input.dispatchKeyEvent", type="keyDown", key=key, text=key)
        else:   # named keys (ArrowLeft, Home) carry no text
            self.command("Input.dispatchKeyEvent", type="rawKeyDown", key=key)
        self.command("Input.dispatchKeyEvent", type="keyUp", key=key)

    def screenshot(self):
        """The page as PNG bytes."""
        return base64.b64decode(self.command("Page.captureScreenshot", format="png")["data"])

    def close(self):
        try:
            if self.process.poll() is None:
                try:
                    self._send({"id": 0, "method": "Browser.close", "params": {}})
                    self.process.wait(timeout=5)
                except (OSError, subprocess.TimeoutExpired):
                    pass
        finally:
            if self.process.poll() is None:
                os.killpg(self.process.pid, 9)
                self.process.wait(timeout=10)
            for descriptor in (self._to_browser, self._from_browser):
                try:
                    os.close(descriptor)
                except OSError:
                    pass
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
