"""Structured output from any OpenAI-compatible server, degrading gracefully.

Servers differ in what they support, so one call tries, in order:

1. ``json_schema``: ``response_format`` with the JSON Schema (OpenAI, vLLM, ...);
2. ``function_calling``: the schema as a forced tool;
3. ``json_mode``: ``response_format: json_object`` plus the schema in the prompt;
4. ``prompt``: the schema in the prompt only, for servers with none of the above.

JSON from the last two is parsed tolerantly (``json-repair``), and so is a
"tool call" a server writes as JSON text instead of a real one.

Which method to use is learnt from the server's answers:

- rejected: a 4xx or 500 whose message names the method's feature
  (``response_format``, ``tools``, ...), or a 400/404/415/422 — the method is
  abandoned for the caller's life (the run) and the next one tried (a
  502/503/504 is overload whatever it names: see
  :func:`~proactive_bench.llm.faults.classify`);
- failing the same way twice in a row (the same server error, or answers that
  are not JSON / do not match the schema, as from a server that silently
  ignores ``response_format``): the next method is tried, and once another
  method has worked the failing one is abandoned for the run (when every
  method fails alike, the server is at fault, not the method);
- an answer the caller's ``check`` rejects is retried, then the next method tried;
- transient faults (rate limits, 502/503/504, timeouts, dropped connections,
  garbled or oversized bodies — already retried by the transport) are retried with backoff
  on the same method, a bounded number of times;
- authentication errors and prompts longer than the model's context end the
  call at once: no method can help.

Every attempt is recorded. When nothing yields a valid object,
:class:`StructuredOutputError` is raised: the caller records the judgment as
not made, it never guesses one.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from proactive_bench.json_text import parse_json
from proactive_bench.llm.context import (
    CHARS_PER_TOKEN,
    FIT_ROUNDS,
    TEMPLATE_TOKENS,
    fit_counted,
    fit_parts,
    learn_overflow,
    limit_from_error,
    one_line,
    prompt_budget_tokens,
    tokens_from_error,
)
from proactive_bench.llm.faults import Fault, MalformedBodyError, classify
from proactive_bench.llm.ledger import (
    ERROR_TEXT_LIMIT,
    CallRole,
    LLMCallRecord,
    Recorder,
    ToolRole,
    record_retries,
    usage_fields,
)
from proactive_bench.llm.prompts import Prompt
from proactive_bench.llm.retry_log import listen, unlisten
from proactive_bench.logs import get_logger

if TYPE_CHECKING:
    import openai
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
    from langchain_core.runnables import Runnable  # LangChain's runnables load their tracers and LangSmith

log = get_logger(__name__)

Method = Literal["json_schema", "function_calling", "json_mode", "prompt"]
METHODS: tuple[Method, ...] = ("json_schema", "function_calling", "json_mode", "prompt")
T = TypeVar("T", bound=BaseModel)

SCHEMA_INSTRUCTION = (
    "Answer with a single JSON object and nothing else (no prose, no code fence). It must validate against this JSON Schema:\n{schema}"
)


class StructuredOutputError(RuntimeError):
    """No valid structured answer could be obtained within the attempt budget."""


class ContextLengthError(StructuredOutputError):
    """The prompt is longer than the model's context; the caller may shorten it and ask again."""

    def __init__(self, message: str, limit: int | None = None, counted: int | None = None) -> None:
        """``limit``: the window the server's error states; ``counted``: the prompt tokens it says it counted."""
        super().__init__(message)
        self.limit = limit
        self.counted = counted


class _Failure(Exception):
    """One failed attempt; ``kind`` tells failures apart for "the same way twice in a row"."""

    def __init__(self, message: str, kind: str = "") -> None:
        super().__init__(message)
        self.kind = kind or type(self).__name__


class _Unsupported(_Failure):
    """The server rejected the request format itself."""


class _Malformed(_Failure):
    """The server answered, but not with a valid object (kind: how)."""


class _Rejected(_Malformed):
    """A valid object that the caller's check rejected: the model's fault, not the method's."""


class _MethodFault(_Failure):
    """A server error that may come from the request's format (kind: status and message)."""


class _Transient(_Failure):
    """Rate limit, overload, timeout, dropped connection or garbled body."""


