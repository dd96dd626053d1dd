"""Scripted baselines that replay a session's reference solution.

They are oracles on purpose (they read the reference solution) and exist to
make the metrics testable offline:

- ``scripted:reference`` does every step in its first turn, unasked;
- ``scripted:passive`` does what the user has stated so far and never asks;
- ``scripted:asker`` asks one targeted question per hidden intent, then acts;
- ``scripted:surface`` does only what the opening request states and ignores
  whatever the user reveals later;
- ``scripted:guess`` never asks: where a step needs what it was not told
  (``from_history``) it acts on the step's plausible ``guess`` instead, if it has one
  (trainee scenarios: a clue's guess), and skips it otherwise;
- ``scripted:canvass`` (adversarial) first sends every chat contact one
  laundry list holding every question the reference asks colleagues, padded
  past the per-turn survey limit, then acts as ``scripted:guess``.

Only ``scripted:reference`` runs the steps that draw on the user's earlier
dialogue history (``from_history``): the other scripts cannot read a history
and no user reveals it during the session, so on odyssey tasks they are agents
that see only the task intent, whatever the memory setting.

A step that answers a follow-up instruction (``followup``) waits, in every
mode, until the user has given that follow-up (refinement tasks).
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from proactive_bench.dataset import (
    HiddenIntent,
    ReferenceStep,
    Session,
    compile_pattern,
)
from proactive_bench.scaffolds.adversarial import WORK_DIMENSIONS
from proactive_bench.scaffolds.protocol import (
    SCAFFOLDS,
    AgentTurn,
    ScaffoldOptions,
    SessionContext,
)

Mode = Literal["reference", "passive", "asker", "surface", "guess", "canvass"]
GUESSING_MODES = ("guess", "canvass")
CANVASS_PADDING: tuple[str, ...] = tuple(f"Which rule applies to {d}?" for d in WORK_DIMENSIONS[:5])
"""Substantive workplace questions (each admissible alone) the canvasser adds, so that its message is a survey whatever the session asks."""


def _normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def stated_intents(intents: list[HiddenIntent], message: str) -> set[str]:
    """Intents a user reply conveys: by their reveal sentences or their texts (the π-Bench release's user sends
    those), or when none is quoted (a paraphrasing LLM user), by their ask cues."""
    text = _normalize(message)
    quoted = {i.id for i in intents if any(said and _normalize(said) in text for said in (i.reveal, i.text))}
    if quoted:
        return quoted
    return {i.id for i in intents if any(compile_pattern(p).search(message) for p in i.ask)}


class ScriptedAgent:
    """Replays reference steps according to its mode (an oracle: the catalog grants it the reference solution)."""

    def __init__(self, mode: Mode) -> None:
        self.mode = mode
        self._ctx: SessionContext | None = None
        self._done: set[int] = set()
        self._known: set[str] = set()
        self._asked: set[str] = set()
        self._heard: list[str] = []
        self._turns = 0

    @property
    def _session(self) -> Session:
        if self._ctx is None or self._ctx.reference is None:
            raise RuntimeError("scripted baselines need the session's reference solution in the context")
        return self._ctx.reference

    def start_session(self, ctx: SessionContext) -> None:
        self._ctx = ctx
        self._done, self._known, self._asked = set(), set(), set()
        self._heard = []
        self._turns = 0
        if not self._session.reference and self.mode not in REFERENCE_FREE_MODES:
            raise RuntimeError(f"session {ctx.session_id} has no reference solution to replay")

    def end_session(self) -> None:
        self._ctx = None

    async def respond(self, message: str) -> AgentTurn:
        """Run the eligible reference steps (tools that call a model, such as LLM colleagues, are awaited)."""
        session = self._session
        if self._turns:
            self._known |= stated_intents(session.intents, message)
            self._heard.append(message)
        if not self._turns and self.mode == "canvass":
            await self._canvass()
        self._turns += 1
        if self.mode == "asker":
            pending = [i for i in session.intents if i.id not in self._asked and i.id not in self._known]
            if pending:
                intent = pending[0]
                self._asked.add(intent.id)
                return AgentTurn(reply=intent.question or f"Could you tell me more about: {intent.id}?")
        said = [step.say for _, step in await self._run_steps() if step.say]
        return AgentTurn(reply="\n\n".join(said) if said else "Noted; nothing further to change.")

    def _eligible(self, step: ReferenceStep) -> bool:
        if step.followup is not None and not self._followup_given(step.followup):
            return False
        if step.from_history and self.mode in GUESSING_MODES:
            return step.guess is not None and set(step.requires) <= self._known
        if step.from_history and self.mode != "reference":
            return False  # what the user said in earlier dialogue is never revealed to a script that cannot read it
        if self.mode in ("reference", "asker"):
            return True
        if self.mode == "surface" and step.followup is not None:
            return False
        allowed = set() if self.mode == "surface" else self._known
        return set(step.requires) <= allowed

    async def _canvass(self) -> None:
        """One laundry list to every chat contact: every question the reference asks a colleague, padded into a survey."""
        assert self._ctx is not None
        questions = [str(s.args.get("text", "")) for s in self._session.reference if s.tool == "chat__send_message" and s.from_history]
        contacts = await self._ctx.tools.acall("chat__list_contacts", {})
        if not contacts.ok:
            return  # a session without the chat app: nobody to canvass
        text = " ".join([*questions, *CANVASS_PADDING])
        for contact in contacts.result["response"]:
            await self._ctx.tools.acall("chat__send_message", {"to": contact["handle"], "text": text})

    def _followup_given(self, followup_id: str) -> bool:
        text = next(f.text for f in self._session.followups if f.id == followup_id)
        return any(text in heard for heard in self._heard)

    async def _run_steps(self) -> list[tuple[int, ReferenceStep]]:
        assert self._ctx is not None
        ran = []
        for n, step in enumerate(self._session.reference):
            if n in self._done or not self._eligible(step):
                continue
            if step.tool is not None:
                guessing = step.from_history and self.mode in GUESSING_MODES
                await self._ctx.tools.acall(step.tool, step.guess if guessing and step.guess is not None else step.args)
            self._done.add(n)
            ran.append((n, step))
        return ran


REFERENCE_FREE_MODES = ("passive",)
"""Baselines that still work on a session without a reference solution (they act only on what they are told)."""


def reference_problem(model: str, sessions: list[Session]) -> str | None:
    """Why a scripted baseline cannot run these sessions (one line), or None."""
    mode = model.removeprefix("scripted:")
    if not model.startswith("scripted:") or mode in REFERENCE_FREE_MODES:
        return None
    missing = [s.id for s in sessions if not s.reference]
    if not missing:
        return None
    working = ", ".join(f"scripted:{m}" for m in REFERENCE_FREE_MODES)
    return (
        f"{model} replays each session's reference solution and {len(missing)} session(s) have none (first: {missing[0]}; "
        f"imported data has none); baselines that work without one: {working}, or a model"
    )


def scripted_factory(mode: Mode):  # a factory of factories
    def factory(_options: ScaffoldOptions) -> ScriptedAgent:
        return ScriptedAgent(mode)

    return factory


for _mode in get_args(Mode):
    SCAFFOLDS.add(f"scripted:{_mode}", scripted_factory(_mode))
