"""The trainee baselines through the real CLI (``scripted:guess``, ``scripted:canvass``), agent steps for every kind of agent,
and the cheapest agents that would game either figure."""

from __future__ import annotations

import json
from datetime import datetime
from itertools import pairwise
from pathlib import Path

from proactive_bench.store import Store, ToolCallRow
from proactive_bench.suites.trainee import KEYWORD_QUESTIONS, compose_scenario
from proactive_bench.suites.trainee.colleagues import held_clues
from proactive_bench.testing import StubServer, text_reply
from proactive_bench.testing.stub_server import tool_call_reply
from tests.helpers.cli import run_cli, run_episode_json
from tests.helpers.paths import HELPERS
from tests.suites.trainee.test_trainee_runs import _npc_judge

AGENTS = HELPERS / "trainee_agents.py"


def _overall(summary: dict) -> dict:
    [row] = summary["trainee"]["overall"]
    return row


def test_the_guessing_baseline_scores_low_and_every_attempt_counts_as_a_guess(tmp_path: Path) -> None:
    row = _overall(
        run_episode_json(
            "--suite", "trainee", "--model", "scripted:guess", "--task", "s2-n2,s5-n5", "--days", "2", "--db", str(tmp_path / "pbench.db")
        )
    )
    assert row["checkpoint_score"] <= 0.25 and row["success_rate"] == 0.0 and row["scenario_days"] == 4
    assert row["clues_asked"] == 0.0 and row["guesses"] == 1.0 and row["messages_per_clue"] is None


def test_the_canvasser_obtains_nothing_and_its_messages_are_recorded(tmp_path: Path) -> None:
    db = tmp_path / "pbench.db"
    summary = run_episode_json("--suite", "trainee", "--model", "scripted:canvass", "--task", "s2-n2", "--days", "2", "--db", str(db))
    row = _overall(summary)
    assert row["checkpoint_score"] <= 0.25 and row["clues_asked"] == 0.0 and row["guesses"] == 1.0
    scenario = compose_scenario("s2-n2", 2)
    assert row["messages"] >= len(scenario.days[0].npcs) and row["messages_per_clue"] is None  # a burden that bought nothing
    store = Store(db)
    for session, day in zip(store.session_runs(summary["runs"][0]["run_id"]), scenario.days, strict=True):
        assert session.id is not None
        chat = (store.snapshot(session.id, "apps") or {})["chat_message"]
        today = {n.handle for n in day.npcs}
        asked = {r["contact"] for r in chat if r["direction"] == "out" and r["contact"] in today and "Which rule applies to" in r["text"]}
        assert asked == today  # one laundry list to every colleague of the day
        assert not [r for r in chat if r["direction"] == "in" and r["released"]]
    table = run_cli("results", summary["runs"][0]["run_id"], "--db", str(db))
    assert "avg msgs" in table.output and "scripted:canvass" in table.output


def test_both_baselines_run_in_a_sweep_and_unknown_names_list_them(tmp_path: Path) -> None:
    result = run_cli(
        "sweep",
        "--suite",
        "trainee",
        "--models",
        "scripted:guess,scripted:canvass",
        "--task",
        "s3-n3",
        "--json",
        "--db",
        str(tmp_path / "pbench.db"),
    )
    assert result.exit_code == 0, result.output
    rows = {r["model"]: r for r in json.loads(result.stdout)["trainee"]["overall"]}
    assert set(rows) == {"scripted:guess", "scripted:canvass"}
    assert all(
        r["checkpoint_score"] <= 0.4 and r["success_rate"] == 0.0 and r["clues_asked"] == 0.0 and r["guesses"] == 1.0 for r in rows.values()
    )
    unknown = run_cli(
        "episode", "--suite", "trainee", "--model", "scripted:guessing", "--task", "s3-n3", "--db", str(tmp_path / "pbench.db")
    )
    assert unknown.exit_code != 0 and "scripted:canvass" in unknown.output and "scripted:guess" in unknown.output
    assert "Traceback" not in unknown.output


def test_four_keyword_questions_to_every_colleague_get_no_more_than_the_canvasser(tmp_path: Path) -> None:
    """The questions ask for the kinds of fact these scenarios' clues hold (their ask cues fire), but name no clue's subject."""
    tasks = ["s7-n5", "s22-n5"]  # scenarios whose clues ask for the kinds of fact the keyword questions name (8 clues)
    kinds = [c for name in tasks for c in held_clues(compose_scenario(name)) if any(p.search(q) for q in KEYWORD_QUESTIONS for p in c.ask)]
    assert len(kinds) >= 7
    result = run_cli(
        "sweep",
        "--suite",
        "trainee",
        "--models",
        f"scripted:canvass,{AGENTS}:KeywordCanvass",
        "--task",
        ",".join(tasks),
        "--json",
        "--db",
        str(tmp_path / "pbench.db"),
    )
    assert result.exit_code == 0, result.output
    rows = {r["model"]: r for r in json.loads(result.stdout)["trainee"]["overall"]}
    keywords = next(r for model, r in rows.items() if model.endswith(":KeywordCanvass"))
    assert keywords["clues_asked"] <= rows["scripted:canvass"]["clues_asked"] == 0.0
    assert keywords["messages"] > 0 and keywords["messages_per_clue"] is None


