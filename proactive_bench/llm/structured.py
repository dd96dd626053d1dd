"""Structured output from any OpenAI-compatible server, degrading gracefully.

Servers differ in what they support, so one call tries, in order:

1. ``json_schema``: ``response_format`` with the JSON Schema (OpenAI, vLLM, ...);
2. ``function_calling``: the schema as a forced tool;
3. ``json_mode``: ``response_format: json_object`` plus the schema in the prompt;
4. ``prompt``: the schema in the prompt only, for servers with none of the above.

JSON from the last two is parsed tolerantly (``json-repair``). A method the
server rejects (HTTP 400/404/422) is skipped for the rest of the caller's
life; malformed or invalid output is retried a bounded number of times and
then falls through to the next method; rate limits, server errors and
timeouts are retried with backoff. Every attempt is recorded. When nothing
yields a valid object, :class:`StructuredOutputError` is raised: the caller
records the judgment as not made, it never guesses one.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

import json_repair
import openai
import structlog
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.runnables import Runnable
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, ValidationError

from proactive_bench.llm.ledger import CallRole, LLMCallRecord, Recorder, usage_fields
from proactive_bench.trace import one_line

log = structlog.get_logger(__name__)

Method = Literal["json_schema", "function_calling", "json_mode", "prompt"]
METHODS: tuple[Method, ...] = ("json_schema", "function_calling", "json_mode", "prompt")
T = TypeVar("T", bound=BaseModel)

SCHEMA_INSTRUCTION = (
    "Answer with a single JSON object and nothing else (no prose, no code fence). "
    "It must validate against this JSON Schema:\n{schema}"
)
ERROR_TEXT_LIMIT = 300


class StructuredOutputError(RuntimeError):
    """No valid structured answer could be obtained within the attempt budget."""


class _Unsupported(Exception):
    """The server rejected the request format itself."""


class _Malformed(Exception):
    """The server answered, but not with a valid object."""


class _Transient(Exception):
    """Rate limit, server error, timeout or dropped connection."""


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds on one structured call."""

    max_attempts: int = 6
    """Attempts over all methods together."""
    attempts_per_method: int = 2
    """Malformed answers tolerated from one method before falling through."""
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
        role: CallRole,
        recorder: Recorder | None = None,
        policy: RetryPolicy | None = None,
        methods: Sequence[Method] = METHODS,
    ) -> None:
        self.model = model
        self.model_name = model_name
        self.role = role
        self.recorder = recorder
        self.policy = policy or RetryPolicy()
        self.methods: list[Method] = list(methods)
        self._bound: dict[tuple[type[BaseModel], Method], Runnable[Any, Any]] = {}

    async def call(
        self,
        schema: type[T],
        messages: list[BaseMessage],
        purpose: str,
        prompt_hash: str | None = None,
        check: Callable[[T], None] | None = None,
    ) -> Structured[T]:
        """A valid ``schema`` instance; ``check`` may reject it with ValueError (counted as malformed)."""
        attempt = 0
        wait = self.policy.backoff_s
        errors: list[str] = []
        for method in list(self.methods):
            malformed = 0
            while attempt < self.policy.max_attempts:
                attempt += 1
                started = time.perf_counter()
                raw: AIMessage | None = None
                try:
                    raw, value = await self._attempt(method, schema, messages)
                    if check is not None:
                        _run_check(check, value)
                except _Unsupported as exc:
                    self._record(purpose, method, attempt, started, raw, prompt_hash, f"unsupported: {exc}")
                    errors.append(f"{method}: unsupported ({exc})")
                    if method in self.methods and len(self.methods) > 1:
                        self.methods.remove(method)
                        log.info("structured_method_dropped", model=self.model_name, method=method)
                    break
                except _Malformed as exc:
                    self._record(purpose, method, attempt, started, raw, prompt_hash, f"malformed: {exc}")
                    errors.append(f"{method}: malformed ({exc})")
                    malformed += 1
                    if malformed >= self.policy.attempts_per_method:
                        break
                    continue
                except _Transient as exc:
                    self._record(purpose, method, attempt, started, raw, prompt_hash, f"transient: {exc}")
                    errors.append(f"{method}: {exc}")
                    if attempt < self.policy.max_attempts:
                        await asyncio.sleep(wait)
                    wait = min(wait * 2, self.policy.max_backoff_s)
                    continue
                self._record(purpose, method, attempt, started, raw, prompt_hash, None)
                return Structured(value, method, attempt)
            if attempt >= self.policy.max_attempts:
                break
        summary = "; ".join(errors[-4:]) or "no method left to try"
        raise StructuredOutputError(f"{self.role} {purpose}: no valid answer from {self.model_name} after {attempt} attempt(s): {summary}")

    async def _attempt(self, method: Method, schema: type[T], messages: list[BaseMessage]) -> tuple[AIMessage | None, T]:
        try:
            if method == "json_schema" and isinstance(self.model, ChatOpenAI):
                # The same request and cache key as with_structured_output(), without its runnable chain (~1.4 ms CPU a call).
                raw = await self.model.ainvoke(messages, response_format=schema)
                return _structured_answer(schema, raw, raw.additional_kwargs.get("parsed"), True, f"no structured answer in the reply{_refusal(raw)}")
            if method in ("json_schema", "function_calling"):
                key = (schema, method)
                if key not in self._bound:  # building one costs a JSON schema and a tool conversion
                    self._bound[key] = self.model.with_structured_output(schema, method=method, include_raw=True)
                out = await self._bound[key].ainvoke(messages)
                parsed = out.get("parsed") if out.get("parsing_error") is None else None
                error = str(out.get("parsing_error") or "no structured answer in the reply")
                return _structured_answer(schema, out.get("raw"), parsed, method == "json_schema", error)
            prompted = [*messages, SystemMessage(SCHEMA_INSTRUCTION.format(schema=json.dumps(schema.model_json_schema())))]
            runnable = self.model.bind(response_format={"type": "json_object"}) if method == "json_mode" else self.model
            raw = await runnable.ainvoke(prompted)
            return raw, _parse_tolerantly(schema, str(raw.text))
        except (_Malformed, _Unsupported, _Transient):
            raise
        except openai.APIStatusError as exc:
            if exc.status_code in (400, 404, 415, 422):
                raise _Unsupported(_clip(f"HTTP {exc.status_code}: {exc.message}")) from exc
            raise _Transient(_clip(f"HTTP {exc.status_code}: {exc.message}")) from exc
        except (openai.APITimeoutError, openai.APIConnectionError, asyncio.TimeoutError) as exc:
            raise _Transient(_clip(f"{type(exc).__name__}: {exc}")) from exc
        except (ValidationError, ValueError, KeyError, TypeError) as exc:
            raise _Malformed(_clip(f"{type(exc).__name__}: {exc}")) from exc

    def _record(self, purpose: str, method: Method, attempt: int, started: float, raw: AIMessage | None, prompt_hash: str | None, error: str | None) -> None:
        if error is not None:
            log.warning("structured_attempt_failed", role=self.role, purpose=purpose, method=method, attempt=attempt, error=error)
        if self.recorder is None:
            return
        self.recorder(
            LLMCallRecord(
                role=self.role, purpose=purpose, model=self.model_name, method=method, ok=error is None,
                latency_ms=(time.perf_counter() - started) * 1000, attempt=attempt, error=error, prompt_hash=prompt_hash,
                **(usage_fields(raw) if raw is not None else {}),
            )
        )


