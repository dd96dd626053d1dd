"""Headless Chromium (Debian's ``chromium``), to check that a report renders: its DOM, a screenshot, a layout probe.

The browser itself (no network but loopback, a fresh profile per call) is ``env/browser.py``,
which the judge also uses to render HTML/SVG deliverables.

Used by the tests and ``scripts/bench_report.py``; every call starts a fresh
browser with its own profile folder and no network of its own. ``dump_url`` reads a served page (``pbench view``)
once loaded; ``LivePage`` keeps one open over the DevTools protocol and reads it as its scripts change it.
"""

from __future__ import annotations

import fcntl
import html
import json
import os
import re
import select
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from proactive_bench.env import BrowserError, chromium, chromium_command, run_chromium as run_url

__all__ = ["BrowserError", "LivePage", "chromium", "contrast", "dump_dom", "dump_url", "layout_probe", "run_chromium", "screenshot"]


def run_chromium(page: Path, profile: Path, *args: str, timeout: float = 60, query: str = "") -> str:
    """Open ``page`` (a local file, with ``?query`` when given) with extra flags; return what Chromium printed on stdout."""
    return run_url(page.resolve().as_uri() + (f"?{query}" if query else ""), profile, *args, timeout=timeout)


def dump_url(url: str, profile: Path, width: int = 1280) -> str:
    """The DOM of a served page (``http://127.0.0.1:...``) after load and its scripts, serialised."""
    return run_url(url, profile, "--dump-dom", f"--window-size={width},1000", loopback=True)


def dump_dom(page: Path, profile: Path, query: str = "", width: int = 1280) -> str:
    """The page's DOM after load (and after its scripts ran), serialised; ``query`` is the page's query string."""
    return run_chromium(page, profile, "--dump-dom", f"--window-size={width},1000", query=query)


PROBE = """<script>
addEventListener("load", () => {
  const root = document.documentElement, width = innerWidth, height = root.scrollHeight;  // forces style and layout
  const loadMs = performance.now();
  document.querySelectorAll("details").forEach((d) => { d.open = true; });  // what a reader can unfold must fit too
  const wide = [...document.body.querySelectorAll("*")]
    .filter((el) => el.getBoundingClientRect().right > width + 0.5)
    .map((el) => `${el.tagName.toLowerCase()}.${el.className.baseVal ?? el.className}`.slice(0, 80));
  const opaque = (el) => {
    for (; el; el = el.parentElement) {
      const c = getComputedStyle(el).backgroundColor;
      if (c !== "transparent" && !/rgba\\(.*, 0\\)$/.test(c)) return c;
    }
    return "rgb(255, 255, 255)";
  };
  const colours = [...document.querySelectorAll(".tag, .error, .failed")].map((el) => [el.className, getComputedStyle(el).color, opaque(el)]);
  const marker = document.createElement("pre");
  marker.id = "layout-probe";
  marker.textContent = JSON.stringify({ loadMs, width, height, scrollWidth: root.scrollWidth, wide, colours });
  document.body.append(marker);
});
</script>"""
"""Appended to a copy of a page: after load, it measures the page at its window width (every ``<details>``
opened) and writes a JSON marker into the DOM: load time (navigation start to the ``load`` event plus a
forced layout, before the details open), width, height and scroll width, the elements
that reach past the window's right edge, and each tag's and error's text and background colour."""


def layout_probe(page: Path, profile: Path, width: int = 1400) -> dict[str, Any]:
    """Open a probed copy of ``page`` (beside it, so relative links hold) at ``width`` pixels; return the probe's marker."""
    probed = page.with_name(f"probed-{page.name}")
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    try:
        found = re.search(r'<pre id="layout-probe">(.*?)</pre>', dump_dom(probed, profile, width=width), re.DOTALL)
    finally:
        probed.unlink()
    if found is None:
        raise BrowserError(f"the layout probe wrote nothing into {page}")
    return json.loads(html.unescape(found.group(1)))


def contrast(foreground: str, background: str) -> float:
    """WCAG 2 contrast ratio of two CSS ``rgb()``/``rgba()`` colours (alpha ignored)."""

    def luminance(colour: str) -> float:
        channels = [int(c) / 255 for c in re.findall(r"\d+", colour)[:3]]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def screenshot(page: Path, profile: Path, target: Path, size: tuple[int, int] = (1280, 2000)) -> None:
    run_chromium(page, profile, f"--screenshot={target}", f"--window-size={size[0]},{size[1]}")
    if not target.is_file():
        raise BrowserError(f"chromium wrote no screenshot to {target}")


def _above_4(pipe: tuple[int, int]) -> tuple[int, int]:
    """A pipe's ends moved to descriptors above 4, so that moving them to 3 and 4 in the child cannot overwrite one with the other."""
    moved = tuple(fcntl.fcntl(end, fcntl.F_DUPFD_CLOEXEC, 10) for end in pipe)
    for end in pipe:
        os.close(end)
    return moved[0], moved[1]


class LivePage:
    """One page kept open in headless Chromium, driven over the DevTools protocol on a pipe: open a URL, then read the
    page as it changes (``evaluate``) while its scripts run, e.g. a page that polls a server."""

    def __init__(self, profile: Path, size: tuple[int, int] = (1280, 1000)) -> None:
        command = chromium_command(profile, "--remote-debugging-pipe", f"--window-size={size[0]},{size[1]}", "about:blank", loopback=True)
        to_browser, self._writer = _above_4(os.pipe())
        self._reader, from_browser = _above_4(os.pipe())
        # the protocol's pipe is the browser's fd 3 (in) and 4 (out): bash moves them there (no preexec_fn in a threaded test; dash takes no fd above 9)
        self._process = subprocess.Popen(
            ["bash", "-c", f'exec "$0" "$@" 3<&{to_browser} 4>&{from_browser}', *command],
            pass_fds=(to_browser, from_browser),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        self._session = ""
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def open(self, url: str, timeout: float = 30) -> None:
        """Navigate to ``url`` and wait until its document has loaded."""
        self._call("Page.navigate", {"url": url}, timeout)
        deadline = time.monotonic() + timeout
        while self.evaluate("document.readyState") != "complete":
            if time.monotonic() > deadline:
                raise BrowserError(f"{url} did not load within {timeout:.0f} s")
            time.sleep(0.05)

    def evaluate(self, expression: str, timeout: float = 30) -> Any:
        """The value of a JavaScript expression in the page (JSON-able)."""
        answer = self._call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, timeout)
        if "exceptionDetails" in answer:
            raise BrowserError(f"{expression}: {answer['exceptionDetails'].get('text', 'raised')}")
        return answer["result"].get("value")

    def _call(self, method: str, params: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if self._session:
            message["sessionId"] = self._session
        os.write(self._writer, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            for raw in self._messages(deadline, method):
                reply = json.loads(raw)
                if reply.get("id") == self._next_id:
                    if "error" in reply:
                        raise BrowserError(f"{method}: {reply['error'].get('message')}")
                    return dict(reply["result"])

    def _messages(self, deadline: float, method: str) -> list[bytes]:
        """The next complete messages from the browser (events included), waiting until ``deadline``."""
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._reader], [], [], left)[0]:
                raise BrowserError(f"chromium did not answer {method} in time")
            chunk = os.read(self._reader, 1 << 16)
            if not chunk:
                raise BrowserError(f"chromium closed the protocol pipe during {method}")
            self._buffer += chunk
        *complete, self._buffer = self._buffer.split(b"\0")
        return complete

    def close(self) -> None:
        self._process.kill()
        self._process.wait()
        os.close(self._writer)
        os.close(self._reader)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self.close()
