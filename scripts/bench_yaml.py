"""How much faster pbench reads YAML on libyaml than on the pure-Python loader.

pbench reads every YAML file through ``yaml_files.UniqueKeyLoader`` (a safe
loader refusing duplicate keys). It is based on ``yaml.CSafeLoader`` where
PyYAML has libyaml; this script times the same work with that loader and with
the same duplicate-key check on the pure-Python ``yaml.SafeLoader``, alternating
the two in one run, and prints medians and their ratio:

1. episodes: loading every persona episode of pbench_data (``load_episode``:
   YAML, then validation);
2. files: parsing every ``*.yaml`` under pbench_data (YAML alone);
3. listing: what ``pbench runs`` does after start-up (``run_rows``) on a
   results database of ``--runs`` finished runs of a scripted sweep over the
   personas (made first, with ``pbench sweep``; or ``--db`` to reuse one);
4. command: a whole ``pbench runs --db …`` in a fresh interpreter (start-up
   included, which is most of it).

    python scripts/bench_yaml.py [--runs 10] [--repeat 5] [--db results.db]
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from proactive_bench import yaml_files
from proactive_bench.dataset.loading import DEFAULT_DATA_ROOT, load_episode, persona_names
from proactive_bench.reporting import run_rows
from proactive_bench.store import ListFilter, Store

LOADERS = ("pure", "libyaml")
RUNS_COMMAND = """
import sys, yaml
from proactive_bench import yaml_files
if sys.argv[1] == "pure":
    yaml_files.UniqueKeyLoader = type("PureUniqueKeyLoader", (yaml_files.RefusesDuplicateKeys, yaml.SafeLoader), {})
from proactive_bench.cli import app
app(["runs", "--limit", "1000", "--db", sys.argv[2]])
"""
"""``pbench runs`` as its entry point runs it, with the loader named by the first argument."""


FAST = yaml_files.UniqueKeyLoader
"""The loader pbench reads with: the duplicate-key check on libyaml."""


class PureUniqueKeyLoader(yaml_files.RefusesDuplicateKeys, yaml.SafeLoader):
    """The duplicate-key check on the pure-Python loader: what pbench read YAML with before."""


def use_loader(name: str) -> None:
    """Make ``parse_yaml`` (and so every reader of pbench) parse with the named loader."""
    yaml_files.UniqueKeyLoader = PureUniqueKeyLoader if name == "pure" else FAST  # type: ignore[misc]


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def make_store(db: Path, runs: int) -> None:
    """A results database of about ``runs`` finished scripted runs spread over the personas."""
    personas = persona_names(DEFAULT_DATA_ROOT)
    repeats = math.ceil(runs / len(personas))
    sweep = ["sweep", "--json", "--models", "scripted:passive", "--personas", ",".join(personas), "--runs", str(repeats), "--db", str(db)]
    command = [sys.executable, "-c", f"from proactive_bench.cli import app; app({sweep!r})"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)  # our own CLI
    if done.returncode not in (0, 1):
        sys.exit(f"pbench sweep failed: {done.stderr.strip().splitlines()[-1:]}")


def runs_command(loader: str, db: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUNS_COMMAND, loader, str(db)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"pbench runs failed: {done.stderr.strip()}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="Runs in the results database made for the listing.")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--db", type=Path, help="List this results database instead of making one.")
    args = parser.parse_args()
    if yaml_files.FASTEST_SAFE_LOADER is yaml.SafeLoader:
        sys.exit("PyYAML has no libyaml here: both loaders are the pure-Python one")
    personas = persona_names(DEFAULT_DATA_ROOT)
    files = sorted(DEFAULT_DATA_ROOT.rglob("*.yaml"))
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "runs.db"
        if args.db is None:
            print(f"making a database of {args.runs} runs ...", flush=True)
            make_store(db, args.runs)
        store = Store(db)
        listed = store.find_runs(ListFilter(None, None, None, None, 1000))
        work: dict[str, Callable[[], object]] = {
            "episodes": lambda: [load_episode(DEFAULT_DATA_ROOT, name) for name in personas],
            "files": lambda: [yaml_files.read_yaml_file(path) for path in files],
            "listing": lambda: run_rows(store, listed),
        }
        seconds: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.repeat):
            for loader in LOADERS:
                use_loader(loader)
                for what, job in work.items():
                    seconds.setdefault((what, loader), []).append(timed(job))
                seconds.setdefault(("command", loader), []).append(runs_command(loader, db))
        use_loader("libyaml")
        store.close_connections()
    print(
        f"{len(personas)} episodes, {len(files)} YAML files under {DEFAULT_DATA_ROOT.name}, {len(listed)} runs listed; "
        f"medians of {args.repeat}"
    )
    print(f"{'what':<10}{'pure s':>10}{'libyaml s':>12}{'pure/libyaml':>14}")
    for what in (*work, "command"):
        pure, fast = (statistics.median(seconds[what, loader]) for loader in LOADERS)
        print(f"{what:<10}{pure:>10.3f}{fast:>12.3f}{pure / fast:>13.1f}x")


if __name__ == "__main__":
    main()
