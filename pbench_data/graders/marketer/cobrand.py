"""Graders for the co-branding sessions (category O): the partner's name rules and vetoed words."""

from __future__ import annotations

import re
from typing import Any

from .common import texts, whole_texts
from .copy import hashtags_ok, veto_words, within_limits

PARTNER_RULES = "partners/stridewell/stridewell_brand_rules.md"


def partner_veto_words(evidence: Any) -> list[str]:
    """Stridewell's vetoed words: the comma list after "Words we do not use." in its rules."""
    text = evidence.workspace.read_text(PARTNER_RULES)
    m = re.search(r"Words we do not use\.\*\*\s*(.+)", text)
    return [w.strip(" .") for w in m.group(1).split(",")] if m else []


def both_veto_lists_clean(evidence: Any, pattern: str, required: str) -> bool:
    """Some matching file has ``required`` and no matching file uses an Oakline or a Stridewell veto word.

    Quoted lines (starting with ">") are the partner's own material, not our copy, and are skipped.
    """
    files = [(p, "\n".join(line for line in t.splitlines() if not line.startswith(">"))) for p, t in whole_texts(evidence, pattern)]
    if not files or not any(re.search(required, t, re.I | re.M) for _p, t in files):
        return False
    words = veto_words(evidence) + partner_veto_words(evidence)
    rx = [re.compile(rf"(?<![\w-]){re.escape(w)}(?![\w-])", re.I) for w in words]
    return not any(r.search(t) for _p, t in files for r in rx)


def registered_first_only(evidence: Any, pattern: str) -> bool:
    """In some matching file the first "Stridewell" carries ® and no later mention does."""
    for _path, text in texts(evidence, pattern):
        mentions = list(re.finditer(r"Stridewell(®)?", text))
        if len(mentions) >= 2 and mentions[0].group(1) and not any(m.group(1) for m in mentions[1:]):
            return True
    return False


S04_BRIEF = "partners/stridewell/*trail-run*brief*.md"


def s04_registered_mark(evidence: Any) -> bool:
    """The joint brief marks the first Stridewell with ®, and only the first."""
    return registered_first_only(evidence, S04_BRIEF)


def s04_words(evidence: Any) -> bool:
    """The brief has a key message and no word from either brand's veto list."""
    return both_veto_lists_clean(evidence, S04_BRIEF, r"^Key message:")


S09_KIT = "partners/stridewell/*social*kit*.md"


def s09_registered_per_post(evidence: Any) -> bool:
    """In every post (## Post section, at least three) the first Stridewell carries ® and no later one does."""
    for _path, text in texts(evidence, S09_KIT):
        posts = re.split(r"^## Post\b.*$", text, flags=re.M)[1:]
        ok = [bool(m) and m[0].group(1) and not any(x.group(1) for x in m[1:]) for m in (list(re.finditer(r"Stridewell(®)?", p)) for p in posts)]
        if len(ok) >= 3 and all(ok):
            return True
    return False


def s09_words(evidence: Any) -> bool:
    """The social kit has posts and no word from either brand's veto list."""
    return both_veto_lists_clean(evidence, S09_KIT, r"^## Post")


def s09_hashtags(evidence: Any) -> bool:
    """Oakline's channel rule holds on every post's hashtag line."""
    return hashtags_ok(evidence, S09_KIT)


S17_EMAIL = "content/email/*trail-run*.md"


def s17_cobrand_name(evidence: Any) -> bool:
    """The co-brand e-mail says "Oakline × Stridewell", with ® on the first Stridewell only."""
    return registered_first_only(evidence, S17_EMAIL) and any("Oakline × Stridewell" in t for _p, t in texts(evidence, S17_EMAIL))


def s17_limits(evidence: Any) -> bool:
    """The co-brand e-mail keeps the subject (45) and preheader (90) limits."""
    return within_limits(evidence, S17_EMAIL, {"Subject": 45, "Preheader": 90}, 1)
