"""The note a decision made on clipped evidence carries, and how a stored rationale is read for it (no tools loaded)."""

from __future__ import annotations

CLIPPED_MARK = "[decided on clipped evidence:"
"""How :func:`~proactive_bench.data_model.trace.clipped_note` starts: a recorded rationale or evidence holding it was clipped."""


def was_clipped(text: str | None) -> bool:
    """Whether a recorded rationale or evidence carries the clipped-evidence note."""
    return text is not None and CLIPPED_MARK in text
