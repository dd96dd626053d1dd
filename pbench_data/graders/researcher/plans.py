"""Checks on personal plans: training volumes week by week."""

from __future__ import annotations

import re
from typing import Any

from .common import numbers, texts

HALF_PLAN = "life/training/half_plan.md"
START_KM = 25.0


def _weeks(text: str) -> list[tuple[int, str, float]]:
    """(week number, row, planned km) of every '| W<n> | ...' table row; km is the third cell's first number."""
    out = []
    for line in text.splitlines():
        match = re.match(r"\|\s*W(\d+)\s*\|([^|]*)\|([^|]*)\|", line)
        if match and numbers(match.group(3)):
            out.append((int(match.group(1)), line, numbers(match.group(3))[0]))
    return out


def s12_ten_percent(evidence: Any) -> bool:
    """Twelve weeks, and no week more than 10% above the biggest week before it (starting from 25 km)."""
    for _path, text in texts(evidence, HALF_PLAN):
        weeks = _weeks(text)
        if len(weeks) != 12:
            continue
        best, ok = START_KM, True
        for _n, _row, km in weeks[:-1]:
            if km > 1.10 * best + 1e-9:
                ok = False
            best = max(best, km)
        if ok:
            return True
    return False


def s12_taper(evidence: Any) -> bool:
    """The week before race week is at most 70% of the peak week, and race week carries the 21.1 km race."""
    for _path, text in texts(evidence, HALF_PLAN):
        weeks = _weeks(text)
        if len(weeks) == 12:
            peak = max(km for _n, _row, km in weeks[:-1])
            if weeks[-2][2] <= 0.70 * peak and "21.1" in weeks[-1][1]:
                return True
    return False


def s12_rebuttal_cutback(evidence: Any) -> bool:
    """The ICML author-response week (W7, from 2026-03-23) has less volume than the week before."""
    for _path, text in texts(evidence, HALF_PLAN):
        weeks = {n: (row, km) for n, row, km in _weeks(text)}
        if 6 in weeks and 7 in weeks and "2026-03-23" in weeks[7][0] and weeks[7][1] < weeks[6][1]:
            return True
    return False
