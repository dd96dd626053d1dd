"""Headless Chromium (Debian's ``chromium``), to check that a report renders: its DOM and a screenshot.

Used by the tests and ``scripts/bench_report.py``; every call starts a fresh
browser with its own profile folder and no network of its own.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking")


class BrowserError(RuntimeError):
    """Chromium is missing or did not render the page."""


def chromium() -> str | None:
    """The chromium executable on PATH, if any."""
    return shutil.which("chromium")


def run_chromium(page: Path, profile: Path, *args: str, timeout: float = 60) -> str:
    """Open ``page`` (a local file) with extra flags; return what Chromium printed on stdout."""
    executable = chromium()
    if executable is None:
        raise BrowserError("chromium is not installed (apt-get install chromium)")
    command = [executable, *FLAGS, f"--user-data-dir={profile}", *args, page.resolve().as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise BrowserError(f"chromium exited with {done.returncode}: {done.stderr.strip()[-500:]}")
    return done.stdout


def dump_dom(page: Path, profile: Path) -> str:
    """The page's DOM after load, serialised."""
    return run_chromium(page, profile, "--dump-dom")


def screenshot(page: Path, profile: Path, target: Path, size: tuple[int, int] = (1280, 2000)) -> None:
    run_chromium(page, profile, f"--screenshot={target}", f"--window-size={size[0]},{size[1]}")
    if not target.is_file():
        raise BrowserError(f"chromium wrote no screenshot to {target}")
