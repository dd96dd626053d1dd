"""Flip rates: how often identical runs disagree on a task, each model's noise floor (docs/metrics.md, "Flip rate").

A task's **outcome** in a run is its pass/fail verdict and its intent labels
as they enter the figures (an errored session: failed, no label). Runs of one
model on the same persona and ablation are repeats; a task played by two or
more of them **flips** when its outcomes are not all the same.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from proactive_bench.data_model import SessionOutcome
from proactive_bench.scoring import EpisodeResult

TaskKey = tuple[str, str, str]
"""(persona, ablation, session id)."""
Outcome = tuple[bool, frozenset[tuple[str, str]]]
"""A task's pass/fail verdict and its (intent id, label) pairs."""


def run_outcomes(result: EpisodeResult) -> dict[str, Outcome]:
    """Each played session's outcome in one run, by session id."""
    return {s.session_id: (s.passed, frozenset(() if s.status == SessionOutcome.ERROR else s.intent_labels)) for s in result.sessions}


@dataclass(frozen=True)
class FlipRate:
    """One model's tasks played by two or more repeats, and how many of them flipped."""

    model: str
    tasks: int
    """Tasks with at least two repeats."""
    flipped: int
    """Of those, tasks whose verdict or labels differ between repeats."""
    verdict_flips: int
    """Tasks whose pass/fail verdict differs."""
    label_flips: int
    """Tasks whose intent labels differ."""
    repeats: int
    """The most repeats any task has."""

    @property
    def rate(self) -> float:
        return self.flipped / self.tasks

    def as_dict(self) -> dict[str, object]:
        return asdict(self) | {"rate": self.rate}


def flip_rates(outcomes: Iterable[tuple[str, TaskKey, Outcome]]) -> list[FlipRate]:
    """Per model (sorted), the flip rate over its tasks with repeats; a model with none gets no row."""
    played: dict[str, dict[TaskKey, list[Outcome]]] = defaultdict(lambda: defaultdict(list))
    for model, task, outcome in outcomes:
        played[model][task].append(outcome)
    rates = []
    for model, tasks in sorted(played.items()):
        repeated = [seen for seen in tasks.values() if len(seen) >= 2]
        if repeated:
            rates.append(
                FlipRate(
                    model,
                    tasks=len(repeated),
                    flipped=sum(len(set(seen)) > 1 for seen in repeated),
                    verdict_flips=sum(len({v for v, _ in seen}) > 1 for seen in repeated),
                    label_flips=sum(len({labels for _, labels in seen}) > 1 for seen in repeated),
                    repeats=max(len(seen) for seen in repeated),
                )
            )
    return rates
