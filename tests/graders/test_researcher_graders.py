"""The researcher graders on a right workspace (the reference solution's files) and on wrong ones."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from proactive_bench.dataset.loading import GraderResolver
from proactive_bench.env.workspace import Workspace

REPO = Path(__file__).resolve().parents[2] / "pbench_data"
SESSIONS = REPO / "episodes" / "researcher" / "sessions"
RESOLVE = GraderResolver(REPO)


def grader(ref: str):
    """A researcher grader, imported the way the benchmark imports it (``graders.researcher.<module>:<function>``)."""
    return RESOLVE(f"graders.researcher.{ref}")


MAIN = "paper/sievekv/tables/main_results.tex"
SWEEP = "paper/sievekv/tables/budget_sweep.tex"
EFFICIENCY = "paper/sievekv/tables/efficiency.tex"


def _steps(session: str) -> list[dict[str, Any]]:
    return yaml.safe_load((SESSIONS / f"{session}.yaml").read_text())["reference"]


def written(session: str, path: str, *, final: bool = True) -> str:
    """What the session's reference writes to ``path``: the last write (final) or the first (the surface draft)."""
    writes = [s["args"]["content"] for s in _steps(session) if s.get("tool") == "write_file" and s["args"]["path"] == path]
    return writes[-1] if final else writes[0]


def inserted(session: str, requires: str) -> str:
    """The text a reference edit that requires ``requires`` inserts."""
    return next(s["args"]["new"] for s in _steps(session) if s.get("tool") == "edit_file" and requires in s.get("requires", []))


def evidence(tmp_path: Path, files: dict[str, str]) -> SimpleNamespace:
    ws = Workspace(tmp_path / "ws")
    for path, text in files.items():
        target = ws.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return SimpleNamespace(workspace=ws, apps=None)


S01 = [
    grader("tables:s01_budget20"),
    grader("tables:s01_best_second"),
    grader("tables:s01_failed_run"),
    grader("tables:s01_fullkv"),
    grader("tables:s01_avg"),
]


@pytest.mark.parametrize("check", S01, ids=lambda f: f.__name__)
def test_s01_checks_pass_on_the_reference_table_and_fail_on_the_seed0_draft(tmp_path: Path, check) -> None:
    assert check(evidence(tmp_path / "right", {MAIN: written("s01_main_results_table", MAIN)}))
    assert not check(evidence(tmp_path / "wrong", {MAIN: written("s01_main_results_table", MAIN, final=False)}))


def test_s01_best_second_fails_when_sievekv_is_bolded_on_every_column(tmp_path: Path) -> None:
    table = written("s01_main_results_table", MAIN).replace("\\second{\\pmstd{40.5}{0.6}}", "\\pmstd{40.5}{0.6}")
    assert not grader("tables:s01_best_second")(evidence(tmp_path, {MAIN: table}))


def test_s01_fullkv_fails_when_fullkv_competes_for_bold(tmp_path: Path) -> None:
    table = written("s01_main_results_table", MAIN).replace("FullKV & \\pmstd{25.7}{0.5}", "FullKV & \\best{\\pmstd{25.7}{0.5}}")
    assert not grader("tables:s01_fullkv")(evidence(tmp_path, {MAIN: table}))


def test_s01_failed_run_fails_without_the_caption_note(tmp_path: Path) -> None:
    table = written("s01_main_results_table", MAIN).replace("mean of 2 seeds", "see text")
    assert not grader("tables:s01_failed_run")(evidence(tmp_path, {MAIN: table}))


S03 = [grader("tables:s03_conventions"), grader("tables:s03_main_points"), grader("tables:s03_snapkv_two_seeds")]


@pytest.mark.parametrize("check", S03, ids=lambda f: f.__name__)
def test_s03_checks_pass_on_the_reference_sweep_and_fail_on_the_draft(tmp_path: Path, check) -> None:
    main = written("s01_main_results_table", MAIN)
    assert check(evidence(tmp_path / "right", {MAIN: main, SWEEP: written("s03_budget_sweep_table", SWEEP)}))
    assert not check(evidence(tmp_path / "wrong", {MAIN: main, SWEEP: written("s03_budget_sweep_table", SWEEP, final=False)}))


def test_s03_main_points_needs_the_main_table_it_must_agree_with(tmp_path: Path) -> None:
    assert not grader("tables:s03_main_points")(evidence(tmp_path, {SWEEP: written("s03_budget_sweep_table", SWEEP)}))


def test_s03_snapkv_fails_when_the_partial_seed_is_averaged_in(tmp_path: Path) -> None:
    sweep = written("s03_budget_sweep_table", SWEEP).replace("\\pmstd{49.0}{0.0}$^\\dagger$", "\\pmstd{50.4}{2.4}")
    assert not grader("tables:s03_snapkv_two_seeds")(evidence(tmp_path, {SWEEP: sweep}))


