"""Rule graders for sessions s06-s10 of the law trainee episode."""

from __future__ import annotations

import re
from typing import Any

from .block_s01_s05 import s04_register
from .common import app_rows, has_register_row, line_has, lines_of, whole_texts


def s06_register(evidence: Any) -> bool:
    """The register keeps the Halden rows and adds BRK.0204's AoS (2025-11-19) and defence (2025-12-03) dates."""
    return (
        s04_register(evidence)
        and has_register_row(evidence, "BRK.0204", "2025-11-19", r"acknowledg|\bAoS\b")
        and has_register_row(evidence, "BRK.0204", "2025-12-03", r"defence")
    )


def s07_each_paragraph(evidence: Any) -> bool:
    """Each of the particulars' paragraphs 1-7 has a line that admits, denies or does not admit it."""
    lines = lines_of(evidence, "matters/BRK.0204/**/2025-11-10*.md")
    return all(line_has(lines, rf"\bparagraph {n}\b[^\n]{{0,30}}\b(is|are) (admitted|denied|not admitted)") for n in range(1, 8))


def s08_issue_table(evidence: Any) -> bool:
    """The plan has a Markdown table whose header names Issue and Gaps, with rows for breach, causation, quantum and the cap."""
    lines = lines_of(evidence, "matters/KES.0117/2025-11-11*.md")
    header = line_has(lines, r"^\|[^\n]*\bissue\b[^\n]*\|[^\n]*\bgaps?\b")
    rows = [line for line in lines if line.startswith("|")]
    return header and all(line_has(rows, p) for p in (r"^\|\s*breach", r"^\|\s*causation", r"^\|\s*quantum", r"^\|[^|]*(cap|14\.2)"))


def s09_heads(evidence: Any) -> bool:
    """The note puts GBP 33,450 at risk under clause 14.1 and GBP 150,900 as safe direct loss."""
    lines = lines_of(evidence, "matters/KES.0117/2025-11-17*.md")
    return line_has(lines, r"33,?450", r"risk|14\.1|excluded") and line_has(lines, r"150,?900", r"direct|safe")


def s09_register(evidence: Any) -> bool:
    """The register keeps the earlier rows and adds the offer expiry 2025-12-08."""
    return s06_register(evidence) and has_register_row(evidence, "KES.0117", "2025-12-08", r"offer")


HANDOVER = "notes/handover/2025-11-18*.md"


def s10_window_deadlines(evidence: Any) -> bool:
    """The handover gives BRK.0204's AoS on 19 November and HAL.0009's ICO answers on 20 November, each on its matter's line."""
    lines = lines_of(evidence, HANDOVER)
    return line_has(lines, r"BRK\.0204", r"19 nov(ember)?( 2025)?|2025-11-19", r"acknowledg|\bAoS\b") and line_has(
        lines, r"HAL\.0009", r"20 nov(ember)?( 2025)?|2025-11-20", r"\bICO\b"
    )


def s10_look_ahead(evidence: Any) -> bool:
    """The look-ahead gives the defence (3 Dec), the offer expiry (8 Dec) and the issue-by date (9 Dec) with their matters."""
    lines = lines_of(evidence, HANDOVER)
    return (
        line_has(lines, r"BRK\.0204", r"\b3 dec(ember)?|2025-12-03", r"defence")
        and line_has(lines, r"KES\.0117", r"\b8 dec(ember)?|2025-12-08", r"offer")
        and line_has(lines, r"KES\.0117", r"\b9 dec(ember)?|2025-12-09", r"issue")
    )
