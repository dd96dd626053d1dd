"""Aggregates over finished runs: the paper's tables, rebuilt from the store.

- main: per model × persona × ablation, Proc and Comp as mean ± std over runs
  (table 1), and pass^k for k = 1..runs, where a session passes a run when
  every graded checklist item passes and none errored (ungraded items are
  left out), estimated as the mean over sessions of C(c, k) / C(n, k);
- ablation: per model × persona, Proc and Comp of each dependency group's
  final session with and without the group's earlier sessions, and the deltas;
- statuses: share of intents completed / inferred / provided / unresolved
  and of sessions completed / truncated / error (table 7);
- turns: turns per session (figure 4);
- cost: calls, tokens and USD per model and role (agent, user, judge).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from math import comb
from statistics import mean, median, pstdev
from typing import Any

from proactive_bench.ablation import ABLATIONS
from proactive_bench.checkpoints import FINAL_STATUSES, stored_session_result
from proactive_bench.launch import run_spec
from proactive_bench.metrics import pooled_proc
from proactive_bench.results import EpisodeResult
from proactive_bench.store import Run, Store


@dataclass
class RunView:
    """One run with its stored results."""

    run: Run
    ablation: str
    result: EpisodeResult

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.run.model, self.run.persona, self.ablation)


def load_run(store: Store, run: Run) -> RunView:
    sessions = [stored_session_result(store, sr) for sr in store.session_runs(run.id) if sr.status in FINAL_STATUSES]
    counts = {s.session_id: s.counts for s in sessions if s.status != "error"}
    result = EpisodeResult(run.id, run.persona, run.model, sessions, pooled_proc(run.units, counts))
    return RunView(run, run_spec(run).ablation, result)


def _stats(values: list[float | None]) -> dict[str, float | int | None]:
    present = [v for v in values if v is not None]
    if not present:
        return {"mean": None, "std": None, "n": 0}
    return {"mean": mean(present), "std": pstdev(present) if len(present) > 1 else 0.0, "n": len(present)}


def session_passed(session: Any) -> bool:
    graded = [g for g in session.grades if g.status in ("pass", "fail", "error")]
    return session.status != "error" and bool(graded) and all(g.status == "pass" for g in graded)


def pass_hat_k(views: list[RunView]) -> dict[str, float]:
    """pass^k for k = 1..len(views), over sessions present in every run."""
    n = len(views)
    per_session: dict[str, list[bool]] = defaultdict(list)
    for view in views:
        for session in view.result.sessions:
            per_session[session.session_id].append(session_passed(session))
    complete = {sid: flags for sid, flags in per_session.items() if len(flags) == n}
    if not complete:
        return {}
    return {f"pass^{k}": mean(comb(sum(flags), k) / comb(n, k) for flags in complete.values()) for k in range(1, n + 1)}


@dataclass
class Summary:
    main: list[dict[str, Any]] = field(default_factory=list)
    ablation: list[dict[str, Any]] = field(default_factory=list)
    statuses: list[dict[str, Any]] = field(default_factory=list)
    turns: list[dict[str, Any]] = field(default_factory=list)
    cost: list[dict[str, Any]] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def pass_keys(self) -> list[str]:
        """The pass^k columns of the main table, k ascending."""
        return sorted({k for row in self.main for k in row if k.startswith("pass^")}, key=lambda k: int(k[5:]))

    def as_dict(self) -> dict[str, Any]:
        return {"main": self.main, "ablation": self.ablation, "statuses": self.statuses, "turns": self.turns, "cost": self.cost, "runs": self.runs}


def summarize(store: Store, runs: list[Run]) -> Summary:
    views = [load_run(store, run) for run in runs]
    summary = Summary(runs=[{"run_id": v.run.id, "sweep_id": v.run.sweep_id, "model": v.run.model, "persona": v.run.persona, "ablation": v.ablation, "status": v.run.status} for v in views])
    groups: dict[tuple[str, str, str], list[RunView]] = defaultdict(list)
    for view in views:
        groups[view.key].append(view)
    for (model, persona, ablation), members in sorted(groups.items()):
        summary.main.append(
            {
                "model": model, "persona": persona, "ablation": ablation, "runs": len(members),
                "proc": _stats([v.result.proc for v in members]), "comp": _stats([v.result.comp for v in members]),
                **pass_hat_k(members),
            }
        )
    summary.ablation = _ablation_rows(groups)
    summary.statuses = _status_rows(views)
    summary.turns = _turn_rows(views)
    summary.cost = _cost_rows(store, runs)
    return summary


def _ablation_rows(groups: dict[tuple[str, str, str], list[RunView]]) -> list[dict[str, Any]]:
    rows = []
    base, ablated = ABLATIONS
    for (model, persona, ablation), without in sorted(groups.items()):
        if ablation != ablated or (model, persona, base) not in groups:
            continue
        finals = {u[-1] for v in groups[(model, persona, base)] for u in v.run.units if len(u) > 1}
        if not finals:
            continue

        def scores(members: list[RunView], metric: str) -> float | None:
            values = [getattr(s, metric) for v in members for s in v.result.sessions if s.session_id in finals]
            return _stats(values)["mean"]  # type: ignore[return-value]

        row: dict[str, Any] = {"model": model, "persona": persona, "sessions": sorted(finals)}
        for metric in ("proc", "comp"):
            with_h, without_h = scores(groups[(model, persona, base)], metric), scores(without, metric)
            row[f"{metric}_with_history"] = with_h
            row[f"{metric}_without_history"] = without_h
            row[f"{metric}_delta"] = None if with_h is None or without_h is None else without_h - with_h
        rows.append(row)
    return rows


def _status_rows(views: list[RunView]) -> list[dict[str, Any]]:
    by_model: dict[str, list[RunView]] = defaultdict(list)
    for view in views:
        by_model[view.run.model].append(view)
    rows = []
    for model, members in sorted(by_model.items()):
        sessions = [s for v in members for s in v.result.sessions]
        total = sum(s.counts.total for s in sessions) or 1
        outcome = Counter(s.status for s in sessions)
        rows.append(
            {
                "model": model,
                "intents": {f: sum(getattr(s.counts, f) for s in sessions) / total for f in ("completed", "inferred", "provided", "unresolved")},
                "sessions": {status: outcome.get(status, 0) for status in ("completed", "truncated", "error")},
            }
        )
    return rows


def _turn_rows(views: list[RunView]) -> list[dict[str, Any]]:
    by_model: dict[str, list[int]] = defaultdict(list)
    for view in views:
        by_model[view.run.model] += [s.turns for s in view.result.sessions]
    return [
        {"model": model, "mean": mean(turns), "median": median(turns), "max": max(turns), "histogram": dict(sorted(Counter(turns).items()))}
        for model, turns in sorted(by_model.items())
        if turns
    ]


def _cost_rows(store: Store, runs: list[Run]) -> list[dict[str, Any]]:
    totals: dict[tuple[str, str], dict[str, Any]] = {}
    for run in runs:
        for call in store.llm_calls(run.id):
            row = totals.setdefault(
                (run.model, call.role),
                {"model": run.model, "role": call.role, "calls": 0, "cached": 0, "failed": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0, "unpriced_calls": 0},
            )
            row["calls"] += 1
            row["cached"] += int(call.cached)
            row["failed"] += int(not call.ok)
            row["prompt_tokens"] += call.prompt_tokens or 0
            row["completion_tokens"] += call.completion_tokens or 0
            if call.cost_usd is None:
                row["unpriced_calls"] += int(not call.cached)
            else:
                row["cost_usd"] += call.cost_usd
    return [totals[k] for k in sorted(totals)]
