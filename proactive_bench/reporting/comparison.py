"""``pbench results B --compare A``: two agents' Proc and Comp, task by task, with a paired bootstrap and a permutation test.

Each side is a run or a sweep. A task is a (persona, ablation, session) that
both sides scored; its value on a side is the mean over that side's runs. Proc
pairs the tasks scored for Proc (a dependency group's final session, weighted by
the group's size, as a run's Proc weighs it); Comp pairs every task with a Comp.
Tasks only one side scored are listed, never paired. Each side's repeats give
its models' flip rates; the larger is the comparison's noise floor, and a
difference smaller than it is marked.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import mean
from typing import Any

from rich.table import Table

from proactive_bench.reporting.flips import FlipRate, TaskKey, flip_rates
from proactive_bench.reporting.summary import RunView, load_run, view_outcomes
from proactive_bench.reporting.tables import WHOLE, flip_table, pct
from proactive_bench.scoring import PairedDifference, Scoring, paired_difference
from proactive_bench.store import ReadQueries, RunLike

FIGURES = {"proc": "Proc", "comp": "Comp"}


def counted_views(store: ReadQueries, runs: Sequence[RunLike], scoring: Scoring | None = None) -> list[RunView]:
    """The runs of one side with their results; partial runs are left out."""
    views = [load_run(store, run, scoring) for run in sorted(runs, key=lambda r: r.created)]
    return [view for view in views if not view.result.partial]


def task_values(views: list[RunView]) -> dict[str, tuple[dict[TaskKey, float], dict[TaskKey, float]]]:
    """Per figure (``proc``, ``comp``): each task's mean over the runs, and its weight."""
    values: dict[str, dict[TaskKey, list[float]]] = {"proc": defaultdict(list), "comp": defaultdict(list)}
    weights: dict[str, dict[TaskKey, float]] = {"proc": {}, "comp": {}}
    for view in views:
        for task in view.result.tasks:
            key = (view.run.persona, view.ablation, task.session_id)
            if task.proc_weight and task.proc is not None:
                values["proc"][key].append(task.proc)
                weights["proc"][key] = task.proc_weight
            if task.comp_weight and task.comp is not None:
                values["comp"][key].append(task.comp)
                weights["comp"][key] = task.comp_weight
    return {figure: ({k: mean(v) for k, v in values[figure].items()}, weights[figure]) for figure in values}


@dataclass(frozen=True)
class Comparison:
    """B − A per figure, the tasks only one side has, and each side's flip rates."""

    a: str
    b: str
    differences: dict[str, PairedDifference | None]
    """Per figure; None when the sides share no task of it."""
    only_a: list[TaskKey]
    only_b: list[TaskKey]
    models_a: list[str]
    models_b: list[str]
    flips_a: list[FlipRate]
    flips_b: list[FlipRate]

    @property
    def noise_floor(self) -> float | None:
        """The largest flip rate of any model on either side; None when neither side has repeats."""
        rates = [f.rate for f in (*self.flips_a, *self.flips_b)]
        return max(rates) if rates else None

    def below_noise(self, figure: str) -> bool | None:
        """|Δ| smaller than the noise floor; None without a floor or a difference."""
        d, floor = self.differences[figure], self.noise_floor
        return None if d is None or floor is None else abs(d.difference) < floor

    def as_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "models": {"a": self.models_a, "b": self.models_b},
            **{
                figure: None if d is None else d.as_dict() | {"below_noise_floor": self.below_noise(figure)}
                for figure, d in self.differences.items()
            },
            "tasks_differ": bool(self.only_a or self.only_b),
            "only_a": [_task_dict(t) for t in self.only_a],
            "only_b": [_task_dict(t) for t in self.only_b],
            "flips": {"a": [f.as_dict() for f in self.flips_a], "b": [f.as_dict() for f in self.flips_b]},
            "noise_floor": self.noise_floor,
        }


def _task_dict(task: TaskKey) -> dict[str, str]:
    return dict(zip(("persona", "ablation", "session_id"), task, strict=True))


