"""Aggregates over finished runs: the paper's tables, rebuilt from the store.

Every figure follows ``docs/metrics.md`` (computed by :mod:`proactive_bench.scoring.metrics`):

- main: per model × persona × ablation, Proc and Comp over runs (mean,
  sample std, 95 % interval), pass^k, and the sessions that errored, were
  truncated or were not run; partial runs are left out unless asked;
- overall: per model × ablation, one column per persona and an Average
  column over all tasks of every persona (table 1);
- ablation: final sessions of dependency groups with and without history,
  per persona and (ablation_average) pooled over every persona (figure 5);
- model_statuses, model_turns: per model × ablation over every persona, one row (table 7) or point (figure 4,
  turns against table 1's Average Proc) per model as the paper has them;
- statuses, turns: the same per model × persona × ablation, below them;
- categories: per model × ablation, task-averaged Proc / Comp by category (table 8); a task whose category
  is not a taxonomy code (an imported release carries none) is counted under ``unavailable`` (``NO_CATEGORY``), never guessed;
- cost: calls, tokens and USD per model and role;
- flips: per model with repeats, the share of tasks whose verdict or labels differ between them;
- pass_rate: runs of suites scored by task success (odyssey) are left out of
  the tables above and summarised by :mod:`~proactive_bench.reporting.pass_rate`;
- agentif: runs of the AgentIF suite, scored by the paper's bonus/penalty
  formula in :mod:`~proactive_bench.reporting.agentif`.
- trainee: runs of the trainee suite, scored by checkpoints (:mod:`~proactive_bench.reporting.trainee`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from math import comb
from statistics import mean, median
from typing import Any

from proactive_bench.data_model import SessionOutcome
from proactive_bench.dataset import ABLATIONS, CATEGORY_CODES, NO_CATEGORY
from proactive_bench.episode import run_spec
from proactive_bench.reporting.agentif import AgentIFTables, agentif_runs, agentif_tables, is_agentif_run
from proactive_bench.reporting.flips import Outcome, flip_rates, run_outcomes
from proactive_bench.reporting.pass_rate import PassRateTables, is_pass_rate_run, pass_rate_runs, pass_rate_tables
from proactive_bench.reporting.trainee import TraineeTables, is_trainee_run, trainee_days, trainee_tables
from proactive_bench.review import EpisodeShape, episode_shape, stored_run_result
from proactive_bench.scoring import (
    EpisodeResult,
    Failures,
    Scoring,
    TaskScore,
    episode_comp,
    episode_proc,
    run_stats,
)
from proactive_bench.store import ReadQueries, RunLike

Key = tuple[str, str, str]
"""(model, persona, ablation)."""
Arm = tuple[str, str]
"""(model, ablation): one model's runs of one ablation arm over every persona."""


@dataclass
class RunView:
    """One run with its stored results."""

    run: RunLike
    ablation: str
    result: EpisodeResult
    categories: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> Key:
        return (self.run.model, self.run.persona, self.ablation)


