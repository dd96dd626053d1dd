"""``pbench export --table intents``: one row per (run, session, intent) as CSV and Parquet, and docs/reports.md's
pandas example rebuilding table 1 from it exactly as ``pbench results`` prints it."""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from proactive_bench.review import INTENT_COLUMNS
from proactive_bench.store import Store
from tests.helpers.cli import run_cli
from tests.helpers.paths import REPO
from tests.helpers.stored_runs import Played, StoredRuns

DEPENDS_ON = {"b": ["a"]}
ALL = {"a": Played("CP", "pp"), "b": Played("C", "pf"), "c": Played("P", "f"), "d": Played("", "p")}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two models, two personas, three repeats of one and two of the other; an errored session, an unlabelled intent,
    a session without intents, an ablation arm and a partial run."""
    path = tmp_path_factory.mktemp("table") / "r.db"
    runs = StoredRuns(Store(path), DEPENDS_ON)
    runs.sweep("s")
    for r in range(3):
        runs.run("alpha", {**ALL, "c": Played("PC"[r % 2], "fp"[r % 2])}, persona="north", sweep_id="s")
        south = {"a": Played("C-", "p"), "b": Played("CC", "pp"), "c": Played("I", ["p", "pf", "ff"][r])}
        runs.run("alpha", south, persona="south", sweep_id="s")
    for r in range(2):
        runs.run("beta", {**ALL, "b": Played("P", "pp", "error" if r else "completed")}, persona="north", sweep_id="s")
        runs.run("beta", {"a": Played("PP", "f"), "b": Played("C", "p"), "c": Played("CI", "pp")}, persona="south", sweep_id="s")
    runs.run("beta", {"b": Played("C", "p"), "c": Played("P", "p")}, persona="north", sweep_id="s", ablation="no-dependency-history")
    runs.run("beta", {"a": Played("CC", "pp")}, persona="north", sweep_id="s", status="stopped")  # partial: left out
    return path


def test_one_row_per_intent_with_the_sessions_figures(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    result = run_cli("export", "s", "--table", "intents", "--format", "csv", "-o", str(out), "--db", str(db))
    assert result.exit_code == 0, result.output
    with out.open() as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == INTENT_COLUMNS
    first = [r for r in rows if r["model"] == "alpha" and r["persona"] == "north"][:5]
    # run 1 of alpha/north: a has two intents (C, P), b one, c one, d none
    assert [(r["session_id"], r["intent_id"], r["label"]) for r in first] == [
        ("a", "a.i0", "completed"),
        ("a", "a.i1", "provided"),
        ("b", "b.i0", "completed"),
        ("c", "c.i0", "provided"),
        ("d", "", ""),
    ]
    b = first[2]  # b pools a's intents (depends on it) and weighs 2: (1 + 1) / 3
    assert (float(b["task_proc"]), b["proc_weight"], float(b["comp"]), b["checklist_pass_ratio"], b["passed"]) == (
        2 / 3,
        "2",
        0.5,
        "0.5",
        "False",
    )
    assert first[0]["proc_weight"] == "0" and first[4]["task_proc"] == "" and first[4]["comp"] == "1.0"
    south = [r for r in rows if r["persona"] == "south" and r["session_id"] == "a"][:2]
    assert [(r["intent_id"], r["label"]) for r in south] == [("a.i0", "completed"), ("", "unresolved")]  # one intent never labelled
    errored = [r for r in rows if r["session_status"] == "error"]
    assert errored and all(r["label"] == "provided" and r["session_proc"] == "0.0" and r["comp"] == "0.0" for r in errored)
    assert {r["partial"] for r in rows if r["run_status"] == "stopped"} == {"True"}
    assert {r["ablation"] for r in rows} == {"none", "no-dependency-history"}
    runs = {r["run_id"] for r in rows}
    assert len(runs) == 12 and len(rows) == sum(1 for _ in rows)


def test_parquet_keeps_the_types_and_the_rows(db: Path, tmp_path: Path) -> None:
    csv_out, parquet_out = tmp_path / "t.csv", tmp_path / "t.parquet"
    assert run_cli("export", "s", "--format", "csv", "-o", str(csv_out), "--db", str(db)).exit_code == 0
    assert run_cli("export", "s", "--table", "intents", "--format", "parquet", "--out", str(parquet_out), "--db", str(db)).exit_code == 0
    table, text = pd.read_parquet(parquet_out), pd.read_csv(csv_out)
    assert list(table.columns) == list(INTENT_COLUMNS) and len(table) == len(text)
    assert table["proc_weight"].dtype == "int64" and table["passed"].dtype == bool and table["task_proc"].dtype == "float64"
    pd.testing.assert_series_equal(table["task_proc"], text["task_proc"])
    lines = run_cli("export", "s", "--table", "intents", "--format", "jsonl", "--db", str(db)).stdout.splitlines()
    assert len(lines) == len(table) and json.loads(lines[0])["run_id"] == table["run_id"][0]


def test_bad_export_options_say_what_to_do(db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cases = {
        ("--format", "parquet"): "--format parquet writes a file: give --out",
        ("--format", "xlsx"): "--format must be csv, parquet, jsonl, not 'xlsx'",
        ("--table", "sessions", "--format", "csv"): "--table sessions holds nested messages",
        ("--table", "turns"): "--table must be sessions or intents, not 'turns'",
    }
    for args, message in cases.items():
        result = run_cli("export", "s", *args, "--db", str(db))
        assert result.exit_code == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.output
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # pyarrow not installed: its import fails
    missing = run_cli("export", "s", "--format", "parquet", "-o", str(tmp_path / "x.parquet"), "--db", str(db))
    assert missing.exit_code == 2 and missing.stderr.strip() == "error: --format parquet needs pyarrow: pip install 'pbench[tables]'"


def docs_example() -> str:
    """The pandas block under the table-1 marker of docs/reports.md."""
    text = (REPO / "docs" / "reports.md").read_text()
    found = re.search(r"<!-- table-1-example:[^>]*-->\n```python\n(.*?)```", text, re.S)
    assert found, "docs/reports.md lost its table 1 example"
    return found.group(1)


def shown(mean: float | None, std: float | None) -> str:
    """A figure as table 1 prints it, from pandas' values (NaN: none)."""
    if mean is None or pd.isna(mean):
        return "—"
    return f"{100 * mean:.1f} ± " + ("n/a" if std is None or pd.isna(std) else f"{100 * std:.1f}")


