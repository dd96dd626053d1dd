"""A person in the user's seat (``pbench play --as user``): they label each turn and type the reply.

:class:`PersonUser` wraps a simulator: each turn the simulator decides
silently first, then the person at the terminal sees the agent's reply and
the open hidden intents, labels every one (completed, inferred, provided or
pending) and types the user's reply (``#N`` reveals intent N's sentence).
The person's decision drives the session; both labellings are kept as
:class:`LabelPair` rows for the agreement report. Malformed input is asked
again; the end of input ends the session with :data:`INPUT_ENDED` as its
error (and every later session at once).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TextIO

from proactive_bench.data_model import INPUT_ENDED, InputEnded, IntentLabel, IntentStatus, Stage
from proactive_bench.dataset import HiddenIntent
from proactive_bench.json_text import valid_unicode
from proactive_bench.user.base import UserDecision, UserSimulator, UserView

PERSON = "person"
PENDING = "pending"
"""An intent still open after the turn: the fourth label a person (and the agreement table) uses."""
LABELS = (IntentStatus.COMPLETED.value, IntentStatus.INFERRED.value, IntentStatus.PROVIDED.value, PENDING)
_ABBREVIATIONS = {"c": LABELS[0], "i": LABELS[1], "p": LABELS[2], "n": PENDING}
_STAGES = {IntentStatus.COMPLETED: Stage.COMPLETION, IntentStatus.INFERRED: Stage.QUESTION, IntentStatus.PROVIDED: Stage.VOLUNTEER}
_REVEAL = re.compile(r"#(\d+)")


@dataclass(frozen=True)
class LabelPair:
    """One intent at one user turn of a session: the person's label and the simulator's."""

    session_id: str
    turn: int
    intent_id: str
    person: str
    simulator: str
    simulator_name: str


@dataclass
class Terminal:
    """Where the person reads and types: lines in, prompts out (plain text, so it works through a pipe)."""

    lines: TextIO
    out: TextIO

    def say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def ask(self, prompt: str) -> str:
        """One line typed after ``prompt`` (stripped); :class:`InputEnded` at the end of input."""
        self.out.write(prompt)
        self.out.flush()
        line = self.lines.readline()
        if not line:
            raise InputEnded(INPUT_ENDED)
        return valid_unicode(line.strip())  # a terminal in the C locale reads bytes that are not UTF-8 as lone surrogates


def parse_label(text: str) -> str | None:
    """``c``/``i``/``p``/``n`` or a whole label word as a label; None if it is neither."""
    word = text.strip().lower()
    return _ABBREVIATIONS.get(word) or (word if word in LABELS else None)


@dataclass
class PersonUser:
    """The person's decisions drive the session; the wrapped simulator's are recorded beside them."""

    simulator: UserSimulator
    terminal: Terminal
    pairs: list[LabelPair] = field(default_factory=list)
    ended: bool = False
    name: str = PERSON

    async def decide(self, view: UserView) -> UserDecision:
        if not view.open_intents:
            return UserDecision([], None)
        if self.ended:
            return UserDecision([], None, error=INPUT_ENDED)
        shadow = await self.simulator.decide(view)
        try:
            labels, message = self._ask(view)
        except InputEnded:
            self.ended = True
            self.terminal.say(f"\n{INPUT_ENDED}; session {view.session.id} ends here")
            return UserDecision([], None, error=INPUT_ENDED)
        by_simulator = {label.intent_id: label.status.value for label in shadow.labels}
        self.pairs += [
            LabelPair(view.session.id, view.turn, i.id, labels[i.id], by_simulator.get(i.id, PENDING), self.simulator.name)
            for i in view.open_intents
        ]
        decided = [
            IntentLabel(intent_id, IntentStatus(status), _STAGES[IntentStatus(status)], "labelled by the person at the terminal", PERSON)
            for intent_id, status in labels.items()
            if status != PENDING
        ]
        return UserDecision(decided, message)

    def _ask(self, view: UserView) -> tuple[dict[str, str], str | None]:
        say = self.terminal.say
        say(f"\n--- session {view.session.id}, turn {view.turn} ---")
        say(f"agent: {view.evidence.latest_reply}")
        for record in view.turn_tool_records:
            say(f"  (tool {record.tool_name} {'ok' if record.ok else 'failed'})")
        say("open hidden intents:")
        for n, intent in enumerate(view.open_intents, 1):
            say(f"  {n}. {intent.id}: {intent.text}" + (f"  [reveal: {intent.reveal}]" if intent.reveal else ""))
        labels = {i.id: self._label(n, i) for n, i in enumerate(view.open_intents, 1)}
        return labels, self._reply(view.open_intents, all(status != PENDING for status in labels.values()))

    def _label(self, n: int, intent: HiddenIntent) -> str:
        while True:
            label = parse_label(self.terminal.ask(f"label {n}. {intent.id} (c)ompleted (i)nferred (p)rovided pe(n)ding: "))
            if label is not None:
                return label
            self.terminal.say("  type c, i, p or n (or the whole word)")

    def _reply(self, intents: list[HiddenIntent], all_closed: bool) -> str | None:
        while True:
            text = self.terminal.ask("your reply (#N reveals intent N; empty ends the session when no intent is pending): ")
            if not text:
                if all_closed:
                    return None
                self.terminal.say("  intents are still pending: type a reply")
                continue
            problem = None
            for number in _REVEAL.findall(text):
                k = int(number)
                if not 1 <= k <= len(intents) or not intents[k - 1].reveal:
                    problem = f"  #{number}: no intent with a reveal sentence has that number (1-{len(intents)})"
            if problem is None:
                return _REVEAL.sub(lambda m: intents[int(m.group(1)) - 1].reveal or "", text)
            self.terminal.say(problem)
