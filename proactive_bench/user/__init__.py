"""The simulated user: two-stage intent tracking and the next user message.

``base`` holds the decision types and the priority rule shared by every
backend; ``rules`` is the deterministic backend driven by intent annotations;
``llm`` judges with a chat model; ``pibench`` is the π-Bench release's user
(first unmet intent, targeting by its judge alone, no caps or patience), which
both backends become under ``--protocol pibench`` (``UserOptions.pibench``); ``followups`` wraps either to give a
session's scripted follow-up instructions; ``person`` puts a person at the
terminal in the user's seat, the simulator labelling the same turns silently. Prompts live in ``prompts/`` as versioned
files whose hash is stored with each decision. Both backends are built-ins
of :data:`USERS` (``--user NAME``), loaded when first asked for; a plugin backend is an entry
point of the ``pbench.users`` group: a factory taking :class:`UserOptions`. Each name here loads on first use
(``proactive_bench/exports.py``).
"""

from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "base": (
            "USERS",
            "StageVerdict",
            "UserBackendError",
            "UserDecision",
            "UserFactory",
            "UserOptions",
            "UserSimulator",
            "UserView",
            "check_user",
            "combine_stages",
            "known_users",
        ),
        "rules": ("RulesUser",),
        "followups": ("FollowUpUser", "delivered_followups"),
        "llm": ("LLMUser", "request_text"),
        "pibench": ("PibenchLLMUser",),
        "person": ("LABELS", "PENDING", "LabelPair", "PersonUser", "Terminal"),
        "targeting": ("cap_claims", "credited_questions", "match_admissible", "patience_spent_over", "screen_questions"),
    },
)

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use)
    from proactive_bench.user.base import (
        USERS,
        StageVerdict,
        UserBackendError,
        UserDecision,
        UserFactory,
        UserOptions,
        UserSimulator,
        UserView,
        check_user,
        combine_stages,
        known_users,
    )
    from proactive_bench.user.followups import FollowUpUser, delivered_followups
    from proactive_bench.user.llm import LLMUser, request_text
    from proactive_bench.user.person import LABELS, PENDING, LabelPair, PersonUser, Terminal
    from proactive_bench.user.pibench import PibenchLLMUser
    from proactive_bench.user.rules import RulesUser
    from proactive_bench.user.targeting import cap_claims, credited_questions, match_admissible, patience_spent_over, screen_questions

__all__ = [
    "FollowUpUser",
    "LABELS",
    "LLMUser",
    "LabelPair",
    "PENDING",
    "PersonUser",
    "PibenchLLMUser",
    "RulesUser",
    "StageVerdict",
    "Terminal",
    "USERS",
    "UserBackendError",
    "UserDecision",
    "UserFactory",
    "UserOptions",
    "UserSimulator",
    "UserView",
    "cap_claims",
    "check_user",
    "combine_stages",
    "credited_questions",
    "delivered_followups",
    "known_users",
    "match_admissible",
    "patience_spent_over",
    "request_text",
    "screen_questions",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