def _structured_answer(schema: type[T], raw: AIMessage | None, parsed: Any, text_is_json: bool, error: str) -> tuple[AIMessage | None, T]:
    """The client's parsed object, else (when the answer's text is meant to be the JSON) the text
    parsed tolerantly — an answer served from a recording has no parsed object — else malformed."""
    if parsed is not None:
        return raw, _as_schema(schema, parsed)
    if text_is_json and raw is not None and str(raw.text).strip():
        return raw, _parse_tolerantly(schema, str(raw.text))
    raise _Malformed(_clip(error))


def _refusal(raw: BaseMessage) -> str:
    refusal = raw.additional_kwargs.get("refusal")
    return f" (refused: {refusal})" if refusal else ""


def _as_schema(schema: type[T], parsed: Any) -> T:
    return parsed if isinstance(parsed, schema) else schema.model_validate(parsed)


def _parse_tolerantly(schema: type[T], text: str) -> T:
    """Validate JSON that may be fenced, trailed by prose or slightly broken."""
    data = json_repair.loads(text)
    if not isinstance(data, dict):
        raise _Malformed(_clip(f"expected a JSON object, got {text!r}"))
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        raise _Malformed(_clip(f"does not match the schema: {exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}")) from exc


def _run_check(check: Callable[[T], None], value: T) -> None:
    try:
        check(value)
    except ValueError as exc:
        raise _Malformed(_clip(str(exc))) from exc


def _clip(text: str) -> str:
    return one_line(text, ERROR_TEXT_LIMIT)
