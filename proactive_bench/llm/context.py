"""Fitting prompts into a model's context window.

A small local model may have a 4,096-token context; a long session's agent
history, or a judge prompt quoting big files, does not fit. When the limit
is known (``--context-tokens``, or learnt from the server's context-length
error) the agent's history is trimmed oldest-first and the user/judge
prompts' long parts (dialogue, tool results, file excerpts) are clipped,
each with a visible marker, and the trimming is recorded on the call. A
context-length error is retried after trimming; it is not a transient fault.

Token counts are estimated from characters (:data:`CHARS_PER_TOKEN`): no
tokenizer is loaded, nothing is counted unless a limit is known. A user's or
judge's prompt, or the agent's history, near its budget is counted by the model's server where it
offers a count (:mod:`~proactive_bench.llm.tokens`) and clipped further by the
ratio of characters to tokens it finds; where the server counts nothing, the
estimate keeps :data:`ESTIMATE_MARGIN` of the budget free. A context-length
error that states the tokens the server counted (:func:`tokens_from_error`)
teaches that ratio too, so the prompt asked again fits.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, TypeVar

from proactive_bench.llm.caps import CHARS_PER_TOKEN

if TYPE_CHECKING:  # LangChain's messages load with the first history trimmed, not with a run that calls no model
    from langchain_core.messages import BaseMessage

HISTORY_MARKER = "[{count} earlier message(s) of this session were removed to fit the model's context window]"
CLIP_MARKER = "\n[... {count} characters clipped to fit the model's context window ...]\n"
LIMIT_IN_ERROR = re.compile(r"(?:context (?:length|window|size)|maximum context)[^0-9]{0,40}?(\d{3,7})", re.IGNORECASE)
PROMPT_IN_ERROR = re.compile(r"(\d{2,7}) in the messages", re.IGNORECASE)
"""vLLM: "you requested 8391 tokens (8007 in the messages, 384 in the completion)"."""
SENT_IN_ERROR = re.compile(r"(?:request \(|you requested |resulted in |request has |prompt has )(\d{2,7})(?: input)? tokens", re.IGNORECASE)
"""llama.cpp "request (8391 tokens) exceeds the available context size", OpenAI "your messages resulted in 8391 tokens",
newer vLLM "your request has 8391 input tokens"."""
MIN_PART_CHARS = 200
ESTIMATE_MARGIN = 0.15
"""The share of a prompt's token budget left free when its tokens are only estimated (a small model's tokenizer may
count more than the estimate: SmolLM2 counts about 2.8 characters a token in pbench's judge prompts)."""
TEMPLATE_TOKENS = 64
"""Tokens kept free for what a server wraps around a counted prompt (its chat template's role markers, a system prompt)."""
FIT_ROUNDS = 3
"""How often a prompt is asked again, fitted anew, after a context-length error, and how often :func:`fit_counted`
counts one prompt while fitting it."""
SHRINK_SLACK = 0.97
"""The share of a counted budget a prompt is clipped to (clipping changes where the tokenizer splits a little)."""
OVERFLOW_SHRINK = 0.75
"""How much the characters per token drop after a context-length error that states nothing new."""

Fitted = TypeVar("Fitted")
Count = Callable[[str], Awaitable[int | None]]
"""A model server's count of a text's tokens (``ChatModel.count_tokens``), None when it offers none."""


def limit_from_error(message: str) -> int | None:
    """The context size a server's context-length error states, if it states one."""
    match = LIMIT_IN_ERROR.search(message)
    return int(match.group(1)) if match else None


def tokens_from_error(message: str) -> int | None:
    """The prompt tokens a server's context-length error says it counted, if it says (vLLM's "N in the messages" before
    a total that includes the answer's cap)."""
    match = PROMPT_IN_ERROR.search(message) or SENT_IN_ERROR.search(message)
    return int(match.group(1)) if match else None


