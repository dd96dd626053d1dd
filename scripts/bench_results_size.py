"""What results cost on disk: a reference run and a sweep of reference runs, each in a fresh database.

Runs ``pbench episode --persona P --model scripted:reference`` and
``pbench sweep --models scripted:reference --personas P --runs N`` (in
process, offline), folds each database's WAL into its file, and prints the
bytes (file plus WAL), the pages each table and index takes (SQLite's
``dbstat``) and the time taken. Targets (issue 19): at most 1 MB for the
20-session pharmacist run, 2 MB for its 3-run sweep.

    python scripts/bench_results_size.py [--persona pharmacist] [--runs 3]
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from typer.testing import CliRunner

from proactive_bench.cli import app


def timed_command(db: Path, *args: str) -> float:
    """Run a pbench command into the results database ``db`` (in process; exits on failure); the seconds it took."""
    started = time.perf_counter()
    result = CliRunner().invoke(app, [*args, "--db", str(db)])
    if result.exit_code != 0:
        sys.exit(f"{args[0]} failed: {result.output[-2000:]}")
    return time.perf_counter() - started


def measure(db: Path, *args: str) -> tuple[int, list[tuple[str, int]], float]:
    """Run a pbench command into ``db``; its size on disk, the bytes per table or index (largest first), the seconds taken."""
    seconds = timed_command(db, *args)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        tables = conn.execute("SELECT name, SUM(pgsize) AS size FROM dbstat GROUP BY name ORDER BY size DESC").fetchall()
    return sum(p.stat().st_size for p in db.parent.glob(db.name + "*")), tables, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--persona", default="pharmacist")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pbench-size-") as scratch:
        root = Path(scratch)
        one = measure(root / "run" / "r.db", "episode", "--persona", args.persona, "--model", "scripted:reference")
        sweep = measure(
            root / "sweep" / "s.db", "sweep", "--models", "scripted:reference", "--personas", args.persona, "--runs", str(args.runs)
        )
    print(f"{'':34}{'reference run':>16}{f'{args.runs}-run sweep':>16}")
    print(f"{'database bytes (file + WAL)':34}{one[0]:>16,}{sweep[0]:>16,}")
    print(f"{'seconds':34}{one[2]:>16.1f}{sweep[2]:>16.1f}")
    in_sweep = dict(sweep[1])
    for name, size in one[1][:10]:
        print(f"  {name:32}{size:>16,}{in_sweep.get(name, 0):>16,}")


if __name__ == "__main__":
    main()
