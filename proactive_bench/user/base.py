"""Decision types and the status priority shared by all user backends.

Stage 1 (completion) and stage 2 (targeted question) judge the same agent
turn independently; :func:`combine_stages` merges them with the priority
completed > inferred > provided, and picks one intent to volunteer when
nothing was completed or asked about and intents remain open.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from proactive_bench.data_model import Evidence, IntentLabel, IntentStatus, Stage
from proactive_bench.dataset import HiddenIntent, Persona, Session
from proactive_bench.env import ToolRecord
from proactive_bench.llm import Recorder
from proactive_bench.registry import Registry
from proactive_bench.user.targeting import patience_spent


@dataclass
class UserView:
    """What the user simulator sees after an agent turn."""

    persona: Persona
    session: Session
    open_intents: list[HiddenIntent]
    evidence: Evidence
    turn: int
    turn_tool_records: list[ToolRecord] = field(default_factory=list)
    changed_files: list[str] = field(default_factory=list)
    earlier_labels: list[IntentLabel] = field(default_factory=list)
    """Labels given at earlier turns of the session (each with its turn)."""
    known: frozenset[str] = frozenset()
    """Intents whose requirement the agent already knows from an earlier session (``dataset.known_intents``):
    a question about one earns no inferred credit."""

    @property
    def heard(self) -> list[str]:
        """What the user (or an event) said in the session so far: a question of the agent's repeating theirs asks nothing."""
        return [m.content for m in self.evidence.transcript if m.role in ("user", "event")]

    @property
    def unaskable(self) -> frozenset[str]:
        """Open intents no question earns (``askable: false``): asked about, they are answered and provided."""
        return frozenset(i.id for i in self.open_intents if not i.askable)

    @property
    def patience_spent(self) -> bool:
        """Whether earlier questions that earned nothing have used up the user's patience (see ``targeting``)."""
        earlier = [(m.turn, m.content) for m in self.evidence.transcript if m.role == "agent" and m.turn < self.turn]
        return patience_spent(earlier, self.earlier_labels)


@dataclass
class UserDecision:
    """Labels for this turn and the next user message (None: nothing left to say)."""

    labels: list[IntentLabel]
    message: str | None
    error: str | None = None
    leaks: list[str] = field(default_factory=list)
    """Intents a first draft of the message conveyed although not chosen this turn (it was rewritten)."""


class UserSimulator(Protocol):
    """The simulated user: after each agent turn it labels the hidden intents the turn earned and writes the next message."""

    name: str

    async def decide(self, view: UserView) -> UserDecision:
        """Judge one agent turn and answer it.

        Args:
            view: What the user sees after the turn: the session, its open intents, the evidence so far
                (transcript, tool calls, changed files) and the labels given at earlier turns.

        Returns:
            The labels of this turn (at most one per open intent) and the next user message, None when the
            user has nothing left to say; ``error`` set when the backend failed (the runner records it).
        """
        ...


class UserBackendError(ValueError):
    """A user backend cannot be built from these options (one line: the option to add)."""


@dataclass(frozen=True)
class UserOptions:
    """What a user backend is built from; ``episode/launch.py`` fills it from the run's settings."""

    model: str | None
    """``--user-model``: the chat model's name, None if not given."""
    chat: Callable[[int | None], Any]
    """A chat model on the user's endpoint with the given answer cap (only call it with ``model`` set)."""
    recorder: Recorder | None = None
    judgement_tokens: int | None = None
    reply_tokens: int | None = None
    methods: Sequence[str] | None = None
    context_tokens: int | None = None
    pibench: bool = False
    """The π-Bench release's user rules (``--protocol pibench``, :mod:`proactive_bench.user.pibench`) instead of pbench's."""


UserFactory = Callable[[UserOptions], UserSimulator]

USERS: Registry[UserFactory] = Registry(
    "users", builtins={"rules": "proactive_bench.user.rules:RulesUser", "llm": "proactive_bench.user.llm:LLMUser"}
)
"""User backends by ``--user`` name: ``rules`` (the default, listed first) and ``llm``, each loaded when first asked for;
plugins in ``pbench.users``."""


