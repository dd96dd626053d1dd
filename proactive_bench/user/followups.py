"""Scripted follow-up instructions: the user's next request once the agent has delivered.

A session may list ``followups`` (``dataset.FollowUp``): ordered instructions
the user gives one at a time, each once its ``after`` predicate holds on the
state after an agent turn (refinement tasks: "now move the kitchen north").
:class:`FollowUpUser` wraps any backend: the backend labels hidden intents and
says what it says; then, when the next undelivered follow-up is released, its
text is appended to the message. A follow-up counts as delivered when its text
is in an earlier user message of the transcript, so a resumed session picks up
where it stopped. When the backend has nothing to say and no follow-up is
released, the session ends as before.
"""

from __future__ import annotations

from proactive_bench.dataset import FollowUp, evaluate
from proactive_bench.user.base import UserDecision, UserSimulator, UserView


def delivered_followups(view: UserView) -> list[str]:
    """Ids of the session's follow-ups already given in a user message."""
    said = [m.content for m in view.evidence.transcript if m.role == "user"]
    return [f.id for f in view.session.followups if any(f.text in text for text in said)]


def released_followup(view: UserView) -> FollowUp | None:
    """The next undelivered follow-up if its condition holds after this turn (they are given in order)."""
    done = set(delivered_followups(view))
    pending = [f for f in view.session.followups if f.id not in done]
    if not pending:
        return None
    return pending[0] if evaluate(pending[0].after, view.evidence) else None


class FollowUpUser:
    """A user backend that also gives the session's scripted follow-ups; a plain pass-through without them."""

    def __init__(self, inner: UserSimulator) -> None:
        self.inner = inner
        self.name = inner.name

    async def decide(self, view: UserView) -> UserDecision:
        decision = await self.inner.decide(view)
        if decision.error is not None or not view.session.followups:
            return decision
        try:
            followup = released_followup(view)
        except Exception as exc:  # a release condition that cannot be evaluated is never guessed
            return UserDecision(decision.labels, None, error=f"follow-up condition failed: {exc!r}")
        if followup is None:
            return decision
        message = f"{decision.message} {followup.text}" if decision.message else followup.text
        return UserDecision(decision.labels, message, leaks=decision.leaks)
