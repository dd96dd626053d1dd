"""Two runs side by side: per session, what changed in scores, intent statuses and grades."""

from __future__ import annotations

from dataclasses import dataclass, field

from proactive_bench.reporting.html.trajectory import SessionView


@dataclass(frozen=True)
class Change:
    """One intent or checklist item whose status differs between the runs ("—": absent in that run)."""

    item_id: str
    before: str
    after: str


@dataclass
class SessionPair:
    session_id: str
    a: SessionView | None
    b: SessionView | None
    intents: list[Change] = field(default_factory=list)
    grades: list[Change] = field(default_factory=list)

    def delta(self, metric: str) -> float | None:
        """B minus A for ``proc`` or ``comp``; None when either is missing."""
        if self.a is None or self.b is None:
            return None
        return difference(getattr(self.a.result, metric), getattr(self.b.result, metric))

    @property
    def changed(self) -> bool:
        return bool(self.intents or self.grades) or self.a is None or self.b is None


def difference(before: float | None, after: float | None) -> float | None:
    return None if before is None or after is None else after - before


def pair_sessions(a: list[SessionView], b: list[SessionView]) -> list[SessionPair]:
    """Sessions of both runs matched by session id, in A's order, then those only B has."""
    by_a, by_b = {v.session_id: v for v in a}, {v.session_id: v for v in b}
    order = list(by_a) + [sid for sid in by_b if sid not in by_a]
    pairs = []
    for sid in order:
        pair = SessionPair(sid, by_a.get(sid), by_b.get(sid))
        if pair.a is not None and pair.b is not None:
            pair.intents = _changes({i.intent_id: i.status for i in pair.a.intents}, {i.intent_id: i.status for i in pair.b.intents})
            pair.grades = _changes({g.item_id: g.status for g in pair.a.grades}, {g.item_id: g.status for g in pair.b.grades})
        pairs.append(pair)
    return pairs


def _changes(before: dict[str, str], after: dict[str, str]) -> list[Change]:
    ids = list(before) + [k for k in after if k not in before]
    return [Change(k, before.get(k, "—"), after.get(k, "—")) for k in ids if before.get(k) != after.get(k)]