async def fit_counted(
    fit: Callable[[int], tuple[Fitted, str]], room: int, chars_per_token: float, count: Count | None
) -> tuple[Fitted, float]:
    """A prompt fitted to ``room`` tokens as its server counts them, and the characters per token learnt on the way.

    ``fit(budget_chars)`` makes the prompt (clipped parts, a trimmed history) within that many characters, with the text
    the server counts. It is fitted by characters first (``chars_per_token``); a text that might not fit (more characters
    than ``room``) is counted by the server where it offers a count and fitted again by the characters per token it
    finds (:data:`SHRINK_SLACK` under it), at most :data:`FIT_ROUNDS` counts; where the server counts nothing, the
    estimate keeps :data:`ESTIMATE_MARGIN` of the budget free.
    """
    target = room * chars_per_token
    fitted, text = fit(int(target))
    for _ in range(FIT_ROUNDS):
        if len(text) <= room:  # fits even at a token per character: nothing to count
            break
        counted = await count(text) if count is not None else None
        if counted is None:
            return fit(max(int(room * chars_per_token * (1 - ESTIMATE_MARGIN)), 0))[0], chars_per_token
        if counted <= room:
            break
        ratio = len(text) / counted
        chars_per_token = min(chars_per_token, ratio)
        target = min(target, room * ratio) * SHRINK_SLACK
        fitted, text = fit(int(target))
    return fitted, chars_per_token


def learn_overflow(
    window: int | None, chars_per_token: float, sent_chars: int, limit: int | None, counted: int | None
) -> tuple[int, float]:
    """The window and characters per token a context-length error teaches, before the prompt is asked again: the window
    it states (``limit``; else the one known; else three quarters of the estimated prompt), and the characters per token
    of the refused prompt from the tokens the server says it ``counted``; an error stating neither anew lowers the
    characters per token by :data:`OVERFLOW_SHRINK`."""
    learnt = (
        limit or window or int(sent_chars / CHARS_PER_TOKEN * 3 / 4),
        min(chars_per_token, sent_chars / counted) if counted else chars_per_token,
    )
    return learnt if learnt != (window, chars_per_token) else (learnt[0], chars_per_token * OVERFLOW_SHRINK)


