"""``pbench validate --oracle``: the scripted baselines on a dataset, held to the quality bar.

A dataset is fit for scoring when the baselines land where they must:
``scripted:reference`` completes every intent and passes every rule item,
``scripted:passive`` is not proactive, ``scripted:asker`` gets most intents
inferred, ``scripted:passive`` passes every rule item once it has been told
everything, and ``scripted:surface`` (the stated request only) loses every
rule item tied to a hidden intent; the adversarial baselines
(``scripted:shotgun``, ``drip``, ``vague``, ``claimer``, ``stuffer``: see
:mod:`proactive_bench.scaffolds.adversarial`) earn nearly nothing. Baselines that act on what the user
reveals run twice: with intents revealed in the session's order and in
reverse, so a reference solution whose steps only work in one order, or an
intent whose evidence another intent's steps satisfy, fails here.

Each baseline is one :class:`OracleBar` in :data:`BASELINES`; a new baseline
(or an adversarial one) is one more line there. Odyssey tasks are held to
:data:`PASS_RATE_BASELINES`, AgentIF tasks to :data:`AGENTIF_BASELINES` (the
reference scores 1.0, the adversaries next to nothing, the stuffer
triggering a penalty); :func:`dropped_step_outcomes` also runs the
AgentIF reference once per file it writes with that write left out, and
fails a task whose rule-graded score stays 1.0 (a deliverable that no rule
item checks and no rubric item names as evidence: an agent could skip it unnoticed).
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from pathlib import Path

from proactive_bench.data_model import SessionOutcome
from proactive_bench.dataset import LoadedEpisode, Problem
from proactive_bench.env import scratch_directory
from proactive_bench.episode import RunSpec, execute_run, start_run
from proactive_bench.scaffolds import ADVERSARY_MODES
from proactive_bench.scoring import EpisodeResult
from proactive_bench.store import Store
from proactive_bench.suites import DEFAULT_SUITE, AgentIFTask, TaskScore, read_agentif_task, score_task

REVEAL_ORDERS = ("forward", "reverse")

Verdict = Callable[[EpisodeResult, LoadedEpisode], str | None]
"""The reason a baseline's result misses the bar, or None."""


def every_session_completes(result: EpisodeResult, _episode: LoadedEpisode) -> str | None:
    for session in result.sessions:
        if session.status != SessionOutcome.COMPLETED:
            return f"{session.session_id} ended {session.status}" + (f": {session.error}" if session.error else "")
    return None


def every_rule_item_passes(result: EpisodeResult, episode: LoadedEpisode) -> str | None:
    if (reason := every_session_completes(result, episode)) is not None:
        return reason
    for session in result.sessions:
        failed = [g.item_id for g in session.grades if g.grader == "rule" and g.score != 1]
        if failed:
            return f"{session.session_id}: rule items {', '.join(failed)} fail"
    return None


def fully_proactive(result: EpisodeResult, episode: LoadedEpisode) -> str | None:
    for session in result.sessions:
        if session.counts.completed != session.counts.total:
            return f"{session.session_id}: {session.counts.completed} of {session.counts.total} intents completed unasked"
    return every_rule_item_passes(result, episode)


def not_proactive(limit: float) -> Verdict:
    def verdict(result: EpisodeResult, _episode: LoadedEpisode) -> str | None:
        if result.proc is None:
            return "Proc could not be computed (unavailable), so the bar cannot be shown to hold"
        return f"Proc {result.proc:.2f} is above {limit}" if result.proc > limit else None

    return verdict


def recovers_when_told(limit: float) -> Verdict:
    """Not proactive, yet every rule item passes once the user has revealed everything (in whatever order)."""

    def verdict(result: EpisodeResult, episode: LoadedEpisode) -> str | None:
        return not_proactive(limit)(result, episode) or every_rule_item_passes(result, episode)

    return verdict


def mostly_inferred(share: float) -> Verdict:
    """Most intents inferred, and every rule item passes once they are all known (in whatever order they were asked)."""

    def verdict(result: EpisodeResult, episode: LoadedEpisode) -> str | None:
        inferred = sum(s.counts.inferred for s in result.sessions)
        total = sum(s.counts.total for s in result.sessions) or 1
        if inferred < share * total:
            return f"{inferred} of {total} intents inferred, below {share:.0%}"
        return every_rule_item_passes(result, episode)

    return verdict


