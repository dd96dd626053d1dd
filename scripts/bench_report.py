"""How fast a 100-session report opens in headless Chromium: its index and one run page.

Runs a scripted sweep of the shipped pharmacist episode (2 models, with and
without dependency history, as many runs as it takes to reach ``--sessions``),
writes its report (a folder: ``index.html`` and ``runs/<run id>.html``), and
opens the index and the first run's page in headless Chromium (Debian's
``chromium``) several times, each with a fresh profile. Printed figures, as medians:

- load: from navigation start to the ``load`` event plus a forced layout of
  the whole page, measured inside the page (``performance.now()``) by the
  layout probe of ``reporting.html.browser`` appended to a copy of the page,
  with the page's height at 1,400 pixels wide;
- screenshot: wall time of a whole ``chromium --screenshot`` call (start the
  browser, load, paint the first 1280×2000 pixels, write the PNG), and the
  same for an empty page as a baseline.

    python scripts/bench_report.py [--sessions 100] [--models scripted:reference,scripted:asker] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

from typer.testing import CliRunner

from proactive_bench.cli import app
from proactive_bench.dataset.ablation import ABLATIONS, ablated_sessions
from proactive_bench.dataset.loading import DEFAULT_DATA_ROOT, load_episode
from proactive_bench.reporting.html.browser import chromium, layout_probe, screenshot


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
            cli(
                "sweep",
                "--json",
                "--personas",
                "pharmacist",
                "--models",
                args.models,
                "--runs",
                str(runs),
                "--ablation",
                ",".join(ABLATIONS),
                "--db",
                str(db),
            )
        )
        sweep_seconds = time.perf_counter() - started
        sweep_id = out["runs"][0]["sweep_id"]
        report = work / "report"
        started = time.perf_counter()
        cli("report", sweep_id, "--db", str(db), "--out", str(report))
        build_seconds = time.perf_counter() - started
        pages = {"index": report / "index.html", "run page": report / "runs" / f"{out['runs'][0]['run_id']}.html"}
        run_pages = sorted((report / "runs").glob("*.html"))
        sessions = sum(p.read_text(encoding="utf-8").count('<section class="session"') for p in run_pages)
        size = sum(p.stat().st_size for p in [pages["index"], *run_pages])
        empty = work / "empty.html"
        empty.write_text("<!DOCTYPE html><title>empty</title>", encoding="utf-8")
        loads: dict[str, list[float]] = {name: [] for name in pages}
        heights: dict[str, int] = {}
        shots: dict[str, list[float]] = {name: [] for name in pages}
        baseline = []
        for n in range(args.repeat):
            for name, page in pages.items():
                probe = layout_probe(page, work / f"load-{name}-{n}")
                loads[name].append(probe["loadMs"])
                heights[name] = probe["height"]
                shots[name].append(screenshot_seconds(page, work / f"shot-{name}-{n}"))
            baseline.append(screenshot_seconds(empty, work / f"empty-{n}"))
        print(
            f"sweep: {len(out['runs'])} runs, {sessions} sessions in {sweep_seconds:.1f} s; report built in {build_seconds:.2f} s, "
            f"{len(run_pages)} run pages, {size / 1e6:.2f} MB in all"
        )
        for name, page in pages.items():
            print(
                f"{name} ({page.stat().st_size / 1e3:.0f} kB, {heights[name]:,} px tall at 1,400 px): load event + layout median "
                f"{statistics.median(loads[name]):.0f} ms (min {min(loads[name]):.0f}, max {max(loads[name]):.0f}, n={args.repeat}); "
                f"whole chromium --screenshot call median {statistics.median(shots[name]):.2f} s"
            )
        print(f"empty page: whole chromium --screenshot call median {statistics.median(baseline):.2f} s")


if __name__ == "__main__":
    main()
