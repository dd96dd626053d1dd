"""Helpers shared by the researcher graders: workspace texts, LaTeX table rows, numbers."""

from __future__ import annotations

import re
from typing import Any

MAX_LINE_WORDS = 120
"""A longer line is a keyword dump, not a line a reader reads."""

NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?")


def texts(evidence: Any, pattern: str) -> list[tuple[str, str]]:
    """(path, text) of every workspace file matching the glob, without keyword-dump lines."""
    ws = evidence.workspace
    out = []
    for path in ws.glob_files(pattern):
        lines = ws.read_text(path).splitlines()
        out.append((path, "\n".join(line for line in lines if len(line.split()) <= MAX_LINE_WORDS)))
    return out


def numbers(text: str) -> list[float]:
    """Every number in a text, thousands separators removed."""
    return [float(x.replace(",", "")) for x in NUMBER.findall(text)]


def tex_rows(text: str) -> dict[str, str]:
    """LaTeX tabular rows (lines ending in \\\\) keyed by their first cell, macros and braces stripped."""
    rows: dict[str, str] = {}
    for line in text.splitlines():
        if "&" not in line or not line.rstrip().endswith("\\\\"):
            continue
        first = re.sub(r"\\method(\{\})?", "SieveKV", line.split("&", 1)[0])
        key = re.sub(r"\\[a-zA-Z]+|[{}$^\\]|\(.*?\)", "", first).strip()
        rows.setdefault(key.lower(), line)
    return rows


def cells(line: str) -> list[str]:
    """The cells of a tabular row, the trailing \\\\ removed."""
    return [c.strip() for c in line.rstrip().removesuffix("\\\\").split("&")]


def first_number(cell: str) -> float | None:
    """The first number of a cell (the mean of a \\pmstd{mean}{std})."""
    found = numbers(cell)
    return found[0] if found else None


def close(value: float | None, target: float, tol: float) -> bool:
    """Whether a value was found and is within ``tol`` of ``target``."""
    return value is not None and abs(value - target) <= tol
