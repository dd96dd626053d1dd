"""Audits (table 6): export judgments, import verdicts, disagreement rates, clear errors."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from conftest import MINI, run_cli
from test_llm_user import FakeUserModel

from proactive_bench.store import Grade, Store
from proactive_bench.stub_server import Reply, StubServer, prompt_text, structured_reply


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
    assert _rows(one) == _rows(two) and len(_rows(one)) == 2
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
            "episode", "--json", "--data", str(MINI), "--persona", "mini", "--model", "scripted:reference", "--db", str(db),
            "--judge-model", "openai:stub-judge", "--base-url", server.base_url,
        )
        recorded = json.loads(first.stdout)
        audited = run_cli("audit", "model", recorded["run_id"], "--model", "openai:stub-auditor", "--base-url", server.base_url, "--db", str(db))
    intents = sum(s["intents"] for s in recorded["sessions"])
    assert audited.exit_code == 0 and f"{1 + intents} verdict(s) stored from model:openai:stub-auditor" in audited.output
    shown = run_cli("audit", "show", recorded["run_id"], "--db", str(db))
    assert "model:openai:stub-auditor" in shown.output and "0.0 (n=1)" in shown.output
    assert f"{100 / intents:.1f} (n={intents})" in shown.output  # the disputed intent
