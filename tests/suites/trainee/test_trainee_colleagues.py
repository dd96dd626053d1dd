"""The chat and clock apps, and the rules colleagues (the LLM ones: tests/suites/trainee/test_trainee_colleagues_llm.py)."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from proactive_bench.env import (
    AppStore,
    ChatLine,
    ClockRates,
    ColleagueReply,
    Memory,
    ToolBox,
    ToolEnv,
    VirtualClock,
    Workspace,
    render_result,
    resolve_tool_names,
)
from proactive_bench.suites.trainee.colleagues import DEFLECTION, TIRED, HeldClue, RulesColleagues
from proactive_bench.suites.trainee.model import Npc

MORNING = datetime(2026, 3, 2, 9, 0)
NPC = Npc(handle="ada.lind", name="Ada Lind", role="Finance Lead", department="Finance", email="ada.lind@x.example", persona="Brisk.")
PAYMENTS = (re.compile(r"\bpayments?\b", re.I),)
POLICY = HeldClue("d1.t1.k1", "ada.lind", "Payments above 4000 need an approver.", (re.compile(r"\b(policy|threshold)\b", re.I),), PAYMENTS)
VENDOR = HeldClue(
    "d1.t1.k2", "ada.lind", "The approved vendor list is vendors.xlsx.", (re.compile(r"\bvendor list\b", re.I),), PAYMENTS, after="d1.t1.k1"
)
RULES = RulesColleagues({"ada.lind": NPC}, (POLICY, VENDOR))


class Echo:
    """A colleague backend that records what it was asked and releases nothing."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str, int, datetime]] = []

    def reply(self, handle: str, text: str, thread: list[ChatLine], moment: datetime) -> ColleagueReply:
        self.asked.append((handle, text, len(thread), moment))
        return ColleagueReply(f"re: {text}", ("d1.t1.k9",))


def _box(tmp_path: Path, colleagues: Any = None, rates: ClockRates | None = ClockRates(2, 1)) -> ToolBox:
    apps = AppStore()
    apps.set_clock(MORNING)
    with apps.db() as db:
        db.connection().exec_driver_sql(
            "INSERT INTO chat_contact (handle, name, role, department, email) VALUES ('ada.lind', 'Ada Lind', '', '', '')"
        )
        db.connection().exec_driver_sql(
            "INSERT INTO clock_notice (at, text, delivered) VALUES ('2026-03-02 09:05:00', 'standup starts', 0)"
        )
    clock = VirtualClock(apps, rates) if rates is not None else None
    env = ToolEnv(Workspace(tmp_path / "ws"), Memory(), apps, colleagues=colleagues, clock=clock)
    return ToolBox(env, resolve_tool_names(["chat", "clock"]))


def test_chat_records_both_sides_and_the_clock_moves_with_calls_and_steps(tmp_path: Path) -> None:
    echo = Echo()
    box = _box(tmp_path, echo)
    first = box.call("chat__send_message", {"to": "Ada.Lind", "text": "What is the policy?"})
    # a call no declared step covers is a step of its own: 09:00 -> 09:01 (the step), the call, -> 09:03
    assert first.ok and first.result["response"] == {"reply": "re: What is the policy?", "at": "2026-03-02T09:01"}
    assert "notices" not in first.result
    box.begin_step()  # 09:03 -> 09:04: the notice is due at 09:05, not yet
    second = box.call("chat__send_message", {"to": "ada.lind", "text": "And the vendor list?"})  # inside the declared step
    assert second.result["response"]["at"] == "2026-03-02T09:04"
    assert second.result["notices"] == ["[09:05] standup starts"] and "[notice] [09:05] standup starts" in render_result(second)
    assert echo.asked[1][2] == 2  # the colleague saw the thread so far
    rows = box.env.require_apps().rows("chat_message")
    assert [(r["direction"], r["released"]) for r in rows] == [("out", []), ("in", ["d1.t1.k9"]), ("out", []), ("in", ["d1.t1.k9"])]
    history = box.call("chat__read_history", {"with": "ada.lind"})
    assert [m["from"] for m in history.result["response"]] == ["you", "Ada Lind", "you", "Ada Lind"]
    unknown = box.call("chat__send_message", {"to": "bob", "text": "hi"})
    assert not unknown.ok and "known: ada.lind" in unknown.result["error"]


