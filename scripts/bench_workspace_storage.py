"""What a crowded workspace costs the results database, per session.

Copies the test suite's mini dataset (3 sessions), puts ``--files`` small
files into its workspace seed, runs the scripted reference agent on it with
``pbench episode`` and prints the database size (main file plus WAL), the
bytes of checkpoint data (manifests and file contents, compressed) and of workspace
snapshots, what sessions 2 and 3 added (their snapshots and checkpoint
manifests or archives), and the same for a run of the untouched mini dataset, so the
difference is what the files cost. Also times the run.

    python scripts/bench_workspace_storage.py [--files 20000]
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import tempfile
from pathlib import Path

from bench_results_size import timed_command

MINI = Path(__file__).resolve().parent.parent / "tests" / "data" / "mini"


def measure(data: Path, db: Path) -> dict[str, float]:
    seconds = timed_command(db, "episode", "--data", str(data), "--persona", "mini", "--model", "scripted:reference")
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        archives = conn.execute("SELECT COALESCE(SUM(LENGTH(data)), 0), COUNT(*) FROM workspacearchive").fetchone()
        snapshots = [n for (n,) in conn.execute("SELECT LENGTH(content) FROM snapshot WHERE kind = 'workspace' ORDER BY id")]
        checkpoints = [
            n
            for (n,) in conn.execute(
                "SELECT LENGTH(a.data) FROM checkpoint c JOIN workspacearchive a ON a.sha256 = c.sha256 WHERE c.position > 1 ORDER BY c.position"
            )
        ]
    size = sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))
    return {
        "db": size,
        "archive_bytes": archives[0],
        "archive_rows": archives[1],
        "snapshot_bytes": sum(snapshots),
        "later_bytes": sum(snapshots[1:]) + sum(checkpoints),
        "seconds": seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pbench-storage-") as scratch:
        root = Path(scratch)
        plain = measure(MINI, root / "plain.db")
        crowded = root / "mini"
        shutil.copytree(MINI, crowded)
        seed = crowded / "episodes" / "mini" / "workspace" / "many"
        for n in range(args.files):
            folder = seed / f"{n // 1000:02d}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{n:05d}.txt").write_text(f"small file number {n}\n")
        full = measure(crowded, root / "crowded.db")
    print(f"3-session mini episode, scripted:reference, {args.files:,} extra small files in the workspace seed")
    print(f"{'':24}{'plain':>14}{'crowded':>14}")
    for key, label in [
        ("db", "database bytes"),
        ("archive_bytes", "checkpoint bytes"),
        ("archive_rows", "checkpoint rows"),
        ("snapshot_bytes", "snapshot bytes"),
        ("later_bytes", "sessions 2-3 bytes"),
        ("seconds", "run seconds"),
    ]:
        print(f"{label:24}{plain[key]:>14,.1f}{full[key]:>14,.1f}" if key == "seconds" else f"{label:24}{plain[key]:>14,}{full[key]:>14,}")
    print(f"extra database bytes per extra file: {(full['db'] - plain['db']) / max(args.files, 1):.0f}")


if __name__ == "__main__":
    main()