def test_the_docs_pandas_example_rebuilds_table_1(db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert run_cli("export", "s", "--format", "parquet", "-o", "intents.parquet", "--db", str(db)).exit_code == 0
    scope: dict[str, Any] = {}
    exec(compile(docs_example(), "docs/reports.md", "exec"), scope)  # the documented example, run as written
    per_persona, average = scope["per_persona"], scope["average"]
    summary = json.loads(run_cli("results", "s", "--json", "--db", str(db)).stdout)
    table = run_cli("results", "s", "--db", str(db)).stdout
    assert summary["overall"] and len(summary["overall"]) == 3  # alpha/none, beta/none, beta/no-dependency-history
    for row in summary["overall"]:
        arm = (row["model"], row["ablation"])
        for persona, cell in row["personas"].items():
            for figure in ("proc", "comp"):
                got = per_persona.loc[(*arm, persona), figure]
                assert got["mean"] == pytest.approx(cell[figure]["mean"]), (arm, persona, figure)
                assert (pd.isna(got["std"]) and cell[figure]["std"] is None) or got["std"] == pytest.approx(cell[figure]["std"])
            text = f"{shown(*per_persona.loc[(*arm, persona), 'proc'])} / {shown(*per_persona.loc[(*arm, persona), 'comp'])}"
            assert text in table, text
        for figure in ("proc", "comp"):
            got = average.loc[arm, figure]
            want = row["average"][figure]
            assert got["mean"] == pytest.approx(want["mean"]) and (pd.isna(got["std"]) == (want["std"] is None)), (arm, figure)
            assert want["std"] is None or got["std"] == pytest.approx(want["std"])
        assert f"{shown(*average.loc[arm, 'proc'])} / {shown(*average.loc[arm, 'comp'])}" in table
