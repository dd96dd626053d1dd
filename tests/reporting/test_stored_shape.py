"""Reports read the episode's shape (which sessions depend on which, their categories) from the run's settings.

A run keeps them when it starts, so ``pbench runs`` and ``pbench results`` need neither the dataset nor the
suite that loads it; a run stored before they were kept still reports from its dataset.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from proactive_bench.reporting import summarize
from proactive_bench.store import ListFilter, Run, Store
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI


def recorded(tmp_path: Path) -> tuple[Path, Store, Run]:
    """A scripted run of a copy of the mini episode (the dataset may then be removed)."""
    data, db = tmp_path / "mini", tmp_path / "p.db"
    shutil.copytree(MINI, data)
    done = run_cli("episode", "--data", str(data), "--persona", "mini", "--model", "scripted:reference", "--db", str(db))
    assert done.exit_code in (0, 1), done.output
    store = Store(db)
    (run,) = store.find_runs(ListFilter())
    return data, store, run


def figures(store: Store, run: Run) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    summary = summarize(store, [run], include_partial=True)
    return summary.categories, [{k: row[k] for k in ("proc", "comp", "sessions_planned")} for row in summary.runs]


def test_a_run_reports_the_same_without_its_dataset(tmp_path: Path) -> None:
    data, store, run = recorded(tmp_path)
    assert run.config["depends_on"] and set(run.config["categories"]) >= set(run.config["sessions"])
    with_data = figures(store, run)
    assert {row["category"] for row in with_data[0]} != {"unavailable"}, "the mini episode's sessions have categories"
    shutil.rmtree(data)
    assert figures(store, run) == with_data


def test_a_run_stored_before_the_shape_was_kept_reads_it_from_its_dataset(tmp_path: Path) -> None:
    data, store, run = recorded(tmp_path)
    with_data = figures(store, run)
    store.update(run, config={k: v for k, v in run.config.items() if k not in ("depends_on", "categories")})
    assert figures(store, store.run(run.id) or run) == with_data  # the dataset is still there: loaded by its suite
    shutil.rmtree(data)
    categories, _ = figures(store, store.run(run.id) or run)
    assert {row["category"] for row in categories} == {"unavailable"}  # gone: no categories to read, and none invented
