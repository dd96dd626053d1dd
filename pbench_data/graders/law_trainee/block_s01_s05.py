"""Rule graders for sessions s01-s05 of the law trainee episode."""

from __future__ import annotations

import re
from typing import Any

from .common import app_rows, csv_rows, has_register_row, line_has, lines_of, whole_texts

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


def _open_tasks(evidence: Any, due: str) -> list[dict[str, Any]]:
    return [t for t in app_rows(evidence, "todoist_task") if str(t.get("due_date")) == due and not t.get("is_completed")]


def _labels(evidence: Any, task_id: int) -> set[str]:
    names = {row["id"]: row["name"] for row in app_rows(evidence, "todoist_label")}
    return {names.get(row["label_id"], "") for row in app_rows(evidence, "todoist_task_label") if row["task_id"] == task_id}


def s03_tasks_dated(evidence: Any) -> bool:
    """Open tasks exist for the limitation expiry and Norbury's response."""
    return bool(_open_tasks(evidence, "2026-01-09")) and bool(_open_tasks(evidence, "2025-11-18"))


def s03_prefix(evidence: Any) -> bool:
    """Every open task due on either Kestrel date is titled [KES.0117] ..."""
    tasks = _open_tasks(evidence, "2026-01-09") + _open_tasks(evidence, "2025-11-18")
    return s03_tasks_dated(evidence) and all(str(t["title"]).startswith("[KES.0117]") for t in tasks)


def s03_priority(evidence: Any) -> bool:
    """The limitation expiry task has priority 4."""
    return any(t["priority"] == 4 for t in _open_tasks(evidence, "2026-01-09"))


def s03_issue_by(evidence: Any) -> bool:
    """An issue-by task is due 2025-12-09 at priority 4."""
    return any(t["priority"] == 4 and re.search(r"issue|claim form", str(t["title"]), re.IGNORECASE) for t in _open_tasks(evidence, "2025-12-09"))


def s03_label(evidence: Any) -> bool:
    """The limitation expiry task carries the 'limitation' label."""
    return any("limitation" in _labels(evidence, t["id"]) for t in _open_tasks(evidence, "2026-01-09"))


def s03_sections(evidence: Any) -> bool:
    """The expiry task sits in section 311 (Limitation) and the response task in 313 (Pre-action)."""
    return any(t["section_id"] == 311 for t in _open_tasks(evidence, "2026-01-09")) and any(
        t["section_id"] == 313 for t in _open_tasks(evidence, "2025-11-18")
    )


def s03_assigned(evidence: Any) -> bool:
    """The expiry task is assigned to Joanna Pryce (Todoist user 2)."""
    return any(t["assignee_id"] == 2 for t in _open_tasks(evidence, "2026-01-09"))


def s03_register(evidence: Any) -> bool:
    """The register keeps the s02 rows and adds KES.0117's issue-by date."""
    return s02_register(evidence) and has_register_row(evidence, "KES.0117", "2025-12-09", r"issue")


def s04_register(evidence: Any) -> bool:
    """The register keeps the earlier HAL.0009 row and adds the ICO answers due 2025-11-20."""
    return s01_register(evidence) and has_register_row(evidence, "HAL.0009", "2025-11-20", r"\bICO\b")


def s04_tenant_notice(evidence: Any) -> bool:
    """The tenant notice v1 has the DRAFT header, names the bank-details point and the no-e-mail warning."""
    path = "matters/HAL.0009/drafts/2025-11-06*tenant*_v1.md"
    texts = [text for _, text in whole_texts(evidence, path) if text.startswith("DRAFT v1")]
    lines = lines_of(evidence, path)
    return bool(texts) and line_has(lines, r"bank", r"sort code|account number") and line_has(lines, r"never|will not|won't", r"e-?mail|text")


def s05_notes_to_jp(evidence: Any) -> bool:
    """The draft agreement flags at least two open points as [Note to JP: ...]."""
    return sum(bool(re.search(r"\[Note to JP:[^\]]{10,}\]", line)) for line in lines_of(evidence, "matters/ORL.0032/**/2025-11-07*.md")) >= 2
