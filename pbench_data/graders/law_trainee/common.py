"""Helpers shared by the law trainee graders: the pharmacist's text and app readers plus date and line helpers."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from ..pharmacist.common import app_rows, csv_rows, matching_texts, whole_texts

__all__ = ["app_rows", "csv_rows", "matching_texts", "whole_texts", "lines_of", "line_has", "register_rows", "table_rows"]

REGISTER = "deadlines/register.csv"


def lines_of(evidence: Any, pattern: str) -> list[str]:
    """Every readable line (keyword dumps removed) of the workspace files matching the glob ``pattern``."""
    return [line for _, text in matching_texts(evidence, pattern) for line in text.splitlines()]


def line_has(lines: list[str], *patterns: str) -> bool:
    """Whether one line matches every regex in ``patterns`` (case-insensitive)."""
    return any(all(re.search(p, line, re.IGNORECASE) for p in patterns) for line in lines)


def register_rows(evidence: Any) -> list[dict[str, str]]:
    """Rows of the seat's deadlines register, or none when it is missing or has no matter_ref/due columns."""
    if not evidence.workspace.glob_files(REGISTER):
        return []
    return [r for r in table_rows(evidence.workspace.read_text(REGISTER)) if "matter_ref" in r and "due" in r]


def table_rows(text: str) -> list[dict[str, str]]:
    """CSV rows keyed by lower-cased header; a row with more or fewer cells than the header is skipped, not fatal."""
    rows = list(csv.reader(io.StringIO(text.strip())))
    if not rows:
        return []
    header = [h.strip().lower() for h in rows[0]]
    return [dict(zip(header, (c.strip() for c in row))) for row in rows[1:] if len(row) == len(header)]


def has_register_row(evidence: Any, matter: str, due: str, event: str) -> bool:
    """Whether the register holds a row of ``matter`` due on ``due`` whose event matches the regex ``event``."""
    return any(
        r["matter_ref"] == matter and r["due"] == due and re.search(event, r.get("event", ""), re.IGNORECASE)
        for r in register_rows(evidence)
    )
