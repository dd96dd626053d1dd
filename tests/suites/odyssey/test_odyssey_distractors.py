"""Distractor sessions: a task's history lengthened deterministically, in the split's shape, never with a detail's cue,
and retrieval over the lengthened history can miss what the task needs (the detail coverage of its context)."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from proactive_bench.suites.odyssey import TARGETS, HistoryDay, detail_coverage, lengthen, parse_memory_setting, render_history
from proactive_bench.suites.odyssey.distractors import RenderedText, Target, _finder, _reached, library
from proactive_bench.suites.odyssey.memory_tokens import ApproxCounter
from proactive_bench.suites.odyssey.task import APPS, OdysseyTask
from tests.helpers.paths import DATA, ODYSSEY_MINI

MINI = ODYSSEY_MINI / "odyssey"
NOW = date(2026, 3, 20)


def _days(n: int, first: int = 9) -> list[HistoryDay]:
    return [
        HistoryDay(
            date(2026, 3, first + 2 * k),
            (("user", f"Note for the gala: table {k} seats the Okonkwo family."), ("assistant", f"Noted, table {k} for the Okonkwos.")),
        )
        for k in range(n)
    ]


def _task(**changes: Any) -> OdysseyTask:
    data = yaml.safe_load((MINI / "od_test_vendor_memo" / "task.yaml").read_text())
    return OdysseyTask.model_validate(data | changes)


def _size(days: list[HistoryDay]) -> tuple[int, int, int]:
    return len(days), sum(len(d.turns) for d in days), ApproxCounter().count(render_history(days))


def test_plus_adds_short_sessions_on_free_dates_up_to_the_target_and_keeps_every_authored_day() -> None:
    authored = _days(6)
    days = lengthen(authored, "plus", 3, "t1", [], NOW)
    sessions, turns, tokens = _size(days)
    target = TARGETS["plus"]
    assert sessions >= target.sessions and turns >= target.turns and tokens >= target.tokens
    assert [d for d in days if d in authored] == authored  # kept whole, in order
    dates = [d.date for d in days]
    assert dates == sorted(set(dates)) and dates[-1] < NOW  # one session a date, all before the task's day
    added = [d for d in days if d not in authored]
    assert all(d.turns[0][0] == "user" and len(d.turns) <= 2 * max(len(e.turns) for e in library()) for d in added)
    assert any(authored[0].date < d.date < authored[-1].date for d in added)  # interleaved, not only a block before


def test_neo_keeps_exactly_the_days_and_never_cuts_their_own_conversation() -> None:
    authored = _days(5)
    days = lengthen(authored, "neo", 3, "t1", [], NOW)
    sessions, turns, tokens = _size(days)
    assert sessions == 5 and turns >= TARGETS["neo"].turns and tokens >= TARGETS["neo"].tokens
    for own, long in zip(authored, days, strict=True):
        assert long.date == own.date
        at = long.turns.index(own.turns[0])
        assert long.turns[at : at + len(own.turns)] == own.turns  # the day's conversation stays in one piece
        assert all(a[0] != b[0] for a, b in zip(long.turns, long.turns[1:], strict=False))  # roles still alternate


def test_the_same_seed_gives_the_same_history_and_another_seed_or_task_another() -> None:
    authored = _days(6)
    one = lengthen(authored, "plus", 3, "t1", [], NOW)
    assert one == lengthen(authored, "plus", 3, "t1", [], NOW)
    assert one != lengthen(authored, "plus", 4, "t1", [], NOW)
    assert one != lengthen(authored, "plus", 3, "t2", [], NOW)


def test_a_history_is_measured_as_its_rendering_counts_in_any_order() -> None:
    """The target is judged on the lengths of the days' renderings (kept per day), as on the rendered history."""
    for split, seed in (("plus", 3), ("neo", 5), ("plus", 8)):
        days = lengthen(_days(5 if split == "neo" else 6), split, seed, "t1", [], NOW)
        for cut in (len(days), len(days) // 2, 1, 0):
            some = days[:cut][::-1]  # out of date order, as while sessions are added
            sessions, turns, tokens = _size(sorted(some, key=lambda d: d.date))
            for target in (
                Target(turns, tokens, sessions),
                Target(turns, tokens + 1, sessions),
                Target(turns, max(tokens - 1, 0), sessions),
            ):
                assert _reached(some, target) == (tokens >= target.tokens and turns >= target.turns and sessions >= target.sessions)


def test_a_lengthened_history_is_kept_but_each_caller_gets_its_own_list() -> None:
    authored = _days(6)
    one = lengthen(authored, "plus", 3, "t1", [], NOW)
    one.pop()
    assert lengthen(authored, "plus", 3, "t1", [], NOW) == lengthen(list(authored), "plus", 3, "t1", (), NOW, ())
    assert len(lengthen(authored, "plus", 3, "t1", [], NOW)) == len(one) + 1


def test_an_exchange_matching_a_detail_cue_is_never_used() -> None:
    cue = r"sourdough|VLOOKUP|peace lil"
    for seed in range(5):
        text = render_history(lengthen(_days(6), "plus", seed, "t1", [cue], NOW))
        assert "Okonkwo" in text and "sourdough" not in text and "VLOOKUP" not in text and "peace lily" not in text.lower()
    used = render_history(lengthen(_days(6), "neo", 0, "t1", [], NOW))
    assert len(library()) > 40 and "{weekday}" not in used


@pytest.mark.parametrize(
    "cue",
    [
        "Peace Lily",
        "peace lil",
        "50.00",
        "a.b",
        "sourdough|VLOOKUP",
        "\\bsalt\\b",
        "(?-i:Salt)",
        "Kelvin",
        "stra\u00dfe",
        "\u212aelvin",
        "",
        "(unclosed",
    ],
)
@pytest.mark.parametrize(
    "text", ["The peace lily, Kelvin and the SALT", "a+b 50,00 and 50.00", "\u212aelvin and the \u017falt", "Stra\u00dfe STRASSE", ""]
)
def test_a_cue_is_found_in_an_exchange_as_its_regex_finds_it(cue: str, text: str) -> None:
    """Plain ASCII cues are looked for as lower-cased substrings of ASCII texts: the same as the regex, ignoring case."""
    try:
        regex = re.compile(cue, re.IGNORECASE)
    except re.error:
        with pytest.raises(re.error):
            _finder(cue)
        return
    lowered = text.lower() if text.isascii() else None
    assert _finder(cue)(RenderedText(text, lowered)) is (regex.search(text) is not None)


def test_the_library_is_well_formed_with_closer_exchanges_for_every_app() -> None:
    exchanges = library()
    assert len({e.id for e in exchanges}) == len(exchanges)
    for exchange in exchanges:
        assert all(isinstance(text, str) and text.strip() for _, text in exchange.turns), exchange.id  # a bare "a: b" is a mapping
        assert exchange.apps <= set(APPS), exchange.id
    for app in APPS:
        assert sum(app in e.apps for e in exchanges) >= 8, app


@pytest.mark.parametrize("app", APPS)
def test_the_exchanges_close_to_the_tasks_apps_come_first(app: str) -> None:
    """Every usable exchange on the task's app is in its history before small talk fills the rest; another app's
    task gets its own instead."""
    days = lengthen(_days(6), "plus", 3, "t1", [], NOW, apps=[app])
    text = render_history(days)
    close = [e for e in library() if app in e.apps and not e.months]
    assert close and all(e.turns[1][1] in text for e in close)  # the reply: the question may name {weekday}
    other = next(a for a in APPS if a != app)
    elsewhere = [e for e in library() if other in e.apps and app not in e.apps]
    assert sum(e.turns[1][1] in text for e in elsewhere) < len(elsewhere)
    assert lengthen(_days(6), "plus", 3, "t1", [], NOW, apps=[app]) == days  # still deterministic


def test_seasonal_exchanges_only_in_their_months() -> None:
    winter = next(e for e in library() if e.months and 1 in e.months)
    for seed in range(8):
        text = render_history(lengthen(_days(6, first=1), "plus", seed, "t1", [], date(2026, 7, 20)))
        assert winter.turns[0][1] not in text


def test_a_task_with_distractors_gives_the_lengthened_history_to_validity_and_context() -> None:
    plain = _task()
    longer = _task(distractors={"seed": 1})
    assert plain.days() == [d for d in longer.days() if d in plain.days()] and len(longer.days()) >= TARGETS["plus"].sessions
    assert len(longer.history_text()) > 3 * len(plain.history_text())
    assert all(d.found_in(longer.history_text()) for d in longer.details)


def test_a_neo_task_needs_exactly_five_days() -> None:
    data = yaml.safe_load((MINI / "od_test_vendor_memo" / "task.yaml").read_text())
    assert _task(split="neo").split == "neo"  # its 5 days
    data["history"].insert(1, {"date": "2025-03-16", "turns": [{"role": "user", "text": "Quiet Sunday."}]})
    with pytest.raises(ValidationError, match="neo task has exactly 5 days"):
        OdysseyTask.model_validate(data | {"split": "neo"})


def test_retrieval_at_top_5_misses_details_that_long_context_keeps() -> None:
    task = _task(distractors={"seed": 2})
    whole = detail_coverage(task, parse_memory_setting("long-context"))
    assert whole.share == 1.0 and whole.tokens >= TARGETS["plus"].tokens
    one = detail_coverage(task, parse_memory_setting("rag:raw-utterance", 1))
    assert one.share < 1.0 and one.tokens < whole.tokens / 10


def test_the_shipped_tasks_are_lengthened_and_top_5_misses() -> None:
    """Every shipped task names its distractors; at top-5 sessions and utterances, the mean cue share is below 0.8."""
    shares: dict[str, list[float]] = {"rag:raw-session": [], "rag:raw-utterance": []}
    tokens = []
    for path in sorted((DATA / "odyssey").glob("*/task.yaml")):
        task = OdysseyTask.model_validate(yaml.safe_load(path.read_text()))
        assert task.distractors is not None, task.id
        tokens.append(ApproxCounter().count(task.history_text()))
        assert sum(len(d.turns) for d in task.days()) >= 100, task.id
        for memory, values in shares.items():
            if task.split == "plus" or memory.endswith("utterance"):
                values.append(detail_coverage(task, parse_memory_setting(memory, 5)).share)
    assert sum(tokens) / len(tokens) >= 3_500
    assert all(sum(v) / len(v) < 0.8 for v in shares.values()), shares
