"""Reply leak check for the LLM user: a reply must convey only the intents chosen this turn.

A model writing the user's message may let slip a requirement the agent has
neither met nor asked about, handing the agent an intent for free. After the
reply is written, :func:`leaked_intents` compares it with every open intent
that was not chosen: an intent's *distinctive* words are the content words of
its text and reveal sentence that appear neither in the chosen intents nor in
the conversation so far; the reply leaks it when it uses at least
``min(LEAK_WORDS, ceil(len(distinctive) / 3))`` of them. The LLM user then
writes the reply once more, told what to leave out (see ``user/llm.py``).
"""

from __future__ import annotations

import re
from math import ceil

from proactive_bench.dataset import HiddenIntent
from proactive_bench.user.targeting import FILLER

LEAK_WORDS = 3
_TOKEN = re.compile(r"[a-z0-9](?:[a-z0-9/.%-]*[a-z0-9%])?")


def _stems(text: str) -> set[str]:
    """Content words and units ("mg/L", "4.5", "q8h") of a text, lower-cased, a plural "s" dropped."""
    words = (w for w in _TOKEN.findall(text.lower()) if w not in FILLER and (len(w) >= 3 or any(c.isdigit() for c in w)))
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words}


def _about(intent: HiddenIntent) -> str:
    return f"{intent.text} {intent.reveal or ''}"


def leaked_intents(reply: str, unselected: list[HiddenIntent], selected: list[HiddenIntent], context: list[str]) -> list[str]:
    """Ids of the unselected intents the reply conveys (lexically), in the given order."""
    said = _stems(reply)
    known = set().union(*(_stems(_about(i)) for i in selected), *(_stems(text) for text in context))
    leaked = []
    for intent in unselected:
        distinctive = _stems(_about(intent)) - known
        if distinctive and len(distinctive & said) >= min(LEAK_WORDS, ceil(len(distinctive) / 3)):
            leaked.append(intent.id)
    return leaked
