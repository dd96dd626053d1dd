"""Simulator-versus-person agreement on intent labels (``pbench results ID --agreement``).

Each stored :class:`~proactive_bench.store.PersonLabel` is one item rated twice:
by the person who played the user and by the simulator that labelled the same
turn silently, each with one of completed, inferred, provided or pending.
Cohen's κ = (p_o − p_e) / (1 − p_e), p_o the share of items both labelled
alike, p_e the share expected by chance from each rater's label counts. κ is
undefined (None, printed as such) when there are no items or p_e = 1 (both
raters used one and the same label throughout): it is never guessed. Per
label, κ of that label against all the others.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.table import Table

import proactive_bench.user as user  # the person's seat (and the dataset it reads) loads when labels are compared
from proactive_bench.store import ReadQueries, RunLike, StoredPersonLabel

UNDEFINED = "undefined"


@dataclass(frozen=True)
class LabelAgreement:
    label: str
    person: int
    simulator: int
    both: int
    kappa: float | None


@dataclass(frozen=True)
class Agreement:
    """Counts, the confusion table (person label → simulator label → items) and κ over all items and per label."""

    items: int
    agreed: int
    confusion: dict[str, dict[str, int]]
    kappa: float | None
    labels: list[LabelAgreement]

    def as_dict(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "agreed": self.agreed,
            "kappa": self.kappa,
            "confusion": self.confusion,
            "labels": [vars(row) for row in self.labels],
        }


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> float | None:
    """κ of two raters over ``(first, second)`` label pairs; None when undefined (no pairs, or chance agreement 1)."""
    n = len(pairs)
    if n == 0:
        return None
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[k] * second[k] for k in first) / (n * n)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)


def label_agreement(pairs: Sequence[tuple[str, str]]) -> Agreement:
    """The agreement of ``(person, simulator)`` label pairs."""
    confusion = {p: {s: 0 for s in user.LABELS} for p in user.LABELS}
    for person, simulator in pairs:
        confusion[person][simulator] += 1
    per_label = [
        LabelAgreement(
            label,
            sum(p == label for p, _ in pairs),
            sum(s == label for _, s in pairs),
            confusion[label][label],
            cohen_kappa([(str(p == label), str(s == label)) for p, s in pairs]),
        )
        for label in user.LABELS
    ]
    return Agreement(len(pairs), sum(p == s for p, s in pairs), confusion, cohen_kappa(pairs), per_label)


def run_agreement(store: ReadQueries, runs: Sequence[RunLike]) -> Agreement:
    """The agreement over every person label stored for the runs' sessions."""
    pairs = [
        (row.person, row.simulator)
        for run in runs
        for session_run in store.session_runs(run.id)
        if session_run.id is not None
        for row in store.rows(StoredPersonLabel, session_run.id)
    ]
    return label_agreement(pairs)


def _kappa(value: float | None) -> str:
    return UNDEFINED if value is None else f"{value:.3f}"


def agreement_tables(result: Agreement) -> list[Table]:
    """Per label (counts and κ), then the confusion table (rows: the person, columns: the simulator)."""
    title = f"Simulator vs person: {result.agreed}/{result.items} items agree, Cohen's κ {_kappa(result.kappa)}"
    if result.kappa is None:
        title += " (no items, or both raters used one label throughout)"
    per_label = Table(title=title)
    for column in ("label", "person", "simulator", "both", "κ (label vs rest)"):
        per_label.add_column(column, justify="left" if column == "label" else "right", no_wrap=column == "label")
    for row in result.labels:
        per_label.add_row(row.label, str(row.person), str(row.simulator), str(row.both), _kappa(row.kappa))
    confusion = Table(title="Confusion: person (rows) × simulator (columns)")
    confusion.add_column("person \\ simulator", no_wrap=True)
    for label in user.LABELS:
        confusion.add_column(label, justify="right")
    for label in user.LABELS:
        confusion.add_row(label, *(str(count) for count in result.confusion[label].values()))
    return [per_label, confusion]
