"""Summary documents: each day, or each window of consecutive days, summarised once by a chat model.

A :class:`Summarizer` holds a model spec and the results database's recorded
answers. Each task gets its own :class:`~proactive_bench.llm.CallCache` under
``odyssey-summaries/<task id>``: the cache key covers the model's settings and
the whole prompt (so the prompt's version), hence a summary is made once per
(task, model, prompt version) and served from the database afterwards. Every
attempt is recorded (role ``agent``, purpose ``memory_summary``) with the
prompt's hash. A failed summary raises :class:`SummaryError`; none is ever made up.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import openai
from langchain_core.messages import HumanMessage

from proactive_bench.llm import (
    CallCache,
    ChatSettings,
    LLMCallRecord,
    Recorder,
    listen,
    load_prompt,
    make_chat_model,
    one_line,
    record_retries,
    unlisten,
    usage_fields,
)
from proactive_bench.store import RecordedAnswers
from proactive_bench.suites.odyssey.memory_docs import Granularity, HistoryDay, MemoryDoc, render_day

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from proactive_bench.llm.prompts import Prompt

PROMPTS = "suites/odyssey/prompts"
SESSION_PROMPT = load_prompt(PROMPTS, "summary_session.v1")
CHUNK_PROMPT = load_prompt(PROMPTS, "summary_chunk.v1")
CACHE_RUN = "odyssey-summaries"
"""The record/replay namespace of summaries (``<this>/<task id>``), beside the runs' own."""
CHUNK_DAYS = 2
"""Days per chunk: the history is cut into consecutive windows of this many days (the last may be shorter)."""
PURPOSE = "memory_summary"
ERROR_LIMIT = 300


class SummaryError(RuntimeError):
    """A summary could not be made (the model server failed or answered nothing)."""


@dataclass(frozen=True)
class Summarizer:
    """Summarises histories with ``model`` (``provider:name``); answers are recorded in ``answers`` (``Store.answers``)."""

    model: str
    answers: RecordedAnswers
    settings: ChatSettings = ChatSettings()
    recorder: Recorder | None = None
    chunk_days: int = CHUNK_DAYS
    _building: dict[str, asyncio.Lock] = field(default_factory=dict, init=False, repr=False, compare=False)
    """One lock per task: runs sharing this summarizer wait for the first one's summaries instead of asking again."""

    def __post_init__(self) -> None:
        if self.chunk_days < 1:
            raise ValueError(f"chunk_days must be at least 1, got {self.chunk_days}")

    def prompt_hash(self, granularity: Granularity) -> str:
        return (SESSION_PROMPT if granularity == Granularity.SUMMARY_SESSION else CHUNK_PROMPT).hash

    async def documents(self, task_id: str, days: Sequence[HistoryDay], granularity: Granularity) -> list[MemoryDoc]:
        """One summary per day (``summary-session``) or per window of ``chunk_days`` days (``summary-chunk``), in history order."""
        if granularity == Granularity.SUMMARY_SESSION:
            windows = [[day] for day in days]
            prompt = SESSION_PROMPT
        elif granularity == Granularity.SUMMARY_CHUNK:
            windows = [list(days[i : i + self.chunk_days]) for i in range(0, len(days), self.chunk_days)]
            prompt = CHUNK_PROMPT
        else:
            raise ValueError(f"{granularity} is not a summary granularity")
        async with self._building.setdefault(task_id, asyncio.Lock()):
            cache = CallCache(self.answers, CACHE_RUN, "record")
            cache.begin_session(task_id)
            chat = make_chat_model(self.model, replace(self.settings, cache=cache))
            try:
                texts = [await self._summary(chat, prompt, task_id, window) for window in windows]  # in order: the cache counts occurrences
            finally:
                cache.flush()
        prefix = "s" if granularity == Granularity.SUMMARY_SESSION else "c"
        return [
            MemoryDoc(f"{prefix}{n}", text, _span(window)) for n, (window, text) in enumerate(zip(windows, texts, strict=True), start=1)
        ]

    async def _summary(self, chat: BaseChatModel, prompt: Prompt, task_id: str, window: list[HistoryDay]) -> str:
        span = _span(window)
        text = prompt.render(span=span, transcript="\n\n".join(render_day(day) for day in window))
        fields: dict[str, Any] = {"role": "agent", "purpose": PURPOSE, "model": self.model, "method": "text", "prompt_hash": prompt.hash}
        token = listen(record_retries(self.recorder, **fields))
        started = time.perf_counter()
        try:
            answer = await chat.ainvoke([HumanMessage(text)])
        except (TimeoutError, openai.APIError) as exc:
            error = one_line(f"{type(exc).__name__}: {exc}", ERROR_LIMIT)
            self._record(fields, started, False, error=error)
            raise SummaryError(f"summary of task {task_id} ({span}) by {self.model} failed: {error}") from None
        finally:
            unlisten(token)
        summary = str(answer.text).strip()
        usage = usage_fields(answer)
        if not summary:
            self._record(fields, started, False, **{**usage, "error": "empty answer"})
            raise SummaryError(f"summary of task {task_id} ({span}) by {self.model} failed: the model answered nothing")
        self._record(fields, started, True, **usage)
        return summary

    def _record(self, fields: dict[str, Any], started: float, ok: bool, **more: Any) -> None:
        if self.recorder is not None:
            self.recorder(LLMCallRecord(ok=ok, latency_ms=(time.perf_counter() - started) * 1000, **fields, **more))


def _span(window: Sequence[HistoryDay]) -> str:
    first, last = window[0].date.isoformat(), window[-1].date.isoformat()
    return first if first == last else f"{first}..{last}"
