"""The default agent under test: a small ReAct loop on any LangChain chat model.

In the spirit of nanobot: one system prompt (role, the session's tools, the
agent's memory, a compact digest of earlier sessions when the run gives
them), one message history per session, and a loop model → tool calls →
tool results until the model answers without calling a tool or the step cap
is reached. Every tool call goes through the session's :class:`ToolBox`, so it
is recorded; every model call is reported to the run's recorder.
"""

from __future__ import annotations

import base64
import json
import re
import time
import uuid
from typing import TYPE_CHECKING, Any

import openai
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables import RunnableBinding

from proactive_bench.env import ToolError, ToolRecord, ToolSpec, picture, render_result
from proactive_bench.json_text import parse_json
from proactive_bench.llm import (
    CHARS_PER_TOKEN,
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT_S,
    TEMPLATE_TOKENS,
    ChatSettings,
    LLMCallRecord,
    Recorder,
    fit_counted,
    history_text,
    is_context_length_error,
    learn_overflow,
    limit_from_error,
    listen,
    make_chat_model,
    one_line,
    prompt_budget_tokens,
    record_retries,
    tokens_from_error,
    trim_history,
    unlisten,
    usage_fields,
)
from proactive_bench.logs import get_logger
from proactive_bench.scaffolds.defaults import DEFAULT_MAX_TOOL_CALLS
from proactive_bench.scaffolds.langchain_tools import openai_tool_schemas
from proactive_bench.scaffolds.protocol import (
    EVENT_PREFIX,
    AgentTurn,
    ScaffoldLoadError,
    ScaffoldOptions,
    SessionContext,
    whole_number_option,
)

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

log = get_logger(__name__)

DEFAULT_MAX_STEPS = 20
HISTORY_MESSAGE_CHARS = 300
"""Each earlier-session message is cut to this many characters in the digest."""
HISTORY_TOTAL_CHARS = 8_000
"""The digest keeps at most this many characters, the most recent ones."""

SYSTEM_PROMPT = """\
You are a personal assistant for one user. You work across several sessions in a \
persistent workspace: files you write stay there, and notes you save to memory are \
available in later sessions.

How to work:
- Use your tools to look at the workspace and to do the work itself (write and edit \
files) rather than only describing what you would do.
- Save facts worth keeping for later sessions to memory.
- When you are done, answer the user directly and briefly.

{trigger_note}Tools available in this session:
{tools}

Your memory:
{memory}
{history}"""

EVENT_TRIGGER_NOTE = (
    "This session was started by an event in the user's environment, not by a message "
    "from the user; the user may join the conversation later.\n\n"
)


TEXT_TOOL_CALL = re.compile(r"^\s*(?:```(?:json)?|<tool_call>)?\s*([\[{].*[\]}])\s*(?:```|</tool_call>)?\s*$", re.DOTALL)
"""A reply that is nothing but JSON, perhaps fenced or in ``<tool_call>`` tags: maybe a tool call written as text."""


class AgentModelError(RuntimeError):
    """The agent's model call failed after the client's own retries."""


def tool_calls_in_text(text: str, tool_names: set[str]) -> list[dict[str, Any]]:
    """Tool calls some servers return as JSON text in the content (``{"name": ..., "arguments": {...}}``
    or a list of them) instead of as tool calls; [] unless every object names one of ``tool_names``."""
    match = TEXT_TOOL_CALL.match(text)
    if match is None:
        return []
    try:
        data = parse_json(match.group(1))
    except ValueError:
        return []
    calls = []
    for item in data if isinstance(data, list) else [data]:
        arguments = item.get("arguments", item.get("parameters", {})) if isinstance(item, dict) else None
        if isinstance(arguments, str):
            try:
                arguments = parse_json(arguments)
            except ValueError:
                return []
        if not isinstance(arguments, dict) or item.get("name") not in tool_names:
            return []
        calls.append({"name": item["name"], "args": arguments, "id": f"call_{uuid.uuid4().hex[:12]}", "type": "tool_call"})
    return calls


