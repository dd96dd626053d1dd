"""The deterministic user backend: zero model calls, driven by intent annotations.

Stage 1: an open intent is completed when its ``evidence`` predicate holds on
the state after the agent's turn (the reply's statements count only for
intents whose evidence is about what the agent says). Stage 2: it is inferred
when an admissible question of the latest reply (see
:mod:`proactive_bench.user.targeting`) matches one of its ``ask`` regexes,
within the caps on how many intents one question and one turn may claim, and
while the session's questions that earned nothing have not used up the
user's patience.
Otherwise the first open intent in the session's order is volunteered. The
reply is the ``reveal`` sentences of the intents to convey.

Under ``--protocol pibench`` (``RulesUser(pibench=True)``) it follows the
release's user instead (:mod:`proactive_bench.user.pibench`): any question of
the reply matching an ``ask`` cue targets its intent, with no screen, caps or
patience; the reply is the intents' texts. What the release decides with its
model (whether a question clearly targets an intent, whether the reply's words
and the task's files meet one) the cues and evidence predicates stand in for.
"""

from __future__ import annotations

from collections.abc import Iterable

from proactive_bench.dataset import HiddenIntent, compile_pattern, evaluate
from proactive_bench.user.base import (
    USERS,
    StageVerdict,
    UserDecision,
    UserOptions,
    UserView,
    combine_stages,
    revealed,
)
from proactive_bench.user.pibench import cue_targets, pibench_labels, pibench_message
from proactive_bench.user.targeting import cap_claims, screen_questions

RULES_BACKEND = "rules"


class RulesUserError(ValueError):
    """Intents that lack the annotations the rules backend needs."""


class RulesUser:
    """Tracks intents with their evidence predicates, ask cues and reveal sentences."""

    name = RULES_BACKEND

    def __init__(self, pibench: bool = False) -> None:
        self.pibench = pibench
        """The π-Bench release's rules (``--protocol pibench``) instead of pbench's."""

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
        if self.pibench:
            met = {v.intent_id for v in completed}
            still = [i for i in view.open_intents if i.id not in met]
            labels = pibench_labels(
                open_ids, completed, cue_targets(still, view.evidence.latest_reply), RULES_BACKEND, None, view.unaskable
            )
            return UserDecision(labels, pibench_message(view.session, labels))
        claims = {} if view.patience_spent else targeted_by_cues(view.open_intents, view.evidence.latest_reply, view.heard)
        targeted = [StageVerdict(i, f"targeted question: {q}") for i, q in claims.items()]
        labels = combine_stages(
            open_ids, completed, targeted, open_ids, decided_by=RULES_BACKEND, known=view.known, unaskable=view.unaskable
        )
        to_say = revealed(labels)
        message = " ".join(view.session.intent(i).reveal or "" for i in to_say) or None
        return UserDecision(labels, message)


def targeted_by_cues(intents: list[HiddenIntent], reply: str, heard: Iterable[str] = ()) -> dict[str, str]:
    """Intent id -> the admissible question of the reply that matches one of its ``ask`` cues, capped (``heard``: the
    user's messages, whose questions repeated back are echoes)."""
    admissible = screen_questions(reply, heard).admissible
    claims: dict[str, str] = {}
    for intent in intents:
        cues = [compile_pattern(p) for p in intent.ask]
        hit = next((q for q in admissible if any(c.search(q) for c in cues)), None)
        if hit is not None:
            claims[intent.id] = hit
    return cap_claims(claims)


@USERS.register(RULES_BACKEND)
def rules_user(options: UserOptions) -> RulesUser:
    """``--user rules``: needs no model."""
    return RulesUser(pibench=options.pibench)
