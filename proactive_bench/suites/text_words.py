"""The word tokens the suites' BM25 rankings share (odyssey's history retrieval, agentif's attachment corpus)."""

from __future__ import annotations

import re

WORD = re.compile(r"[a-z0-9]+(?:['.@-][a-z0-9]+)*")
STOP_WORDS = frozenset(
    "a an and are as at be but by can could did do does for from had has have he her hi his i if in into is it its "
    "just me my of on or our she so that the their them then there they this to too up us was we were what when "
    "which who will with would you your yes no ok okay".split()
)


def words(text: str) -> list[str]:
    """Lower-cased word tokens (e-mail addresses, decimals and file names kept whole) without stop words."""
    return [w for w in WORD.findall(text.lower()) if w not in STOP_WORDS]
