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
