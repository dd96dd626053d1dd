"""How much of a task's needed history a memory setting keeps: the share of its detail cues found in the context.

Offline (BM25, raw granularities and long-context): it measures whether retrieval at a top-k can miss what the
task needs, before any model is run. ``scripts/odyssey_cue_share.py`` prints it for a dataset.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from proactive_bench.suites.odyssey.memory import memory_context
from proactive_bench.suites.odyssey.settings import MemorySetting
from proactive_bench.suites.odyssey.task import OdysseyTask


@dataclass(frozen=True)
class Coverage:
    """Of a task's details, how many have their cue in the context, and the context's size in tokens."""

    found: int
    details: int
    tokens: int

    @property
    def share(self) -> float:
        return self.found / self.details if self.details else 1.0


def detail_coverage(task: OdysseyTask, setting: MemorySetting) -> Coverage:
    """The coverage of ``task``'s details by its context under ``setting`` (raw granularities, long-context or none)."""
    context = asyncio.run(memory_context(task.days(), setting, task.intent, task_id=task.id))
    found = sum(detail.found_in(context.text) for detail in task.details)
    return Coverage(found, len(task.details), context.tokens)
