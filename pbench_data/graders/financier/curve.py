"""Graders for the MRM-027 SOFR curve sessions: the rebuilt curves (s01, s13), the comparisons, the forwards."""

from __future__ import annotations

from typing import Any

from .common import as_number, column, csv_tables, row_for

TENORS = ("1M", "3M", "6M", "1Y", "2Y", "3Y", "4Y", "5Y")
ZERO_PCT = {
    "2025-08-29": dict(zip(TENORS, (4.36405, 4.24090, 4.05606, 3.80677, 3.49536, 3.40801, 3.40142, 3.44132))),
    "2025-09-30": dict(zip(TENORS, (4.29207, 4.14736, 3.95049, 3.69153, 3.41579, 3.37370, 3.38730, 3.43610))),
}
"""Independent continuously compounded ACT/365 zero rates (%) per curve date (2025-08-29 without the stale 2Y quote)."""
BREAK_BP = {"2025-08-29": ("2Y", 3.38), "2025-09-30": ("3Y", 0.91)}
"""The pillar where the owner's curve breaks from the independent one, and by how many bp (owner minus independent)."""
FORWARD_PCT = {("1Y", "2Y"): 3.1909, ("2Y", "3Y"): 3.2418}
"""Independent simple ACT/360 forward rates (%) between adjacent pillars."""


def _pillar_values(evidence: Any, header: str) -> list[dict[str, float | None]]:
    """Per CSV under analysis/mrm027/, the number in the ``header`` column for each pillar (the values tell the dates apart)."""
    found = []
    for table in csv_tables(evidence, "analysis/mrm027/*.csv"):
        rows = {t: row_for(table, t) for t in TENORS}
        found.append({t: as_number(column(row, header)) if row else None for t, row in rows.items()})
    return found


def curve_values(evidence: Any, curve_date: str) -> bool:
    """A CSV gives all eight pillars' zero rates within 0.06 bp of the independent rebuild."""
    truth = ZERO_PCT[curve_date]
    return any(
        all(v is not None and abs(v - truth[t]) <= 0.0006 for t, v in values.items())
        for values in _pillar_values(evidence, "zero")
    )


def comparison(evidence: Any, curve_date: str) -> bool:
    """A comparison CSV has a bp difference per pillar: the break pillar at its size, the others under 0.2 bp."""
    pillar, size = BREAK_BP[curve_date]
    for diffs in _pillar_values(evidence, "bp"):
        if any(v is None for v in diffs.values()):
            continue
        others_small = all(abs(v) <= 0.2 for t, v in diffs.items() if t != pillar)  # type: ignore[arg-type]
        if others_small and abs(abs(diffs[pillar]) - size) <= 0.1:  # type: ignore[arg-type]
            return True
    return False


def s01_curve_values(evidence: Any) -> bool:
    """The 2025-08-29 curve rebuilt from the cleaned quotes."""
    return curve_values(evidence, "2025-08-29")


def s01_comparison(evidence: Any) -> bool:
    """The 2025-08-29 comparison: 2Y about 3.4 bp off, the rest within 0.2 bp."""
    return comparison(evidence, "2025-08-29")


def s13_curve_values(evidence: Any) -> bool:
    """The 2025-09-30 month-end curve rebuilt (spot 2025-10-02)."""
    return curve_values(evidence, "2025-09-30")


def s13_comparison(evidence: Any) -> bool:
    """The 2025-09-30 comparison: 3Y about 0.9 bp off, the rest within 0.2 bp."""
    return comparison(evidence, "2025-09-30")


def s01_forwards(evidence: Any) -> bool:
    """A forward check names the 1Y-2Y and 2Y-3Y forwards of the independent curve (3.1909% and 3.2418%, within 0.5 bp)."""
    for path in evidence.workspace.glob_files("analysis/mrm027/*forward*"):
        lines = evidence.workspace.read_text(path).splitlines()
        if all(_line_with_forward(lines, start, end, value) for (start, end), value in FORWARD_PCT.items()):
            return True
    return False


def _line_with_forward(lines: list[str], start: str, end: str, value: float) -> bool:
    for line in lines:
        if f"{start}-{end}" in line.replace(" ", "").upper():
            numbers = [as_number(cell) for cell in line.replace(",", " ").split()]
            if any(n is not None and abs(n - value) <= 0.005 for n in numbers):
                return True
    return False
