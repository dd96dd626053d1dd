"""Agents for the trainee tests, loaded through ``--model path/file.py:Attr`` as any third-party scaffold is."""

from __future__ import annotations

import json

from proactive_bench import AgentTurn, LLMCallRecord, ScaffoldOptions, SessionContext
from proactive_bench.suites.trainee import KEYWORD_QUESTIONS


class _Scripted:
    """A scaffold that acts once per message, through the recording toolbox."""

    uses_reference_solution = False

    def __init__(self) -> None:
        self.ctx: SessionContext | None = None

    def start_session(self, ctx: SessionContext) -> None:
        self.ctx = ctx

    def end_session(self) -> None:
        self.ctx = None


class WorkspaceLister(_Scripted):
    """Lists every workspace folder (``list_dir`` from the top, recursively), globs every file and lists the chat contacts;
    replies with one JSON object of what it saw."""

    def respond(self, message: str) -> AgentTurn:
        assert self.ctx is not None
        listed: list[str] = []
        folders = ["."]
        while folders:
            folder = folders.pop()
            record = self.ctx.tools.call("list_dir", {"path": folder})
            for name in record.result.get("response") or []:
                path = name if folder == "." else f"{folder}/{name}"
                (folders if name.endswith("/") else listed).append(path.rstrip("/"))
        globbed = self.ctx.tools.call("glob", {"pattern": "**/*"}).result.get("response") or []
        contacts = [c["handle"] for c in self.ctx.tools.call("chat__list_contacts", {}).result.get("response") or []]
        return AgentTurn(reply=json.dumps({"listed": sorted(listed), "globbed": sorted(globbed), "contacts": contacts}))


class KeywordCanvass(_Scripted):
    """Sends every chat contact the same four keyword questions (budget or cost; code, policy or threshold; date or deadline;
    how many), within the survey limit and naming no task, then says it is done: fishing for whatever kind of fact a task withholds."""

    def respond(self, message: str) -> AgentTurn:
        assert self.ctx is not None
        for contact in self.ctx.tools.call("chat__list_contacts", {}).result.get("response") or []:
            self.ctx.tools.call("chat__send_message", {"to": contact["handle"], "text": " ".join(KEYWORD_QUESTIONS)})
        return AgentTurn(reply="Done for today.")


class UndeclaredSteps(_Scripted):
    """Three clock reads in one turn without ever declaring a step (``begin_step``): each call must still count as one."""

    def respond(self, message: str) -> AgentTurn:
        assert self.ctx is not None
        for _ in range(3):
            self.ctx.tools.call("clock__now", {})
        return AgentTurn(reply="Done for today.")


class GuessThenAsk(_Scripted):
    """Acts on every guess of the reference first, then asks every holder its targeted question: guessing, then asking for show."""

    def respond(self, message: str) -> AgentTurn:
        assert self.ctx is not None and self.ctx.reference is not None
        steps = [s for s in self.ctx.reference.reference if s.tool is not None]
        for step in steps:
            if step.guess is not None:
                self.ctx.tools.call(step.tool, step.guess)
            elif not step.from_history:
                self.ctx.tools.call(step.tool, step.args)
        for step in steps:
            if step.from_history and step.guess is None:  # the asking steps: a question to a holder, a clue file read
                self.ctx.tools.call(step.tool, step.args)
        return AgentTurn(reply="Done for today.")


class TouchThenGuess(_Scripted):
    """Names each clue file's path in a call that reads nothing (``list_dir`` on a file fails), then acts on every guess."""

    def respond(self, message: str) -> AgentTurn:
        assert self.ctx is not None and self.ctx.reference is not None
        for step in self.ctx.reference.reference:
            if step.tool == "read_file" and step.from_history:  # the oracle reading a clue's file
                self.ctx.tools.call("list_dir", {"path": step.args["path"]})
            elif step.tool is not None and (step.guess is not None or not step.from_history):
                self.ctx.tools.call(step.tool, step.guess if step.guess is not None else step.args)
        return AgentTurn(reply="Done for today.")


class ThinksWithoutDeclaring(_Scripted):
    """Records three answered model calls of its own (through the run's recorder) and one failed one, declares no step,
    calls no tool and replies: it took three decisions, whatever it declared."""

    def __init__(self, options: ScaffoldOptions) -> None:
        super().__init__()
        self.recorder = options.recorder

    def respond(self, message: str) -> AgentTurn:
        assert self.recorder is not None
        for ok in (True, True, False, True):
            self.recorder(LLMCallRecord(role="agent", purpose="plan", model="own", method="text", ok=ok, latency_ms=1.0))
        return AgentTurn(reply="Done for today.")
