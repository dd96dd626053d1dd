"""Headless Chromium (Debian's ``chromium``), to check that a report renders: its DOM, a screenshot, a layout probe.

The browser itself (no network, a fresh profile per call) is ``env/browser.py``,
which the judge also uses to render HTML/SVG deliverables.

Used by the tests and ``scripts/bench_report.py``; every call starts a fresh
browser with its own profile folder and no network of its own.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from proactive_bench.env import BrowserError, chromium, run_chromium as run_url

__all__ = ["BrowserError", "chromium", "contrast", "dump_dom", "layout_probe", "run_chromium", "screenshot"]


def run_chromium(page: Path, profile: Path, *args: str, timeout: float = 60, query: str = "") -> str:
    """Open ``page`` (a local file, with ``?query`` when given) with extra flags; return what Chromium printed on stdout."""
    return run_url(page.resolve().as_uri() + (f"?{query}" if query else ""), profile, *args, timeout=timeout)


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
