"""The AgentIF-OneDay score of one task, as the paper defines it (docs/metrics.md, "AgentIF tasks").

Items are binary. ``S+`` sums the points of the bonus items that hold, ``S-``
the points of the penalty items that hold, ``S_max`` the points of every
bonus item; the task scores ``max(0, S+ - S-) / S_max`` and the suite is the
mean over tasks. pbench adds one rule: a bonus item tied to a latent rule
(``rule:``) that the user had to provide earns nothing, so the simulated
user's volunteering never hands out the latent category's points (and no
question earns a latent rule: asked, the user only points to its attachment,
see ``loading``). An errored
session scores 0; a task with an item that could not be graded (no judge, a
grader error) is not scored (None), never guessed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from proactive_bench.suites.agentif.task import AgentIFTask

ItemStatus = str
"""A checklist grade's status: ``pass`` (the item holds), ``fail``, ``ungraded`` or ``error``."""


@dataclass(frozen=True)
class ItemOutcome:
    """One rubric item of a scored task."""

    id: str
    polarity: str
    category: str
    points: int
    status: ItemStatus
    withheld: bool = False
    """A bonus that holds but is tied to a rule the user provided: it earns nothing."""

    @property
    def holds(self) -> bool:
        return self.status == "pass"

    @property
    def earned(self) -> int:
        """Bonus points earned (0 for penalties)."""
        return self.points if self.polarity == "bonus" and self.holds and not self.withheld else 0

    @property
    def lost(self) -> int:
        """Penalty points triggered (0 for bonuses)."""
        return self.points if self.polarity == "penalty" and self.holds else 0


@dataclass(frozen=True)
class TaskScore:
    """One task's score with its parts."""

    task: str
    category: str
    domain: str
    max_points: int
    bonus: int
    """S+: the bonus points earned."""
    penalty: int
    """S-: the penalty points triggered."""
    score: float | None
    """max(0, S+ - S-) / S_max; None when an item could not be graded."""
    errored: bool = False
    items: list[ItemOutcome] = field(default_factory=list)

    @property
    def unscored(self) -> list[str]:
        """Items whose grade could not be made."""
        return [i.id for i in self.items if i.status in ("ungraded", "error")]


def clamped_score(bonus: int, penalty: int, max_points: int) -> float:
    """The paper's equation 1: ``max(0, S+ - S-) / S_max``."""
    return max(0, bonus - penalty) / max_points


def score_task(task: AgentIFTask, statuses: Mapping[str, ItemStatus], provided: Collection[str] = (), errored: bool = False) -> TaskScore:
    """Score one run of ``task`` from its items' grade statuses (by item id) and the rules the user provided."""
    items = [
        ItemOutcome(
            i.id,
            i.polarity,
            i.category,
            i.points,
            statuses.get(i.id, "ungraded"),
            withheld=i.polarity == "bonus" and i.rule is not None and i.rule in provided and statuses.get(i.id) == "pass",
        )
        for i in task.rubric
    ]
    bonus, penalty = sum(i.earned for i in items), sum(i.lost for i in items)
    if errored:
        score: float | None = 0.0
    elif any(i.status in ("ungraded", "error") for i in items):
        score = None
    else:
        score = clamped_score(bonus, penalty, task.max_points)
    return TaskScore(task.id, task.category, task.domain, task.max_points, bonus, penalty, score, errored, items)
