"""Audits (table 6): export judgments (whole sessions, stratified by model), import verdicts, majority vote, clear errors."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from proactive_bench.review import disagreement
from proactive_bench.review.audits import sample_sessions
from proactive_bench.store import Grade, Store
from proactive_bench.testing.stub_server import (
    Reply,
    StubServer,
    prompt_text,
    structured_reply,
)
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI
from tests.helpers.stub_models import FakeUserModel


def _episode(tmp_path: Path) -> tuple[Path, str]:
    db = tmp_path / "r.db"
    result = run_cli("episode", "--json", "--data", str(MINI), "--persona", "mini", "--model", "scripted:asker", "--db", str(db))
    assert result.exit_code == 0, result.output
    run_id = json.loads(result.stdout)["run_id"]
    store = Store(db)
    first = store.session_runs(run_id)[0]
    store.add(Grade(session_run_id=first.id, item_id="c9", grader="rubric", weight=1.0, score=1, rationale="the summary names the units"))
    return db, run_id


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def _write(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_export_import_and_disagreement_in_results_and_report(tmp_path: Path) -> None:
    db, run_id = _episode(tmp_path)
    out = tmp_path / "audit.csv"
    assert run_cli("audit", "export", run_id, "--db", str(db), "--out", str(out)).exit_code == 0
    rows = _rows(out)
    kinds = {r["kind"] for r in rows}
    assert kinds == {"checklist", "intent"} and all(r["audited"] == "" for r in rows)
    intents = [r for r in rows if r["kind"] == "intent"]
    assert all(r["judged"] == "inferred" and r["text"] for r in intents)  # the asker asked about every intent
    for row in intents:
        row["audited"] = row["judged"]
    intents[0]["audited"] = "provided"  # one disagreement
    checklist = next(r for r in rows if r["kind"] == "checklist")
    checklist["audited"] = "yes"
    _write(out, rows)
    stored = run_cli("audit", "import", str(out), "--source", "human:ana", "--db", str(db))
    assert stored.exit_code == 0 and f"{len(intents) + 1} verdict(s) stored" in stored.output
    assert run_cli("audit", "import", str(out), "--source", "human:ana", "--db", str(db)).exit_code == 0  # replaces, no duplicates
    shown = run_cli("audit", "show", run_id, "--db", str(db))
    assert "human:ana" in shown.output and f"{100 / len(intents):.1f} (n={len(intents)})" in shown.output and "0.0 (n=1)" in shown.output
    report = tmp_path / "report.html"
    assert run_cli("report", run_id, "--db", str(db), "--out", str(report)).exit_code == 0
    html = report.read_text()
    assert "human:ana" in html and "No audits recorded" not in html


def test_sample_is_seeded_and_bad_files_name_row_and_field(tmp_path: Path) -> None:
    db, run_id = _episode(tmp_path)
    one, two = tmp_path / "one.csv", tmp_path / "two.csv"
    for path in (one, two):
        assert run_cli("audit", "export", run_id, "--db", str(db), "--out", str(path), "--sample", "2", "--seed", "7").exit_code == 0
    assert _rows(one) == _rows(two) and len({r["session_run_id"] for r in _rows(one)}) == 2  # --sample counts sessions
    rows = _rows(one)
    rows[0]["audited"] = "maybe"
    _write(one, rows)
    bad = run_cli("audit", "import", str(one), "--source", "human:ana", "--db", str(db))
    assert bad.exit_code == 2 and f"{one}: row 2: audited: 'maybe' is not one of" in bad.output and "Traceback" not in bad.output
    rows[0]["audited"], rows[0]["judged"] = "1" if rows[0]["kind"] == "checklist" else "completed", "nonsense"
    _write(one, rows)
    stale = run_cli("audit", "import", str(one), "--source", "human:ana", "--db", str(db))
    assert stale.exit_code == 2 and "row 2: no " in stale.output
    shown = run_cli("audit", "show", run_id, "--db", str(db))
    assert "no audits recorded" in shown.output  # a bad file stores nothing


class Auditor(FakeUserModel):
    """The stub judge, plus an intent auditor that disputes the status of the intent about the mean."""

    def __call__(self, body: dict[str, Any]) -> Reply:
        prompt = prompt_text(body)
        if "auditing how a simulated user labelled" in prompt:
            intent = prompt.split("## Hidden requirement", 1)[1].split("##", 1)[0].lower()
            return structured_reply(body, {"rationale": "turn 1", "status": "provided" if "mean" in intent else "completed"})
        return super().__call__(body)


def test_a_model_audits_rubric_grades_and_intent_statuses(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    with StubServer(Auditor()) as server:
        first = run_cli(
            "episode",
            "--json",
            "--data",
            str(MINI),
            "--persona",
            "mini",
            "--model",
            "scripted:reference",
            "--db",
            str(db),
            "--judge-model",
            "openai:stub-judge",
            "--base-url",
            server.base_url,
        )
        recorded = json.loads(first.stdout)
        audited = run_cli(
            "audit", "model", recorded["run_id"], "--model", "openai:stub-auditor", "--base-url", server.base_url, "--db", str(db)
        )
    intents = sum(s["intents"] for s in recorded["sessions"])
    assert audited.exit_code == 0 and f"{1 + intents} verdict(s) stored from model:openai:stub-auditor" in audited.output
    shown = run_cli("audit", "show", recorded["run_id"], "--db", str(db))
    assert "model:openai:stub-auditor" in shown.output and "0.0 (n=1)" in shown.output
    assert f"{100 / intents:.1f} (n={intents})" in shown.output  # the disputed intent


def _sweep(tmp_path: Path) -> tuple[Path, str]:
    """Two scripted models, three sessions each, rules user: every session has intent statuses."""
    db = tmp_path / "s.db"
    result = run_cli("sweep", "--data", str(MINI), "--models", "scripted:asker,scripted:passive", "--db", str(db))
    assert result.exit_code == 0, result.output
    return db, result.output.split("sweep ", 1)[1].split(":", 1)[0]


def test_sample_takes_whole_sessions_in_equal_shares_per_model(tmp_path: Path) -> None:
    db, sweep_id = _sweep(tmp_path)
    full = tmp_path / "full.csv"
    assert run_cli("audit", "export", sweep_id, "--db", str(db), "--out", str(full)).exit_code == 0
    every = _rows(full)
    sessions = {r["session_run_id"]: r["model"] for r in every}
    assert sorted(sessions.values()) == ["scripted:asker"] * 3 + ["scripted:passive"] * 3
    for count, asker, passive in ((4, 2, 2), (5, 3, 2), (2, 1, 1), (50, 3, 3)):
        out = tmp_path / f"s{count}.csv"
        assert (
            run_cli("audit", "export", sweep_id, "--db", str(db), "--out", str(out), "--sample", str(count), "--seed", "3").exit_code == 0
        )
        rows = _rows(out)
        kept = {r["session_run_id"] for r in rows}
        models = [sessions[sid] for sid in kept]
        assert (models.count("scripted:asker"), models.count("scripted:passive")) == (asker, passive)
        assert rows == [r for r in every if r["session_run_id"] in kept]  # every judgment of a sampled session, none other
    again = tmp_path / "again.csv"
    assert run_cli("audit", "export", sweep_id, "--db", str(db), "--out", str(again), "--sample", "4", "--seed", "3").exit_code == 0
    assert _rows(again) == _rows(tmp_path / "s4.csv")


def test_stratification_gives_a_short_model_s_share_to_the_others() -> None:
    models = {1: "b", 2: "a", 3: "a", 4: "a", 5: "a", 6: "a", 7: "c", 8: "c"}
    picked = sample_sessions(models, 5, seed=1)
    assert sorted(models[s] for s in picked) == ["a", "a", "b", "c", "c"] and len(set(picked)) == 5
    assert picked == sample_sessions(models, 5, seed=1)
    assert sorted(sample_sessions(models, 99, seed=1)) == sorted(models) and sample_sessions({}, 3, seed=0) == []


def test_human_sources_are_combined_by_majority_vote_and_model_sources_kept_apart(tmp_path: Path) -> None:
    db, run_id = _episode(tmp_path)
    out = tmp_path / "audit.csv"
    assert run_cli("audit", "export", run_id, "--db", str(db), "--out", str(out)).exit_code == 0
    rows = _rows(out)
    check = next(r for r in rows if r["kind"] == "checklist" and r["item_id"] == "c9")  # judged 1
    intents = [r for r in rows if r["kind"] == "intent"]  # all judged inferred
    assert len(intents) >= 3
    verdicts = {  # per source: checklist c9, intents 0, 1, 2 ('' = not audited)
        "human:ana": ("0", "provided", "inferred", "provided"),  # c9 2-1 for 0, intent 0 2-1 for provided, intent 2 1-1
        "human:ben": ("0", "provided", "inferred", "inferred"),
        "human:cy": ("1", "inferred", "provided", ""),
        "model:judge-b": ("1", "provided", "provided", "provided"),
    }
    for source, (c9, *statuses) in verdicts.items():
        for row in rows:
            row["audited"] = ""
        check["audited"] = c9
        for row, status in zip(intents, statuses, strict=False):  # the first three intents
            row["audited"] = status
        _write(out, rows)
        assert run_cli("audit", "import", str(out), "--source", source, "--db", str(db)).exit_code == 0
    store = Store(db)
    humans, model = disagreement(store, store.runs_for(run_id))
    assert humans.source == "majority of 3 humans (human:ana, human:ben, human:cy)"
    assert (humans.checklist_n, humans.checklist_disagree, humans.checklist_ties) == (1, 1, 0)
    assert (humans.intents_n, humans.intents_disagree, humans.intents_ties) == (2, 1, 1)  # intent 2 tied: no verdict
    assert (model.source, model.checklist_n, model.checklist_disagree, model.intents_n, model.intents_disagree) == (
        "model:judge-b",
        1,
        0,
        3,
        3,
    )
    shown = run_cli("audit", "show", run_id, "--db", str(db))
    assert shown.exit_code == 0 and "1 tie(s)" in shown.output and "50.0 (n=2)" in shown.output and "100.0 (n=3)" in shown.output
