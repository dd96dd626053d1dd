"""User burden: what a session cost the user, reported beside Proc.

Proc rewards asking; this is the bill. Per session:

- ``questions``: question sentences in the agent's replies;
- ``question_words``: the words of those sentences;
- ``user_turns``: messages the user had to write after the opening request
  (answers and volunteered requirements);
- ``untargeted``: questions that earned no intent: per turn, the questions
  asked minus the distinct questions the user credited (``inferred``);
  ``untargeted_share`` is their share of all questions;
- ``reasked``: questions about a convention the agent already knew from an
  earlier session (labels of stage ``reasked``: the user answered, nothing
  was credited);
- ``leaks``: user replies that conveyed an intent not chosen that turn (the
  LLM user's leak check), each with its turn and the intents it leaked.

Stored per session as the ``burden`` snapshot, summed in ``pbench results``,
and plotted against Proc in the report.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from proactive_bench.data_model import IntentLabel, Leak, Message, Stage, questions_in
from proactive_bench.user import credited_questions

SNAPSHOT_KIND = "burden"


@dataclass
class Burden:
    questions: int = 0
    question_words: int = 0
    user_turns: int = 0
    untargeted: int = 0
    reasked: int = 0
    leaks: list[dict[str, Any]] = field(default_factory=list)

    @property
    def untargeted_share(self) -> float | None:
        return self.untargeted / self.questions if self.questions else None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"untargeted_share": self.untargeted_share}


def session_burden(transcript: list[Message], labels: list[IntentLabel], leaks: list[Leak] | None = None) -> Burden:
    """Burden of one session from its final state's transcript, labels and recorded leaks."""
    credited = credited_questions(labels)
    burden = Burden(leaks=[asdict(leak) for leak in leaks or []], reasked=sum(label.stage == Stage.REASKED for label in labels))
    for message in transcript:
        if message.role == "user" and message.turn > 0:
            burden.user_turns += 1
        if message.role != "agent":
            continue
        questions = questions_in(message.content)
        burden.questions += len(questions)
        burden.question_words += sum(len(q.split()) for q in questions)
        burden.untargeted += len(questions) - min(len(questions), len(credited[message.turn]))
    return burden