class EpisodeShapes:
    """Episode shapes loaded once per dataset and persona."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], EpisodeShape] = {}

    def __call__(self, run: RunLike) -> EpisodeShape:
        spec = run_spec(run)
        key = (spec.data_root, spec.persona)
        if key not in self._cache:
            self._cache[key] = episode_shape(run)
        return self._cache[key]


def load_run(store: ReadQueries, run: RunLike, scoring: Scoring | None = None, shapes: EpisodeShapes | None = None) -> RunView:
    shape = (shapes or EpisodeShapes())(run)
    return RunView(run, run_spec(run).ablation, stored_run_result(store, run, shape.depends_on, scoring), shape.categories)


def load_runs(
    store: ReadQueries, runs: Sequence[RunLike], scoring: Scoring | None = None, shapes: EpisodeShapes | None = None
) -> list[RunView]:
    """Each run with its stored results, oldest first (``shapes``: the episodes already read, else read here)."""
    shapes = shapes or EpisodeShapes()
    return [load_run(store, run, scoring, shapes) for run in sorted(runs, key=lambda r: r.created)]


def run_figures(views: list[RunView], include_partial: bool = False) -> list[dict[str, Any]]:
    """Each run's own figures (:attr:`Summary.runs`): Proc, Comp, sessions done and planned; no statistic over runs, so
    ``pbench runs`` lists them without computing the tables."""
    return [
        {
            "run_id": v.run.id,
            "sweep_id": v.run.sweep_id,
            "model": v.run.model,
            "persona": v.run.persona,
            "ablation": v.ablation,
            "scoring": v.result.scoring.name,
            "status": v.run.status,
            "partial": v.result.partial,
            "included": include_partial or not v.result.partial,
            "failures": v.result.failures.as_dict(),
            "proc": v.result.proc,
            "comp": v.result.comp,
            "sessions_done": len(v.result.sessions),
            "sessions_planned": len(v.result.planned),
        }
        for v in views
    ]


def pass_hat_k(views: list[RunView]) -> dict[str, float]:
    """pass^k for k = 1..len(views), over sessions present in every run."""
    n = len(views)
    per_session: dict[str, list[bool]] = defaultdict(list)
    for view in views:
        for session in view.result.sessions:
            per_session[session.session_id].append(session.passed)
    complete = {sid: flags for sid, flags in per_session.items() if len(flags) == n}
    if not complete:
        return {}
    return {f"pass^{k}": mean(comb(sum(flags), k) / comb(n, k) for flags in complete.values()) for k in range(1, n + 1)}


def failures_of(views: list[RunView]) -> Failures:
    return sum((v.result.failures for v in views), Failures())


@dataclass
class Summary:
    scoring: str = "pbench"
    """The protocol(s) whose scoring rules the figures follow, e.g. ``pbench`` or ``pibench``."""
    main: list[dict[str, Any]] = field(default_factory=list)
    overall: list[dict[str, Any]] = field(default_factory=list)
    ablation: list[dict[str, Any]] = field(default_factory=list)
    ablation_average: list[dict[str, Any]] = field(default_factory=list)
    """Per model: figure 5's Average, the final sessions of every persona's dependency groups pooled, in both arms."""
    model_statuses: list[dict[str, Any]] = field(default_factory=list)
    """Table 7 as the paper has it: per model × ablation, every persona's intents pooled."""
    model_turns: list[dict[str, Any]] = field(default_factory=list)
    """Figure 4 as the paper has it: per model × ablation, follow-up turns per session and table 1's Average Proc."""
    statuses: list[dict[str, Any]] = field(default_factory=list)
    turns: list[dict[str, Any]] = field(default_factory=list)
    categories: list[dict[str, Any]] = field(default_factory=list)
    cost: list[dict[str, Any]] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)
    flips: list[dict[str, Any]] = field(default_factory=list)
    """Per model with repeats: the share of tasks whose verdict or labels differ between them (its noise floor)."""
    pass_rate: PassRateTables = field(default_factory=PassRateTables)
    """Odyssey runs: pass rate per task, per application group and per memory setting."""
    agentif: AgentIFTables = field(default_factory=AgentIFTables)
    """AgentIF runs: the paper's score per task, category, domain and item category, with Proc and burden."""
    trainee: TraineeTables = field(default_factory=TraineeTables)
    """Trainee runs: Checkpoint Score and Success Rate overall, by tasks, difficulty, day and hints."""

    @property
    def pass_keys(self) -> list[str]:
        """The pass^k columns of the main table, k ascending."""
        return sorted({k for row in self.main for k in row if k.startswith("pass^")}, key=lambda k: int(k[5:]))

    @property
    def personas(self) -> list[str]:
        return sorted({row["persona"] for row in self.main})

    def as_dict(self) -> dict[str, Any]:
        return {
            "scoring": self.scoring,
            "main": self.main,
            "overall": self.overall,
            "ablation": self.ablation,
            "ablation_average": self.ablation_average,
            "model_statuses": self.model_statuses,
            "model_turns": self.model_turns,
            "statuses": self.statuses,
            "turns": self.turns,
            "categories": self.categories,
            "cost": self.cost,
            "runs": self.runs,
            "flips": self.flips,
            "pass_rate": self.pass_rate.as_dict(),
            "agentif": self.agentif.as_dict(),
            "trainee": self.trainee.as_dict(),
        }


