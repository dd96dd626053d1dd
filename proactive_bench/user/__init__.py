"""The simulated user: two-stage intent tracking and the next user message.

``base`` holds the decision types and the priority rule shared by every
backend; ``rules`` is the deterministic backend driven by intent annotations;
``llm`` judges with a chat model. Prompts live in ``prompts/`` as versioned
files whose hash is stored with each decision.
"""

from proactive_bench.user.base import UserSimulator, UserView
from proactive_bench.user.llm import LLMUser, request_text
from proactive_bench.user.rules import RulesUser
from proactive_bench.user.targeting import credited_questions, screen_questions

__all__ = [
    "LLMUser",
    "RulesUser",
    "UserSimulator",
    "UserView",
    "credited_questions",
    "request_text",
    "screen_questions",
]
