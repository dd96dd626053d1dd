"""`pbench validate --oracle`: the scripted baselines' quality bar, on the worked example and broken copies."""

from __future__ import annotations

import json
from pathlib import Path

from proactive_bench.scaffolds.adversarial import ADVERSARY_MODES
from proactive_bench.scoring.results import EpisodeResult
from proactive_bench.validation.oracle import BASELINES, earns_nearly_nothing, not_proactive
from tests.helpers.cli import edit_yaml as _edit, run_cli
from tests.helpers.paths import EXAMPLE

S1 = "episodes/lab_manager/sessions/s1_week12_order.yaml"
S3 = "episodes/lab_manager/sessions/s3_week13_order.yaml"


def _oracle(root: Path) -> tuple[int, dict]:
    result = run_cli("validate", "--data", str(root), "--oracle", "--json")
    return result.exit_code, json.loads(result.stdout)


def test_the_worked_example_passes_strictly_with_the_oracle() -> None:
    """The command the README shows; the runs' figures are checked on the same oracle in test_pharmacist_content."""
    result = run_cli("validate", "--data", str(EXAMPLE), "--strict", "--oracle")
    assert result.exit_code == 0, result.output
    assert "ok: 1 episode(s), 0 warning(s), 16 oracle run(s) on the bar" in result.output


def test_a_reference_that_only_works_in_one_reveal_order_fails_the_oracle(example_copy: Path) -> None:
    """The serum note is anchored on the room note: fine when the room intent comes first, broken otherwise."""

    def chain(d: dict) -> None:
        serum = next(s for s in d["reference"] if s.get("requires") == ["serum_lot"] and s["tool"] == "edit_file")
        serum["args"].update(old="- Deliver to room B214.\n", new="- Deliver to room B214.\n- Serum: lot 77120 only.\n")

    _edit(example_copy / S1, chain)
    assert run_cli("validate", "--data", str(example_copy), "--strict").exit_code == 0  # the forward replay cannot see it
    code, report = _oracle(example_copy)
    failed = {(o["model"], o["reveal_order"]) for o in report["oracle"] if not o["ok"]}
    assert code == 1 and failed == {("scripted:passive", "reverse")}
    reason = next(p["reason"] for p in report["problems"] if p["field"] == "oracle scripted:passive (reverse reveal order)")
    assert "s1_week12_order: rule items c6 fail" in reason


def test_a_rule_item_the_stated_request_passes_fails_the_oracle(example_copy: Path) -> None:
    _edit(example_copy / S1, lambda d: d["checklist"][2].update(check={"file_exists": "orders/week-12.md"}))
    code, report = _oracle(example_copy)
    surface = next(o for o in report["oracle"] if o["model"] == "scripted:surface")
    assert code == 1 and not surface["ok"]
    assert "passes rule items tied to a hidden intent without it: s1_week12_order:c3" in surface["failure"]


def test_a_cue_that_a_generic_question_hits_fails_the_oracle(example_copy: Path) -> None:
    """ "Should I include a purchase order?" is not a question about which one: a cue it fires lets the drip score."""
    for session in (S1, S3):
        _edit(example_copy / session, lambda d: d["intents"][0].update(ask=["purchase order|\\bPO\\b"]))
    strict = run_cli("validate", "--data", str(example_copy), "--strict")  # the corpus holds the drip's work dimensions
    assert strict.exit_code == 1 and "'Should I include a purchase order?'" in strict.output
    code, report = _oracle(example_copy)
    failed = {o["model"]: o["failure"] for o in report["oracle"] if not o["ok"]}
    assert code == 1 and list(failed) == ["scripted:drip"]
    drip = next(o for o in report["oracle"] if o["model"] == "scripted:drip")
    assert drip["proc"] > 0.05 and drip["comp"] == 0.0
    assert failed["scripted:drip"].startswith("Proc 0.07 is above 0.05")  # s1 only: in s3 the PO is a known convention


