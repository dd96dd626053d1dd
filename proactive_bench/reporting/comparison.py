"""``pbench results --compare A B``: two agents' Proc and Comp, task by task, with a paired bootstrap.

Each side is a run or a sweep. A task is a (persona, ablation, session) that
both sides scored; its value on a side is the mean over that side's runs. Proc
pairs the tasks scored for Proc (a dependency group's final session, weighted by
the group's size, as a run's Proc weighs it); Comp pairs every task with a Comp.
"""

from __future__ import annotations

from collections import defaultdict
from statistics import mean
from typing import Any

from rich.table import Table

from proactive_bench.reporting.summary import load_run
from proactive_bench.reporting.tables import pct
from proactive_bench.scoring import PairedDifference, Scoring, paired_difference
from proactive_bench.store import Run, Store

TaskKey = tuple[str, str, str]
"""(persona, ablation, session id)."""


def task_values(
    store: Store, runs: list[Run], scoring: Scoring | None = None
) -> dict[str, tuple[dict[TaskKey, float], dict[TaskKey, float]]]:
    """Per figure (``proc``, ``comp``): each task's mean over the runs, and its weight. Partial runs are left out."""
    values: dict[str, dict[TaskKey, list[float]]] = {"proc": defaultdict(list), "comp": defaultdict(list)}
    weights: dict[str, dict[TaskKey, float]] = {"proc": {}, "comp": {}}
    for run in runs:
        view = load_run(store, run, scoring)
        if view.result.partial:
            continue
        for task in view.result.tasks:
            key = (run.persona, view.ablation, task.session_id)
            if task.proc_weight and task.proc is not None:
                values["proc"][key].append(task.proc)
                weights["proc"][key] = task.proc_weight
            if task.comp_weight and task.comp is not None:
                values["comp"][key].append(task.comp)
                weights["comp"][key] = task.comp_weight
    return {figure: ({k: mean(v) for k, v in values[figure].items()}, weights[figure]) for figure in values}


def compare_runs(store: Store, runs_a: list[Run], runs_b: list[Run], scoring: Scoring | None = None) -> dict[str, PairedDifference | None]:
    """B − A for Proc and Comp over the tasks both sides scored (None for a figure they share no task of)."""
    side_a, side_b = task_values(store, runs_a, scoring), task_values(store, runs_b, scoring)
    return {
        figure: paired_difference(side_a[figure][0], side_b[figure][0], weights=side_a[figure][1] | side_b[figure][1])
        for figure in ("proc", "comp")
    }


def comparison_dict(labels: tuple[str, str], differences: dict[str, PairedDifference | None]) -> dict[str, Any]:
    return {"a": labels[0], "b": labels[1], **{figure: None if d is None else d.as_dict() for figure, d in differences.items()}}


def comparison_table(labels: tuple[str, str], differences: dict[str, PairedDifference | None]) -> Table:
    """One row per figure: both means, B − A with its 95 % paired bootstrap interval, and the pairs behind it."""
    table = Table(
        title=f"B − A, paired by task (%): A = {labels[0]}, B = {labels[1]}",
        caption="95 % paired bootstrap over tasks (2,000 resamples, seeded); P(Δ ≤ 0) is the share of resamples where B does not beat A.",
    )
    for name in ("figure", "A", "B", "Δ (B − A)", "95% CI", "P(Δ ≤ 0)", "tasks paired", "only A / only B"):
        table.add_column(name, justify="left" if name == "figure" else "right", no_wrap=name == "figure")
    for figure, d in differences.items():
        name = "Proc" if figure == "proc" else "Comp"
        if d is None:
            table.add_row(name, "—", "—", "—", "n/a", "n/a", "0", "")
            continue
        ci = "n/a" if d.interval is None else f"[{100 * d.interval[0]:+.1f}, {100 * d.interval[1]:+.1f}]"
        share = "n/a" if d.share_not_above_zero is None else f"{d.share_not_above_zero:.3f}"
        table.add_row(name, pct(d.mean_a), pct(d.mean_b), f"{100 * d.difference:+.1f}", ci, share, str(d.pairs), f"{d.only_a} / {d.only_b}")
    return table
