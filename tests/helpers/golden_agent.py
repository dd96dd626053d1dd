"""Scripted agents for the paper-tables golden test (``--models tests.helpers.golden_agent:Attentive``).

On its first turn in a session, ``Attentive`` follows ``PLAN[session][repeat]``: it writes ``[hN] done``
for the intents it meets and ``[kN]`` for the checklist criteria it passes into ``notes/<session>.md``
(and says so in its reply), claims in its reply only the intents it pretends to have met, and asks
``Should I also handle [hN]?`` about others; later turns say "Noted, thank you." unless the plan
crashes that session at turn 2. ``Quiet`` never does or asks anything. The stub user and judge of
``tests/reporting/test_paper_tables.py`` read the same markers.

The repeat is how many times this process has started that session before (``starts``; the test
clears it before each sweep, which runs one episode at a time), so the three runs of a sweep differ.
"""

from __future__ import annotations

from collections import Counter
from typing import ClassVar, NamedTuple

from proactive_bench import AgentTurn, SessionContext


class Step(NamedTuple):
    """What the agent does on its first turn of a session."""

    do: tuple[str, ...] = ()
    """Intents met: written to the notes file and said in the reply."""
    claim: tuple[str, ...] = ()
    """Intents only said to be met in the reply (the π-Bench user believes the message; pbench's wants the work)."""
    ask: tuple[str, ...] = ()
    passed: tuple[str, ...] = ()
    """Checklist markers written to the notes file."""
    crash: bool = False
    """Raise on the second turn: the session ends in error after the user's first answer."""


PLAN: dict[str, tuple[Step, Step, Step]] = {
    "Gardener_task_001": (
        Step(do=("h1",), ask=("h2",), passed=("k1", "k2")),
        Step(do=("h1", "h2", "h3"), passed=("k1",)),
        Step(claim=("h1",), passed=("k2",)),
    ),
    "Gardener_task_002": (Step(do=("h1",)), Step(ask=("h1", "h2")), Step()),
    "Gardener_task_003": (
        Step(do=("h1",), ask=("h2",), passed=("k1", "k2", "k3")),
        Step(passed=("k1",)),
        Step(do=("h1", "h2"), passed=("k2", "k3")),
    ),
    "baker_task_001": (
        Step(do=("h1", "h2", "h3"), passed=("k1", "k2")),
        Step(ask=("h1",), passed=("k2",)),
        Step(do=("h1",), passed=("k1",), crash=True),
    ),
    "baker_task_002": (
        Step(claim=("h1",), ask=("h2",), passed=("k1",)),
        Step(),
        Step(do=("h2",), passed=("k1",)),
    ),
}


class Attentive:
    starts: ClassVar[Counter[tuple[str, str]]] = Counter()
    """(class, session) -> sessions started so far in this process."""
    plan: ClassVar[dict[str, tuple[Step, Step, Step]]] = PLAN

    def start_session(self, ctx: SessionContext) -> None:
        self.ctx = ctx
        self.turn = 0
        key = (type(self).__name__, ctx.session_id)
        self.step = self.plan[ctx.session_id][Attentive.starts[key] % 3]
        Attentive.starts[key] += 1

    def respond(self, message: str) -> AgentTurn:
        self.turn += 1
        step = self.step
        if self.turn > 1:
            if step.crash:
                raise RuntimeError("the golden agent crashes on its second turn")
            return AgentTurn(reply="Noted, thank you.")
        sid = self.ctx.session_id
        if step.do or step.passed:
            lines = [f"[{i}] done" for i in step.do] + [f"[{k}]" for k in step.passed]
            self.ctx.tools.call("write_file", {"path": f"notes/{sid}.md", "content": "\n".join(lines) + "\n"})
        said = " ".join(f"I have handled [{i}]." for i in (*step.do, *step.claim))
        questions = " ".join(f"Should I also handle [{i}]?" for i in step.ask)
        return AgentTurn(reply=" ".join(p for p in (f"Here is my work on {sid}.", said, questions) if p))

    def end_session(self) -> None:
        pass


class Quiet(Attentive):
    """Does nothing and asks nothing: every intent is provided by the user."""

    plan: ClassVar[dict[str, tuple[Step, Step, Step]]] = {sid: (Step(), Step(), Step()) for sid in PLAN}