def summarize(
    store: ReadQueries,
    runs: Sequence[RunLike],
    scoring: Scoring | None = None,
    include_partial: bool = False,
    shapes: EpisodeShapes | None = None,
) -> Summary:
    """Every table over the given runs, each scored by its protocol unless ``scoring`` is given; partial runs count only with ``include_partial``.

    ``shapes`` carries the episodes already read over several summaries (one is made otherwise).
    """
    views = load_runs(store, runs, scoring, shapes)
    summary = Summary(
        scoring=", ".join(sorted({v.result.scoring.name for v in views})) or "pbench", runs=run_figures(views, include_partial)
    )
    groups: dict[Key, list[RunView]] = defaultdict(list)
    excluded: Counter[Key] = Counter()
    pass_rate_views, agentif_views, trainee_views = [], [], []
    for view in views:
        left_out = view.result.partial and not include_partial
        if is_agentif_run(view.run):
            agentif_views += [] if left_out else [view]
        elif is_trainee_run(view.run):
            trainee_views += [] if left_out else [view]
        elif is_pass_rate_run(view.run):
            pass_rate_views += [] if left_out else [view]
        elif left_out:
            excluded[view.key] += 1
        else:
            groups[view.key].append(view)
    summary.pass_rate = pass_rate_tables(pass_rate_runs([(v.run, v.result) for v in pass_rate_views]))
    summary.agentif = agentif_tables(*agentif_runs(store, [(v.run, v.result) for v in agentif_views]))
    summary.trainee = trainee_tables(trainee_days(store, [(v.run, v.result) for v in trainee_views]))
    for key in sorted(set(groups) | set(excluded)):
        model, persona, ablation = key
        members = groups.get(key, [])
        summary.main.append(
            {
                "model": model,
                "persona": persona,
                "ablation": ablation,
                "runs": len(members),
                "partial_runs_left_out": excluded[key],
                "failures": failures_of(members).as_dict(),
                "clipped": {k: sum(v.result.clipped[k] for v in members) for k in ("intents", "items")},
                "proc": run_stats([v.result.proc for v in members]),
                "comp": run_stats([v.result.comp for v in members]),
                **pass_hat_k(members),
            }
        )
    included = [v for members in groups.values() for v in members]
    summary.overall = _overall_rows(summary.main, groups)
    summary.ablation, summary.ablation_average = _ablation_rows(groups)
    summary.statuses = [{"model": m, "persona": p, "ablation": a, **_statuses(members)} for (m, p, a), members in sorted(groups.items())]
    summary.turns = [
        {"model": m, "persona": p, "ablation": a, **turns} for (m, p, a), members in sorted(groups.items()) if (turns := _turns(members))
    ]
    summary.model_statuses, summary.model_turns = _model_rows(groups, summary.overall)
    summary.categories = category_rows(included)
    summary.cost = _cost_rows(store, runs)
    summary.flips = [rate.as_dict() for rate in flip_rates(view_outcomes(included))]
    return summary


def view_outcomes(views: list[RunView]) -> Iterator[tuple[str, tuple[str, str, str], Outcome]]:
    """Every played task's outcome in each run, keyed by model and (persona, ablation, session), for :func:`flip_rates`."""
    for view in views:
        for session_id, outcome in run_outcomes(view.result).items():
            yield view.run.model, (view.run.persona, view.ablation, session_id), outcome


