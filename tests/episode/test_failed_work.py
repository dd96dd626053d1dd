"""Failed work counts (issue 24): errored sessions score 0, failures are shown, partial runs are left out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from proactive_bench.reporting.html import render_comparison, render_report
from proactive_bench.store import Store
from tests.helpers.cli import run_cli
from tests.helpers.crashing_agent import CRASHING
from tests.helpers.paths import MINI, REPO

CRASHER = "test:crashing-reference"  # tests/helpers/crashing_agent.py, granted the reference solution in conftest


@pytest.mark.usefixtures("admitted_pharmacist")  # the subject is the crashes, not the data's checks
def test_a_reference_agent_crashing_on_two_of_twenty_pharmacist_sessions_loses_them(tmp_path: Path) -> None:
    result = run_cli("episode", "--json", "--persona", "pharmacist", "--model", CRASHER, "--db", str(tmp_path / "r.db"))
    assert result.exit_code == 1  # a session errored
    out = json.loads(result.stdout)
    assert out["failures"] == {"error": 2, "truncated": 0, "not_run": 0}
    crashed = {s["session_id"] for s in out["sessions"] if s["status"] == "error"}
    assert crashed == CRASHING & {s["session_id"] for s in out["sessions"]}
    assert out["proc"] < 1.0 and out["comp"] < 1.0
    # docs/metrics.md by hand: scored tasks are the ones nothing depends on, weighted by trajectory size
    entries = yaml.safe_load((REPO / "pbench_data" / "episodes" / "pharmacist" / "episode.yaml").read_text())["sessions"]
    deps = {e["id"]: e["depends_on"] for e in entries}
    intents = {s["session_id"]: s["intents"] for s in out["sessions"]}

    def closure(sid: str) -> set[str]:
        return {sid}.union(*(closure(d) for d in deps[sid]))

    finals = [sid for sid in deps if not any(sid in closure(o) - {o} for o in deps)]
    proc = [
        (sum(intents[s] for s in closure(t) if s not in crashed) / sum(intents[s] for s in closure(t)), len(closure(t))) for t in finals
    ]
    assert out["proc"] == pytest.approx(sum(p * w for p, w in proc) / sum(w for _, w in proc))
    comps = [s["comp"] for s in out["sessions"] if s["comp"] is not None]
    assert len(comps) == 20 and out["comp"] == pytest.approx(18 / 20)
    assert next(s for s in out["sessions"] if s["session_id"] in crashed)["comp"] == 0.0


def test_failures_are_marked_in_the_table_and_the_report(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    out = json.loads(run_cli("episode", "--json", "--data", str(MINI), "--persona", "mini", "--model", CRASHER, "--db", str(db)).stdout)
    table = run_cli("results", out["run_id"], "--db", str(db))
    assert table.exit_code == 0, table.output
    assert "†" in table.stdout and "1/0/0" in table.stdout  # errored/truncated/not run beside the figure
    summary = json.loads(run_cli("results", out["run_id"], "--db", str(db), "--format", "json").stdout)
    assert summary["main"][0]["failures"] == {"error": 1, "truncated": 0, "not_run": 0}
    html = render_report(Store(db), out["run_id"]).pages()["index.html"]
    assert "†" in html and "err/trunc/not run" in html


def test_a_run_stopped_early_is_partial_and_left_out_unless_asked(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    out = json.loads(
        run_cli("episode", "--json", "--data", str(MINI), "--persona", "mini", "--model", "scripted:passive", "--db", str(db)).stdout
    )
    store = Store(db)
    run = store.run(out["run_id"])
    assert run is not None
    last = store.session_runs(run.id)[-1]
    store.delete_session_run(last)  # as if the process was killed during the last session
    store.update(run, status="running")
    summary = json.loads(run_cli("results", run.id, "--db", str(db), "--format", "json").stdout)
    assert summary["runs"][0]["partial"] is True and summary["runs"][0]["failures"]["not_run"] == 1
    assert summary["main"][0]["runs"] == 0 and summary["main"][0]["partial_runs_left_out"] == 1
    assert summary["main"][0]["proc"]["mean"] is None
    counted = json.loads(run_cli("results", run.id, "--db", str(db), "--format", "json", "--include-partial").stdout)
    assert counted["main"][0]["runs"] == 1 and counted["main"][0]["failures"]["not_run"] == 1
    assert counted["main"][0]["proc"]["mean"] == 0.0
    table = run_cli("results", run.id, "--db", str(db))
    assert "partial" in table.stdout
    other = json.loads(
        run_cli("episode", "--json", "--data", str(MINI), "--persona", "mini", "--model", "scripted:passive", "--db", str(db)).stdout
    )
    compared = render_comparison(Store(db), run.id, other["run_id"])
    assert "a partial run: the difference compares unequal sets of sessions" in compared and "0/0/1" in compared