def loses_intent_items(result: EpisodeResult, episode: LoadedEpisode) -> str | None:
    if (reason := not_proactive(0.2)(result, episode)) is not None:
        return reason
    tied = {(s.id, c.id) for s in episode.sessions for c in s.checklist if c.grader == "rule" and c.intent is not None}
    passed = [
        f"{s.session_id}:{g.item_id}" for s in result.sessions for g in s.grades if (s.session_id, g.item_id) in tied and g.score == 1
    ]
    return f"passes rule items tied to a hidden intent without it: {', '.join(passed[:5])}" if passed else None


def earns_nearly_nothing(proc_limit: float, comp_limit: float) -> Verdict:
    """An attacker's bar: every session runs to its end, and neither Proc nor Comp rises above its limit."""

    def verdict(result: EpisodeResult, episode: LoadedEpisode) -> str | None:
        comp = result.comp
        return (
            not_proactive(proc_limit)(result, episode)
            or ("Comp could not be computed (unavailable), so the bar cannot be shown to hold" if comp is None else None)
            or (f"Comp {comp:.2f} is above {comp_limit}" if comp is not None and comp > comp_limit else None)
            or every_session_completes(result, episode)
        )

    return verdict


@dataclass(frozen=True)
class OracleBar:
    model: str
    verdict: Verdict
    bar: str
    """The bar in words, for the report."""
    reveal_orders: tuple[str, ...] = REVEAL_ORDERS


BASELINES: list[OracleBar] = [
    OracleBar("scripted:reference", fully_proactive, "Proc 1.0, every rule item passes", ("forward",)),
    OracleBar("scripted:passive", recovers_when_told(0.2), "Proc <= 0.2, every rule item passes once told"),
    OracleBar("scripted:asker", mostly_inferred(0.6), ">= 60% of intents inferred, every rule item passes"),
    OracleBar("scripted:surface", loses_intent_items, "Proc <= 0.2, fails every rule item tied to an intent", ("forward",)),
    *(
        OracleBar(f"scripted:{mode}", earns_nearly_nothing(0.05, 0.15), "Proc <= 0.05, Comp <= 0.15", ("forward",))
        for mode in ADVERSARY_MODES
    ),
]


def fails_a_rule_item(result: EpisodeResult, _episode: LoadedEpisode) -> str | None:
    """The bar of an agent that lacks what the task needs: some rule item of every session fails (an error counts as failing)."""
    passed = [
        s.session_id
        for s in result.sessions
        if s.status != SessionOutcome.ERROR and all(g.score == 1 for g in s.grades if g.grader == "rule")
    ]
    return f"passes every rule item of {', '.join(passed)}" if passed else None


PASS_RATE_BASELINES: list[OracleBar] = [
    OracleBar("scripted:reference", every_rule_item_passes, "every criterion passes", ("forward",)),
    OracleBar("scripted:surface", fails_a_rule_item, "fails a criterion (it acts on the task intent alone)", ("forward",)),
]
"""The bar of suites scored by pass rate (odyssey): the reference solves each task, the intent alone does not."""


def agentif_rule_score(result: EpisodeResult, episode: LoadedEpisode) -> TaskScore | None:
    """The run's AgentIF score over the task's rule-graded items only (the oracle has no judge); None when the task does not load."""
    ruled = _rule_graded_task(*_task_key(episode))
    if ruled is None:
        return None
    session = result.sessions[0] if result.sessions else None
    if session is None or session.status == SessionOutcome.ERROR:
        return score_task(ruled, {}, errored=True)
    return score_task(ruled, {g.item_id: g.status for g in session.grades}, session.provided_intents)


def _task_key(episode: LoadedEpisode) -> tuple[Path, str, bytes]:
    """The AgentIF episode's dataset root, task id and task file content: the key of :func:`_agentif_task`."""
    file = episode.directory / "task.yaml"
    return episode.directory.parent.parent, episode.episode.id, file.read_bytes() if file.is_file() else b""


@lru_cache(maxsize=16)
def _agentif_task(root: Path, name: str, _content: bytes) -> AgentIFTask | None:
    """The task, read once per content of its file (``_content``): every bar and dropped step of an oracle reads the same
    task (only reads it), and parsing its file took a tenth of running them."""
    return read_agentif_task(root, name)[0]


@lru_cache(maxsize=16)
def _rule_graded_task(root: Path, name: str, content: bytes) -> AgentIFTask | None:
    """:func:`_agentif_task` with its rule-graded items only."""
    task = _agentif_task(root, name, content)
    return None if task is None else task.model_copy(update={"rubric": [i for i in task.rubric if i.grader == "rule"]})


ScoreTest = Callable[[TaskScore, float, str], str | None]
"""``test(score, its value, task category)``: the reason an AgentIF score misses a bar, or None."""


