"""AgentIF latent rules are inferred from the attachments, not asked, and not met by copying them.

On the shipped tasks with the rules user: a question about a latent rule earns
nothing and is answered with a pointer to the attachment, never the rule, so
``scripted:asker`` scores what ``scripted:passive`` scores; an agent that copies
every attachment line verbatim into its deliverables meets no latent rule; the
reference still scores 1.0; ``pbench validate`` flags evidence that a copy (or
an empty file) meets.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from proactive_bench.data_model import Evidence, Message
from proactive_bench.env import Memory, Workspace, read_as_text
from proactive_bench.suites import SUITES, SuiteContext, read_agentif_task
from proactive_bench.suites.agentif import copy_check
from proactive_bench.suites.agentif.copy_check import write_copy
from proactive_bench.user import RulesUser, UserView
from proactive_bench.validation import run_oracle
from proactive_bench.validation.oracle import OracleBar, OracleOutcome, agentif_rule_score
from tests.helpers.cli import run_cli
from tests.helpers.paths import AGENTIF_MINI, DATA, HELPERS

SUITE = SUITES.get("agentif")
WITH_RULES = [name for name in SUITE.names(DATA) if read_agentif_task(DATA, name)[0].rules]  # type: ignore[union-attr]
COPY_AGENT = f"{HELPERS / 'agentif_copy_agent.py'}:CopyAgent"
LATENT = "aif_test_latent_invoice_codes"


def _any_run(_result: object, _episode: object) -> None:
    return None


def _runs(root: Path, name: str, models: list[str]) -> dict[str, OracleOutcome]:
    episode = SUITE.load(root, name, SuiteContext())
    bars = [OracleBar(model, _any_run, "any", ("forward",)) for model in models]
    return {o.model: o for o in run_oracle(episode, root, bars)}


def _score(outcome: OracleOutcome, root: Path, name: str) -> float | None:
    score = agentif_rule_score(outcome.result, SUITE.load(root, name, SuiteContext()))
    assert score is not None and not score.errored
    return score.score


def test_the_shipped_data_has_latent_rules_to_test() -> None:
    assert len(WITH_RULES) >= 10


@pytest.mark.parametrize("name", WITH_RULES)
def test_asking_about_latent_rules_scores_what_passive_scores_and_the_reference_still_scores_one(name: str) -> None:
    runs = _runs(DATA, name, ["scripted:reference", "scripted:passive", "scripted:asker"])
    asker, passive, reference = runs["scripted:asker"], runs["scripted:passive"], runs["scripted:reference"]
    assert _score(reference, DATA, name) == 1.0
    assert _score(asker, DATA, name) == _score(passive, DATA, name) < 1.0
    counts = asker.result.sessions[0].counts
    assert counts.inferred == 0 and counts.provided == counts.total > 0  # asked, every rule still had to be pointed to


@pytest.mark.parametrize("name", WITH_RULES)
def test_a_question_about_a_latent_rule_is_answered_with_a_pointer_that_does_not_state_it(name: str, tmp_path: Path) -> None:
    task, _ = read_agentif_task(DATA, name)
    assert task is not None
    loaded = SUITE.load(DATA, name, SuiteContext())
    session = loaded.sessions[0]
    for rule in task.rules:
        transcript = [Message("user", session.trigger.message, 0), Message("agent", rule.question, 1)]
        evidence = Evidence(transcript, [], Workspace(tmp_path), Memory(), lambda ref: None)  # type: ignore[arg-type,return-value]
        view = UserView(loaded.persona, session, session.intents, evidence, turn=1)
        decision = asyncio.run(RulesUser().decide(view))
        assert [label.status for label in decision.labels] == ["provided"]  # not inferred: the question earns nothing
        said = decision.message or ""
        assert said and any(r.source in said for r in task.rules)
        for other in task.rules:  # none of the task's rules is stated: not its source wording, its questions' subject, nor its words
            assert not re.search(other.cue, said, re.IGNORECASE) and other.reveal not in said
            assert not any(re.search(p, said, re.IGNORECASE) for p in other.ask), (other.id, said)


@pytest.mark.parametrize("name", WITH_RULES)
def test_copying_every_attachment_line_into_the_deliverables_meets_no_latent_rule(name: str) -> None:
    copier = _runs(DATA, name, [COPY_AGENT])[COPY_AGENT]
    session = copier.result.sessions[0]
    assert session.status == "completed" and session.counts.completed == 0
    score = agentif_rule_score(copier.result, SUITE.load(DATA, name, SuiteContext()))
    assert score is not None and not [i.id for i in score.items if i.earned and i.id in _rule_items(name)]


def _rule_items(name: str) -> set[str]:
    task, _ = read_agentif_task(DATA, name)
    assert task is not None
    return {i.id for i in task.rubric if i.rule is not None}


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """The test latent task, with r1's evidence met by the January ledger's own UTIL line."""
    root = tmp_path / "root"
    shutil.copytree(AGENTIF_MINI, root)
    path = root / "agentif" / LATENT / "task.yaml"
    task = yaml.safe_load(path.read_text())
    task["rules"][0]["evidence"] = {"file_matches": {"path": "out/march_coded.csv", "pattern": "(?m)^[^\\n]*,UTIL\\s*$"}}
    path.write_text(yaml.safe_dump(task, sort_keys=False))
    return root


def test_the_copy_agent_does_meet_evidence_that_the_attachments_own_lines_satisfy(planted: Path) -> None:
    """The agent is a real attacker: on planted evidence it wins, so the test above can fail."""
    copier = _runs(planted, LATENT, [COPY_AGENT])[COPY_AGENT]
    assert copier.result.sessions[0].counts.completed == 1


def test_validate_flags_latent_evidence_met_by_copied_lines_or_an_empty_deliverable(planted: Path) -> None:
    result = run_cli("validate", "--data", str(planted), "--json")
    assert result.exit_code == 1
    reasons = {(p["field"], p["reason"]) for p in json.loads(result.stdout)["problems"]}
    assert (
        "rules[0].evidence",
        "holds on deliverables that are the lines of inbox/january_ledger.xlsx copied verbatim: rule 'r1' is met without being applied; "
        "require what applying it to the new data produces",
    ) in reasons
    path = planted / "agentif" / LATENT / "task.yaml"
    task = yaml.safe_load(path.read_text())
    task["rules"][0]["evidence"] = {"not": {"file_matches": {"path": "out/march_coded.csv", "pattern": "M-31\\d\\d,[^\\n]*,OFFC"}}}
    path.write_text(yaml.safe_dump(task, sort_keys=False))
    result = run_cli("validate", "--data", str(planted), "--json")
    assert result.exit_code == 1
    assert any(
        p["field"] == "rules[0].evidence" and "deliverables that are empty" in p["reason"] for p in json.loads(result.stdout)["problems"]
    )


def test_the_copy_check_writes_and_checks_each_distinct_copy_once(planted: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With one attachment, every attachment's lines together are that attachment's lines: not written and checked again."""
    folder = planted / "agentif" / LATENT
    task, _ = read_agentif_task(planted, LATENT)
    assert task is not None
    one = task.model_copy(update={"attachments": task.attachments[:1]})
    lines = tuple(copy_check.attachment_lines(folder / "workspace", one.attachments[0]))
    written: list[tuple[str, ...]] = []

    def recording(path: Path, copied: list[str]) -> None:
        written.append(tuple(copied))
        write_copy(path, copied)

    monkeypatch.setattr(copy_check, "write_copy", recording)
    problems = copy_check.copied_line_problems(one, folder, "task.yaml")
    assert lines and written == [()] * len(copy_check.deliverables(one)) + [lines] * len(copy_check.deliverables(one))
    assert [p.field for p in problems] == ["rules[0].evidence"]
    assert f"the lines of {one.attachments[0]} copied verbatim" in problems[0].reason


@pytest.mark.heavy
def test_validate_and_the_oracle_pass_on_the_shipped_agentif_tasks(tmp_path: Path) -> None:
    (tmp_path / "agentif").symlink_to(DATA / "agentif")
    result = run_cli("validate", "--data", str(tmp_path), "--oracle", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    askers = [o for o in report["oracle"] if o["model"] == "scripted:asker"]
    assert len(askers) == len(SUITE.names(DATA)) and all(o["ok"] for o in askers)


@pytest.mark.parametrize("suffix", [".docx", ".xlsx", ".pdf", ".csv"])
def test_the_copy_check_writes_office_deliverables_that_read_back_line_by_line(tmp_path: Path, suffix: str) -> None:
    lines = ["date,description,hours", "09.10.2025,Travel to client (Ghent),1.75,45.00,78.75"]
    path = tmp_path / "out" / f"copy{suffix}"
    write_copy(path, lines)
    text = read_as_text(path)
    assert all(re.search(rf"(?m)^{re.escape(line)},*\s*$", text) for line in lines), text  # a sheet pads short rows
