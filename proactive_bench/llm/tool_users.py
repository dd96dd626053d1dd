"""``UsesToolModels``: something a tool uses that calls a model (colleagues, a history index), by protocol only.

Its own module, importing no model client: code that asks whether a part calls a model loads neither LangChain nor
openai until a run's :class:`~proactive_bench.llm.ToolModels` exist.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from proactive_bench.llm.tool_models import ToolModels

Bound = TypeVar("Bound", bound="UsesToolModels")


@runtime_checkable
class UsesToolModels(Protocol):
    """Something a tool uses that calls a model: ``with_models`` gives a copy whose calls go the run's way."""

    def with_models(self: Bound, models: ToolModels) -> Bound: ...
