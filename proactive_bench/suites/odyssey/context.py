"""What of the user's history an odyssey session gets: the memory context of the run's setting.

The context goes into the session's opening message (the trigger), so every
agent sees it the same way and the react agent reads the whole history under
``long-context`` (never a condensed digest). Under ``rag:*`` the opening
message holds the top-k retrieved documents and ``search_history`` searches
the same index (``ToolEnv.history``). The context's token count is recorded
with the run (``RunSpec.memory_tokens``, from ``LoadedEpisode.memory_tokens``).
"""

from __future__ import annotations

from dataclasses import dataclass

from proactive_bench.env import HistorySearch
from proactive_bench.suites.odyssey.settings import LONG_CONTEXT, MemorySetting
from proactive_bench.suites.odyssey.task import OdysseyTask

HISTORY_HEADING = "Our earlier conversations (oldest first):"
RETRIEVED_HEADING = "Passages retrieved from our earlier conversations:"
TASK_HEADING = "Task:"


def count_tokens(text: str) -> int:
    """Tokens of a context: whitespace-separated words (provisional until the memory module's counter lands)."""
    return len(text.split())


@dataclass(frozen=True)
class MemoryContext:
    """The history text given to the agent, its token count, and the index ``search_history`` uses (retrieval only)."""

    text: str
    tokens: int
    search: HistorySearch | None = None
    heading: str = HISTORY_HEADING

    def opening(self, intent: str) -> str:
        """The session's opening message: the context (if any), then the task intent."""
        if not self.text:
            return intent
        return f"{self.heading}\n\n{self.text}\n\n{TASK_HEADING} {intent}"


def task_context(task: OdysseyTask, setting: MemorySetting) -> MemoryContext:
    """The memory context of ``task`` under ``setting``; ValueError when the setting cannot be served."""
    if setting.kind == LONG_CONTEXT:
        text = task.history_text()
        return MemoryContext(text, count_tokens(text))
    if not setting.retrieval:
        return MemoryContext("", 0)
    raise ValueError(f"memory setting {setting.label!r} needs the history retrieval module, which is not installed yet")
