"""A small Chrome DevTools protocol client for the browser tests: launch headless Chromium, drive a page.

Owns `Browser` (launch, navigate, evaluate, real mouse clicks and key presses, screenshots, requests seen).
"""

from __future__ import annotations

import base64
import contextlib
import json
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)
INSTALL_HINT = (
    "headless Chromium is needed for the HTML report's browser test and was not found on PATH; install it "
    "with: apt-get update && apt-get install -y chromium chromium-driver (.ci/run does this on CI)"
)


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """One headless Chromium with a fresh profile, driven over its DevTools websocket (loopback only)."""

    def __init__(self, executable: str, profile: Path, *, width: int = 1366, height: int = 768) -> None:
        from websockets.sync.client import connect

        self.log = (profile.parent / "chromium.log").open("wb")
        self.proc = subprocess.Popen(
            [executable, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-address=127.0.0.1",
             "--remote-debugging-port=0", f"--window-size={width},{height}", "about:blank"],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
        port = self._port(profile / "DevToolsActivePort")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as answer:
            targets = json.load(answer)
        page = next(t for t in targets if t["type"] == "page")
        self.stack = contextlib.ExitStack()
        self.ws = self.stack.enter_context(connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=10))
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        self.call("Emulation.setDeviceMetricsOverride",
                  width=width, height=height, deviceScaleFactor=1, mobile=False)
        self.call("Network.enable")
        self.call("Page.enable")

    def _port(self, active_port_file: Path) -> int:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if active_port_file.is_file():
                first = active_port_file.read_text(encoding="utf-8").splitlines()[:1]
                if first and first[0].isdigit():
                    return int(first[0])
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromium exited with status {self.proc.returncode} before it was ready")
            time.sleep(0.05)
        raise RuntimeError("chromium did not open its DevTools port within 30s")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv(timeout=30))
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def open(self, url: str) -> None:
        self.events.clear()
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + 30
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not finish loading within 30s")
            self.events.append(json.loads(self.ws.recv(timeout=30)))

    def requested_urls(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real left click (mouse pressed and released) at the centre of the element."""
        box = self.evaluate(
            f"(() => {{ const el = document.querySelector({json.dumps(selector)});"
            " el.scrollIntoView({block: 'center'}); const r = el.getClientRects()[0];"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def press(self, key: str, code: int) -> None:
        for kind in ("rawKeyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=key, code=key, windowsVirtualKeyCode=code,
                      nativeVirtualKeyCode=code)

    def screenshot(self, path: Path) -> Path:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        try:
            self.stack.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.log.close()
