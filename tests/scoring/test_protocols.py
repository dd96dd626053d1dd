"""--protocol pibench: its requirements, its defaults and its rules, end to end on a stub model server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from proactive_bench.store import Grade, Store
from proactive_bench.testing.stub_server import (
    Reply,
    StubServer,
    prompt_section,
    prompt_text,
    structured_reply,
)
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI
from tests.helpers.stub_models import FakeUserModel


class EarlyOnlyJudge(FakeUserModel):
    """A judge that says YES only on a dialogue that has not gone past the first agent turn."""

    def __call__(self, body: dict[str, Any]) -> Reply:
        prompt = prompt_text(body)
        if "grading an AI assistant" in prompt:
            verdict = "NO" if "[turn 2]" in prompt_section(prompt, "Conversation") else "YES"
            return structured_reply(body, {"rationale": "read the dialogue", "verdict": verdict})
        return super().__call__(body)


def test_pibench_needs_the_llm_user_and_a_judge(tmp_path: Path) -> None:
    """No --user: π-Bench's LLM user, which needs its model; --user rules is refused; the judge is required."""
    out = run_cli(
        "episode",
        "--data",
        str(MINI),
        "--persona",
        "mini",
        "--model",
        "scripted:passive",
        "--protocol",
        "pibench",
        "--db",
        str(tmp_path / "r.db"),
    )
    assert out.exit_code == 2 and "--protocol pibench plays π-Bench's LLM user: give --user-model MODEL" in " ".join(out.output.split())
    sweep = run_cli("sweep", "--data", str(MINI), "--models", "scripted:passive", "--protocol", "pibench", "--db", str(tmp_path / "r.db"))
    assert sweep.exit_code == 2 and "give --user-model MODEL" in " ".join(sweep.output.split())
    common = [
        "--data",
        str(MINI),
        "--persona",
        "mini",
        "--model",
        "scripted:passive",
        "--protocol",
        "pibench",
        "--db",
        str(tmp_path / "r.db"),
    ]
    rules = run_cli("episode", *common, "--user", "rules", "--user-model", "openai:u", "--judge-model", "openai:j")
    assert rules.exit_code == 2 and "plays π-Bench's LLM user, not --user rules" in " ".join(rules.output.split())
    no_judge = run_cli("episode", *common, "--user-model", "openai:u")
    assert no_judge.exit_code == 2 and "needs a judge for the rubric items: give --judge-model MODEL" in " ".join(no_judge.output.split())
    assert run_cli("results", "x", "--protocol", "nope", "--db", str(tmp_path / "r.db")).exit_code == 2


def test_pibench_runs_three_times_and_credits_a_rubric_item_met_at_any_turn(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    common = [
        "--data",
        str(MINI),
        "--models",
        "scripted:passive",
        "--personas",
        "mini",
        "--db",
        str(db),
        "--user-model",
        "openai:stub-user",
        "--judge-model",
        "openai:stub-judge",
        "--json",
    ]
    with StubServer(EarlyOnlyJudge()) as server:
        pi = run_cli("sweep", *common, "--base-url", server.base_url, "--protocol", "pibench")  # no --user: π-Bench's LLM user
        default = run_cli("sweep", *common, "--base-url", server.base_url, "--user", "llm")
    assert pi.exit_code == 0 and default.exit_code == 0, pi.output + default.output
    pi_out, default_out = json.loads(pi.stdout), json.loads(default.stdout)
    assert len(pi_out["runs"]) == 3 and len(default_out["runs"]) == 1  # π-Bench: 3 runs by default
    assert pi_out["scoring"] == "pibench" and default_out["scoring"] == "pbench"
    store = Store(db)
    backends = [store.run(run["run_id"]) for run in pi_out["runs"]]
    assert [r.user_backend if r else None for r in backends] == ["llm:openai:stub-user"] * 3
    rubric = {
        run["run_id"]: [g for s in store.session_runs(run["run_id"]) for g in store.rows(Grade, s.id) if g.item_id == "c3"]
        for run in pi_out["runs"] + default_out["runs"]
    }
    pi_grades = [g for run in pi_out["runs"] for g in rubric[run["run_id"]]]
    assert pi_grades and all(g.score == 1 and g.rationale.startswith("turn 1:") for g in pi_grades)  # met at turn 1
    (default_grade,) = rubric[default_out["runs"][0]["run_id"]]
    assert default_grade.score == 0  # the final trajectory went past turn 1
    labels = {c.purpose for c in store.llm_calls(pi_out["runs"][0]["run_id"]) if c.role == "judge"}
    assert labels == {"rubric:c3@1"}  # judging stopped at the first turn that met it