def history_digest(history: list[list[dict[str, str]]]) -> str:
    """Earlier sessions as short ``role: text`` lines, most recent kept if too long."""
    blocks = []
    for number, transcript in enumerate(history, start=1):
        lines = [f"{m.get('role', '?')}: {one_line(str(m.get('content', '')), HISTORY_MESSAGE_CHARS)}" for m in transcript]
        blocks.append(f"Session {number}:\n" + "\n".join(lines))
    digest = "\n\n".join(blocks)
    if len(digest) > HISTORY_TOTAL_CHARS:
        digest = "[older sessions omitted]\n" + digest[-HISTORY_TOTAL_CHARS:]
    return digest


def system_prompt(ctx: SessionContext) -> str:
    """The system prompt of one session."""
    tools = "\n".join(f"- {spec.name}: {spec.description.splitlines()[0]}" for spec in ctx.tools.specs) or "(none)"
    history = f"\nEarlier sessions with this user (condensed):\n{history_digest(ctx.history)}\n" if ctx.history else ""
    return SYSTEM_PROMPT.format(
        trigger_note=EVENT_TRIGGER_NOTE if ctx.trigger == "event" else "",
        tools=tools,
        memory=ctx.memory.render(),
        history=history,
    )


def _unbound(runnable: Any) -> tuple[Any, dict[str, Any]]:
    """A model bound to call arguments only (``bind_tools`` gives a ``RunnableBinding`` of its tools) as the model and those
    arguments, to call it with them directly: the same call, without the binding merging its run configuration with the
    caller's at every call (~70 µs inside a LangGraph node). Anything else is returned as it is, with no arguments."""
    if isinstance(runnable, RunnableBinding) and not runnable.config and not runnable.config_factories:
        return runnable.bound, dict(runnable.kwargs)
    return runnable, {}