def agentif_bar(test: ScoreTest) -> Verdict:
    """A bar on the rule-graded AgentIF score; a score that could not be computed misses every bar (shown as —, never guessed)."""

    def verdict(result: EpisodeResult, episode: LoadedEpisode) -> str | None:
        score = agentif_rule_score(result, episode)
        if score is None:
            return "the task does not load"
        if score.max_points == 0:
            return "no rule-graded bonus item: the oracle cannot check the task offline"
        if score.score is None:
            return f"scores — (unavailable: items {', '.join(score.unscored)} could not be graded)"
        return test(score, score.score, score.category)

    return verdict


def _full(score: TaskScore, value: float, _category: str) -> str | None:
    if score.errored:
        return "the session errored"
    lost = [i.id for i in score.items if (i.polarity == "bonus") != (i.holds and not i.withheld)]
    return f"scores {value:.2f}, not 1.0 (items {', '.join(lost)})" if value != 1.0 else None


def _below_full_in(category: str) -> ScoreTest:
    def test(_score: TaskScore, value: float, task_category: str) -> str | None:
        return "scores 1.0 without doing what the category needs" if task_category == category and value == 1.0 else None

    return test


def _at_most(limit: float) -> ScoreTest:
    def test(_score: TaskScore, value: float, _category: str) -> str | None:
        return f"scores {value:.2f}, above {limit}" if value > limit else None

    return test


def _penalised_not_rewarded(score: TaskScore, _value: float, _category: str) -> str | None:
    """The stuffer's bar: its stuffed files earn no bonus point and trigger at least one penalty."""
    earned = [i.id for i in score.items if i.earned]
    if earned:
        return f"stuffed files earn bonus items {', '.join(earned)}"
    return "stuffed files trigger no penalty item" if not score.penalty else None


def _no_rule_inferred(result: EpisodeResult, _episode: LoadedEpisode) -> str | None:
    """The asker's AgentIF bar: a question earns no latent rule (the user only points to the attachment holding it)."""
    inferred = sum(s.counts.inferred for s in result.sessions)
    return f"{inferred} latent rule(s) inferred from a question" if inferred else None


AGENTIF_BASELINES: list[OracleBar] = [
    OracleBar("scripted:reference", agentif_bar(_full), "scores 1.0 (every rule bonus holds, no rule penalty)", ("forward",)),
    OracleBar(
        "scripted:passive", agentif_bar(_below_full_in("latent")), "below 1.0 on latent tasks (the rule had to be provided)", ("forward",)
    ),
    OracleBar("scripted:asker", _no_rule_inferred, "no latent rule inferred (asked, the user points to the attachment)", ("forward",)),
    OracleBar(
        "scripted:surface", agentif_bar(_below_full_in("refinement")), "below 1.0 on refinement tasks (ignores follow-ups)", ("forward",)
    ),
    *(
        OracleBar(
            f"scripted:{mode}", agentif_bar(_at_most(0.15)), "scores <= 0.15 (questions and claims are not deliverables)", ("forward",)
        )
        for mode in ADVERSARY_MODES
        if mode != "stuffer"
    ),
    OracleBar("scripted:stuffer", agentif_bar(_penalised_not_rewarded), "earns no bonus and triggers a penalty", ("forward",)),
]
"""The bar of AgentIF tasks, on their rule-graded items (docs/metrics.md, "AgentIF tasks")."""
SUITE_BASELINES: dict[str, list[OracleBar]] = {DEFAULT_SUITE: BASELINES, "agentif": AGENTIF_BASELINES}
"""The baselines per suite; any other suite is held to :data:`PASS_RATE_BASELINES`."""


@dataclass(frozen=True)
class OracleOutcome:
    persona: str
    model: str
    order: str
    bar: str
    proc: float | None
    comp: float | None
    failure: str | None
    result: EpisodeResult = field(repr=False, compare=False)
    """The run itself, for checks beyond the bar (not in the report)."""
    where: str = ""
    """The episode's folder under the dataset root (``episodes/<persona>``, ``odyssey/<task>``)."""

    def as_dict(self) -> dict[str, object]:
        return {
            "persona": self.persona,
            "model": self.model,
            "reveal_order": self.order,
            "bar": self.bar,
            "proc": self.proc,
            "comp": self.comp,
            "ok": self.failure is None,
            "failure": self.failure,
        }


def in_reveal_order(episode: LoadedEpisode, order: str) -> LoadedEpisode:
    """The episode with each session's intents in the given order (the rules user volunteers them in list order)."""
    if order == "forward":
        return episode
    sessions = [s.model_copy(update={"intents": list(reversed(s.intents))}) for s in episode.sessions]
    return replace(episode, sessions=sessions)


