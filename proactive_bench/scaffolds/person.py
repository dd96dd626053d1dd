"""A person in the agent's seat (``pbench play``, ``--model person``): they answer at the terminal.

Each message is shown; then the person types lines until one is the reply:
``/tools`` lists the session's tools, ``/tool NAME {json args}`` calls one
(through the session's toolbox, so recorded as evidence like any agent's call),
``/reply TEXT`` or any line not starting with ``/`` is the reply. A malformed
command is explained and asked again; the end of input raises :class:`InputEnded`
(the session ends as an agent error with that message).
"""

from __future__ import annotations

import json
import sys
from typing import TextIO

from proactive_bench.data_model import INPUT_ENDED, InputEnded
from proactive_bench.json_text import parse_json, valid_unicode
from proactive_bench.scaffolds.protocol import (
    SCAFFOLDS,
    AgentTurn,
    ScaffoldOptions,
    SessionContext,
)

PERSON_AGENT = "person"
HELP = "/tools lists the tools, /tool NAME {json args} calls one, /reply TEXT (or a line not starting with /) answers"


class PersonAgent:
    """Reads the person's commands and reply from ``lines``, writes what they need to see to ``out``."""

    def __init__(self, lines: TextIO, out: TextIO) -> None:
        self.lines, self.out = lines, out
        self.ctx: SessionContext | None = None

    def start_session(self, ctx: SessionContext) -> None:
        self.ctx = ctx
        self._say(f"\n=== session {ctx.session_id} ({HELP}) ===")

    async def respond(self, message: str) -> AgentTurn:
        assert self.ctx is not None, "respond before start_session"
        self._say(f"user: {message}")
        while True:
            self.out.write("> ")
            self.out.flush()
            line = self.lines.readline()
            if not line:
                raise InputEnded(INPUT_ENDED)
            text = valid_unicode(line.strip())  # a terminal in the C locale reads bytes that are not UTF-8 as lone surrogates
            if not text:
                continue
            if not text.startswith("/"):
                return AgentTurn(reply=text)
            command, _, rest = text.partition(" ")
            if command == "/reply" and rest.strip():
                return AgentTurn(reply=rest.strip())
            if command == "/tools":
                for spec in self.ctx.tools.specs:
                    self._say(f"  {spec.name}: {spec.description.splitlines()[0] if spec.description else ''}")
            elif command == "/tool" and rest.strip():
                await self._call(rest.strip())
            else:
                self._say(f"  not understood: {text!r}; {HELP}")

    async def _call(self, rest: str) -> None:
        assert self.ctx is not None
        name, _, raw = rest.partition(" ")
        try:
            args = parse_json(raw) if raw.strip() else {}
        except ValueError as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            self._say(f'  the arguments of {name} are not JSON ({reason}); e.g. /tool read_file {{"path": "notes.txt"}}')
            return
        if not isinstance(args, dict):
            self._say(f'  the arguments of {name} must be a JSON object, e.g. {{"path": "notes.txt"}}')
            return
        record = await self.ctx.tools.acall(name, args)
        self._say(f"  {'ok' if record.ok else 'failed'}: {json.dumps(record.result, default=str)[:2000]}")

    def end_session(self) -> None:
        self.ctx = None

    def _say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()


@SCAFFOLDS.register(PERSON_AGENT)
def person_agent(options: ScaffoldOptions) -> PersonAgent:
    """``--model person``: the person at this terminal (stdin in, stderr out)."""
    return PersonAgent(sys.stdin, sys.stderr)
