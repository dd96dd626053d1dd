"""Pass-rate tables of suites scored by task success (odyssey): per task, per application group, per memory setting.

Definitions (docs/metrics.md, "Odyssey tasks"):

- a run of a task **passes** when its session did not error and every
  criterion (rule checklist item) passed; an errored or unplayed session fails;
- a task's pass rate is the share of its runs (repeats) that passed;
- a group's pass rate (``1-app``, ``2-app``, ``3-app``) is the mean over its
  tasks, and ``overall`` is the macro-average over every task (the seed's table 2);
- the memory table gives, per model × memory setting × top-k, the overall
  pass rate and the mean tokens of the context the sessions opened with (table 3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

from proactive_bench.data_model import SessionOutcome
from proactive_bench.episode import run_spec
from proactive_bench.reporting.row_tables import Rows, RowTables, group_by, no_rows
from proactive_bench.scoring import EpisodeResult
from proactive_bench.store import RunLike
from proactive_bench.suites import DEFAULT_SUITE, SUITES

GROUPS = ("1-app", "2-app", "3-app")


def run_passed(result: EpisodeResult) -> bool:
    """Every planned session played without error and every graded rule item passed."""
    sessions = result.sessions
    if not sessions or result.failures.not_run:
        return False
    return all(
        s.status != SessionOutcome.ERROR and bool(s.grades) and all(g.status == "pass" for g in s.grades if g.grader == "rule")
        for s in sessions
    )


@dataclass
class PassRateRun:
    """One run of a pass-rate suite, as the tables see it."""

    run: RunLike
    result: EpisodeResult
    group: str
    memory: str
    top_k: int | None
    context_tokens: int | None

    @property
    def setting(self) -> tuple[str, str, int | None]:
        return (self.run.model, self.memory, self.top_k)


class _Groups:
    """Each task's group, read once per dataset and task."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str, str], str] = {}

    def __call__(self, run: RunLike) -> str:
        spec = run_spec(run)
        key = (spec.suite, spec.data_root, spec.persona)
        if key not in self._cache:
            group = SUITES.get(spec.suite).group(Path(spec.data_root), spec.persona) if spec.suite in SUITES else None
            self._cache[key] = group or "?"
        return self._cache[key]


def is_pass_rate_run(run: RunLike) -> bool:
    """Whether the run belongs to a suite scored by task success (any suite but personas)."""
    return run_spec(run).suite != DEFAULT_SUITE


def pass_rate_runs(runs: Sequence[tuple[RunLike, EpisodeResult]]) -> list[PassRateRun]:
    groups = _Groups()
    out = []
    for run, result in runs:
        spec = run_spec(run)
        out.append(
            PassRateRun(
                run,
                result,
                groups(run),
                spec.suite_settings.get("memory") or "long-context",
                spec.suite_settings.get("top_k"),
                spec.memory_tokens,
            )
        )
    return out


@dataclass
class PassRateTables(RowTables):
    tasks: Rows = no_rows()
    groups: Rows = no_rows()
    memory: Rows = no_rows()


def pass_rate_tables(runs: list[PassRateRun]) -> PassRateTables:
    """The per-task, per-group (table 2) and memory-setting (table 3) rows."""
    by_task = group_by(runs, lambda r: (*r.setting, r.run.persona))
    tables = PassRateTables()
    for (model, memory, top_k, task), members in sorted(by_task.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or 0, kv[0][3])):
        tokens = [m.context_tokens for m in members if m.context_tokens is not None]
        tables.tasks.append(
            {
                "model": model,
                "memory": memory,
                "top_k": top_k,
                "task": task,
                "group": members[0].group,
                "runs": len(members),
                "passed": sum(run_passed(m.result) for m in members),
                "pass_rate": mean(float(run_passed(m.result)) for m in members),
                "errored": sum(m.result.failures.error for m in members),
                "grader_errors": sum(any(g.status == "error" for s in m.result.sessions for g in s.grades) for m in members),
                "context_tokens": mean(tokens) if tokens else None,
            }
        )
    for (model, memory, top_k), rows in group_by(tables.tasks, lambda row: (row["model"], row["memory"], row["top_k"])).items():
        per_group = {g: [r["pass_rate"] for r in rows if r["group"] == g] for g in GROUPS}
        tokens = [r["context_tokens"] for r in rows if r["context_tokens"] is not None]
        shared = {
            "model": model,
            "memory": memory,
            "top_k": top_k,
            "tasks": len(rows),
            "errored": sum(r["errored"] for r in rows),
            "grader_errors": sum(r["grader_errors"] for r in rows),
        }
        tables.groups.append(
            {
                **shared,
                **{g: (mean(v) if v else None) for g, v in per_group.items()},
                **{f"{g} tasks": len(v) for g, v in per_group.items()},
                "overall": mean(r["pass_rate"] for r in rows),
            }
        )
        tables.memory.append(
            {**shared, "pass_rate": mean(r["pass_rate"] for r in rows), "context_tokens": mean(tokens) if tokens else None}
        )
    return tables
