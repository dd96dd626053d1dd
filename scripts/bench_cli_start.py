"""How long ``pbench`` takes to start, each command in a fresh interpreter, against the targets of issue 36.

Records a small results database first (one offline scripted episode of
``tests/data/mini`` and a sweep of two scripted models, no model server),
then runs each command ``--repeat`` times in a new ``python`` process:
read-only commands and ``--help``; ``episode`` against a dead endpoint
(``127.0.0.1:9``: it ends at its first model request, with the unreachable-server
error); a whole scripted episode and a scripted sweep over two worker processes
(the children the kill, resume and docs tests start most); ``validate`` of the shipped data with an empty validation cache
(cold) and with the cache the cold runs filled (cached). It prints, as medians:

- wall: the whole command, from process start to exit;
- cpu: the CPU (user + system) of the command and the processes it waited for (a sweep's workers);
- ratio: wall over the wall of a bare ``python -c "import typer"`` measured
  in the same run (the machine's speed and load cancel out, mostly);
- target: the issue's bound (seconds on an idle machine), where it sets one;
- imports: the time spent importing, the sum of ``-X importtime``'s
  top-level entries (one extra run per command, with that flag);
- modules: how many modules that run had loaded (``sys.modules`` at exit).

By default the package is byte-compiled first and the commands run with
bytecode, as after a ``pip install`` (which compiles every module);
``--no-bytecode`` keeps an environment's ``PYTHONDONTWRITEBYTECODE``, so every
start compiles pbench's sources again.

    python scripts/bench_cli_start.py [--repeat 5] [--json] [--only runs,validate] [--no-bytecode]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MINI = REPO / "tests" / "data" / "mini"
PBENCH = "import sys; from proactive_bench.cli import app; sys.argv[0] = 'pbench'; app()"
COUNTED = "import atexit, sys; atexit.register(lambda: print('modules loaded:', len(sys.modules), file=sys.stderr)); " + PBENCH
TOP_LEVEL = re.compile(r"^import time:\s+\d+ \|\s+(\d+) \| \S")
LOADED = re.compile(r"^modules loaded: (\d+)$", re.MULTILINE)
BARE = "import typer"
DEAD_ENDPOINT = "http://127.0.0.1:9/v1"
TARGETS = {
    "--help": 0.5,
    "runs": 0.5,
    "results": 0.5,
    "sweeps": 0.5,
    "episode (dead endpoint)": 1.5,
    "validate (cold)": 5.0,
    "validate (cached)": 0.5,
}
"""Issue 36's bounds, in seconds on an idle machine."""


@dataclass(frozen=True)
class Timed:
    """One command timed: its arguments, the exit codes that count as done, and the cache folder it runs with."""

    args: tuple[str, ...]
    codes: tuple[int, ...] = (0,)
    cache: Path | None = None  # XDG_CACHE_HOME: None, the caller's own; a fresh empty one per run when ``cold``
    cold: bool = False


BASE_ENV = dict(os.environ)
"""The children's environment: this process's, less ``PYTHONDONTWRITEBYTECODE`` unless ``--no-bytecode``."""