S08 = [grader("tables:s08_conventions"), grader("tables:s08_no_warmup"), grader("tables:s08_fullkv_oom")]


@pytest.mark.parametrize("check", S08, ids=lambda f: f.__name__)
def test_s08_checks_pass_on_the_reference_efficiency_table_and_fail_on_the_draft(tmp_path: Path, check) -> None:
    assert check(evidence(tmp_path / "right", {EFFICIENCY: written("s08_efficiency_table", EFFICIENCY)}))
    assert not check(evidence(tmp_path / "wrong", {EFFICIENCY: written("s08_efficiency_table", EFFICIENCY, final=False)}))


def test_s08_conventions_fail_when_sievekv_takes_the_latency_bold(tmp_path: Path) -> None:
    table = written("s08_efficiency_table", EFFICIENCY).replace("\\best{34.0}", "\\second{34.0}").replace("\\second{34.2}", "\\best{34.2}")
    assert not grader("tables:s08_conventions")(evidence(tmp_path, {EFFICIENCY: table}))


S16 = [
    grader("tables:s16_qasper_rescored"),
    grader("tables:s16_fullkv_rescored"),
    grader("tables:s16_avg_rescored"),
    grader("tables:s16_marks_moved"),
]


@pytest.mark.parametrize("check", S16, ids=lambda f: f.__name__)
def test_s16_checks_pass_on_the_rescored_table_and_fail_on_the_old_one(tmp_path: Path, check) -> None:
    assert check(evidence(tmp_path / "right", {MAIN: written("s16_qasper_rescore", MAIN)}))
    assert not check(evidence(tmp_path / "wrong", {MAIN: written("s01_main_results_table", MAIN)}))


def test_s16_conventions_kept_fails_when_the_update_drops_the_dagger(tmp_path: Path) -> None:
    check = grader("tables:s16_conventions_kept")
    rescored = written("s16_qasper_rescore", MAIN)
    assert check(evidence(tmp_path / "right", {MAIN: rescored}))
    assert not check(evidence(tmp_path / "wrong", {MAIN: rescored.replace("$^\\dagger$", "")}))


RESPONSES = "rebuttal/driftlora/responses.md"


def test_s11_short_answers_on_the_reference_and_on_a_long_or_missing_answer(tmp_path: Path) -> None:
    right = written("s11_rebuttal_responses", RESPONSES) + inserted("s11_rebuttal_responses", "i5_short_answers")
    assert grader("rebuttal:s11_short_answers")(evidence(tmp_path / "right", {RESPONSES: right}))
    long = right.replace("Thank you - a typo: Eq. 4 sums over domains k. Fixed.", "We agree. " + "This is explained at length. " * 40)
    assert not grader("rebuttal:s11_short_answers")(evidence(tmp_path / "long", {RESPONSES: long}))
    missing = right.replace("### R3.Q1\n", "")
    assert not grader("rebuttal:s11_short_answers")(evidence(tmp_path / "missing", {RESPONSES: missing}))


HALF = "life/training/half_plan.md"
S12 = [grader("plans:s12_ten_percent"), grader("plans:s12_taper"), grader("plans:s12_rebuttal_cutback")]


@pytest.mark.parametrize("check", S12, ids=lambda f: f.__name__)
def test_s12_checks_pass_on_the_reference_plan_and_fail_on_the_pattern_only(tmp_path: Path, check) -> None:
    base = written("s12_half_marathon_plan", HALF)
    right = base + inserted("s12_half_marathon_plan", "i2_ten_percent")
    assert check(evidence(tmp_path / "right", {HALF: right}))
    assert not check(evidence(tmp_path / "wrong", {HALF: base}))


def test_s12_ten_percent_fails_on_a_jump(tmp_path: Path) -> None:
    plan = written("s12_half_marathon_plan", HALF) + inserted("s12_half_marathon_plan", "i2_ten_percent").replace(
        "| W2 | 2026-02-16 | 29 |", "| W2 | 2026-02-16 | 34 |"
    )
    assert not grader("plans:s12_ten_percent")(evidence(tmp_path, {HALF: plan}))


def test_s12_taper_and_cutback_fail_without_the_lighter_weeks(tmp_path: Path) -> None:
    table = inserted("s12_half_marathon_plan", "i2_ten_percent")
    no_taper = table.replace("| W11 | 2026-04-20 | 26 |", "| W11 | 2026-04-20 | 40 |")
    no_cutback = table.replace("| W7 | 2026-03-23 | 28 |", "| W7 | 2026-03-23 | 36 |")
    assert not grader("plans:s12_taper")(evidence(tmp_path / "a", {HALF: no_taper}))
    assert not grader("plans:s12_rebuttal_cutback")(evidence(tmp_path / "b", {HALF: no_cutback}))
