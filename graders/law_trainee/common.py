"""Helpers shared by the law trainee graders: the pharmacist's text and app readers plus date and line helpers."""

from __future__ import annotations

import re
from typing import Any

from ..pharmacist.common import app_rows, csv_rows, matching_texts, whole_texts

__all__ = ["app_rows", "csv_rows", "matching_texts", "whole_texts", "lines_of", "line_has", "register_rows"]

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
    rows = csv_rows(evidence.workspace.read_text(REGISTER))
    return [r for r in rows if "matter_ref" in r and "due" in r]


def has_register_row(evidence: Any, matter: str, due: str, event: str) -> bool:
    """Whether the register holds a row of ``matter`` due on ``due`` whose event matches the regex ``event``."""
    return any(
        r["matter_ref"] == matter and r["due"] == due and re.search(event, r.get("event", ""), re.IGNORECASE)
        for r in register_rows(evidence)
    )
