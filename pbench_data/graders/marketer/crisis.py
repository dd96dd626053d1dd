"""Graders for the incident sessions (category P): what a statement says first, reply lengths."""

from __future__ import annotations

import re
from typing import Any

from .common import texts
from .copy import within_limits


def _first_body_line(text: str, heading: str) -> str:
    """The first non-empty, non-heading line under the first heading matching ``heading``."""
    inside = False
    for line in text.splitlines():
        if line.startswith("#"):
            inside = inside or bool(re.search(heading, line, re.I))
            continue
        if inside and line.strip():
            return line
    return ""


def s12_stop_use_first(evidence: Any) -> bool:
    """The statement's first line tells parents to stop using the FlipSip lid."""
    for _path, text in texts(evidence, "comms/incidents/*flipsip*holding*.md"):
        if re.search(r"stop using[^\n]*FlipSip", _first_body_line(text, r"^#+\s*statement\s*$")):
            return True
    return False


def replies_within(evidence: Any, pattern: str, limit: int, minimum: int) -> bool:
    """Some file has at least ``minimum`` "Reply:" lines, every one at most ``limit`` characters."""
    for _path, text in texts(evidence, pattern):
        replies = [m.group(1).strip() for m in re.finditer(r"^Reply:\s*(.+)$", text, re.M)]
        if len(replies) >= minimum and all(len(r) <= limit for r in replies):
            return True
    return False


def s13_email_limits(evidence: Any) -> bool:
    """The recall e-mail's subject is at most 45 characters and its preheader at most 90."""
    return within_limits(evidence, "comms/incidents/*flipsip*recall*.md", {"Subject": 45, "Preheader": 90}, 1)


def s14_reply_length(evidence: Any) -> bool:
    """At least five reply macros, every one short enough for a TikTok comment (150 characters)."""
    return replies_within(evidence, "comms/incidents/*flipsip*macros*.md", 150, 5)


def s18_email_limits(evidence: Any) -> bool:
    """The relaunch e-mail's subject is at most 45 characters and its preheader at most 90."""
    return within_limits(evidence, "content/email/*relaunch*.md", {"Subject": 45, "Preheader": 90}, 1)
