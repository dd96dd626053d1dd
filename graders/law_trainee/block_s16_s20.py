"""Rule graders for sessions s16-s20 of the law trainee episode."""

from __future__ import annotations

import re
from typing import Any

from .common import app_rows, has_register_row, line_has, lines_of, whole_texts

BRK_V1 = "matters/BRK.0204/drafts/2025-11-10_defence_v1.md"
BRK_V2 = "matters/BRK.0204/drafts/2025-11-27*_v2.md"


def s16_comment_table(evidence: Any) -> bool:
    """v2 has table rows for each of Joanna's four comments (purported, warranty, mitigation, £)."""
    rows = [line for line in lines_of(evidence, BRK_V2) if line.startswith("|")]
    return all(line_has(rows, p) for p in (r"purported", r"warranty", r"mitigation", r"£|GBP"))


def s16_v1_unchanged(evidence: Any) -> bool:
    """The v1 defence still starts with its own header and keeps 'GBP' (it was not overwritten by v2)."""
    ws = evidence.workspace
    return bool(ws.glob_files(BRK_V1)) and ws.read_text(BRK_V1).startswith("DRAFT v1") and "GBP 14,995" in ws.read_text(BRK_V1)


def s16_no_gbp(evidence: Any) -> bool:
    """v2 gives the price in £ and uses 'GBP' nowhere."""
    texts = [text for _, text in whole_texts(evidence, BRK_V2)]
    return bool(texts) and all("£14,995" in t and "GBP" not in t for t in texts)
