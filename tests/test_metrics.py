"""Proc pooling over dependency groups and Comp with weights and ungraded items."""

from __future__ import annotations

import pytest

from proactive_bench.grading import GradeResult
from proactive_bench.metrics import IntentCounts, comp, count_statuses, dependency_units, mean_or_none, pooled_proc
from proactive_bench.schema import Episode


def _episode() -> Episode:
    return Episode.model_validate(
        {
            "id": "e",
            "persona": "p",
            "sessions": [
                {"id": "s1"},
                {"id": "s2", "depends_on": ["s1"]},
                {"id": "s3"},
                {"id": "s4", "depends_on": ["s2"]},
                {"id": "s5", "depends_on": ["s3"]},
            ],
        }
    )


def test_dependency_units_are_connected_components_in_order() -> None:
    assert dependency_units(_episode()) == [["s1", "s2", "s4"], ["s3", "s5"]]
    assert dependency_units(_episode(), ["s1", "s3", "s4"]) == [["s1"], ["s3"], ["s4"]]


def test_proc_pools_intents_over_a_group_not_sessions() -> None:
    counts = {
        "s1": IntentCounts(completed=1, total=1),  # 1.0 alone
        "s2": IntentCounts(provided=3, total=3),  # 0.0 alone
        "s4": IntentCounts(inferred=0, provided=0, total=0),
        "s3": IntentCounts(completed=1, inferred=1, total=4),
        "s5": IntentCounts(total=0),
    }
    units = pooled_proc(dependency_units(_episode()), counts)
    assert [u.proc for u in units] == [pytest.approx(0.25), pytest.approx(0.5)]
    assert mean_or_none([u.proc for u in units]) == pytest.approx(0.375)


def test_errored_sessions_leave_the_pool() -> None:
    units = pooled_proc([["s1", "s2"]], {"s2": IntentCounts(inferred=2, total=4)})
    assert units[0].sessions == ["s2"] and units[0].proc == 0.5


def test_count_statuses_keeps_unresolved_in_the_denominator() -> None:
    counts = count_statuses(["completed", "provided"], total=4)
    assert (counts.unresolved, counts.proc) == (2, 0.25)


def test_comp_is_weighted_and_skips_ungraded_and_errored() -> None:
    grades = [
        GradeResult("a", "rule", 3.0, 1),
        GradeResult("b", "rule", 1.0, 0),
        GradeResult("c", "rubric", 5.0, None, "no judge"),
        GradeResult("d", "rule", 2.0, None, error="grader failed"),
    ]
    value, basis = comp(grades)
    assert value == pytest.approx(0.75)
    assert basis.as_dict() == {"graders": ["rule"], "graded_items": 2, "ungraded_items": 1, "errored_items": 1}


def test_comp_without_graded_items_is_none() -> None:
    value, basis = comp([GradeResult("c", "rubric", 1.0, None)])
    assert value is None and basis.ungraded == 1
