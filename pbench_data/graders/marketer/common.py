"""Helpers shared by the marketer graders: workspace texts without keyword dumps, numbers on a line, app rows."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

MAX_LINE_WORDS = 120
"""A longer line is a keyword dump, not a line a reader reads."""


def texts(evidence: Any, pattern: str) -> list[tuple[str, str]]:
    """(path, text) of every workspace file matching the glob, without keyword-dump lines."""
    ws = evidence.workspace
    out = []
    for path in ws.glob_files(pattern):
        lines = [line for line in ws.read_text(path).splitlines() if len(line.split()) <= MAX_LINE_WORDS]
        out.append((path, "\n".join(lines)))
    return out


def whole_texts(evidence: Any, pattern: str) -> list[tuple[str, str]]:
    """(path, full text) of every matching file: for checks that nothing forbidden appears."""
    ws = evidence.workspace
    return [(path, ws.read_text(path)) for path in ws.glob_files(pattern)]


_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})*(?:\.\d+)?|(?<![\w.])\d+(?:\.\d+)?")


def numbers(line: str) -> list[float]:
    """Every number written on a line (thousands separators allowed)."""
    return [float(m.group().replace(",", "")) for m in _NUMBER.finditer(line)]


def has_number(line: str, value: float, tol: float = 0.005) -> bool:
    """Whether the line writes ``value`` (within ``tol``)."""
    return any(abs(n - value) <= tol for n in numbers(line))


def app_rows(evidence: Any, table: str) -> list[dict[str, Any]]:
    """Rows of an app table, or none when the evidence has no app state."""
    if getattr(evidence, "apps", None) is None:
        return []
    return list(evidence.apps.rows(table))


def lines_with(text: str, word: str) -> list[str]:
    """Lines of ``text`` that name ``word`` (case-insensitive, whole word)."""
    rx = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)", re.I)
    return [line for line in text.splitlines() if rx.search(line)]


def csv_rows(text: str) -> list[dict[str, str]]:
    """CSV rows with lower-cased, stripped headers and stripped values."""
    reader = csv.DictReader(io.StringIO(text.strip()))
    return [{(k or "").strip().lower(): (v or "").strip() for k, v in row.items()} for row in reader]
