"""Fitting a history that holds a picture (``view_image``): counted as about a thousand tokens, never clipped into text."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from proactive_bench.llm import message_chars, trim_history
from proactive_bench.llm.context import IMAGE_CHARS

PICTURE = HumanMessage(
    content=[
        {"type": "text", "text": "[view_image] plan.png:"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 60_000}},
    ]
)


def test_a_picture_counts_as_a_fixed_size_not_as_its_base64() -> None:
    assert message_chars([PICTURE]) == len("[view_image] plan.png:") + IMAGE_CHARS < 60_000


def test_trimming_drops_old_exchanges_and_never_turns_a_picture_into_clipped_text() -> None:
    history = [
        SystemMessage("system"),
        HumanMessage("Which room?"),
        AIMessage(content="", tool_calls=[{"name": "read_file", "args": {"path": "x"}, "id": "1"}]),
        ToolMessage("x" * 20_000, tool_call_id="1"),
        PICTURE,
    ]
    trimmed, changed = trim_history(history, message_chars(history) - 10_000)
    assert changed >= 1 and trimmed[-1] is PICTURE and not any(isinstance(m, ToolMessage) for m in trimmed)
    alone, _ = trim_history([SystemMessage("system"), PICTURE], 500)  # too big even alone: kept whole, not clipped
    assert alone[-1] is PICTURE
