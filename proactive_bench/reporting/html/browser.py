"""Headless Chromium on a report page: its DOM and a screenshot (the browser itself: ``env/browser.py``).

Used by the tests and ``scripts/bench_report.py``; every call starts a fresh
browser with its own profile folder and no network of its own.
"""

from __future__ import annotations

from pathlib import Path

from proactive_bench.env import BrowserError, chromium, run_chromium

__all__ = ["BrowserError", "chromium", "dump_dom", "screenshot"]


def dump_dom(page: Path, profile: Path) -> str:
    """The page's DOM after load, serialised."""
    return run_chromium(page.resolve().as_uri(), profile, "--dump-dom")


def screenshot(page: Path, profile: Path, target: Path, size: tuple[int, int] = (1280, 2000)) -> None:
    run_chromium(page.resolve().as_uri(), profile, f"--screenshot={target}", f"--window-size={size[0]},{size[1]}")
    if not target.is_file():
        raise BrowserError(f"chromium wrote no screenshot to {target}")