def _overall_rows(main: list[dict[str, Any]], groups: dict[Key, list[RunView]]) -> list[dict[str, Any]]:
    """Table 1: per model × ablation, each persona's figures and the Average over all tasks of every persona.

    The Average of repeat r pools the tasks of every persona's r-th run (in
    creation order); mean ± std are over those repeats.
    """
    rows = []
    for (model, ablation), by_persona in sorted(by_arm(groups).items()):
        repeats = min(len(members) for members in by_persona.values())
        pooled: list[list[TaskScore]] = [[t for members in by_persona.values() for t in members[r].result.tasks] for r in range(repeats)]
        rows.append(
            {
                "model": model,
                "ablation": ablation,
                "personas": {
                    row["persona"]: {"proc": row["proc"], "comp": row["comp"], "failures": row["failures"]}
                    for row in main
                    if (row["model"], row["ablation"]) == (model, ablation) and row["persona"] in by_persona
                },
                "average": {
                    "proc": run_stats([episode_proc(tasks) for tasks in pooled]),
                    "comp": run_stats([episode_comp(tasks) for tasks in pooled]),
                    "repeats": repeats,
                    "failures": failures_of([v for members in by_persona.values() for v in members[:repeats]]).as_dict(),
                },
            }
        )
    return rows


def by_arm(groups: dict[Key, list[RunView]]) -> dict[Arm, dict[str, list[RunView]]]:
    """The runs of each (model, ablation), by persona."""
    arms: dict[Arm, dict[str, list[RunView]]] = defaultdict(dict)
    for (model, persona, ablation), members in groups.items():
        arms[(model, ablation)][persona] = members
    return arms


ARMS = (("with_history", "with history"), ("without_history", "w/o dependencies"))
"""The ablation's two arms: the full run's final sessions, and the ablated run's."""


