"""The trainee checkers, added to the ``checker`` predicate kind's named checkers (odyssey's ``CHECKERS``).

``chat_sent``: the agent messaged a colleague (with given words, within a time
window on the simulated clock: attending a meeting on time). ``clue_obtained``:
a colleague's reply released the clue (the paper's "asked the right person"
checkpoints). Deadlines on e-mail use ``email_sent``'s ``before``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from proactive_bench.suites.odyssey.checkers import CHECKERS, Checker, CheckerArgsModel, iso_minute

if TYPE_CHECKING:
    from proactive_bench.data_model import Evidence

CHAT_TABLE = "chat_message"


class ChatSentArgs(CheckerArgsModel):
    to: str = Field(min_length=1, description="The colleague's handle.")
    contains: list[str] = Field(default_factory=list, description="Parts the message must contain (case-insensitive).")
    after: str | None = Field(default=None, description="Sent at or after this ISO minute.")
    before: str | None = Field(default=None, description="Sent at or before this ISO minute.")

    @field_validator("after", "before")
    @classmethod
    def _iso(cls, value: str | None) -> str | None:
        if value is not None:
            iso_minute(value)
        return value


class ClueObtainedArgs(CheckerArgsModel):
    clue: str = Field(pattern=r"^d[0-9]+\.t[0-9]+\.k[0-9]+$", description="The scenario clue id, e.g. d1.t2.k1 (TemplateContext.clue_ref).")


def _chat_rows(evidence: Evidence) -> list[dict[str, Any]]:
    return evidence.apps.rows(CHAT_TABLE) if evidence.apps is not None else []


def chat_sent(args: ChatSentArgs, evidence: Evidence) -> bool:
    for row in _chat_rows(evidence):
        if row["direction"] != "out" or row["contact"] != args.to.strip().lower():
            continue
        text = str(row["text"]).casefold()
        if not all(part.casefold() in text for part in args.contains):
            continue
        sent = iso_minute(str(row["sent_at"]))
        if (args.after is not None and sent < iso_minute(args.after)) or (args.before is not None and sent > iso_minute(args.before)):
            continue
        return True
    return False


def clue_obtained(args: ClueObtainedArgs, evidence: Evidence) -> bool:
    return any(args.clue in (row.get("released") or []) for row in _chat_rows(evidence) if row["direction"] == "in")


TRAINEE_CHECKERS = {
    "chat_sent": Checker(args=ChatSentArgs, check=chat_sent, says="a chat message was sent to {to}"),
    "clue_obtained": Checker(args=ClueObtainedArgs, check=clue_obtained, says="clue {clue} was obtained by asking"),
}
CHECKERS.update(TRAINEE_CHECKERS)