class _Fatal(_Failure):
    """No method can help: bad credentials, or a prompt over the model's context."""


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds on one structured call."""

    max_attempts: int = 10
    """Attempts over all methods together."""
    attempts_per_method: int = 2
    """Failed answers (malformed, rejected by the check, server errors) from one method before falling through."""
    transient_retries: int = 2
    """Transient faults retried per call (on top of the transport's own retries)."""
    backoff_s: float = 0.5
    """First wait after a transient fault; doubled each time, capped at ``max_backoff_s``."""
    max_backoff_s: float = 8.0


@dataclass(frozen=True)
class Structured(Generic[T]):
    """A validated object and how it was obtained."""

    value: T
    method: Method
    attempts: int


class StructuredCaller:
    """Gets pydantic objects from one chat model and remembers which method works."""

    def __init__(
        self,
        model: BaseChatModel,
        model_name: str,
        role: CallRole | ToolRole,
        recorder: Recorder | None = None,
        policy: RetryPolicy | None = None,
        methods: Sequence[Method] = METHODS,
        context_tokens: int | None = None,
        max_tokens: int | None = None,
    ) -> None:
        """``context_tokens``: the model's context window when known (else learnt from a context-length error);
        ``max_tokens``: its answer cap, kept free in the window (both for :meth:`call_prompt`)."""
        self.context_tokens = context_tokens
        self.max_tokens = max_tokens
        self.chars_per_token: float = CHARS_PER_TOKEN
        """Characters a token of this model takes in its prompts: the estimate, lowered by what the server counts."""
        self.model = model
        self.model_name = model_name
        self.role = role
        self.recorder = recorder
        self.policy = policy or RetryPolicy()
        self.methods: list[Method] = list(methods)
        self._learning: tuple[asyncio.Future[dict[str, Any]], str] | None = None
        self.vision: bool | None = None
        """Whether the model reads images (the server probe's ``vision`` capability); None: not probed."""
        self._bound: dict[tuple[type[BaseModel], Method], Runnable[Any, Any]] = {}

    async def call(
        self,
        schema: type[T],
        messages: list[BaseMessage],
        purpose: str,
        prompt_hash: str | None = None,
        check: Callable[[T], None] | None = None,
        note: str | None = None,
    ) -> Structured[T]:
        """A valid ``schema`` instance; ``check`` may reject it with ValueError (counted as malformed); ``note`` goes on the
        recorded answer (e.g. how its prompt was clipped)."""
        await self.ready()
        attempt = transient = 0
        wait = self.policy.backoff_s
        errors: list[str] = []
        suspects: list[Method] = []  # failed the same way twice in this call: abandoned if another method works
        for method in list(self.methods):
            failures, last_kind = 0, ""
            while attempt < self.policy.max_attempts:
                attempt += 1
                started = time.perf_counter()
                raw: AIMessage | None = None
                token = listen(
                    record_retries(
                        self.recorder,
                        role=self.role,
                        purpose=purpose,
                        model=self.model_name,
                        method=method,
                        attempt=attempt,
                        prompt_hash=prompt_hash,
                    )
                )
                try:
                    raw, value = await self._attempt(method, schema, messages)
                    if check is not None:
                        _run_check(check, value)
                except _Failure as exc:
                    label = _LABELS[type(exc)]
                    self._record(purpose, method, attempt, started, raw, prompt_hash, f"{label}: {exc}")
                    errors.append(f"{method}: {label} ({exc})")
                    if isinstance(exc, _Fatal) and exc.kind == "context_length":
                        stated = str(exc)
                        raise ContextLengthError(
                            self._summary(purpose, attempt, errors), limit_from_error(stated), tokens_from_error(stated)
                        ) from exc
                    if isinstance(exc, _Fatal):
                        raise StructuredOutputError(self._summary(purpose, attempt, errors)) from exc
                    if isinstance(exc, _Unsupported):
                        self._abandon(method, str(exc))
                        break
                    if isinstance(exc, _Transient):
                        transient += 1
                        if transient > self.policy.transient_retries:
                            raise StructuredOutputError(self._summary(purpose, attempt, errors)) from exc
                        await asyncio.sleep(wait)
                        wait = min(wait * 2, self.policy.max_backoff_s)
                        continue
                    failures += 1
                    if exc.kind == last_kind and not isinstance(exc, _Rejected):
                        suspects.append(method)
                        break
                    last_kind = exc.kind
                    if failures >= self.policy.attempts_per_method:
                        break
                    continue
                finally:
                    unlisten(token)
                self._record(purpose, method, attempt, started, raw, prompt_hash, None, note)
                for suspect in suspects:
                    self._abandon(suspect, "failed the same way twice in a row while another method works")
                return Structured(value, method, attempt)
            if attempt >= self.policy.max_attempts:
                break
        raise StructuredOutputError(self._summary(purpose, attempt, errors))

    async def call_prompt(
        self,
        schema: type[T],
        template: Prompt,
        purpose: str,
        fixed: dict[str, str],
        clippable: dict[str, str],
        check: Callable[[T], None] | None = None,
        images: Sequence[tuple[str, bytes]] = (),
    ) -> Structured[T]:
        """:meth:`call` on ``template`` rendered with ``fixed`` and ``clippable`` parts, the longest clippable ones clipped
        (with a marker) to fit the context window when it is known (:meth:`_fit`); a context-length error teaches the
        window and the model's characters per token (:meth:`_learn_overflow`) and the prompt is asked again, clipped to
        them, at most :data:`FIT_ROUNDS` times in all. The clipping is noted on the recorded answer. ``images``
        (``(mime type, bytes)``) go after the text as image parts, for a model that reads them (:attr:`vision`)."""
        await self.ready()
        for asked in range(1, FIT_ROUNDS + 1):
            fitted, clipped = await self._fit(schema, template, fixed, clippable)
            text = template.render(**fixed, **fitted)
            try:
                return await self.call(schema, [prompt_message(text, images)], purpose, template.hash, check, self._note(clipped))
            except ContextLengthError as exc:
                if asked == FIT_ROUNDS:
                    raise
                self._learn_overflow(exc, len(text))
        raise AssertionError("unreachable: the last round returns or raises")  # pragma: no cover

    async def ready(self) -> None:
        """Apply a probe in progress (methods, context window), e.g. before rendering evidence for the window."""
        if self._learning is not None:
            await self._learn()

    def learn_from(self, probing: asyncio.Future[dict[str, Any]], role: str) -> None:
        """Start with the methods and context window a probe in progress finds for ``role`` (``structured_methods`` and
        ``model_contexts`` by role); the first call waits for it, a failed probe leaves the defaults."""
        self._learning = (probing, role)

    async def _learn(self) -> None:
        assert self._learning is not None
        probing, role = self._learning
        try:
            found = await asyncio.shield(probing)
        except Exception as exc:  # the probe only informs; the fallbacks still work
            log.warning("probe_failed", model=self.model_name, error=f"{type(exc).__name__}: {exc}")
            found = {}
        if self._learning is None:
            return  # a concurrent call applied it
        self._learning = None
        methods = found.get("structured_methods", {}).get(role)
        if methods:
            self.methods = list(methods)
        self.context_tokens = self.context_tokens or found.get("model_contexts", {}).get(role)
        self.vision = found.get("vision", {}).get(role, self.vision)

    async def _fit(
        self, schema: type[BaseModel], template: Prompt, fixed: dict[str, str], clippable: dict[str, str]
    ) -> tuple[dict[str, str], list[str] | None]:
        """The clippable parts clipped to the known window, and which were clipped (None: no window known).

        Fitted by :func:`~proactive_bench.llm.context.fit_counted`: by characters first (:attr:`chars_per_token`), then,
        for a prompt that might not fit, by the model's server's own count where it offers one (``count_tokens``, with
        the schema instruction the ``prompt`` method adds and :data:`TEMPLATE_TOKENS` for the chat template).
        """
        if self.context_tokens is None:
            return clippable, None
        room = prompt_budget_tokens(self.context_tokens, self.max_tokens) - TEMPLATE_TOKENS
        fixed_chars = len(template.render(**fixed, **{name: "" for name in clippable}))
        extra = "\n" + _schema_instruction(schema)

        def fit(budget: int) -> tuple[tuple[dict[str, str], list[str]], str]:
            parts, clipped = fit_parts(clippable, max(budget - len(extra), 0), fixed_chars)
            return (parts, clipped), template.render(**fixed, **parts) + extra

        (fitted, clipped), self.chars_per_token = await fit_counted(
            fit, room, self.chars_per_token, getattr(self.model, "count_tokens", None)
        )
        return fitted, clipped

    def _learn_overflow(self, exc: ContextLengthError, sent_chars: int) -> None:
        """What a context-length error teaches before the prompt is asked again (:func:`~proactive_bench.llm.context.learn_overflow`)."""
        self.context_tokens, self.chars_per_token = learn_overflow(
            self.context_tokens, self.chars_per_token, sent_chars, exc.limit, exc.counted
        )
        log.info("prompt_over_context", model=self.model_name, window=self.context_tokens, chars_per_token=round(self.chars_per_token, 2))

    def _note(self, clipped: list[str] | None) -> str | None:
        return f"prompt clipped to fit {self.context_tokens} tokens: {', '.join(clipped)}" if clipped else None

    def _summary(self, purpose: str, attempt: int, errors: list[str]) -> str:
        summary = "; ".join(errors[-4:]) or "no method left to try"
        return f"{self.role} {purpose}: no valid answer from {self.model_name} after {attempt} attempt(s): {summary}"

    def _abandon(self, method: Method, reason: str) -> None:
        """Stop using ``method`` for the rest of the run (the last method left is kept)."""
        if method in self.methods and len(self.methods) > 1:
            self.methods.remove(method)
            log.info("structured_method_dropped", model=self.model_name, method=method, reason=reason)

    async def _attempt(self, method: Method, schema: type[T], messages: list[BaseMessage]) -> tuple[AIMessage | None, T]:
        import openai  # here, not at the top: a run whose user and judge call no model loads neither
        from langchain_core.messages import SystemMessage
        from langchain_openai import ChatOpenAI

        try:
            if method == "json_schema" and isinstance(self.model, ChatOpenAI):
                # The same request and cache key as with_structured_output(), without its runnable chain (~1.4 ms CPU a call).
                raw = await self.model.ainvoke(messages, response_format=schema)
                return _structured_answer(
                    schema, raw, raw.additional_kwargs.get("parsed"), True, f"no structured answer in the reply{_refusal(raw)}"
                )
            if method in ("json_schema", "function_calling"):
                key = (schema, method)
                if key not in self._bound:  # building one costs a JSON schema and a tool conversion
                    self._bound[key] = self.model.with_structured_output(schema, method=method, include_raw=True)
                out = await self._bound[key].ainvoke(messages)
                parsed = out.get("parsed") if out.get("parsing_error") is None else None
                error = str(out.get("parsing_error") or "no structured answer in the reply")
                return _structured_answer(schema, out.get("raw"), parsed, True, error)
            prompted = [*messages, SystemMessage(_schema_instruction(schema))]
            runnable = self.model.bind(response_format={"type": "json_object"}) if method == "json_mode" else self.model
            raw = await runnable.ainvoke(prompted)
            return raw, _parse_tolerantly(schema, str(raw.text), _was_cut(raw))
        except _Failure:
            raise
        except openai.APIStatusError as exc:
            raise _status_failure(exc) from exc
        except (TimeoutError, openai.APITimeoutError, openai.APIConnectionError, MalformedBodyError) as exc:
            raise _Transient(_clip(f"{type(exc).__name__}: {exc}")) from exc
        except openai.LengthFinishReasonError as exc:  # the SDK's json_schema parse of a cut answer
            raise _Malformed("cut at the max_tokens cap before its JSON object closed", "cut") from exc
        except (ValidationError, ValueError, KeyError, TypeError, IndexError) as exc:  # IndexError: a 200 with no choices
            raise _Malformed(_clip(f"{type(exc).__name__}: {exc}"), "schema") from exc

    def _record(
        self,
        purpose: str,
        method: Method,
        attempt: int,
        started: float,
        raw: AIMessage | None,
        prompt_hash: str | None,
        error: str | None,
        note: str | None = None,
    ) -> None:
        if error is not None:
            log.warning("structured_attempt_failed", role=self.role, purpose=purpose, method=method, attempt=attempt, error=error)
        if self.recorder is None:
            return
        fields = usage_fields(raw) if raw is not None else {}
        notes = [text for text in (error, fields.get("error"), note) if text]
        if notes:
            fields["error"] = "; ".join(notes)
        self.recorder(
            LLMCallRecord(
                role=self.role,
                purpose=purpose,
                model=self.model_name,
                method=method,
                ok=error is None,
                latency_ms=(time.perf_counter() - started) * 1000,
                attempt=attempt,
                prompt_hash=prompt_hash,
                **fields,
            )
        )


_LABELS: dict[type[_Failure], str] = {
    _Unsupported: "unsupported",
    _Malformed: "malformed",
    _Rejected: "malformed",
    _MethodFault: "server error",
    _Transient: "transient",
    _Fatal: "fatal",
}


def prompt_message(text: str, images: Sequence[tuple[str, bytes]] = ()) -> HumanMessage:
    """The user message of a prompt: plain text, or text then one ``image_url`` part (a base64 data URL) per image."""
    from langchain_core.messages import HumanMessage  # here: LangChain's messages load with the first prompt, not with the module

    if not images:
        return HumanMessage(text)
    parts: list[str | dict[str, Any]] = [{"type": "text", "text": text}]
    parts += [
        {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"}} for mime, data in images
    ]
    return HumanMessage(content=parts)


def _status_failure(exc: openai.APIStatusError) -> _Failure:
    """What an HTTP error answer means for the method that got it (:func:`~proactive_bench.llm.faults.classify`'s word)."""
    message = _clip(f"HTTP {exc.status_code}: {exc.message}")
    fault = classify(exc)
    if fault is Fault.TRANSIENT:
        return _Transient(message)
    if fault is Fault.CONTEXT_LENGTH:
        return _Fatal(message, "context_length")
    if fault is Fault.AUTH:
        return _Fatal(message, "auth")
    if fault is Fault.REJECTED:
        return _Unsupported(message)
    return _MethodFault(message, f"HTTP {exc.status_code}")


def _structured_answer(schema: type[T], raw: AIMessage | None, parsed: Any, text_is_json: bool, error: str) -> tuple[AIMessage | None, T]:
    """The client's parsed object, else (when the answer's text is meant to be the JSON) the text
    parsed tolerantly — an answer served from a recording has no parsed object — else malformed."""
    if parsed is not None:
        return raw, _as_schema(schema, parsed)
    if text_is_json and raw is not None and str(raw.text).strip():
        return raw, _parse_tolerantly(schema, str(raw.text), _was_cut(raw))
    raise _Malformed(_clip(error), "no_answer")


def _refusal(raw: BaseMessage) -> str:
    refusal = raw.additional_kwargs.get("refusal")
    return f" (refused: {refusal})" if refusal else ""


def _as_schema(schema: type[T], parsed: Any) -> T:
    return parsed if isinstance(parsed, schema) else schema.model_validate(parsed)


def _was_cut(raw: AIMessage) -> bool:
    """Whether the server stopped the answer at the token cap (finish reason ``length``)."""
    return raw.response_metadata.get("finish_reason") == "length"


def _closes_an_object(text: str) -> bool:
    """Whether the text's first ``{`` starts a JSON object that is complete as written (no repair)."""
    start = text.find("{")
    if start < 0:
        return False
    try:
        json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError):  # RecursionError: nested too deep to read
        return False
    return True


def _parse_tolerantly(schema: type[T], text: str, cut: bool = False) -> T:
    """Validate JSON that may be fenced, trailed by prose or slightly broken, or wrapped as a tool call written in text.

    An answer ``cut`` at the token cap counts only if its JSON object closed before the cut: repairing a
    half-written object would complete a judgment the model never made.
    """
    if cut and not _closes_an_object(text):
        raise _Malformed("cut at the max_tokens cap before its JSON object closed", "cut")
    data = _repaired(text)
    if isinstance(data, list):  # JSON followed by more JSON or prose: the first object
        data = next((item for item in data if isinstance(item, dict)), None)
    if not isinstance(data, dict):
        raise _Malformed(_clip(f"expected a JSON object, got {text!r}"), "not_json")
    data = _unwrap_tool_call(data, schema)
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        raise _Malformed(_clip(f"does not match the schema: {exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}"), "schema") from exc


def _repaired(text: str) -> Any:
    """``json_repair.loads``, imported with the first answer to parse (a run whose roles call no model never loads it);
    read as :func:`~proactive_bench.json_text.parse_json` reads (nested too deep: a ``ValueError``; lone surrogates:
    U+FFFD)."""
    import json_repair

    return parse_json(text, json_repair.loads)


def _unwrap_tool_call(data: dict[str, Any], schema: type[BaseModel]) -> Any:
    """The arguments of ``{"name": <schema>, "arguments": {...}}`` (a tool call some servers put in the text), else ``data``."""
    if data.get("name") != schema.__name__ or "name" in schema.model_fields:
        return data
    arguments = data.get("arguments", data.get("parameters"))
    if isinstance(arguments, str):
        arguments = _repaired(arguments)
    return arguments if isinstance(arguments, dict) else data


def _run_check(check: Callable[[T], None], value: T) -> None:
    try:
        check(value)
    except ValueError as exc:
        raise _Rejected(_clip(str(exc)), "check") from exc


def _clip(text: str) -> str:
    return one_line(text, ERROR_TEXT_LIMIT)


@cache
def _schema_instruction(schema: type[BaseModel]) -> str:
    """The system message asking for ``schema`` as JSON, built once per schema (pydantic's JSON schema costs ~1 ms)."""
    return SCHEMA_INSTRUCTION.format(schema=json.dumps(schema.model_json_schema()))
