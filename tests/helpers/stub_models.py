"""Stub model servers' answers the LLM tests share: a competent user and judge model, a deterministic react agent.

:class:`FakeUserModel` reads the rendered prompts: an intent counts as completed
when its keyword shows up in the changed files, as targeted when the latest
message asks about it.
"""

from __future__ import annotations

import re
from typing import Any

from proactive_bench.testing.stub_server import (
    Reply,
    error_reply,
    open_requirement_ids,
    prompt_section,
    prompt_text,
    structured_reply,
    text_reply,
    tool_call_reply,
)

DONE_WHEN = {"units": "mg/L", "mean": "mean", "same_units": "mg/L", "memo": "memory_write"}
ASKED_WHEN = {"units": "unit", "mean": "mean", "same_units": "unit", "memo": "memory"}


class FakeUserModel:
    """Answers stage, reply and rubric prompts; knobs let a test break one kind of call."""

    def __init__(
        self,
        drop_findings: bool = False,
        reply_fault: bool = False,
        judge_fault: bool = False,
        gullible: bool = False,
        leaky: bool = False,
        always_leaky: bool = False,
    ) -> None:
        self.drop_findings = drop_findings
        self.reply_fault = reply_fault
        self.judge_fault = judge_fault
        self.gullible = gullible  # every requirement is "targeted" by the first question, whatever it asks
        self.leaky = leaky or always_leaky  # the first draft of a reply also mentions the mg/L requirement
        self.always_leaky = always_leaky  # ... and so does the rewritten one

    def __call__(self, body: dict[str, Any]) -> Reply:
        prompt = prompt_text(body)
        if "already satisfied" in prompt:
            changed = (
                prompt_section(prompt, "Files created or changed in the latest turn")
                + prompt_section(prompt, "Tool calls in the latest assistant turn")
                + prompt_section(prompt, "The task's files (current contents)")  # the π-Bench user's completion check
            )
            ids = open_requirement_ids(prompt)[: -1 if self.drop_findings else None]
            findings = [{"intent_id": i, "completed": DONE_WHEN.get(i, "\0") in changed, "evidence": "in the file"} for i in ids]
            return structured_reply(body, {"findings": findings})
        if "asks a question that targets" in prompt:
            latest = prompt_section(prompt, "The assistant's latest message")
            questions = [q for q in re.split(r"(?<=\?)\s*", latest) if q.endswith("?")]
            findings = []
            for i in open_requirement_ids(prompt):
                hit = next((q for q in questions if self.gullible or ASKED_WHEN.get(i, "\0") in q.lower()), "")
                findings.append({"intent_id": i, "targeted": bool(hit), "question": hit})
            return structured_reply(body, {"findings": findings, "relevance_order": list(reversed(open_requirement_ids(prompt)))})
        if "role-playing the user" in prompt:
            if self.reply_fault:
                return error_reply(500, "reply model down")
            reply = "Sure, " + prompt_section(prompt, "What to convey").strip().splitlines()[0].split(": ", 1)[1]
            if self.leaky and "mg/L" not in reply and ("## Leave out" not in prompt or self.always_leaky):
                reply += " Oh, and the values should be in mg/L."
            return text_reply(reply)
        if "grading an AI assistant" in prompt:
            if self.judge_fault:
                return text_reply("I think it is fine.")
            verdict = "YES" if "Batch summary" in prompt_section(prompt, "Files") else "NO"
            return structured_reply(body, {"rationale": "checked the file", "verdict": verdict})
        return error_reply(400, "unexpected prompt")


def agent_model(body: dict[str, Any]) -> Reply:
    """A deterministic react agent: writes the summary once, then answers."""
    if body["messages"][-1]["role"] == "tool":
        return text_reply("Done: the summary is in out/summary.md.")
    return tool_call_reply([("write_file", {"path": "out/summary.md", "content": "# Batch summary\nmean 4.65 mg/L\n"})])
