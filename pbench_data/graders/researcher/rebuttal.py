"""Checks on the DriftLoRA rebuttal: one short response per review point."""

from __future__ import annotations

import re
from typing import Any

from .common import texts

RESPONSES = "rebuttal/driftlora/responses.md"
WORD_LIMIT = 150


def _sections(text: str) -> list[tuple[str, str]]:
    """(heading, body) of every '### ' section."""
    parts = re.split(r"^### +", text, flags=re.M)[1:]
    return [(p.split("\n", 1)[0].strip(), p.split("\n", 1)[1] if "\n" in p else "") for p in parts]


def s11_short_answers(evidence: Any) -> bool:
    """Eleven point sections R1.W1..R3.Q1, each answered in 1 to 150 words."""
    for _path, text in texts(evidence, RESPONSES):
        sections = [(h, b) for h, b in _sections(text) if re.match(r"R[123]\.[WQ]\d\b", h)]
        if len(sections) == 11 and all(0 < len(b.split()) <= WORD_LIMIT for _h, b in sections):
            return True
    return False
