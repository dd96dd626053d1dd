"""How long ``pbench`` takes to start: read-only commands and ``--help``, each in a fresh interpreter.

Records a small results database first (one offline scripted episode of
``tests/data/mini`` and a sweep of two scripted models, no model server),
then runs each command ``--repeat`` times in a new ``python`` process and
prints, as medians:

- wall: the whole command, from process start to exit;
- imports: the time spent importing, the sum of ``-X importtime``'s
  top-level entries (one extra run per command, with that flag);
- modules: how many modules that run had loaded (``sys.modules`` at exit).

    python scripts/bench_cli_start.py [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MINI = REPO / "tests" / "data" / "mini"
PBENCH = "import sys; from proactive_bench.cli import app; sys.argv[0] = 'pbench'; app()"
COUNTED = "import atexit, sys; atexit.register(lambda: print('modules loaded:', len(sys.modules), file=sys.stderr)); " + PBENCH
TOP_LEVEL = re.compile(r"^import time:\s+\d+ \|\s+(\d+) \| \S")
LOADED = re.compile(r"^modules loaded: (\d+)$", re.MULTILINE)


def pbench(*args: str, flags: tuple[str, ...] = (), code: str = PBENCH) -> subprocess.CompletedProcess[str]:
    """``pbench args`` in a fresh interpreter (the same as the console script, without its wrapper)."""
    return subprocess.run([sys.executable, *flags, "-c", code, *args], capture_output=True, text=True, cwd=REPO, timeout=300)


def record(db: Path) -> None:
    """A run of ``scripted:asker`` on the mini episode, then a sweep of two scripted models, into ``db``."""
    for args in (
        ("episode", "--data", str(MINI), "--persona", "mini", "--model", "scripted:asker", "--db", str(db)),
        ("sweep", "--data", str(MINI), "--models", "scripted:asker,scripted:passive", "--db", str(db)),
    ):
        done = pbench(*args)
        if done.returncode not in (0, 1):
            sys.exit(f"pbench {args[0]} failed:\n{done.stderr}")


def commands(db: Path, out: Path) -> dict[str, tuple[str, ...]]:
    """The commands timed, by label."""
    at = ("--db", str(db))
    return {
        "--help": ("--help",),
        "runs": ("runs", *at),
        "sweeps": ("sweeps", *at),
        "results": ("results", "latest", *at),
        "db info": ("db", "info", *at),
        "export": ("export", "latest", "--out", str(out / "sessions.jsonl"), *at),
        "report": ("report", "latest", "--out", str(out / "report"), *at),
        "episode --help": ("episode", "--help"),
    }


def import_seconds(args: tuple[str, ...]) -> tuple[float, int]:
    """Seconds spent importing in one run of ``pbench args`` and the modules loaded by its end."""
    done = pbench(*args, flags=("-X", "importtime"), code=COUNTED)
    microseconds = sum(int(m[1]) for line in done.stderr.splitlines() if (m := TOP_LEVEL.match(line)))
    loaded = LOADED.search(done.stderr)
    if done.returncode != 0 or loaded is None:
        sys.exit(f"pbench {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return microseconds / 1e6, int(loaded[1])


def wall_seconds(args: tuple[str, ...]) -> float:
    started = time.perf_counter()
    done = pbench(*args)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"pbench {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="fresh runs per command")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "pbench.db"
        record(db)
        figures = {}
        for label, args in commands(db, Path(tmp)).items():
            walls = [wall_seconds(args) for _ in range(options.repeat)]
            imports, modules = import_seconds(args)
            figures[label] = {"wall_s": round(statistics.median(walls), 3), "imports_s": round(imports, 3), "modules": modules}
    if options.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"{'command':<16} {'wall (median)':>14} {'imports':>9} {'modules':>8}")
    for label, row in figures.items():
        print(f"{label:<16} {row['wall_s']:>13.2f}s {row['imports_s']:>8.2f}s {row['modules']:>8}")


if __name__ == "__main__":
    main()
