"""An agent that logs in to Simple Note with the login its request states and reads its account (tests of the π-Bench
import's app seeds: ``tests/importers/test_pibench_world.py``).

It reads ``Email:`` and ``Password:`` from the opening message as any agent would, calls ``simple_note__login`` and,
with the token it gets, ``simple_note__show_account``; it replies with what it read, or why it could not.
"""

from __future__ import annotations

import re

from proactive_bench import AgentTurn, SessionContext


class LoginAgent:
    def start_session(self, ctx: SessionContext) -> None:
        self.ctx = ctx
        self.turn = 0

    def respond(self, message: str) -> AgentTurn:
        self.turn += 1
        email, password = re.search(r"Email:\s*(\S+)", message), re.search(r"Password:\s*(\S+)", message)
        if self.turn > 1 or email is None or password is None:
            return AgentTurn(reply="Noted.")
        login = self.ctx.tools.call("simple_note__login", {"username": email.group(1), "password": password.group(1)})
        if not login.ok:
            return AgentTurn(reply=f"Login failed: {login.result.get('error')}")
        token = login.result["response"]["access_token"]
        account = self.ctx.tools.call("simple_note__show_account", {"access_token": token})
        return AgentTurn(reply=f"Your Simple Note account: {account.result.get('response')}")

    def end_session(self) -> None:
        pass
