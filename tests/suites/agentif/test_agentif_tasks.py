"""AgentIF tasks: the format's errors, validate's checks, the paper's score, the attachment generators, scripted follow-ups."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
import yaml

from proactive_bench.data_model import Evidence, Message
from proactive_bench.dataset import FollowUp, Session
from proactive_bench.env import Memory, Workspace
from proactive_bench.suites import SUITES, SuiteContext, read_agentif_task, score_task
from proactive_bench.suites.agentif.attachments import main as attachments_main
from proactive_bench.user import FollowUpUser, RulesUser, UserView
from tests.helpers.cli import edit_yaml, run_cli
from tests.helpers.paths import AGENTIF_MINI

LATENT = "aif_test_latent_invoice_codes"
WORKFLOW = "aif_test_workflow_weekend_budget"
REFINE = "aif_test_refine_study_plan"


@pytest.fixture
def agentif_copy(tmp_path: Path) -> Path:
    shutil.copytree(AGENTIF_MINI, tmp_path / "root")
    return tmp_path / "root"


def problems(root: Path, task: str) -> list[str]:
    return [str(p) for p in SUITES.get("agentif").problems(root, task)]


def test_the_three_test_tasks_load_clean_as_one_session_episodes_with_rules_and_followups() -> None:
    suite = SUITES.get("agentif")
    episodes, found = suite.load_all(AGENTIF_MINI)
    assert found == [] and set(episodes) == {LATENT, WORKFLOW, REFINE}
    latent = episodes[LATENT].sessions[0]
    assert [i.id for i in latent.intents] == ["r1"] and latent.intents[0].has_rules
    assert {c.id: c.weight for c in latent.checklist} == {"b1": 3.0, "b2": 2.0, "b3": 1.0, "b4": 1.0, "p1": 2.0}
    assert next(c for c in latent.checklist if c.id == "b4").evidence.dialogue is False  # a form item: files only
    refine = episodes[REFINE].sessions[0]
    assert [f.id for f in refine.followups] == ["f1", "f2"] and [s.followup for s in refine.reference].count("f1") == 2
    assert episodes[WORKFLOW].workspace_seed.joinpath("inbox/prices.csv").is_file()
    assert suite.group(AGENTIF_MINI, REFINE) == "refinement/study"


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        (lambda d: d.update(colour="red"), "colour", "unknown field"),
        (lambda d: d.update(rules=[]), "", "a latent task needs at least one rule"),
        (lambda d: d["rules"][0].update(source="inbox/nope.pdf"), "", "rules[0].source: 'inbox/nope.pdf' is not among the attachments"),
        (lambda d: d["rubric"][0].update(polarity="malus"), "rubric[0].polarity", "Input should be 'bonus' or 'penalty'"),
        (lambda d: d["rubric"][3]["evidence"].update(files=[]), "rubric[3]", "a claim in the reply is never evidence"),
        (lambda d: d["rubric"][0].update(rule="r9"), "", "rubric[0].rule: unknown rule 'r9'"),
        (
            lambda d: d.update(followups=[{"id": "f1", "text": "more", "after": {"file_exists": "x"}}]),
            "",
            "followups go with category refinement",
        ),
    ],
)
def test_format_errors_name_the_file_the_field_and_the_reason(agentif_copy: Path, change, field: str, reason: str) -> None:
    edit_yaml(agentif_copy / "agentif" / LATENT / "task.yaml", change)
    (found,) = SUITES.get("agentif").problems(agentif_copy, LATENT)
    assert found.file == f"agentif/{LATENT}/task.yaml" and found.field == field and reason in found.reason


def test_validate_finds_a_rule_that_cannot_be_induced_or_is_stated_and_a_missing_attachment(agentif_copy: Path) -> None:
    task = agentif_copy / "agentif" / LATENT
    edit_yaml(task / "task.yaml", lambda d: d["rules"][0].update(cue="ZZTOP"))
    assert any("'ZZTOP' matches nothing in inbox/january_ledger.xlsx" in p for p in problems(agentif_copy, LATENT))
    edit_yaml(
        task / "task.yaml", lambda d: (d["rules"][0].update(cue="OFFC"), d.update(request=d["request"] + " Use code OFFC for paper."))
    )
    assert any("matches the request: rule 'r1' is stated, not latent" in p for p in problems(agentif_copy, LATENT))
    (task / "workspace" / "inbox" / "march_invoices.pdf").unlink()
    (task / "make_attachments.py").unlink()
    found = problems(agentif_copy, LATENT)
    assert any("attachments[1]: 'inbox/march_invoices.pdf' is not in workspace/" in p for p in found)
    assert any("no make_attachments.py beside the task" in p for p in found)


def test_penalty_share_outside_the_band_is_a_warning(agentif_copy: Path) -> None:
    edit_yaml(agentif_copy / "agentif" / WORKFLOW / "task.yaml", lambda d: d["rubric"].__setitem__(slice(5, 7), []))
    (found,) = SUITES.get("agentif").problems(agentif_copy, WORKFLOW)
    assert found.level == "warning" and "penalty points are 0% of all points" in found.reason


def test_the_score_is_the_papers_clamped_normalised_net_and_withholds_bonuses_of_provided_rules() -> None:
    task, _ = read_agentif_task(AGENTIF_MINI, LATENT)
    assert task is not None and task.max_points == 7 and task.penalty_points == 2
    every = {"b1": "pass", "b2": "pass", "b3": "pass", "b4": "pass", "p1": "fail"}
    assert score_task(task, every).score == 1.0
    assert score_task(task, {**every, "p1": "pass"}).score == pytest.approx(5 / 7)  # (7 - 2) / 7
    clamped = score_task(task, {"b1": "fail", "b2": "fail", "b3": "pass", "b4": "fail", "p1": "pass"})
    assert (clamped.bonus, clamped.penalty, clamped.score) == (1, 2, 0.0)  # max(0, 1 - 2) / 7
    withheld = score_task(task, every, provided=["r1"])
    assert withheld.score == pytest.approx(4 / 7) and [i.id for i in withheld.items if i.withheld] == ["b1"]
    unjudged = score_task(task, {**every, "b4": "ungraded"})
    assert unjudged.score is None and unjudged.unscored == ["b4"]  # never guessed
    assert score_task(task, {}, errored=True).score == 0.0


def test_attachment_generators_are_deterministic_and_a_hand_edited_file_is_found(
    agentif_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert attachments_main(["--root", str(AGENTIF_MINI), "--check"]) == 0
    ledger = agentif_copy / "agentif" / LATENT / "workspace" / "inbox" / "january_ledger.xlsx"
    ledger.write_bytes(ledger.read_bytes() + b"\0")
    assert attachments_main(["--root", str(agentif_copy), "--check", "--task", LATENT]) == 1
    assert "january_ledger.xlsx: differs from what make_attachments.py writes" in capsys.readouterr().err
    assert attachments_main(["--root", str(agentif_copy), "--task", LATENT]) == 0  # regenerated in place
    assert attachments_main(["--root", str(agentif_copy), "--check", "--task", LATENT]) == 0


def _no_graders(ref: str):
    raise ImportError(f"no grader {ref}")


def _view(session: Session, workspace: Workspace, transcript: list[Message]) -> UserView:
    evidence = Evidence(transcript=transcript, tool_records=[], workspace=workspace, memory=Memory(), resolve_python=_no_graders)
    persona = SUITES.get("agentif").load(AGENTIF_MINI, REFINE, SuiteContext()).persona
    return UserView(persona=persona, session=session, open_intents=[], evidence=evidence, turn=len(transcript))


def _refine_session() -> Session:
    return SUITES.get("agentif").load(AGENTIF_MINI, REFINE, SuiteContext()).sessions[0]


def test_followups_are_released_in_order_once_their_condition_holds_and_never_twice(tmp_path: Path) -> None:
    session = _refine_session()
    user = FollowUpUser(RulesUser())
    workspace = Workspace(tmp_path)
    opening = [Message("user", session.trigger.message, 0), Message("agent", "Working on it.", 1)]
    assert asyncio.run(user.decide(_view(session, workspace, opening))).message is None  # no plan yet: the session ends
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "plan.md").write_text("2025-06-08: Ecology\n")
    first = asyncio.run(user.decide(_view(session, workspace, opening)))
    assert first.message == session.followups[0].text
    later = [*opening, Message("user", first.message, 1), Message("agent", "Done.", 2)]
    assert asyncio.run(user.decide(_view(session, workspace, later))).message is None  # f2 waits for Sunday free
    (tmp_path / "out" / "plan.md").write_text("2025-06-08: free\n")
    assert asyncio.run(user.decide(_view(session, workspace, later))).message == session.followups[1].text


def test_a_followup_condition_that_cannot_be_evaluated_is_an_error_not_a_guess(tmp_path: Path) -> None:
    broken = _refine_session().model_copy(
        update={"followups": [FollowUp.model_validate({"id": "f1", "text": "go on", "after": {"python": "graders.nope:missing"}})]}
    )
    view = _view(broken, Workspace(tmp_path), [Message("user", "hi", 0), Message("agent", "ok", 1)])
    decision = asyncio.run(FollowUpUser(RulesUser()).decide(view))
    assert decision.message is None and decision.error is not None and "follow-up condition failed" in decision.error


def test_validate_with_the_oracle_holds_the_baselines_to_the_agentif_bar() -> None:
    result = run_cli("validate", "--data", str(AGENTIF_MINI), "--oracle", "--json")
    assert result.exit_code == 0, result.output


DOCX_TASK = {
    "id": "aif_test_docx_memo",
    "title": "A two-sentence memo",
    "category": "workflow",
    "domain": "work",
    "user": {"name": "Dana Whitfield", "role": "Office manager at a dental practice."},
    "now": "2025-05-02T09:00:00",
    "request": "Write out/memo.docx for Priya Raman: two sentences, the greeting and that the audit moves to 14 May.",
    "rubric": [
        {
            "id": "b1",
            "text": "The memo opens with Dear Priya Raman,",
            "polarity": "bonus",
            "points": 2,
            "category": "form",
            "grader": "rule",
            "check": {
                "checker": {"name": "file_contains", "args": {"path": "out/memo.docx", "text": "^Dear Priya Raman,$", "mode": "regex"}}
            },
        },
        {
            "id": "b2",
            "text": "The memo says the audit moves to 14 May",
            "polarity": "bonus",
            "points": 1,
            "category": "content",
            "grader": "rule",
            "check": {
                "checker": {
                    "name": "file_contains",
                    "args": {"path": "out/memo.docx", "text": "^The audit moves to 14 May\\.$", "mode": "regex"},
                }
            },
        },
        {
            "id": "p1",
            "text": "The memo runs past 40 words although two sentences were asked for",
            "polarity": "penalty",
            "points": 1,
            "category": "form",
            "grader": "rule",
            "check": {"checker": {"name": "file_contains", "args": {"path": "out/memo.docx", "text": "(\\S+\\s+){40}", "mode": "regex"}}},
        },
    ],
    "reference": [
        {
            "tool": "docx_create",
            "args": {
                "path": "out/memo.docx",
                "blocks": [{"type": "paragraph", "text": "Dear Priya Raman,"}, {"type": "paragraph", "text": "The audit moves to 14 May."}],
            },
        },
        {"say": "The memo is in out/memo.docx."},
    ],
}


def test_the_stuffer_fills_office_deliverables_in_their_format_so_their_penalties_can_fire(tmp_path: Path) -> None:
    folder = tmp_path / "agentif" / DOCX_TASK["id"]
    folder.mkdir(parents=True)
    (folder / "task.yaml").write_text(yaml.safe_dump(DOCX_TASK, sort_keys=False))
    result = run_cli("validate", "--data", str(tmp_path), "--oracle", "--json")
    assert result.exit_code == 0, result.output
    stuffer = next(o for o in json.loads(result.stdout)["oracle"] if o["model"] == "scripted:stuffer")
    assert stuffer["ok"] and stuffer["bar"] == "earns no bonus and triggers a penalty"


def test_the_oracle_fails_a_task_whose_reference_writes_a_file_nothing_checks(agentif_copy: Path) -> None:
    task_file = agentif_copy / "agentif" / WORKFLOW / "task.yaml"
    task = yaml.safe_load(task_file.read_text())
    unchecked = {"tool": "write_file", "args": {"path": "out/unchecked_extra.txt", "content": "A file no rubric item reads.\n"}}
    task["reference"].insert(len(task["reference"]) - 1, unchecked)
    task_file.write_text(yaml.safe_dump(task, sort_keys=False))
    result = run_cli("validate", "--data", str(agentif_copy), "--oracle", "--json")
    assert result.exit_code == 1, result.output
    dropped = len(task["reference"]) - 2
    assert (
        f"without reference[{dropped}] (write_file out/unchecked_extra.txt) it still scores 1.0: no rule item checks that file"
        in result.output
    )
    assert "error: 1 error(s), 0 warning(s)" in result.output  # the task's other written files are each checked


@pytest.mark.parametrize("name", ["CATEGORIES", "DOMAINS", "ITEM_CATEGORIES"])
def test_the_kinds_moved_from_the_task_module_still_resolve_there_with_a_warning(name: str) -> None:
    import proactive_bench.suites.agentif as agentif
    import proactive_bench.suites.agentif.task as task_module

    with pytest.warns(DeprecationWarning, match=f"agentif.task.{name} moved: import it from proactive_bench.suites.agentif"):
        moved = getattr(task_module, name)
    assert moved == getattr(agentif, name)
    with pytest.raises(AttributeError):
        task_module.NO_SUCH_NAME  # noqa: B018
