"""How far audits disagree with a run's judgments (the paper's table 6): ``disagreement`` and its rows.

Kept apart from :mod:`~proactive_bench.review.audits` (which samples, imports and asks models) so that
``pbench results`` and ``audit show`` print the table without loading a model client.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import proactive_bench.suites as suites  # the AgentIF suite loads only for an AgentIF run
from proactive_bench.episode import run_spec
from proactive_bench.store import AuditLike, ReadQueries, RunLike

POLARITIES = ("bonus", "penalty")
"""The polarities of an AgentIF checklist item, in the order the table shows them."""


@dataclass(frozen=True)
class Disagreement:
    """One audit source's (or the humans' majority vote's) disagreement with the run, per kind of judgment."""

    source: str
    checklist_n: int
    checklist_disagree: int
    intents_n: int
    intents_disagree: int
    checklist_ties: int = 0
    intents_ties: int = 0
    by_polarity: dict[str, tuple[int, int]] = field(default_factory=dict)
    """AgentIF checklist judgments per item polarity: (audited, disagreeing)."""

    def agreement(self, polarity: str) -> float | None:
        """The share of audited checklist judgments of that polarity the source agrees with."""
        n, differ = self.by_polarity.get(polarity, (0, 0))
        return 1 - differ / n if n else None

    @property
    def label(self) -> str:
        """The source, with the ties of a majority vote when there were any (they are left out of n)."""
        ties = self.checklist_ties + self.intents_ties
        return (
            f"{self.source}; {ties} tie(s) without verdict ({self.checklist_ties} checklist, {self.intents_ties} intents)"
            if ties
            else self.source
        )

    @property
    def checklist_rate(self) -> float | None:
        return self.checklist_disagree / self.checklist_n if self.checklist_n else None

    @property
    def intents_rate(self) -> float | None:
        return self.intents_disagree / self.intents_n if self.intents_n else None

    def as_dict(self) -> dict[str, Any]:
        """The counts and both rates, as ``pbench audit show --json`` and ``pbench results --json`` (``audits``) print them."""
        return asdict(self) | {"checklist_rate": self.checklist_rate, "intents_rate": self.intents_rate}


def item_polarities(run: RunLike) -> dict[str, str]:
    """Checklist item id -> ``bonus``/``penalty`` for a run of an AgentIF task (its task as the dataset holds it now); {} otherwise."""
    spec = run_spec(run)
    if spec.suite != "agentif":
        return {}
    task, _ = suites.read_agentif_task(Path(spec.data_root), spec.persona)
    return {item.id: item.polarity for item in task.rubric} if task is not None else {}


def disagreement(store: ReadQueries, runs: Sequence[RunLike]) -> list[Disagreement]:
    """How many audited checklist grades and intent statuses differ from the run's: one row for the
    human sources together (majority vote per judgment, see ``majority``), one per model source;
    AgentIF checklist judgments are also counted per item polarity."""
    audits = store.audits([r.id for r in runs])
    polarity: dict[tuple[int, str], str] = {}
    for run in runs:
        of_run = item_polarities(run)
        if of_run:
            polarity.update({(sr.id, item): p for sr in store.session_runs(run.id) if sr.id is not None for item, p in of_run.items()})
    human = sorted({a.source for a in audits if not a.source.startswith("model:")})
    out = [_disagreement(_human_label(human), majority([a for a in audits if a.source in human]), polarity)] if human else []
    for source in sorted({a.source for a in audits} - set(human)):
        out.append(_disagreement(source, majority([a for a in audits if a.source == source]), polarity))  # one voter: its own verdicts
    return out


def majority(audits: Sequence[AuditLike]) -> tuple[dict[tuple[int, str, str], tuple[str, str]], dict[str, int]]:
    """Per judgment (session run, kind, item): (run's verdict, the verdict most sources gave), and the
    number of ties per kind: judgments whose top verdicts are tied get no verdict."""
    votes: dict[tuple[int, str, str], list[AuditLike]] = {}
    for audit in audits:
        votes.setdefault((audit.session_run_id, audit.kind, audit.item_id), []).append(audit)
    decided: dict[tuple[int, str, str], tuple[str, str]] = {}
    ties: dict[str, int] = {}
    for key, mine in votes.items():
        (top, top_n), *rest = Counter(a.audited for a in mine).most_common()
        if rest and rest[0][1] == top_n:
            ties[key[1]] = ties.get(key[1], 0) + 1
        else:
            decided[key] = (mine[0].judged, top)
    return decided, ties


def _disagreement(
    source: str,
    vote: tuple[dict[tuple[int, str, str], tuple[str, str]], dict[str, int]],
    polarity: dict[tuple[int, str], str],
) -> Disagreement:
    decided, ties = vote
    checklist = [v for k, v in decided.items() if k[1] == "checklist"]
    intents = [v for k, v in decided.items() if k[1] == "intent"]
    by_polarity = {}
    for name in POLARITIES:
        mine = [v for k, v in decided.items() if k[1] == "checklist" and polarity.get((k[0], k[2])) == name]
        if mine:
            by_polarity[name] = (len(mine), sum(j != a for j, a in mine))
    return Disagreement(
        source,
        len(checklist),
        sum(j != a for j, a in checklist),
        len(intents),
        sum(j != a for j, a in intents),
        ties.get("checklist", 0),
        ties.get("intent", 0),
        by_polarity,
    )


def _human_label(sources: list[str]) -> str:
    return sources[0] if len(sources) == 1 else f"majority of {len(sources)} humans ({', '.join(sources)})"
