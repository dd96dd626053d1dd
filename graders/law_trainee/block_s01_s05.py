"""Rule graders for sessions s01-s05 of the law trainee episode."""

from __future__ import annotations

import re
from typing import Any

from .common import csv_rows, has_register_row, line_has, lines_of, whole_texts

HAL_NOTE = "matters/HAL.0009/2025-11-03*.md"
HAL_EXTRACT = "matters/HAL.0009/misdirected_spreadsheet_extract.csv"


def s01_counts(evidence: Any) -> bool:
    """The note gives 60 affected tenants and 17 with bank details, each figure on the line that names it."""
    lines = lines_of(evidence, HAL_NOTE)
    return line_has(lines, r"\b60\b(?!%)[^\n]{0,60}\b(tenants|data subjects|individuals|people)") and line_has(lines, r"\b17\b[^\n]{0,80}\bbank")


def s01_band(evidence: Any) -> bool:
    """The note names Severe as the matrix band."""
    return line_has(lines_of(evidence, HAL_NOTE), r"\bband\W{0,6}severe\b")


def s01_register(evidence: Any) -> bool:
    """deadlines/register.csv has its header and the HAL.0009 ICO row due 2025-11-03."""
    return has_register_row(evidence, "HAL.0009", "2025-11-03", r"\bICO\b")


def s01_no_tenant_names(evidence: Any) -> bool:
    """The note exists with a section heading and names no tenant from the extract."""
    notes = [(path, text) for path, text in whole_texts(evidence, HAL_NOTE) if re.search(r"^## \w+", text, re.MULTILINE)]
    names = [r["tenant_name"] for r in csv_rows(evidence.workspace.read_text(HAL_EXTRACT)) if r.get("tenant_name")]
    return bool(notes) and not any(re.search(rf"\b{re.escape(n)}\b", text, re.IGNORECASE) for _, text in notes for n in names)


def s02_register(evidence: Any) -> bool:
    """The register keeps the HAL.0009 ICO row and adds KES.0117's limitation (2026-01-09) and response (2025-11-18) rows."""
    return (
        s01_register(evidence)
        and has_register_row(evidence, "KES.0117", "2026-01-09", r"limitation")
        and has_register_row(evidence, "KES.0117", "2025-11-18", r"respon|reply")
    )
