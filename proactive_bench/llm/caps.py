"""Per-role limits on model calls: how many tokens each kind of answer may take, and how long a call may last.

Without a cap a small local model can generate thousands of tokens for one
step (minutes on a laptop); with one, the server stops at the cap and the
answer is recorded as cut (``llmcall.error`` "cut at the max_tokens cap" on
an ``ok`` row). Set them with ``--max-tokens ROLE=N`` (repeatable) and
``--call-timeout SECONDS``, or the sweep-config keys ``max_tokens`` and
``call_timeout``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

CHARS_PER_TOKEN = 3
"""The characters of a token, as pbench estimates a text's tokens where the server does not count them."""
CallRole = Literal["agent", "user", "judge"]
"""The participants of a run, each with its own model setting (and answer cap)."""

CUT_NOTE = "cut at the max_tokens cap"
"""Recorded on a call whose answer stopped at the cap (finish reason ``length``)."""


class MaxTokens(BaseModel):
    """The answer cap of each role's calls; None: uncapped (runs recorded before caps existed)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    agent: int | None = Field(default=4096, gt=0, description="Each step of the react agent (tool calls with file contents included).")
    user_reply: int | None = Field(default=512, gt=0, description="The simulated user's next message.")
    user_judgement: int | None = Field(default=2048, gt=0, description="The user's judging stages (one finding per open intent).")
    judge: int | None = Field(default=1024, gt=0, description="One rubric verdict with its rationale.")


UNCAPPED = MaxTokens(agent=None, user_reply=None, user_judgement=None, judge=None)
ROLES = tuple(MaxTokens.model_fields)


def parse_max_tokens(pairs: list[str]) -> dict[str, int]:
    """``["judge=512"]`` as ``{"judge": 512}``; a bad pair is a ValueError naming it and the known roles."""
    caps: dict[str, int] = {}
    for pair in pairs:
        role, sep, value = pair.partition("=")
        role = role.strip()
        if not sep or role not in ROLES:
            raise ValueError(f"--max-tokens: expected ROLE=N with ROLE one of {', '.join(ROLES)}, got {pair!r}")
        try:
            caps[role] = int(value)
        except ValueError:
            raise ValueError(f"--max-tokens {role}: expected a whole number of tokens, got {value.strip()!r}") from None
        if caps[role] < 1:
            raise ValueError(f"--max-tokens {role}: must be at least 1, got {caps[role]}")
    try:
        MaxTokens(**caps)
    except ValidationError as exc:  # pragma: no cover (checked above)
        raise ValueError(f"--max-tokens: {exc.errors()[0]['msg']}") from None
    return caps
