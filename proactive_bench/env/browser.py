"""Headless Chromium (Debian's ``chromium``): pages rendered to a DOM dump or a PNG screenshot.

Every call starts a fresh browser with its own profile folder and no network:
background networking is off and every host name resolves to nothing, so a
rendered page cannot fetch anything. The HTML report's checks
(``reporting/html/browser.py``) and the judge's view of HTML/SVG deliverables
(``env/deliverables.py``) both render through here.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--hide-scrollbars",
    "--proxy-server=http://127.0.0.1:9",
)
NO_HOSTS = "--host-resolver-rules=MAP * ~NOTFOUND"
"""Every host name resolves to nothing (with the dead proxy above, even 127.0.0.1 is unreachable)."""
SCREEN = (1280, 2000)


class BrowserError(RuntimeError):
    """Chromium is missing or did not render the page."""


def chromium() -> str | None:
    """The chromium executable on PATH, if any."""
    return shutil.which("chromium")


def chromium_command(profile: Path, *args: str, loopback: bool = False) -> list[str]:
    """The command line of a headless Chromium with no network; ``loopback``: but 127.0.0.1 (a server of pbench's own, never
    for rendering what an agent wrote)."""
    executable = chromium()
    if executable is None:
        raise BrowserError("chromium is not installed (apt-get install chromium)")
    return [executable, *FLAGS, NO_HOSTS + (", EXCLUDE 127.0.0.1" if loopback else ""), f"--user-data-dir={profile}", *args]


def run_chromium(url: str, profile: Path, *args: str, timeout: float = 60, loopback: bool = False) -> str:
    """Open ``url`` (a file: or data: URL; with ``loopback``, a server on 127.0.0.1) with extra flags; return what Chromium printed on stdout."""
    command = [*chromium_command(profile, *args, loopback=loopback), url]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise BrowserError(f"chromium did not finish within {timeout:.0f} s") from None
    if done.returncode != 0:
        raise BrowserError(f"chromium exited with {done.returncode}: {done.stderr.strip()[-500:]}")
    return done.stdout


def screenshot_png(url: str, size: tuple[int, int] = SCREEN, timeout: float = 60) -> bytes:
    """A PNG screenshot of ``url``, made in a scratch profile."""
    with tempfile.TemporaryDirectory(prefix="pbench-chromium-") as scratch:
        target = Path(scratch) / "shot.png"
        run_chromium(url, Path(scratch) / "profile", f"--screenshot={target}", f"--window-size={size[0]},{size[1]}", timeout=timeout)
        if not target.is_file():
            raise BrowserError("chromium wrote no screenshot")
        return target.read_bytes()