def prompt_budget_tokens(context_tokens: int, max_tokens: int | None) -> int:
    """Tokens a prompt may take so that the answer (its cap, at most half the window) still fits."""
    return context_tokens - min(max_tokens or context_tokens // 4, context_tokens // 2)


def prompt_budget_chars(context_tokens: int, max_tokens: int | None) -> int:
    """Characters a prompt may take so that the answer (its cap, at most half the window) still fits, estimated."""
    return prompt_budget_tokens(context_tokens, max_tokens) * CHARS_PER_TOKEN


IMAGE_CHARS = 1000 * CHARS_PER_TOKEN
"""What a picture in a message (an ``image_url`` part: ``view_image``) is counted as: about a thousand tokens, not its base64."""

IMAGE_TEXT = " x" * (IMAGE_CHARS // 2)
"""A picture in the text a server tokenizes: :data:`IMAGE_CHARS` characters that most tokenizers count as more
tokens than a thousand (one per `` x``), so a history with pictures is fitted on the safe side."""


def content_text(content: str | list[str | dict]) -> str:
    """A message content as text: text parts as they are, each picture part as :data:`IMAGE_TEXT`."""
    if isinstance(content, str):
        return content
    return "".join(
        IMAGE_TEXT if isinstance(p, dict) and p.get("type") == "image_url" else str(p.get("text", "") if isinstance(p, dict) else p)
        for p in content
    )


def content_chars(content: str | list[str | dict]) -> int:
    """A message content's size in characters: text as it is, each picture part as :data:`IMAGE_CHARS`."""
    return len(content_text(content))


def history_text(messages: list[BaseMessage]) -> str:
    """Messages as the text a server tokenizes: each one's content and its tool calls (name and arguments), a line each."""
    lines = []
    for message in messages:
        lines.append(content_text(message.content))
        lines.extend(f"{c['name']} {json.dumps(c.get('args', {}), ensure_ascii=False)}" for c in getattr(message, "tool_calls", []) or [])
    return "\n".join(lines)


def message_chars(messages: list[BaseMessage]) -> int:
    """The characters of :func:`history_text`, what :func:`trim_history` budgets."""
    return len(history_text(messages))


def trim_history(messages: list[BaseMessage], budget_chars: int) -> tuple[list[BaseMessage], int]:
    """``messages`` (system prompt first) within ``budget_chars``: the oldest exchanges dropped for a marker,
    then long tool results of what is left clipped. Returns the messages and how many were dropped or clipped."""
    if message_chars(messages) <= budget_chars:
        return messages, 0
    from langchain_core.messages import HumanMessage, ToolMessage

    head, body = messages[:1], messages[1:]
    starts = [i for i, m in enumerate(body) if not isinstance(m, ToolMessage)]  # a tool result stays with its call
    dropped = 0
    for start in starts[1:]:
        if message_chars(head + body[start:]) + len(HISTORY_MARKER) <= budget_chars:
            dropped = start
            break
    else:
        dropped = starts[-1] if starts else 0
    kept = body[dropped:]
    if dropped:
        kept = [HumanMessage(HISTORY_MARKER.format(count=dropped)), *kept]
    changed = dropped
    overflow = message_chars(head + kept) - budget_chars
    if overflow > 0:
        kept, clipped = _clip_tool_results(kept, overflow)
        changed += clipped
    return head + kept, changed


def _clip_tool_results(messages: list[BaseMessage], overflow: int) -> tuple[list[BaseMessage], int]:
    """Clip the longest tool results (and then the longest other texts) until ``overflow`` characters are gone."""
    from langchain_core.messages import ToolMessage

    out = list(messages)
    clipped = 0
    order = sorted(range(len(out)), key=lambda i: (not isinstance(out[i], ToolMessage), -content_chars(out[i].content)))
    for i in (i for i in order if isinstance(out[i].content, str)):  # a message with pictures is kept whole or dropped whole
        if overflow <= 0:
            break
        text = str(out[i].content)
        keep = max(MIN_PART_CHARS, len(text) - overflow - len(CLIP_MARKER))
        if keep >= len(text):
            continue
        out[i] = out[i].model_copy(update={"content": clip_middle(text, keep)})
        overflow -= len(text) - len(str(out[i].content))
        clipped += 1
    return out, clipped


def clip_middle(text: str, keep: int) -> str:
    """``text`` cut to about ``keep`` characters, its start and end kept, with a marker in between."""
    if len(text) <= keep:
        return text
    cut = len(text) - keep
    return text[: keep // 2] + CLIP_MARKER.format(count=cut) + text[len(text) - keep // 2 :]


def fit_parts(parts: Mapping[str, str], budget_chars: int, fixed_chars: int) -> tuple[dict[str, str], list[str]]:
    """Clip the longest of a prompt's variable ``parts`` so that they and ``fixed_chars`` of template fit ``budget_chars``.
    Returns the parts and the names of those clipped."""
    out = dict(parts)
    overflow = fixed_chars + sum(len(v) for v in out.values()) - budget_chars
    clipped = []
    for name in sorted(out, key=lambda n: -len(out[n])):
        if overflow <= 0:
            break
        text = out[name]
        keep = max(MIN_PART_CHARS, len(text) - overflow - len(CLIP_MARKER))
        if keep >= len(text):
            continue
        out[name] = clip_middle(text, keep)
        overflow -= len(text) - len(out[name])
        clipped.append(name)
    return out, clipped


def one_line(text: str, limit: int) -> str:
    """The text with its whitespace collapsed, cut to ``limit`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