def test_the_oracle_does_not_run_on_data_with_errors(example_copy: Path) -> None:
    _edit(example_copy / S1, lambda d: d.update(category="Z"))
    code, report = _oracle(example_copy)
    assert code == 1 and report["oracle"] == [] and report["errors"] == 1


def test_baselines_are_a_registry_of_scripted_models() -> None:
    assert [b.model for b in BASELINES[:4]] == ["scripted:reference", "scripted:passive", "scripted:asker", "scripted:surface"]
    assert [b.model for b in BASELINES[4:]] == [f"scripted:{mode}" for mode in ADVERSARY_MODES]
    assert all(b.reveal_orders and b.bar for b in BASELINES)


UNEVALUABLE_FORMULA_TASK = {
    "id": "aif_test_unevaluable_total",
    "title": "A total no checker can evaluate",
    "category": "workflow",
    "domain": "work",
    "user": {"name": "Dana Whitfield", "role": "Office manager at a dental practice."},
    "now": "2025-05-02T09:00:00",
    "request": "Put the month's total in B2 of out/totals.xlsx.",
    "rubric": [
        {
            "id": "b1",
            "text": "B2 holds the total, 1",
            "polarity": "bonus",
            "points": 1,
            "category": "content",
            "grader": "rule",
            "check": {"checker": {"name": "xlsx_cell", "args": {"path": "out/totals.xlsx", "cell": "B2", "value": 1}}},
        },
        {
            "id": "b2",
            "text": "A2 labels the total",
            "polarity": "bonus",
            "points": 1,
            "category": "form",
            "grader": "rule",
            "check": {"checker": {"name": "xlsx_cell", "args": {"path": "out/totals.xlsx", "cell": "A2", "value": "Total"}}},
        },
        {
            "id": "p1",
            "text": "The total is written twice",
            "polarity": "penalty",
            "points": 1,
            "category": "form",
            "grader": "rule",
            "check": {"checker": {"name": "xlsx_cell", "args": {"path": "out/totals.xlsx", "cell": "B3", "value": 1}}},
        },
    ],
    "reference": [
        {"tool": "xlsx_write", "args": {"path": "out/totals.xlsx", "cells": {"A2": "Total", "B2": "=NOSUCHFUNCTION(1)"}}},
        {"say": "The total is in out/totals.xlsx."},
    ],
}


def test_an_agentif_score_that_could_not_be_computed_misses_the_bar_shown_as_unavailable(tmp_path: Path) -> None:
    """The rule item's checker errors (a formula nothing evaluates), so the task has no score: every bar says so, none guesses one."""
    folder = tmp_path / "agentif" / UNEVALUABLE_FORMULA_TASK["id"]
    folder.mkdir(parents=True)
    (folder / "task.yaml").write_text(json.dumps(UNEVALUABLE_FORMULA_TASK))
    result = run_cli("validate", "--data", str(tmp_path), "--oracle", "--json")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    outcomes = {o["model"]: o for o in json.loads(result.stdout)["oracle"]}
    unavailable = "scores — (unavailable: items b1 could not be graded)"
    assert outcomes["scripted:reference"]["failure"] == unavailable
    assert result.exit_code == 1


def test_a_proc_or_comp_that_could_not_be_computed_misses_the_attackers_bars() -> None:
    """A run with no scored task must not pass "Proc <= x" or "Comp <= y" by counting the missing figure as 0."""
    unscored = EpisodeResult(run_id="r", persona="p", model="scripted:silent", sessions=[], tasks=[], planned=[])
    assert unscored.proc is None and unscored.comp is None
    assert "unavailable" in (not_proactive(0.2)(unscored, None) or "")  # type: ignore[arg-type]
    assert "unavailable" in (earns_nearly_nothing(0.05, 0.15)(unscored, None) or "")  # type: ignore[arg-type]