def pbench(*args: str, flags: tuple[str, ...] = (), code: str = PBENCH, cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``pbench args`` in a fresh interpreter (the same as the console script, without its wrapper)."""
    env = BASE_ENV | ({"XDG_CACHE_HOME": str(cache)} if cache is not None else {})
    return subprocess.run([sys.executable, *flags, "-c", code, *args], capture_output=True, text=True, cwd=REPO, timeout=300, env=env)


def record(db: Path) -> None:
    """A run of ``scripted:asker`` on the mini episode, then a sweep of two scripted models, into ``db``."""
    for args in (
        ("episode", "--data", str(MINI), "--persona", "mini", "--model", "scripted:asker", "--db", str(db)),
        ("sweep", "--data", str(MINI), "--models", "scripted:asker,scripted:passive", "--db", str(db)),
    ):
        done = pbench(*args)
        if done.returncode not in (0, 1):
            sys.exit(f"pbench {args[0]} failed:\n{done.stderr}")


def commands(db: Path, out: Path) -> dict[str, Timed]:
    """The commands timed, by label."""
    at = ("--db", str(db))
    scripted = ("--data", str(MINI), "--db", str(out / "scripted.db"))  # each run records a new run (or sweep) there
    dead = ("episode", "--persona", "pharmacist", "--model", "openai:x", "--base-url", DEAD_ENDPOINT, "--db", str(out / "dead.db"))
    return {
        "--help": Timed(("--help",)),
        "runs": Timed(("runs", *at)),
        "sweeps": Timed(("sweeps", *at)),
        "results": Timed(("results", "latest", *at)),
        "db info": Timed(("db", "info", *at)),
        "export": Timed(("export", "latest", "--out", str(out / "sessions.jsonl"), *at)),
        "report": Timed(("report", "latest", "--out", str(out / "report"), *at)),
        "episode --help": Timed(("episode", "--help")),
        "episode (dead endpoint)": Timed(dead, codes=(2,)),  # 2: the unreachable-server error
        "episode (scripted)": Timed(("episode", *scripted, "--persona", "mini", "--model", "scripted:reference"), codes=(0, 1)),
        "sweep (scripted, 2 workers)": Timed(
            ("sweep", *scripted, "--models", "scripted:reference,scripted:asker", "--workers", "2"), codes=(0, 1)
        ),
        "validate (cold)": Timed(("validate",), cache=out / "cache", cold=True),
        "validate (cached)": Timed(("validate",), cache=out / "cache"),
    }


def cache_for(timed: Timed, run: int) -> Path | None:
    """The cache folder of one run: a new empty one for a cold command, else the command's own."""
    return timed.cache / f"cold-{run}" if timed.cold and timed.cache is not None else timed.cache


def import_seconds(timed: Timed) -> tuple[float, int]:
    """Seconds spent importing in one run of ``pbench args`` and the modules loaded by its end."""
    done = pbench(*timed.args, flags=("-X", "importtime"), code=COUNTED, cache=cache_for(timed, -1))
    microseconds = sum(int(m[1]) for line in done.stderr.splitlines() if (m := TOP_LEVEL.match(line)))
    loaded = LOADED.search(done.stderr)
    if done.returncode not in timed.codes or loaded is None:
        sys.exit(f"pbench {' '.join(timed.args)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return microseconds / 1e6, int(loaded[1])


def wall_seconds(timed: Timed, run: int) -> tuple[float, float]:
    """The wall of one run, and the CPU (user + system) it and the processes it waited for (a sweep's workers) used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = pbench(*timed.args, cache=cache_for(timed, run))
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in timed.codes:
        sys.exit(f"pbench {' '.join(timed.args)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def bare_seconds() -> float:
    """The wall of a bare ``python -c "import typer"``: the floor every command starts from."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", BARE], check=True, cwd=REPO, env=BASE_ENV)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="fresh runs per command")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--only", help="comma-separated labels to time (default: all)")
    parser.add_argument("--no-bytecode", action="store_true", help="keep PYTHONDONTWRITEBYTECODE: every start compiles the sources")
    options = parser.parse_args()
    if not options.no_bytecode:
        BASE_ENV.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "proactive_bench")], check=True, env=BASE_ENV)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "pbench.db"
        record(db)
        timed = commands(db, Path(tmp))
        chosen = [
            label for label in timed if not options.only or label.split()[0] in options.only.split(",") or label in options.only.split(",")
        ]
        bare = [bare_seconds() for _ in range(options.repeat)]
        figures: dict[str, dict[str, float | int | None]] = {
            "python -c 'import typer'": {"wall_s": round(statistics.median(bare), 3), "ratio": 1.0}
        }
        for label in chosen:
            walls, cpus = zip(*(wall_seconds(timed[label], run) for run in range(options.repeat)), strict=True)
            bare.append(bare_seconds())  # interleaved: the floor follows the machine's load through the run
            imports, modules = import_seconds(timed[label])
            wall = statistics.median(walls)
            figures[label] = {
                "wall_s": round(wall, 3),
                "cpu_s": round(statistics.median(cpus), 3),
                "target_s": TARGETS.get(label),
                "imports_s": round(imports, 3),
                "modules": modules,
            }
        floor = statistics.median(bare)
        figures["python -c 'import typer'"]["wall_s"] = round(floor, 3)
        for row in figures.values():
            row["ratio"] = round(float(row["wall_s"] or 0) / floor, 2)
    if options.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"{'command':<28} {'wall (median)':>14} {'ratio':>6} {'cpu':>7} {'target':>7} {'imports':>9} {'modules':>8}")
    for label, row in figures.items():
        target = f"{row['target_s']:.1f}s" if row.get("target_s") else ""
        imports = f"{row['imports_s']:.2f}s" if "imports_s" in row else ""
        cpu_shown = f"{row['cpu_s']:.2f}s" if "cpu_s" in row else ""
        print(
            f"{label:<28} {row['wall_s']:>13.2f}s {row['ratio']:>6.1f} {cpu_shown:>7} {target:>7} {imports:>9} {row.get('modules', ''):>8}"
        )


if __name__ == "__main__":
    main()
