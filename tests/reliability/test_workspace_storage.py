"""What a crowded workspace costs the database, and that delta snapshots and checkpoints still give exact diffs and resumes."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from proactive_bench.episode.checkpoints import opened_checkpoint
from proactive_bench.reporting.html.sources import EpisodeCatalog
from proactive_bench.reporting.html.trajectory import session_views
from proactive_bench.store import Store
from tests.helpers.cli import run_episode_json
from tests.helpers.paths import MINI

FILES = 2_000


def crowded_dataset(tmp_path: Path) -> Path:
    data = tmp_path / "mini"
    shutil.copytree(MINI, data)
    for n in range(FILES):
        path = data / "episodes" / "mini" / "workspace" / "many" / f"{n // 500}" / f"{n:05d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"small file number {n}\n")
    return data


def test_unchanged_files_cost_no_new_bytes_per_session(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    out = run_episode_json("--data", str(crowded_dataset(tmp_path)), "--persona", "mini", "--model", "scripted:reference", "--db", str(db))
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (archive_bytes,) = conn.execute("SELECT SUM(LENGTH(data)) FROM workspacearchive").fetchone()
        snapshots = [n for (n,) in conn.execute("SELECT LENGTH(content) FROM snapshot WHERE kind = 'workspace' ORDER BY id")]
    # each of the 2,000 files once (about 25 bytes each) plus a full manifest at the start: as one tar of
    # the start and of each of the 3 sessions, that was more than 2,000 x 1,024 x 4 = 8 MB
    assert archive_bytes < 200_000
    assert snapshots[0] > 20 * FILES and all(n < 1_000 for n in snapshots[1:])  # compressed; later sessions: deltas
    store = Store(db)
    run = store.run(out["run_id"])
    assert run is not None
    views = session_views(store, run, EpisodeCatalog())
    changed = [[d.path for d in view.diff or []] for view in views]
    assert changed == [["out/summary.md"], ["out/weekly.md"], ["notes/prefs.md"]]
    with opened_checkpoint(store, run, 3) as last:
        assert last is not None and len(last.files()) == FILES + 4 and last.read_text("out/weekly.md").startswith("# Weekly note")
