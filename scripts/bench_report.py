"""How fast a 100-session report opens in headless Chromium.

Runs a scripted sweep of the shipped pharmacist episode (2 models, with and
without dependency history, as many runs as it takes to reach ``--sessions``),
writes its report, and opens it in headless Chromium (Debian's ``chromium``)
several times, each with a fresh profile. Printed figures, as medians:

- load: from navigation start to the ``load`` event plus a forced layout of
  the whole page, measured inside the page (``performance.now()``) by a probe
  script appended to a copy of the report (the report itself has no script);
- screenshot: wall time of a whole ``chromium --screenshot`` call (start the
  browser, load, paint the first 1280×2000 pixels, write the PNG), and the
  same for an empty page as a baseline.

    python scripts/bench_report.py [--sessions 100] [--models scripted:reference,scripted:asker] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from typer.testing import CliRunner

from proactive_bench.cli import app
from proactive_bench.dataset.ablation import ABLATIONS, ablated_sessions
from proactive_bench.dataset.loading import DEFAULT_DATA_ROOT, load_episode
from proactive_bench.reporting.html.browser import chromium, dump_dom, screenshot

PROBE = """<script>
addEventListener("load", () => {
  const height = document.documentElement.scrollHeight;  // forces style and layout of the whole page
  document.body.dataset.loadMs = performance.now().toFixed(1);
  document.body.dataset.height = height;
});
</script>"""


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    if result.exit_code != 0:
        sys.exit(f"pbench {args[0]} failed: {result.output}")
    return result.stdout


def runs_for(target: int, models: int) -> int:
    """Repeats of models × ablations over the pharmacist episode that give at least ``target`` sessions."""
    loaded = load_episode(DEFAULT_DATA_ROOT, "pharmacist")
    per_repeat = models * sum(len(ablated_sessions(loaded.episode, loaded.sessions, a)) for a in ABLATIONS)
    return math.ceil(target / per_repeat)


def probe_copy(report: Path) -> Path:
    probed = report.with_name("probed.html")
    probed.write_text(report.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    return probed


def load_ms(page: Path, profile: Path) -> float:
    """What the probe recorded: milliseconds from navigation start to load and layout."""
    found = re.search(r'data-load-ms="([0-9.]+)"', dump_dom(page, profile))
    if found is None:
        sys.exit("the probe did not record a load time")
    return float(found.group(1))


def screenshot_seconds(page: Path, profile: Path) -> float:
    """Wall seconds of one cold ``chromium --screenshot`` call."""
    started = time.perf_counter()
    screenshot(page, profile, profile.with_suffix(".png"))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="scripted:reference,scripted:asker")
    parser.add_argument("--sessions", type=int, default=100, help="At least this many sessions in the report.")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if chromium() is None:
        sys.exit("chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        db = work / "r.db"
        started = time.perf_counter()
        runs = runs_for(args.sessions, len(args.models.split(",")))
        out = json.loads(
            cli("sweep", "--json", "--personas", "pharmacist", "--models", args.models, "--runs", str(runs),
                "--ablation", ",".join(ABLATIONS), "--db", str(db))
        )
        sweep_seconds = time.perf_counter() - started
        sweep_id = out["runs"][0]["sweep_id"]
        report = work / "report.html"
        started = time.perf_counter()
        cli("report", sweep_id, "--db", str(db), "--out", str(report))
        build_seconds = time.perf_counter() - started
        html = report.read_text(encoding="utf-8")
        sessions = html.count('<section class="session"')
        probed, empty = probe_copy(report), work / "empty.html"
        empty.write_text("<!DOCTYPE html><title>empty</title>", encoding="utf-8")
        loads, shots, baseline = [], [], []
        for n in range(args.repeat):
            loads.append(load_ms(probed, work / f"load-{n}"))
            shots.append(screenshot_seconds(report, work / f"shot-{n}"))
            baseline.append(screenshot_seconds(empty, work / f"empty-{n}"))
    print(f"sweep: {len(out['runs'])} runs, {sessions} sessions in {sweep_seconds:.1f} s; report built in {build_seconds:.2f} s, {len(html) / 1e6:.2f} MB")
    print(f"load event + layout in headless Chromium: median {statistics.median(loads):.0f} ms (min {min(loads):.0f}, max {max(loads):.0f}, n={args.repeat})")
    print(f"whole chromium --screenshot call: median {statistics.median(shots):.2f} s; empty page: {statistics.median(baseline):.2f} s")


if __name__ == "__main__":
    main()