def _ablation_rows(groups: dict[Key, list[RunView]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Figure 5: per model × persona, the final sessions of its dependency groups in both arms; and per model the
    Average over every persona's finals pooled (the paper's 6 finals × 5 personas)."""
    rows: list[dict[str, Any]] = []
    pooled: dict[str, dict[str, list[float | None]]] = defaultdict(lambda: defaultdict(list))
    finals_of_model: dict[str, list[TaskScore]] = defaultdict(list)
    base, ablated = ABLATIONS
    for (model, persona, ablation), without in sorted(groups.items()):
        if ablation != ablated or (model, persona, base) not in groups:
            continue
        with_ = groups[(model, persona, base)]
        finals = {t.session_id for v in with_ for t in v.result.tasks if len(t.trajectory) > 1 and t.proc_weight}
        if not finals:
            continue
        finals_of = [t for v in [*with_, *without] for t in v.result.tasks if t.session_id in finals]
        finals_of_model[model] += finals_of
        row: dict[str, Any] = {"model": model, "persona": persona, "sessions": sorted(finals), "failures": task_failures(finals_of)}
        for metric, attr in (("proc", "proc"), ("comp", "scored_comp")):
            for arm, members in zip((key for key, _ in ARMS), (with_, without), strict=True):
                values = _values_over(members, attr, finals)
                pooled[model][f"{metric}_{arm}"] += values
                row[f"{metric}_{arm}"] = _mean_of(values)
            row[f"{metric}_delta"] = _delta(row, metric)
        rows.append(row)
    averages = []
    for model, by_arm in sorted(pooled.items()):
        average: dict[str, Any] = {
            "model": model,
            "personas": sorted(r["persona"] for r in rows if r["model"] == model),
            "sessions": sum(len(r["sessions"]) for r in rows if r["model"] == model),
            "failures": task_failures(finals_of_model[model]),
        }
        for metric in ("proc", "comp"):
            for arm, _ in ARMS:
                average[f"{metric}_{arm}"] = _mean_of(by_arm[f"{metric}_{arm}"])
            average[f"{metric}_delta"] = _delta(average, metric)
        averages.append(average)
    return rows, averages


def _values_over(members: list[RunView], metric: str, sessions: set[str]) -> list[float | None]:
    """One session metric of every run, counting only the given sessions."""
    return [getattr(s, metric) for v in members for s in v.result.sessions if s.session_id in sessions]


def _mean_of(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return mean(present) if present else None


def _delta(row: dict[str, Any], metric: str) -> float | None:
    """Without − with: a negative Δ is what the earlier sessions were worth."""
    with_h, without_h = row[f"{metric}_with_history"], row[f"{metric}_without_history"]
    return None if with_h is None or without_h is None else without_h - with_h


def _model_rows(groups: dict[Key, list[RunView]], overall: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Table 7 and figure 4 as the paper has them: one row per model (× ablation), every persona's runs together; each
    figure 4 point pairs the follow-up turns with table 1's Average Proc of that model."""
    statuses, turns = [], []
    average_proc = {(row["model"], row["ablation"]): row["average"]["proc"] for row in overall}
    for (model, ablation), by_persona in sorted(by_arm(groups).items()):
        members = [v for views in by_persona.values() for v in views]
        head = {"model": model, "ablation": ablation, "personas": sorted(by_persona)}
        statuses.append(head | _statuses(members))
        if (follow_ups := _turns(members)) is not None:
            turns.append(head | follow_ups | {"proc": average_proc[(model, ablation)], "failures": failures_of(members).as_dict()})
    return statuses, turns


def _statuses(members: list[RunView]) -> dict[str, Any]:
    """Table 7: shares of intents by final status (an errored session's intents are unresolved, unless the scoring grades
    it) and session outcomes, over the given runs."""
    sessions = [s for v in members for s in v.result.sessions]
    counts = [s.scored_counts for s in sessions]
    total = sum(c.total for c in counts)
    outcome = Counter(s.status for s in sessions)
    return {
        "intents_total": total,
        "intents": {f: sum(getattr(c, f) for c in counts) / (total or 1) for f in ("completed", "inferred", "provided", "unresolved")},
        "sessions": {
            status: outcome.get(status, 0) for status in (SessionOutcome.COMPLETED, SessionOutcome.TRUNCATED, SessionOutcome.ERROR)
        }
        | {"not_run": failures_of(members).not_run},
    }


def _turns(members: list[RunView]) -> dict[str, Any] | None:
    """Figure 4: follow-up user turns per session over the given runs (errored sessions left out); None without any."""
    turns = [s.follow_up_turns for v in members for s in v.result.sessions if s.status != SessionOutcome.ERROR]
    if not turns:
        return None
    return {
        "sessions": len(turns),
        "mean": mean(turns),
        "median": median(turns),
        "max": max(turns),
        "histogram": dict(sorted(Counter(turns).items())),
    }


def category_rows(views: list[RunView]) -> list[dict[str, Any]]:
    """Table 8: per model × ablation and task category, Proc and Comp averaged over that category's tasks of every run;
    tasks without a taxonomy category under :data:`NO_CATEGORY`."""
    cells: dict[tuple[str, str, str], list[TaskScore]] = defaultdict(list)
    for view in views:
        for task in view.result.tasks:
            cells[(view.run.model, view.ablation, category_of(view, task.session_id))].append(task)
    return [
        {
            "model": model,
            "ablation": ablation,
            "category": category,
            "tasks": len(tasks),
            "proc": episode_proc(tasks),
            "comp": episode_comp(tasks),
            "failures": task_failures(tasks),
        }
        for (model, ablation, category), tasks in sorted(cells.items())
    ]


def category_of(view: RunView, session_id: str) -> str:
    """A task's taxonomy code, or :data:`NO_CATEGORY` when its dataset gives none (an imported release's task type is not one)."""
    category = view.categories.get(session_id, "")
    return category if category in CATEGORY_CODES else NO_CATEGORY


def task_failures(tasks: list[TaskScore]) -> dict[str, int]:
    """Errored and truncated sessions among tasks (a task that was not run has no score to count)."""
    return Failures(
        sum(t.status == SessionOutcome.ERROR for t in tasks), sum(t.status == SessionOutcome.TRUNCATED for t in tasks)
    ).as_dict()


def _cost_rows(store: ReadQueries, runs: Sequence[RunLike]) -> list[dict[str, Any]]:
    totals: dict[tuple[str, str], dict[str, Any]] = {}
    for run in runs:
        for call in store.llm_calls(run.id):
            row = totals.setdefault(
                (run.model, call.role),
                {
                    "model": run.model,
                    "role": call.role,
                    "calls": 0,
                    "cached": 0,
                    "failed": 0,
                    "prompt_tokens": 0,
                    "completion_tokens": 0,
                    "cost_usd": 0.0,
                    "unpriced_calls": 0,
                },
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
