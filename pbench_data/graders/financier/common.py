"""Helpers shared by the financier graders: CSV tables in the workspace and tolerant number matching."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

NUMBER = re.compile(r"[-+−]?\d+(?:\.\d+)?")


def csv_tables(evidence: Any, pattern: str) -> list[list[dict[str, str]]]:
    """Rows of every CSV file matching the glob ``pattern``, headers lower-cased and stripped."""
    tables = []
    for path in evidence.workspace.glob_files(pattern):
        reader = csv.DictReader(io.StringIO(evidence.workspace.read_text(path).strip()))
        try:
            tables.append([{(k or "").strip().lower(): _cell(v) for k, v in row.items()} for row in reader])
        except csv.Error:
            continue
    return tables


def _cell(value: str | list[str] | None) -> str:
    """A stripped cell; the surplus cells of a ragged row (a list) joined by commas."""
    return (",".join(value) if isinstance(value, list) else value or "").strip()


def column(row: dict[str, str], *needles: str) -> str | None:
    """The value of the first column whose header contains every needle, or None."""
    for key, value in row.items():
        if all(n in key for n in needles):
            return value
    return None


def as_number(text: str | None) -> float | None:
    """The first number in ``text`` (a Unicode minus counts), or None."""
    match = NUMBER.search(text or "")
    return float(match.group().replace("−", "-")) if match else None


def row_for(table: list[dict[str, str]], key: str) -> dict[str, str] | None:
    """The first row having a cell exactly equal to ``key`` (case-insensitive)."""
    for row in table:
        if any(v.lower() == key.lower() for v in row.values()):
            return row
    return None
