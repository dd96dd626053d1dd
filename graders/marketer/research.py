"""Graders for the market-research sessions (category M)."""

from __future__ import annotations

from typing import Any

from .common import has_number, lines_with, texts

S01_SCAN = "research/*kids*market*scan*.md"
S01_PRICE_PER_OZ = {"Summitra Junior": 1.69, "Halden Mini": 1.83, "Little Pine": 1.43, "Sprout Bottle": 1.65, "Trailhead Kids": 1.71}


def s01_price_per_oz(evidence: Any) -> bool:
    """At least four of the five kids' bottles appear on a line with their price per ounce, to the cent."""
    for _path, text in texts(evidence, S01_SCAN):
        hits = sum(any(has_number(line, value) for line in lines_with(text, product)) for product, value in S01_PRICE_PER_OZ.items())
        if hits >= 4:
            return True
    return False
