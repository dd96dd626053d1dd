"""The call cache's ``reuse`` mode (``run_episode(answers_from=...)``, the pytest plugin): another run's answers
where a call matches, the model for the rest, everything recorded in the new run; on a real SQLite store."""

from __future__ import annotations

import json
from pathlib import Path

from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration

from proactive_bench.llm import CallCache
from proactive_bench.store import Store

SETTINGS = "model=m"


def prompt(text: str) -> str:
    return json.dumps([{"lc": 1, "type": "constructor", "id": ["HumanMessage"], "kwargs": {"content": text}}])


def answer(text: str) -> list[ChatGeneration]:
    return [ChatGeneration(message=AIMessage(text))]


def test_reuse_serves_matching_calls_and_records_every_answer_in_the_new_run(tmp_path: Path) -> None:
    store = Store(tmp_path / "c.db")
    first = CallCache(store.answers, "run-a", fresh=True)
    first.begin_session("s1")
    for text in ("hello", "hello", "bye"):
        assert first.lookup(prompt(text), SETTINGS) is None
        first.update(prompt(text), SETTINGS, answer(f"to {text} #{len(store.answers.keys('run-a/s1'))}"))
    first.flush()

    second = CallCache(store.answers, "run-b", "reuse", "run-a", fresh=True)
    second.begin_session("s1")
    served = [second.lookup(prompt("hello"), SETTINGS) for _ in range(2)]
    assert [g[0].message.content for g in served if g] == ["to hello #0", "to hello #1"]  # type: ignore[attr-defined]
    assert second.lookup(prompt("hello"), SETTINGS) is None  # a third occurrence was never recorded: the model answers
    second.update(prompt("hello"), SETTINGS, answer("fresh"))
    assert second.lookup(prompt("changed prompt"), SETTINGS) is None
    second.update(prompt("changed prompt"), SETTINGS, answer("new"))
    second.flush()
    assert len(store.answers.keys("run-b/s1")) == 4  # two served, two made: the next run can be served all four
    assert len(store.answers.keys("run-a/s1") & store.answers.keys("run-b/s1")) == 2  # the two hellos; "bye" was not asked


def test_a_resumed_reuse_run_is_served_its_own_answers_too(tmp_path: Path) -> None:
    store = Store(tmp_path / "c.db")
    source = CallCache(store.answers, "run-a", fresh=True)
    source.begin_session("s1")
    assert source.lookup(prompt("hello"), SETTINGS) is None
    source.update(prompt("hello"), SETTINGS, answer("recorded"))
    source.flush()
    interrupted = CallCache(store.answers, "run-b", "reuse", "run-a", fresh=True)
    interrupted.begin_session("s1")
    assert interrupted.lookup(prompt("other"), SETTINGS) is None
    interrupted.update(prompt("other"), SETTINGS, answer("made before the interruption"))
    interrupted.flush()
    resumed = CallCache(store.answers, "run-b", "reuse", "run-a")
    resumed.begin_session("s1")
    served = [resumed.lookup(prompt(text), SETTINGS) for text in ("hello", "other")]
    assert [g[0].message.content if g else None for g in served] == ["recorded", "made before the interruption"]  # type: ignore[attr-defined]