def test_a_scripted_agent_has_one_step_per_action_and_reply(tmp_path: Path) -> None:
    db = tmp_path / "pbench.db"
    summary = run_episode_json("--suite", "trainee", "--model", "scripted:reference", "--task", "s3-n3", "--db", str(db))
    store = Store(db)
    [session] = store.session_runs(summary["runs"][0]["run_id"])
    calls = store.rows(ToolCallRow, session.id)
    assert session.turns == 1 and len(calls) > 5 and session.steps == len(calls) + 1
    row = _overall(summary)
    assert row["avg_steps"] == session.steps and row["avg_tool_calls"] == len(calls)


def test_a_react_agent_has_one_step_per_model_call(tmp_path: Path) -> None:
    """Two tool calls in one model answer are one step; the reply is another: steps = the agent's model calls."""
    turns = iter([tool_call_reply([("clock__now", {}), ("chat__list_contacts", {})])])

    def answer(body: dict) -> dict:
        return next(turns, text_reply("Done for today."))

    db = tmp_path / "pbench.db"
    with StubServer(answer) as server:
        summary = run_episode_json(
            "--suite", "trainee", "--model", "openai:agent", "--base-url", server.base_url, "--task", "s3-n3", "--no-probe", "--db", str(db)
        )
    store = Store(db)
    run_id = summary["runs"][0]["run_id"]
    [session] = store.session_runs(run_id)
    model_calls = [c for c in store.llm_calls(run_id) if c.role == "agent" and c.ok]
    assert session.steps == len(model_calls) == 2 and len(store.rows(ToolCallRow, session.id)) == 2
    assert _overall(summary)["avg_steps"] == 2


def test_an_agent_that_never_declares_a_step_is_not_counted_fewer_nor_given_time(tmp_path: Path) -> None:
    """Three tool calls and a reply with no ``begin_step``: four decisions, as a scripted agent is counted, and each call
    costs a step's minutes too (2,1 clock: 3 minutes apart), as a react step with one call does: not declaring saves no time."""
    db = tmp_path / "pbench.db"
    summary = run_episode_json("--suite", "trainee", "--agent", f"{AGENTS}:UndeclaredSteps", "--task", "s3-n3", "--db", str(db))
    store = Store(db)
    [session] = store.session_runs(summary["runs"][0]["run_id"])
    assert session.steps == 4 and _overall(summary)["avg_steps"] == 4
    times = [datetime.fromisoformat(c.result["response"]["now"]) for c in store.rows(ToolCallRow, session.id)]
    assert [(b - a).total_seconds() / 60 for a, b in pairwise(times)] == [3.0, 3.0]


def test_guessing_first_and_asking_afterwards_is_still_guessing(tmp_path: Path) -> None:
    """An agent that acts on every guess, then asks each holder its targeted question: the clues are obtained, the attempts
    were guesses all the same (an honest asker, ``scripted:reference``, has none: test_trainee_runs)."""
    row = _overall(
        run_episode_json(
            "--suite",
            "trainee",
            "--model",
            "test:guess-then-ask",
            "--task",
            "s2-n2,s5-n5",
            "--days",
            "2",
            "--db",
            str(tmp_path / "pbench.db"),
        )
    )
    assert row["clues_asked"] == 1.0 and row["guesses"] == 1.0 and row["checkpoint_score"] <= 0.25


def test_naming_a_clue_file_in_a_call_that_reads_nothing_is_not_reading_it(tmp_path: Path) -> None:
    """s6-n3 and s7-n3 hold clues in files: an agent that only names their paths (a failed ``list_dir``) and guesses is guessing."""
    row = _overall(
        run_episode_json(
            "--suite", "trainee", "--model", "test:touch-then-guess", "--task", "s6-n3,s7-n3", "--db", str(tmp_path / "pbench.db")
        )
    )
    assert row["guesses"] == 1.0 and row["clues_asked"] == 0.0


def test_an_agent_is_never_counted_fewer_steps_than_its_recorded_model_calls(tmp_path: Path) -> None:
    db = tmp_path / "pbench.db"
    summary = run_episode_json("--suite", "trainee", "--agent", f"{AGENTS}:ThinksWithoutDeclaring", "--task", "s3-n3", "--db", str(db))
    [session] = Store(db).session_runs(summary["runs"][0]["run_id"])
    assert session.steps == 3 and _overall(summary)["avg_steps"] == 3  # the failed call is no decision; the reply came from the last


def test_the_canvasser_obtains_nothing_from_llm_colleagues_either(tmp_path: Path) -> None:
    """Colleagues played by a model (a stub that grants every fact whose own question may count): the survey screen comes first."""
    with StubServer(_npc_judge) as server:
        row = _overall(
            run_episode_json(
                "--suite",
                "trainee",
                "--model",
                "scripted:canvass",
                "--task",
                "s6-n3",
                "--npc",
                "llm",
                "--npc-model",
                "openai:npc",
                "--base-url",
                server.base_url,
                "--no-probe",
                "--db",
                str(tmp_path / "pbench.db"),
            )
        )
    assert row["clues_asked"] == 0.0 and row["messages"] >= 3 and row["checkpoint_score"] <= 0.4