class ReactAgent:
    """A ReAct loop: the model calls tools until it answers, at most ``max_steps`` model calls and ``max_tool_calls`` tool
    calls per message (a model answering with thousands of calls at once would otherwise have them all run)."""

    def __init__(
        self,
        model: BaseChatModel,
        model_name: str,
        recorder: Recorder | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        context_tokens: int | None = None,
        max_tokens: int | None = None,
        max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS,
    ) -> None:
        """``context_tokens``: the model's context window, when known (else learnt from a context-length error);
        ``max_tokens``: the answer cap, kept free in the window."""
        if max_steps < 1 or max_tool_calls < 1:
            raise ValueError("max_steps and max_tool_calls must be at least 1")
        self.context_tokens = context_tokens
        self.max_tokens = max_tokens
        self.chars_per_token: float = CHARS_PER_TOKEN
        """The model's characters per token as learnt so far (its server's counts, its context-length errors)."""
        self.model = model
        self.model_name = model_name
        self.recorder = recorder
        self.max_steps = max_steps
        self.max_tool_calls = max_tool_calls
        self._ctx: SessionContext | None = None
        self._runnable: Any = None
        self._call_kwargs: dict[str, Any] = {}
        """What the model is called with besides the messages: the tools of the session when they are bound as plain arguments."""
        self._method = "text"
        self._messages: list[BaseMessage] = []
        self._tool_names: set[str] = set()
        self._tools_text = ""
        """The session's tool schemas as sent with every call: counted with the history, never trimmed."""
        self._bound: dict[tuple[ToolSpec, ...], tuple[Any, dict[str, Any], str]] = {}
        """Per set of tools: the model to call, its call arguments (the tools) and the tools' text (see :meth:`start_session`)."""

    def start_session(self, ctx: SessionContext) -> None:
        self._ctx = ctx
        ctx.tools.max_calls_per_turn = self.max_tool_calls
        specs = tuple(ctx.tools.specs)
        self._tool_names = {spec.name for spec in specs}
        if specs not in self._bound:  # the same tools in most sessions: bound (and their text made) once
            tools = openai_tool_schemas(ctx.tools)
            runnable, kwargs = _unbound(self.model.bind_tools(tools) if tools else self.model)
            self._bound[specs] = runnable, kwargs, json.dumps(tools, ensure_ascii=False) if tools else ""
        self._runnable, kwargs, self._tools_text = self._bound[specs]
        self._call_kwargs = dict(kwargs)
        self._method = "tools" if specs else "text"
        self._messages = [SystemMessage(system_prompt(ctx))]

    def end_session(self) -> None:
        self._ctx = None
        self._runnable = None
        self._call_kwargs = {}
        self._messages = []

    async def respond(self, message: str) -> AgentTurn:
        """Run the loop on one incoming message and return the model's answer."""
        ctx = self._ctx
        if ctx is None:
            raise RuntimeError("respond() called before start_session()")
        first = len(self._messages) == 1
        text = EVENT_PREFIX + message if first and ctx.trigger == "event" else message
        self._messages.append(HumanMessage(text))
        for step in range(1, self.max_steps + 1):
            ctx.tools.begin_step()
            ai = await self._call_model(step)
            self._messages.append(ai)
            if not ai.tool_calls and not ai.invalid_tool_calls:
                return AgentTurn(reply=str(ai.text))
            self._messages.extend(await self._run_tools(ai))
            if ctx.tools.call_limit_reached:
                log.warning("react_tool_call_cap", session=ctx.session_id, max_tool_calls=self.max_tool_calls)
                return self._stopped(f"{self.max_tool_calls} tool calls")
        log.warning("react_step_cap", session=ctx.session_id, max_steps=self.max_steps)
        return self._stopped(f"{self.max_steps} steps")

    def _stopped(self, spent: str) -> AgentTurn:
        """The turn's reply when a cap ends it: said as the agent's answer, so the history stays valid for the next message."""
        reply = f"I stopped after {spent} without finishing this request."
        self._messages.append(AIMessage(reply))
        return AgentTurn(reply=reply)

    async def _call_model(self, step: int) -> AIMessage:
        """One model call, the history trimmed to the context window when it is known (:meth:`_fit_context`); a
        context-length error teaches the window and the characters per token it states and is retried once, trimmed.
        The transport's retries are recorded each."""
        trimmed = await self._fit_context()
        started = time.perf_counter()
        token = listen(record_retries(self.recorder, role="agent", purpose="react_step", model=self.model_name, method=self._method))
        try:
            try:
                ai = await self._runnable.ainvoke(self._messages, **self._call_kwargs)
            except openai.APIStatusError as exc:
                if not is_context_length_error(exc):
                    raise
                self._record(started, ok=False, error=f"context length: {one_line(str(exc.message), 200)}")
                error, sent = str(exc.message), len(self._prompt_text(self._messages))
                self.context_tokens, self.chars_per_token = learn_overflow(
                    self.context_tokens, self.chars_per_token, sent, limit_from_error(error), tokens_from_error(error)
                )
                trimmed = max(await self._fit_context(), 0)
                started = time.perf_counter()
                ai = await self._runnable.ainvoke(self._messages, **self._call_kwargs)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            self._record(started, ok=False, error=error)
            raise AgentModelError(f"agent model {self.model_name!r} failed at step {step}: {error}") from exc
        finally:
            unlisten(token)
        fields = usage_fields(ai)
        if trimmed > 0:
            note = f"history trimmed to fit {self.context_tokens} tokens: {trimmed} message(s) removed or clipped"
            fields["error"] = "; ".join(filter(None, (fields.get("error"), note)))
        self._record(started, ok=True, **fields)
        if not ai.tool_calls and not ai.invalid_tool_calls and self._tool_names:
            written = tool_calls_in_text(str(ai.text), self._tool_names)
            if written:
                ai = AIMessage(content="", tool_calls=written, response_metadata=ai.response_metadata, usage_metadata=ai.usage_metadata)
        log.debug("react_step", step=step, tool_calls=len(ai.tool_calls))
        return ai

    async def _fit_context(self) -> int:
        """Trim the history to the known context window: how many messages were removed or clipped (-1: no window known).

        As a judgment's prompt is fitted (:func:`~proactive_bench.llm.fit_counted`): by the characters per token learnt
        so far, then, for a history that might not fit, by the model server's own count where it offers one
        (``count_tokens``: ``/tokenize``), else with the estimate's margin; the tool schemas count, and
        :data:`~proactive_bench.llm.TEMPLATE_TOKENS` stay free for the chat template.
        """
        if self.context_tokens is None:
            return -1
        room = prompt_budget_tokens(self.context_tokens, self.max_tokens) - TEMPLATE_TOKENS
        history = self._messages

        def fit(budget: int) -> tuple[tuple[list[BaseMessage], int], str]:
            trimmed, changed = trim_history(history, max(budget - len(self._tools_text), 0))
            return (trimmed, changed), self._prompt_text(trimmed)

        count = getattr(self.model, "count_tokens", None)
        (self._messages, changed), self.chars_per_token = await fit_counted(fit, room, self.chars_per_token, count)
        if changed:
            log.info(
                "react_history_trimmed", context_tokens=self.context_tokens, changed=changed, chars_per_token=round(self.chars_per_token, 2)
            )
        return changed

    def _prompt_text(self, messages: list[BaseMessage]) -> str:
        """What the model's server tokenizes for a call: the tool schemas and the history."""
        return self._tools_text + history_text(messages)

    async def _run_tools(self, ai: AIMessage) -> list[BaseMessage]:
        """Run the message's tool calls through the toolbox; malformed ones come back as errors; pictures looked at follow."""
        assert self._ctx is not None
        results: list[BaseMessage] = []
        records = []
        for call in ai.tool_calls:
            record = await self._ctx.tools.acall(call["name"], call["args"])
            records.append(record)
            status = "success" if record.ok else "error"
            results.append(ToolMessage(render_result(record), tool_call_id=call["id"] or "", name=call["name"], status=status))
        for bad in ai.invalid_tool_calls:
            log.info("react_invalid_tool_call", tool=bad["name"], error=bad["error"])
            error = f"error: the arguments of this call could not be parsed ({bad['error'] or 'invalid JSON'}); nothing was run"
            results.append(ToolMessage(error, tool_call_id=bad["id"] or "", name=bad["name"] or "", status="error"))
        return results + self._pictures_shown(records)

    def _pictures_shown(self, records: list[ToolRecord]) -> list[HumanMessage]:
        """The pictures the step's ``view_image`` calls looked at, as one user message of image parts (a tool result is text only)."""
        assert self._ctx is not None
        parts: list[str | dict[str, Any]] = []
        for record in records:
            if not (record.ok and record.tool_name == "view_image"):
                continue
            path = str(record.call.get("path"))
            try:
                mime, data, _size = picture(self._ctx.workspace, path)
            except (ToolError, OSError, ValueError):  # the file changed since the call: nothing to show
                continue
            parts.append({"type": "text", "text": f"[view_image] {path}:"})
            parts.append({"type": "image_url", "image_url": {"url": f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"}})
        return [HumanMessage(content=parts)] if parts else []

    def _record(self, started: float, ok: bool, **fields: Any) -> None:
        if self.recorder is None:
            return
        latency_ms = (time.perf_counter() - started) * 1000
        self.recorder(
            LLMCallRecord(
                role="agent", purpose="react_step", model=self.model_name, method=self._method, ok=ok, latency_ms=latency_ms, **fields
            )
        )


REACT_OPTIONS = ("context_tokens", "max_retries", "max_steps", "max_tool_calls")
"""The ``--agent-option`` keys the ``react`` agent reads."""


def react_scaffold(options: ScaffoldOptions) -> ReactAgent:
    """The ``react`` built-in: ``options.extra`` may set ``max_steps``, ``max_tool_calls``, ``max_retries`` and
    ``context_tokens``, nothing else."""
    unknown = sorted(set(options.extra) - set(REACT_OPTIONS))
    if unknown:
        raise ScaffoldLoadError(
            f"react has no option {', '.join(map(repr, unknown))}; its options: {', '.join(REACT_OPTIONS)} (--agent-option KEY=VALUE)"
        )
    max_retries = whole_number_option(options.extra, "max_retries", DEFAULT_MAX_RETRIES, minimum=0, scaffold="react")
    max_steps = whole_number_option(options.extra, "max_steps", DEFAULT_MAX_STEPS, minimum=1, scaffold="react")
    max_tool_calls = whole_number_option(options.extra, "max_tool_calls", DEFAULT_MAX_TOOL_CALLS, minimum=1, scaffold="react")
    model = make_chat_model(
        options.model,
        ChatSettings(
            base_url=options.base_url,
            api_key=options.api_key,
            max_retries=max_retries,
            cache=options.cache,
            rate_limiter=options.rate_limiter,
            transport=options.transport,
            max_tokens=options.max_tokens,
            timeout=options.call_timeout or DEFAULT_TIMEOUT_S,
        ),
    )
    context = whole_number_option(options.extra, "context_tokens", 0, minimum=0, scaffold="react") or options.context_tokens
    return ReactAgent(
        model,
        model_name=options.model,
        recorder=options.recorder,
        max_steps=max_steps,
        context_tokens=context,
        max_tokens=options.max_tokens,
        max_tool_calls=max_tool_calls,
    )
