"""Graders for the MRM-027 SOFR curve sessions (s01, s02): the rebuilt curve, the comparison, the forwards."""

from __future__ import annotations

from typing import Any

from .common import as_number, column, csv_tables, row_for

TENORS = ("1M", "3M", "6M", "1Y", "2Y", "3Y", "4Y", "5Y")
ZERO_PCT = dict(zip(TENORS, (4.36405, 4.24090, 4.05606, 3.80677, 3.49536, 3.40801, 3.40142, 3.44132)))
"""Independent continuously compounded ACT/365 zero rates (%) of the 2025-08-29 curve, without the stale 2Y quote."""
STALE_DIFF_BP = 3.38
"""Owner minus independent 2Y zero rate, bp: the owner's feed used the 2025-08-28 2Y quote."""
FORWARD_PCT = {("1Y", "2Y"): 3.1909, ("2Y", "3Y"): 3.2418}
"""Independent simple ACT/360 forward rates (%) between adjacent pillars."""


def s01_curve_values(evidence: Any) -> bool:
    """A CSV under analysis/mrm027/ gives all eight pillars' zero rates within 0.06 bp of the independent rebuild."""
    for table in csv_tables(evidence, "analysis/mrm027/*.csv"):
        values = {}
        for tenor in TENORS:
            row = row_for(table, tenor)
            values[tenor] = as_number(column(row, "zero")) if row else None
        if all(v is not None and abs(v - ZERO_PCT[t]) <= 0.0006 for t, v in values.items()):
            return True
    return False


def s01_comparison(evidence: Any) -> bool:
    """A comparison CSV has a bp difference per pillar: 2Y about 3.4 bp, every other pillar under 0.2 bp."""
    for table in csv_tables(evidence, "analysis/mrm027/*.csv"):
        diffs = {}
        for tenor in TENORS:
            row = row_for(table, tenor)
            diffs[tenor] = as_number(column(row, "bp")) if row else None
        if any(v is None for v in diffs.values()):
            continue
        others_small = all(abs(v) <= 0.2 for t, v in diffs.items() if t != "2Y")
        if others_small and abs(abs(diffs["2Y"]) - STALE_DIFF_BP) <= 0.1:
            return True
    return False


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
