"""The deterministic user backend: zero model calls, driven by intent annotations.

Stage 1: an open intent is completed when its ``evidence`` predicate holds on
the state after the agent's turn. Stage 2: it is inferred when a question in
the latest reply matches one of its ``ask`` regexes. Otherwise the first open
intent in the session's order is volunteered. The reply is the ``reveal``
sentences of the intents to convey.
"""

from __future__ import annotations

from proactive_bench.evidence import questions_in
from proactive_bench.predicates import compile_pattern, evaluate
from proactive_bench.user.base import StageVerdict, UserDecision, UserView, combine_stages, revealed

RULES_BACKEND = "rules"


class RulesUserError(ValueError):
    """Intents that lack the annotations the rules backend needs."""


class RulesUser:
    """Tracks intents with their evidence predicates, ask cues and reveal sentences."""

    name = RULES_BACKEND

    async def decide(self, view: UserView) -> UserDecision:
        open_ids = [i.id for i in view.open_intents]
        if not open_ids:
            return UserDecision([], None)
        unannotated = [i.id for i in view.open_intents if not i.has_rules]
        if unannotated:
            raise RulesUserError(
                f"session {view.session.id}: intents {unannotated} lack evidence/ask/question/reveal "
                "annotations; use --user llm for this dataset"
            )
        try:
            completed = [
                StageVerdict(i.id, "evidence predicate holds after the turn")
                for i in view.open_intents
                if i.evidence is not None and evaluate(i.evidence, view.evidence)
            ]
        except Exception as exc:  # a grader bug is a judgment that could not be made
            return UserDecision([], None, error=f"evidence predicate failed: {exc!r}")
        questions = questions_in(view.evidence.latest_reply)
        targeted = []
        for intent in view.open_intents:
            hit = next((q for q in questions if any(compile_pattern(p).search(q) for p in intent.ask)), None)
            if hit is not None:
                targeted.append(StageVerdict(intent.id, f"targeted question: {hit}"))
        labels = combine_stages(open_ids, completed, targeted, open_ids, decided_by=RULES_BACKEND)
        to_say = revealed(labels)
        message = " ".join(view.session.intent(i).reveal or "" for i in to_say) or None
        return UserDecision(labels, message)