def run_oracle(episode: LoadedEpisode, root: Path, bars: list[OracleBar] | None = None) -> list[OracleOutcome]:
    """Run every baseline in each of its reveal orders on one scratch results store (the suite's bars, and the dropped-step
    runs, when ``bars`` is None)."""
    with scratch_directory("pbench-oracle-") as tmp:  # throwaway runs and their store, in memory where possible
        scratch = Path(tmp) / "oracle.db"
        scratch.write_bytes(_empty_results_database())
        store = Store(scratch)

        def play(played: LoadedEpisode, chosen: list[OracleBar]) -> list[OracleOutcome]:
            return _play_bars(store, Path(tmp), played, root, chosen)

        if bars is not None:
            return play(episode, bars)
        return play(episode, SUITE_BASELINES.get(episode.suite, PASS_RATE_BASELINES)) + dropped_step_outcomes(episode, play)


@cache
def _empty_results_database() -> bytes:
    """An empty results database at this pbench's schema, migrated once per process: each oracle's scratch store starts
    as a copy of it (migrating a new database costs about ten times the copy, once per task of a dataset)."""
    with tempfile.TemporaryDirectory(prefix="pbench-oracle-") as tmp:
        path = Path(tmp) / "empty.db"
        Store(path).close_connections()  # the write-ahead log folded into the file
        return path.read_bytes()


Play = Callable[[LoadedEpisode, list[OracleBar]], list[OracleOutcome]]
"""Runs an episode's baselines on the oracle's scratch store."""


def _play_bars(store: Store, results_dir: Path, episode: LoadedEpisode, root: Path, bars: list[OracleBar]) -> list[OracleOutcome]:
    outcomes = []
    where = episode.directory.relative_to(episode.directory.parent.parent).as_posix()
    for bar in bars:
        for order in bar.reveal_orders:
            loaded = in_reveal_order(episode, order)
            spec = RunSpec(persona=episode.persona.id, model=bar.model, data_root=str(root), suite=episode.suite)
            run = start_run(store, loaded, spec, results_dir)
            result = asyncio.run(execute_run(store, run, loaded))
            outcomes.append(
                OracleOutcome(
                    episode.episode.id,
                    bar.model,
                    order,
                    bar.bar,
                    result.proc,
                    result.comp,
                    bar.verdict(result, loaded),
                    result,
                    where,
                )
            )
    return outcomes


WRITING_TOOLS = frozenset({"write_file", "edit_file", "docx_create", "docx_edit", "xlsx_write", "xlsx_append_rows", "pdf_create"})
"""Reference steps that produce a deliverable file (dropped one at a time by :func:`dropped_step_outcomes`)."""
DROPPED_STEP_BAR = "scores below 1.0 with any one written file left out"


def dropped_step_outcomes(episode: LoadedEpisode, play: Play) -> list[OracleOutcome]:
    """``scripted:reference`` on an AgentIF task once per step writing a file no rubric (judge) item reads, that step left out; each must lose points."""
    if episode.suite != "agentif":
        return []
    task = _agentif_task(*_task_key(episode))
    judged = {path for item in task.rubric if item.grader == "rubric" for path in item.evidence.files} if task else set()
    session = episode.sessions[0]
    bar = OracleBar("scripted:reference", agentif_bar(_below_one), DROPPED_STEP_BAR, ("forward",))
    outcomes = []
    for n, step in enumerate(session.reference):
        if step.tool not in WRITING_TOOLS or step.args.get("path") in judged:  # the judge reads those; the oracle has none
            continue
        rest = [kept for k, kept in enumerate(session.reference) if k != n]
        cut = replace(episode, sessions=[session.model_copy(update={"reference": rest}), *episode.sessions[1:]])
        for outcome in play(cut, [bar]):
            failure = outcome.failure and f"without reference[{n}] ({step.tool} {step.args.get('path', '')}) it {outcome.failure}"
            outcomes.append(replace(outcome, model=f"scripted:reference minus reference[{n}]", failure=failure))
    return outcomes


def _below_one(_score: TaskScore, value: float, _category: str) -> str | None:
    return "still scores 1.0: no rule item checks that file" if value == 1.0 else None


def oracle_problems(outcomes: list[OracleOutcome]) -> list[Problem]:
    return [
        Problem(o.where, f"oracle {o.model} ({o.order} reveal order)", f"misses the bar ({o.bar}): {o.failure}")
        for o in outcomes
        if o.failure is not None
    ]
