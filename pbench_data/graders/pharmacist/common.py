"""Helpers shared by the pharmacist graders: workspace texts, CSV rows, app rows, identifiers."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

MAX_LINE_WORDS = 120
"""A longer line is a keyword dump, not a line a reader reads (the longest in the reference solutions has 64 words)."""


def whole_texts(evidence: Any, pattern: str) -> list[tuple[str, str]]:
    """(path, full text) of every workspace file matching the glob ``pattern``: for checks that nothing leaks."""
    ws = evidence.workspace
    return [(path, ws.read_text(path)) for path in ws.glob_files(pattern)]


def matching_texts(evidence: Any, pattern: str) -> list[tuple[str, str]]:
    """(path, text) of every file matching ``pattern``, without keyword-dump lines (over MAX_LINE_WORDS words).

    Positive checks read these, so that a file stuffed with every word of the
    task on one line does not pass a "this line names X and gives N" check.
    """
    return [(path, "\n".join(line for line in text.splitlines() if len(line.split()) <= MAX_LINE_WORDS)) for path, text in whole_texts(evidence, pattern)]


def near(value: float, target: float, rel: float) -> bool:
    """Whether ``value`` is within the fraction ``rel`` of ``target``."""
    return abs(value - target) <= rel * target


def csv_rows(text: str) -> list[dict[str, str]]:
    """CSV rows with lower-cased, stripped headers and stripped values; cells beyond the header are joined under ``""``."""
    reader = csv.DictReader(io.StringIO(text.strip()))
    return [{(k or "").strip().lower(): (v if isinstance(v, str) else ",".join(v or [])).strip() for k, v in row.items()} for row in reader]


def app_rows(evidence: Any, table: str) -> list[dict[str, Any]]:
    """Rows of an app table, or none when the evidence has no app state."""
    if getattr(evidence, "apps", None) is None:
        return []
    return list(evidence.apps.rows(table))


def identifier_patterns(evidence: Any, source_csv: str) -> list[re.Pattern[str]]:
    """Full names, surnames and MRNs listed in a seeded patient export, as whole-word patterns."""
    found: set[str] = set()
    for row in csv_rows(evidence.workspace.read_text(source_csv)):
        name = row.get("patient_name", "")
        if name:
            found.add(name)
            found.add(name.split()[-1])
        if row.get("mrn"):
            found.add(row["mrn"])
    return [re.compile(rf"\b{re.escape(x)}\b", re.IGNORECASE) for x in sorted(found)]
