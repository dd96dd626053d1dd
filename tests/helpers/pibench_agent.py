"""A scripted agent for the π-Bench import tests (``--model tests/helpers/pibench_agent.py:PibenchTestAgent``).

It meets the intents of ``PLAN[session]["do"]`` by writing ``[<intent id>]``
markers to a notes file, asks about those of ``PLAN[session]["ask"]`` with
``[<intent id>]`` in the question, and on researcher_task_014 works in Todoist. The fake user model in
the test reads the same markers.
"""

from __future__ import annotations

from typing import Any

from proactive_bench import AgentTurn, SessionContext

PLAN: dict[str, dict[str, list[str]]] = {
    "researcher_task_008": {"do": [], "ask": ["h1"]},
    "researcher_task_014": {"do": ["h1"], "ask": ["h2"]},
    "Financier_task_002": {"do": ["h1"], "ask": []},
}
LOGIN = {"username": "la-mcco@gmail.com", "password": "Eu(M@!7"}


class PibenchTestAgent:
    def start_session(self, ctx: SessionContext) -> None:
        self.ctx = ctx
        self.turn = 0

    def respond(self, message: str) -> AgentTurn:
        self.turn += 1
        if self.turn > 1:
            return AgentTurn(reply="Noted, thank you.")
        sid = self.ctx.session_id
        plan = PLAN.get(sid, {"do": [], "ask": []})
        if sid == "researcher_task_014":
            self._todoist()
        if sid == "Financier_task_002":
            self.ctx.tools.call("simple_note__search_notes", {"query": "car service"})
        if plan["do"]:
            self.ctx.tools.call("write_file", {"path": f"notes/{sid}.md", "content": " ".join(f"[{i}] done" for i in plan["do"])})
        questions = " ".join(f"Should I also handle [{i}]?" for i in plan["ask"])
        return AgentTurn(reply=f"Here is my work on {sid}. {questions}".strip())

    def _todoist(self) -> None:
        tools = self.ctx.tools
        login: Any = tools.call("todoist__login", LOGIN)
        token = login.result["response"]["access_token"]
        for title, time in (("Morning stretching", "07:30-08:00"), ("Receive a package", "09:00-09:30")):
            tools.call("todoist__create_task", {"title": title, "description": f"Time: Friday {time}", "access_token": token})
        tools.call("write_file", {"path": "friday_plan.md", "content": "Friday plan: stretching, package at 09:00-09:30."})

    def end_session(self) -> None:
        pass
