"""AgentIF tasks run end to end: rules user, scripted baselines, a stub judge on loopback; results tables and the judge audit."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

from proactive_bench.store import Grade, MessageRow, Store
from proactive_bench.testing import StubServer, error_reply, prompt_text, structured_reply, text_reply
from proactive_bench.testing.stub_server import prompt_section
from tests.helpers.cli import edit_yaml, run_cli
from tests.helpers.paths import AGENTIF_MINI

LATENT, WORKFLOW, REFINE = "aif_test_latent_invoice_codes", "aif_test_workflow_weekend_budget", "aif_test_refine_study_plan"


def block(files: str, path: str) -> str:
    """The text shown for one file (empty when it is missing)."""
    found = re.search(rf"--- file {re.escape(path)} ---\n(.*?)(?=\n--- |\Z)", files, re.DOTALL)
    return found.group(1) if found else ""


CHECKS = {
    "Packing section": lambda files: bool(re.search(r"(?i)rain jackets", files)),
    "one row per March invoice": lambda files: len([ln for ln in block(files, "out/march_coded.csv").splitlines() if ln.strip()]) == 4,
    "all three subjects": lambda files: all(
        re.search(rf"(?m)^2025-06-\d\d: {s}$", block(files, "out/plan.md")) for s in ("Statistics", "Ecology", "Chemistry")
    ),
}


CLAIM = "Done: out/budget.md is written, total 285.00 EUR, and the Packing section lists rain jackets, boots and an umbrella."


class ReadingJudge:
    """A stub judge that decides each AgentIF rubric item from what it is shown: the files only, or (gullible) the whole prompt.

    Any other request (an agent's turn) gets ``CLAIM``: an agent that claims the work and does none of it.
    """

    def __init__(self, gullible: bool = False, contrary: bool = False) -> None:
        self.gullible = gullible
        self.contrary = contrary

    def __call__(self, body: dict[str, Any]) -> Any:
        prompt = prompt_text(body)
        if "grading an AI assistant" not in prompt:
            return text_reply(CLAIM) if body.get("tools") else error_reply(400, "not a judge prompt")
        item = prompt_section(prompt, "Checklist item")
        seen = (
            prompt if self.gullible else prompt.split("\n## Files\n", 1)[1].split("\n## Assistant memory", 1)[0]
        )  # files may hold ## headings
        check = next(c for key, c in CHECKS.items() if key in item)
        verdict = check(seen) != self.contrary
        return structured_reply(body, {"rationale": "read the evidence", "verdict": "YES" if verdict else "NO"})


def run_json(*args: str) -> dict:
    result = run_cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def judged(model: str, db: Path, server: StubServer, *extra: str) -> dict:
    return run_json(
        "episode",
        "--suite",
        "agentif",
        "--model",
        model,
        "--data",
        str(AGENTIF_MINI),
        "--db",
        str(db),
        "--judge-model",
        "openai:stub-judge",
        "--base-url",
        server.base_url,
        *extra,
    )


def test_reference_scores_one_stuffer_pays_penalties_claimer_and_passive_lose_points(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    with StubServer(ReadingJudge()) as server:
        reference = judged("scripted:reference", db, server)
        stuffer = judged("scripted:stuffer", db, server)
        claimer = judged("scripted:claimer", db, server)
        passive = judged("scripted:passive", db, server)
    (ref,) = reference["agentif"]["models"]
    assert ref["score"] == 1.0 and ref["workflow"] == ref["latent"] == ref["refinement"] == 1.0 and ref["unscored"] == 0
    assert ref["proc"] == 1.0  # the latent rule applied unasked: completed
    stuffed = {row["task"]: row for row in stuffer["agentif"]["tasks"]}
    assert all(row["penalty"] > 0 and row["bonus"] == 0 and row["score"] == 0.0 for row in stuffed.values())  # penalties, not bonuses
    assert claimer["agentif"]["models"][0]["score"] == 0.0
    latent = next(row for row in passive["agentif"]["tasks"] if row["task"] == LATENT)
    assert latent["proc"] == 0.0 and latent["score"] == 4 / 7  # the rule was provided: its 3-point bonus is withheld
    items = {row["item_category"]: row for row in passive["agentif"]["items"]}
    assert items["content"]["withheld"] == 1 and items["execution"]["bonus_share"] == 1.0


def test_refinement_followups_come_from_the_user_after_each_deliverable(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    with StubServer(ReadingJudge()) as server:
        reference = judged("scripted:reference", db, server, "--task", REFINE)
        surface = judged("scripted:surface", db, server, "--task", REFINE)
    store = Store(db)
    run_id = reference["runs"][0]["run_id"]
    (session_run,) = store.session_runs(run_id)
    assert session_run.id is not None
    users = [m.content for m in store.rows(MessageRow, session_run.id) if m.role == "user"]
    assert len(users) == 3 and users[1].startswith("Thanks. Keep Sunday") and users[2].startswith("Last thing")
    (row,) = surface["agentif"]["tasks"]
    assert row["user_turns"] == 1  # f1 was given, the surface agent ignored it, so f2 never came
    assert (row["bonus"], row["penalty"], row["score"]) == (3, 2, 1 / 6)  # and Sunday still holds a subject: p1


def test_results_table_csv_and_the_audit_per_polarity(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    with StubServer(ReadingJudge()) as server:
        sweep = run_cli(
            "sweep",
            "--suite",
            "agentif",
            "--models",
            "scripted:reference,scripted:stuffer",
            "--data",
            str(AGENTIF_MINI),
            "--db",
            str(db),
            "--judge-model",
            "openai:stub-judge",
            "--base-url",
            server.base_url,
        )
        assert sweep.exit_code == 0, sweep.output
        sweep_id = sweep.output.split("sweep ", 1)[1].split(":", 1)[0].split()[0]
        table = run_cli("results", sweep_id, "--db", str(db))
        assert "AgentIF score" in table.output and "AgentIF items by category" in table.output
        rows = list(csv.DictReader(io.StringIO(run_cli("results", sweep_id, "--db", str(db), "--format", "csv").stdout)))
        assert {r["model"] for r in rows} == {"scripted:reference", "scripted:stuffer"} and len(rows) == 6
        assert {r["score"] for r in rows if r["model"] == "scripted:reference"} == {"1.0"}
        assert {r["attachments"] for r in rows} == {"1", "2"}
        summary = json.loads(run_cli("results", sweep_id, "--db", str(db), "--format", "json").stdout)
        models = {m["model"]: m for m in summary["agentif"]["models"]}
        reference, stuffer = models["scripted:reference"], models["scripted:stuffer"]
        assert reference["with_attachments"] == 1.0 and reference["without_attachments"] is None  # every mini task has attachments
        assert reference["neg_const"] == 1.0 and stuffer["neg_const"] is not None and stuffer["neg_const"] < 1.0
        report = tmp_path / "report.html"
        assert run_cli("report", sweep_id, "--db", str(db), "--out", str(report)).exit_code == 0
        html = report.read_text()
        assert 'id="agentif"' in html and "By item category" in html and LATENT in html
        with StubServer(ReadingJudge(contrary=True)) as contrary:
            audited = run_cli(
                "audit", "model", sweep_id, "--model", "openai:stub-auditor", "--base-url", contrary.base_url, "--db", str(db)
            )
        assert audited.exit_code == 0, audited.output
    shown = run_cli("audit", "show", sweep_id, "--db", str(db))
    assert (
        "bonus agreement" in shown.output and "0.0 (n=6)" in shown.output
    )  # every rubric item here is a bonus; the auditor disagrees on all
    exported = tmp_path / "audit.csv"
    run_cli("audit", "export", sweep_id, "--out", str(exported), "--db", str(db))
    polarities = {row["polarity"] for row in csv.DictReader(exported.open()) if row["kind"] == "checklist"}
    assert polarities == {"bonus"}


def _claimer_grade(root: Path, db: Path) -> int | None:
    """The b4 grade a gullible judge gives an agent that only claims the packing list (the stub model as the agent)."""
    with StubServer(ReadingJudge(gullible=True)) as server:
        out = run_json(
            "episode",
            "--suite",
            "agentif",
            "--task",
            WORKFLOW,
            "--model",
            "openai:stub-agent",
            "--data",
            str(root),
            "--db",
            str(db),
            "--judge-model",
            "openai:stub-judge",
            "--base-url",
            server.base_url,
        )
    store = Store(db)
    (session_run,) = store.session_runs(out["runs"][0]["run_id"])
    assert session_run.id is not None
    assert any(CLAIM in m.content for m in store.rows(MessageRow, session_run.id))
    return next(g.score for g in store.rows(Grade, session_run.id) if g.item_id == "b4")


def test_a_reply_that_claims_everything_is_not_evidence_for_a_file_item(tmp_path: Path) -> None:
    """The gullible judge says YES when the words are anywhere in its prompt: on a content item it never sees the reply."""
    assert _claimer_grade(AGENTIF_MINI, tmp_path / "a.db") == 0
    root = tmp_path / "root"
    shutil.copytree(AGENTIF_MINI, root)
    edit_yaml(root / "agentif" / WORKFLOW / "task.yaml", lambda d: d["rubric"][3].update(category="execution"))
    assert _claimer_grade(root, tmp_path / "b.db") == 1  # the same judge, shown the conversation, is fooled
