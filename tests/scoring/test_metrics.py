"""The formulas of docs/metrics.md, one rule at a time (the whole pipeline: test_golden_metrics.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from proactive_bench.dataset.ablation import dependency_units, depends_on_map
from proactive_bench.dataset.schema import Episode
from proactive_bench.scoring.grading import GradeResult
from proactive_bench.scoring.metrics import (
    DEFAULT_SCORING,
    PIBENCH_SCORING,
    IntentCounts,
    chains,
    comp,
    count_statuses,
    episode_comp,
    episode_proc,
    run_stats,
    task_scores,
    trajectories,
)


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


@dataclass
class S:
    session_id: str
    counts: IntentCounts
    grades: list[GradeResult] = field(default_factory=list)
    status: str = "completed"


def test_dependency_units_are_connected_components_in_order() -> None:
    assert dependency_units(_episode()) == [["s1", "s2", "s4"], ["s3", "s5"]]
    assert dependency_units(_episode(), ["s1", "s3", "s4"]) == [["s1"], ["s3"], ["s4"]]


def test_trajectories_are_transitive_closures_within_the_run() -> None:
    deps = depends_on_map(_episode())
    assert trajectories(deps, ["s1", "s2", "s3", "s4", "s5"]) == {
        "s1": ["s1"],
        "s2": ["s1", "s2"],
        "s3": ["s3"],
        "s4": ["s1", "s2", "s4"],
        "s5": ["s3", "s5"],
    }
    assert trajectories(deps, ["s3", "s4"]) == {"s3": ["s3"], "s4": ["s4"]}  # an ablated run: no history
    assert chains([["s1", "s2", "s4"], ["s3"]]) == {"s1": [], "s2": ["s1"], "s4": ["s2"], "s3": []}


def test_a_cycle_in_depends_on_does_not_loop() -> None:
    assert trajectories({"a": ["b"], "b": ["a"]}, ["a", "b"]) == {"a": ["a", "b"], "b": ["a", "b"]}


def test_proc_pools_each_trajectory_and_a_group_weighs_by_its_size() -> None:
    sessions = [
        S("s1", IntentCounts(completed=1, total=1)),
        S("s2", IntentCounts(provided=3, total=3)),
        S("s3", IntentCounts(completed=1, inferred=1, total=4)),
        S("s4", IntentCounts(total=0)),
        S("s5", IntentCounts(total=0)),
    ]
    tasks = {t.session_id: t for t in task_scores(sessions, depends_on_map(_episode()))}
    assert [tasks[s].proc_weight for s in ("s1", "s2", "s3", "s4", "s5")] == [0, 0, 0, 3, 2]
    assert tasks["s4"].proc == pytest.approx(1 / 4) and tasks["s5"].proc == pytest.approx(2 / 4)
    assert episode_proc(tasks.values()) == pytest.approx((3 * 1 / 4 + 2 * 2 / 4) / 5)


def test_a_group_does_not_weigh_as_much_as_an_independent_session() -> None:
    """Perfect except on later sessions: a pooled group mean would say (1/2 + 1) / 2."""
    deps = {"a": [], "b": ["a"], "c": ["b"], "d": []}
    sessions = [
        S("a", IntentCounts(completed=2, total=2)),
        S("b", IntentCounts(provided=2, total=2)),
        S("c", IntentCounts(provided=2, total=2)),
        S("d", IntentCounts(completed=2, total=2)),
    ]
    assert episode_proc(task_scores(sessions, deps)) == pytest.approx((3 * 2 / 6 + 1 * 1.0) / 4)


def test_an_errored_session_counts_its_intents_as_not_proactive_and_comp_zero() -> None:
    sessions = [
        S("a", IntentCounts(completed=2, total=2), [GradeResult("x", "rule", 1.0, 1)]),
        S("b", IntentCounts(completed=1, total=3), [], status="error"),
    ]
    tasks = task_scores(sessions, {"a": [], "b": []})
    assert episode_proc(tasks) == pytest.approx((1.0 + 0.0) / 2)
    assert episode_comp(tasks) == pytest.approx((1.0 + 0.0) / 2)


def test_count_statuses_keeps_unresolved_in_the_denominator() -> None:
    counts = count_statuses(["completed", "provided"], total=4)
    assert (counts.unresolved, counts.proc) == (2, 0.25)


GRADES = [
    GradeResult("a", "rule", 3.0, 1),
    GradeResult("b", "rule", 1.0, 0),
    GradeResult("c", "rubric", 5.0, None, "no judge"),
    GradeResult("d", "rule", 2.0, None, error="grader failed"),
]


def test_comp_is_weighted_and_skips_ungraded_and_errored() -> None:
    value, basis = comp(GRADES)
    assert value == pytest.approx(0.75)
    assert basis.as_dict() == {"graders": ["rule"], "graded_items": 2, "ungraded_items": 1, "errored_items": 1}


def test_pibench_comp_is_unweighted_and_scores_errored_items_zero() -> None:
    value, _ = comp(GRADES, PIBENCH_SCORING)
    assert value == pytest.approx(1 / 3)


def test_comp_without_graded_items_is_none() -> None:
    value, basis = comp([GradeResult("c", "rubric", 1.0, None)])
    assert value is None and basis.ungraded == 1


def test_pibench_weighs_comp_by_trajectory_size() -> None:
    sessions = [
        S("a", IntentCounts(total=1), [GradeResult("x", "rule", 1.0, 1)]),
        S("b", IntentCounts(total=1), [GradeResult("y", "rule", 1.0, 0)]),
    ]
    deps = {"a": [], "b": ["a"]}
    assert episode_comp(task_scores(sessions, deps, DEFAULT_SCORING)) == pytest.approx(0.5)
    assert episode_comp(task_scores(sessions, deps, PIBENCH_SCORING)) == pytest.approx(1 / 3)


def test_run_stats_use_the_sample_std_and_a_t_interval() -> None:
    stats = run_stats([0.5, 0.6, 0.7])
    assert stats["std"] == pytest.approx(0.1) and stats["n"] == 3
    assert stats["ci95"] == pytest.approx(4.303 * 0.1 / 3**0.5)
    assert run_stats([0.4]) == {"mean": 0.4, "std": None, "ci95": None, "boot95": None, "n": 1}
    assert run_stats([None]) == {"mean": None, "std": None, "ci95": None, "boot95": None, "n": 0}