def compare_runs(
    store: ReadQueries,
    runs_a: Sequence[RunLike],
    runs_b: Sequence[RunLike],
    scoring: Scoring | None = None,
    labels: tuple[str, str] = ("A", "B"),
) -> Comparison:
    """B − A for Proc and Comp over the tasks both sides scored, with the tasks only one side has and each side's flip rates."""
    views_a, views_b = counted_views(store, runs_a, scoring), counted_views(store, runs_b, scoring)
    side_a, side_b = task_values(views_a), task_values(views_b)
    tasks_a, tasks_b = ({k for figure in side.values() for k in figure[0]} for side in (side_a, side_b))
    return Comparison(
        *labels,
        differences={
            figure: paired_difference(side_a[figure][0], side_b[figure][0], weights=side_a[figure][1] | side_b[figure][1])
            for figure in FIGURES
        },
        only_a=sorted(tasks_a - tasks_b),
        only_b=sorted(tasks_b - tasks_a),
        models_a=sorted({v.run.model for v in views_a}),
        models_b=sorted({v.run.model for v in views_b}),
        flips_a=flip_rates(view_outcomes(views_a)),
        flips_b=flip_rates(view_outcomes(views_b)),
    )


def comparison_dict(comparison: Comparison) -> dict[str, Any]:
    """Every figure of a comparison, for ``--format json``."""
    return comparison.as_dict()


def comparison_tables(comparison: Comparison) -> list[Table]:
    """The differences; each side's flip rates when it has repeats; the tasks only one side has, when any."""
    tables = [comparison_table(comparison)]
    for side, label, flips in (("A", comparison.a, comparison.flips_a), ("B", comparison.b, comparison.flips_b)):
        if flips:
            tables.append(flip_table([f.as_dict() for f in flips], f"Flip rate between repeats (%), {side} = {label}"))
    if comparison.only_a or comparison.only_b:
        tasks = Table(title=f"Tasks on one side only (not paired): {len(comparison.only_a)} only in A, {len(comparison.only_b)} only in B")
        for name in ("side", "persona", "ablation", "session"):
            tasks.add_column(name, no_wrap=True)
        for side, only in (("A", comparison.only_a), ("B", comparison.only_b)):
            for task in only:
                tasks.add_row(side, *task)
        tables.append(tasks)
    return tables


def comparison_table(comparison: Comparison) -> Table:
    """One row per figure: both means, B − A with its 95 % paired bootstrap interval, the permutation p-value, the noise floor."""
    floor = comparison.noise_floor
    notes = [
        "95 % paired bootstrap over tasks (2,000 resamples, seeded); p: two-sided paired sign-flip permutation test "
        "(exact up to 20 differing tasks, else 10,000 seeded draws).",
        "noise floor: the largest flip rate between repeats on either side"
        + (f" ({pct(floor)} %); ~ marks |Δ| below it." if floor is not None else ": n/a (neither side has repeats)."),
    ]
    if comparison.only_a or comparison.only_b:
        notes.append(f"The task sets differ: {len(comparison.only_a)} only in A, {len(comparison.only_b)} only in B (listed below).")
    table = Table(title=f"B − A, paired by task (%): A = {comparison.a}, B = {comparison.b}", caption=" ".join(notes))
    for name in ("figure", "A", "B", "Δ (B − A)", "95% CI", "p", "tasks paired", "only A / only B"):
        table.add_column(name, justify="left" if name in (*WHOLE, "figure") else "right", no_wrap=name == "figure")
    for figure, name in FIGURES.items():
        d = comparison.differences[figure]
        if d is None:
            table.add_row(name, "—", "—", "—", "n/a", "n/a", "0", "")
            continue
        ci = "n/a" if d.interval is None else f"[{100 * d.interval[0]:+.1f}, {100 * d.interval[1]:+.1f}]"
        delta = f"{100 * d.difference:+.1f}" + (" ~" if comparison.below_noise(figure) else "")
        p = f"{d.p_value:.4f}" + (" (exact)" if d.p_method == "exact" else f" ({d.permutations:,} draws)")
        table.add_row(name, pct(d.mean_a), pct(d.mean_b), delta, ci, p, str(d.pairs), f"{d.only_a} / {d.only_b}")
    return table