def test_wait_until_moves_forward_only_and_delivers_once(tmp_path: Path) -> None:
    box = _box(tmp_path)
    waited = box.call("clock__wait_until", {"until": "10:00"})
    assert waited.result["response"] == {"now": "2026-03-02T10:00", "notices": ["[09:05] standup starts"]}
    assert "notices" not in waited.result  # delivered once
    back = box.call("clock__wait_until", {"until": "09:30"})
    assert not back.ok and "does not go back" in back.result["error"]
    bad = box.call("clock__wait_until", {"until": "tea time"})
    assert not bad.ok and "until: expected HH:MM" in bad.result["error"]
    now = box.call("clock__now", {})  # each undeclared call: a step (1 min) before it, the call (2 min) after it
    assert now.result["response"]["now"] == "2026-03-02T10:09" and now.result["response"]["notices"] == ["[09:05] standup starts"]


def test_without_a_clock_time_stands_still(tmp_path: Path) -> None:
    box = _box(tmp_path, rates=None)
    for _ in range(5):
        box.call("clock__now", {})
    box.begin_step()
    assert box.call("clock__now", {}).result["response"]["now"] == "2026-03-02T09:00"
    with pytest.raises(ValueError, match="negative"):
        ClockRates(-1, 0)


def _thread(*pairs: tuple[str, ColleagueReply]) -> list[ChatLine]:
    lines: list[ChatLine] = []
    for text, answer in pairs:
        lines += [ChatLine("out", text), ChatLine("in", answer.text, answer.released)]
    return lines


def test_rules_colleague_releases_for_a_targeted_question_in_order() -> None:
    assert RULES.reply("ada.lind", "Hello! Hope your week is going well.", [], MORNING) == ColleagueReply(DEFLECTION, decided_by="rules")
    early = RULES.reply("ada.lind", "Where is the vendor list for payments kept?", [], MORNING)
    assert early.released == ()  # its condition: the policy first
    policy = RULES.reply("ada.lind", "What is the payment approval threshold?", [], MORNING)
    assert policy.released == ("d1.t1.k1",) and "4000" in policy.text
    vendor = RULES.reply("ada.lind", "Where is the vendor list for payments kept?", _thread(("q", policy)), MORNING)
    assert vendor.released == ("d1.t1.k2",)
    again = RULES.reply("ada.lind", "What is the approval policy threshold again?", _thread(("q", policy), ("q", vendor)), MORNING)
    assert again.released == ()


def test_rules_colleague_sets_aside_laundry_lists_and_loses_patience() -> None:
    survey = "What is the approval policy for payments? What is the vendor list? What is the code for the meeting? What budget applies here? Which report format works?"
    assert RULES.reply("ada.lind", survey, [], MORNING).released == ()
    menu = "Could you tell me the payments policy, the vendor list, the meeting code, the budget or the report format?"
    assert RULES.reply("ada.lind", menu, [], MORNING).released == ()
    misses = [
        (f"Which {topic} should I use today?", ColleagueReply(DEFLECTION)) for topic in ("printer tray", "parking level", "desk number")
    ]
    spent = RULES.reply("ada.lind", "What is the payment approval threshold?", _thread(*misses), MORNING)
    assert spent == ColleagueReply(TIRED, decided_by="rules")


def test_a_keyword_question_that_does_not_name_the_clues_subject_gets_nothing() -> None:
    """Asking for the kind of fact (a policy, a threshold) is not asking about the clue: its subject must be named too."""
    for bare in ("What is the approval policy threshold?", "What is the code, policy or threshold?"):
        assert RULES.reply("ada.lind", bare, [], MORNING) == ColleagueReply(DEFLECTION, decided_by="rules")
    assert RULES.reply("ada.lind", "Which payments did you approve yesterday?", [], MORNING).released == ()  # the subject, not the kind
    assert RULES.reply("ada.lind", "What is the approval threshold for payments?", [], MORNING).released == ("d1.t1.k1",)