def known_users() -> str:
    """The registered backend names for an error message: ``'rules' or 'llm'``."""
    quoted = [repr(name) for name in USERS.names()]
    return " or ".join([", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted)


def check_user(name: str) -> str:
    """``name`` if it is a registered user backend; else ValueError naming the known ones (for settings validators)."""
    if name not in USERS:
        raise ValueError(f"user must be {known_users()}, not {name!r}")
    return name


@dataclass(frozen=True)
class StageVerdict:
    """One stage's finding about one intent."""

    intent_id: str
    evidence: str


def check_finding_ids(found: list[str], open_ids: list[str]) -> None:
    """Exactly one finding per open intent, or a judge's answer is rejected (and asked again): a structured-call check.

    Raises:
        ValueError: naming the unknown, missing and repeated ids.
    """
    unknown = sorted(set(found) - set(open_ids))
    missing = [i for i in open_ids if i not in found]
    repeated = sorted({i for i in found if found.count(i) > 1})
    if unknown or missing or repeated:
        raise ValueError(f"findings must cover each open id once: unknown {unknown}, missing {missing}, repeated {repeated}")


def combine_stages(
    open_ids: list[str],
    completed: list[StageVerdict],
    targeted: list[StageVerdict],
    volunteer_order: list[str],
    decided_by: str,
    prompt_hashes: dict[Stage, str | None] | None = None,
    known: Collection[str] = (),
    unaskable: Collection[str] = (),
) -> list[IntentLabel]:
    """Merge both stages by priority; each open intent gets at most one label.

    ``volunteer_order`` ranks open intents by relevance to the current step;
    the first one neither completed nor targeted is volunteered when no
    question targeted any intent. A question that targets a ``known`` intent
    (a convention the agent already has from an earlier session) is answered,
    but the intent is labelled provided (stage ``reasked``), never inferred;
    the protocols that keep the paper's rule pass no ``known``. A question
    about an ``unaskable`` intent is answered without stating it (a pointer)
    and labelled provided too (stage ``question``).

    Args:
        open_ids: The intents still open, in the session's order.
        completed: The completion stage's verdicts (intents the agent's work satisfied).
        targeted: The question stage's verdicts (intents a question of the turn asked about).
        volunteer_order: Open intents ranked by relevance to the current step.
        decided_by: Who decided (``rules``, a model name), recorded on each label.
        prompt_hashes: The hash of each stage's prompt (an LLM user's), recorded on its labels.
        known: Intents the agent already knows from an earlier session.
        unaskable: Intents no question earns (``askable: false``).

    Returns:
        The labels of the turn: completed first, then targeted, else one volunteered intent.
    """
    hashes = prompt_hashes or {}
    open_set = set(open_ids)
    labels: list[IntentLabel] = []
    done: set[str] = set()
    for verdict in completed:
        if verdict.intent_id in open_set and verdict.intent_id not in done:
            labels.append(_label(verdict, IntentStatus.COMPLETED, Stage.COMPLETION, decided_by, hashes))
            done.add(verdict.intent_id)
    asked = False
    for verdict in targeted:
        if verdict.intent_id in open_set and verdict.intent_id not in done:
            if verdict.intent_id in known:
                reasked = StageVerdict(verdict.intent_id, f"re-asked a known convention: {verdict.evidence}")
                labels.append(_label(reasked, IntentStatus.PROVIDED, Stage.REASKED, decided_by, hashes))
            elif verdict.intent_id in unaskable:
                pointed = StageVerdict(verdict.intent_id, f"asked about an intent no question earns: {verdict.evidence}")
                labels.append(_label(pointed, IntentStatus.PROVIDED, Stage.QUESTION, decided_by, hashes))
            else:
                labels.append(_label(verdict, IntentStatus.INFERRED, Stage.QUESTION, decided_by, hashes))
            done.add(verdict.intent_id)
            asked = True
    if not asked:
        remaining = [i for i in volunteer_order if i in open_set and i not in done]
        remaining += [i for i in open_ids if i not in done and i not in remaining]
        if remaining:
            verdict = StageVerdict(remaining[0], "no completion or targeted question; the user volunteers it")
            labels.append(_label(verdict, IntentStatus.PROVIDED, Stage.VOLUNTEER, decided_by, hashes))
    return labels


def _label(verdict: StageVerdict, status: IntentStatus, stage: Stage, decided_by: str, hashes: dict[Stage, str | None]) -> IntentLabel:
    return IntentLabel(verdict.intent_id, status, stage, verdict.evidence, decided_by, hashes.get(stage))


def revealed(labels: list[IntentLabel]) -> list[str]:
    """Ids of intents the next user message must convey (answered or volunteered)."""
    return [label.intent_id for label in labels if label.status != IntentStatus.COMPLETED]
