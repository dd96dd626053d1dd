"""Every shipped trainee default runs: the README's commands with validation on, and the oracle's timeline on every default scenario
(``validate --suite trainee --task``: tests/suites/trainee/test_trainee_runs.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proactive_bench.env import ClockRates
from proactive_bench.suites.trainee import Scenario, compose_scenario, default_names, play
from proactive_bench.suites.trainee.day_plan import TimelineError, oracle_steps
from tests.helpers.cli import run_cli, run_episode_json


@pytest.fixture(scope="module")
def default_scenarios() -> dict[str, Scenario]:
    """Every default scenario over both days, composed once for this module's tests (~12 s of CPU: their pictures and
    office files); the tests only read them."""
    return {name: compose_scenario(name, 2) for name in default_names()}


@pytest.mark.parametrize("rates", [ClockRates(), ClockRates(5, 1), ClockRates(1, 0)])
def test_every_default_scenario_lays_out_its_oracle_on_both_days(rates: ClockRates, default_scenarios: dict[str, Scenario]) -> None:
    late = []
    assert list(default_scenarios) == default_names()
    for name, scenario in default_scenarios.items():
        for day in scenario.days:
            try:
                oracle_steps(scenario, day, rates)
            except TimelineError as exc:
                late.append(f"{name} day {day.day}: {exc}")
    assert not late


def test_a_meeting_an_hour_into_a_full_day_is_still_joined_on_time(default_scenarios: dict[str, Scenario]) -> None:
    """s50-n6 day 1 (the default benchmark's one meeting at minute 60 with five other tasks): the oracle switches to the
    meeting before a flexible step would run past its start, and its wait (a step, then the call) comes by 60 in the run's
    clock, so no call fails and every checkpoint is met."""
    scenario = default_scenarios["s50-n6"]
    meeting = next(t for t in scenario.days[0].tasks if t.template == "meeting_attend")
    assert meeting.start_minute == 60 and len(scenario.days[0].tasks) == 6
    steps = oracle_steps(scenario, scenario.days[0], ClockRates())
    wait = next(n for n, s in enumerate(steps) if s.tool == "clock__wait_until" and s.task == meeting.key)
    assert 1 + wait * 3 <= 60  # each earlier action is a step and a call (3 minutes); the wait's own step comes by the start
    played = play(scenario, "reference")
    assert [d.failed for d in played] == [(), ()]
    assert [d.figures.checkpoint_score for d in played] == [1.0, 1.0]


@pytest.mark.heavy
@pytest.mark.usefixtures("default_scenarios")  # on the worker that composed them: the run loads them from compose_scenario's share
def test_the_readme_trainee_commands_run_with_validation(tmp_path: Path) -> None:
    db = str(tmp_path / "pbench.db")
    summary = run_episode_json("--suite", "trainee", "--model", "scripted:reference", "--db", db)  # every default scenario
    row = summary["trainee"]["overall"][0]
    assert row["scenario_days"] == len(default_names()) and row["checkpoint_score"] == 1.0 and row["success_rate"] == 1.0
    swept = run_cli(
        "sweep",
        "--suite",
        "trainee",
        "--models",
        "scripted:reference",
        "--hints",
        "none,data,method,both",
        "--task",
        "s5-n6",
        "--json",
        "--db",
        db,
    )
    assert swept.exit_code == 0, swept.output
    by_hints = json.loads(swept.stdout)["trainee"]["by_hints"]
    assert {r["hints"] for r in by_hints} == {"none", "data", "method", "both"} and all(r["checkpoint_score"] == 1.0 for r in by_hints)
    two_days = run_episode_json("--suite", "trainee", "--model", "scripted:reference", "--task", "s5-n6", "--days", "2", "--db", db)
    assert two_days["trainee"]["overall"][0]["checkpoint_score"] == 1.0
