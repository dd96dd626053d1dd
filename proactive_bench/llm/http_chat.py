"""LangChain's ``ChatOpenAI`` with its async chat completions sent over a :class:`~proactive_bench.llm.transport.ChatTransport`.

:class:`HttpChatOpenAI` posts the JSON that ``ChatOpenAI`` builds over the
transport's pooled connections and reads the answer as ``ChatOpenAI`` does
(message conversion, tools, structured output and result parsing stay
LangChain's). It lives apart from the transport so that opening a transport
(every run does) loads neither LangChain's OpenAI integration nor the SDK:
they load with the first chat model built.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, cast

from langchain_core.caches import BaseCache
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, Callbacks
from langchain_core.globals import get_llm_cache
from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models._utils import _normalize_messages
from langchain_core.language_models.chat_models import _gen_info_and_msg_metadata
from langchain_core.load import dumps
from langchain_core.messages import AIMessage, BaseMessage, convert_to_messages
from langchain_core.outputs import ChatResult, Generation
from langchain_core.prompt_values import ChatPromptValue
from langchain_core.rate_limiters import BaseRateLimiter
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import var_child_runnable_config
from langchain_core.utils.utils import LC_ID_PREFIX
from langchain_core.utils.uuid import uuid7
from langchain_openai import ChatOpenAI
from openai import APIStatusError
from openai.lib import type_to_response_format_param
from pydantic import BaseModel, PrivateAttr, SecretStr, ValidationError

from proactive_bench.llm.cache import CallCache, ReplayMissError, request_key, served_generations
from proactive_bench.llm.faults import names_field
from proactive_bench.llm.ledger import CACHED_FLAG
from proactive_bench.llm.observers import has_handlers, unobserved
from proactive_bench.llm.tokens import count_tokens
from proactive_bench.llm.transport import CAP_FIELDS, CHAT_PATH, DEFAULT_BASE_URL, CapField, ChatTransport

UNSET_TIMEOUT_S = 600.0
"""The whole-request limit when the model sets none (the OpenAI SDK's default)."""


@lru_cache(maxsize=256)
def response_format_param(schema: type[BaseModel]) -> dict[str, Any]:
    """The ``response_format`` the SDK would send for a pydantic class (strict JSON Schema), built once per class."""
    return dict(type_to_response_format_param(schema))  # type: ignore[arg-type]  # openai's helper is typed for its own response classes; any pydantic model works


class HttpChatOpenAI(ChatOpenAI):
    """``ChatOpenAI`` whose async chat completions go through a :class:`ChatTransport`.

    Serialises (and so keys the record/replay cache) exactly as ``ChatOpenAI``;
    synchronous calls and the Responses API still use the SDK client.

    Private hooks, kept on purpose: ``_agenerate`` (BaseChatModel's hook for
    a chat model's own async call) builds the request with ChatOpenAI's
    ``_get_request_payload`` / ``_use_responses_api`` and reads the answer
    with ``_create_chat_result``, so payloads and results stay LangChain's
    own. The public route — ``ChatOpenAI(http_async_client=httpx2.AsyncClient(
    transport=...))`` over the same pooled session, tried for issue 17 —
    passes every transport test but costs ~2.8 ms of CPU per call against
    ~0.9 ms here (64 concurrent callers on a loopback stub; most of it the
    SDK's type-driven ``_transform`` of the messages), which is far beyond
    the 5 % throughput budget of ``scripts/bench_sweep.py``. pyproject pins
    langchain-openai to the minor release these methods were checked on.

    Given a :class:`~proactive_bench.llm.cache.CallCache`, the model records and
    replays its calls itself, keyed by the request it sends and storing the
    server's answer (:meth:`CallCache.lookup_request`), and takes the rate
    limiter's token only for a call the cache does not answer (as LangChain
    does): LangChain sees neither (``cache=False``, no ``rate_limiter``), since its
    cache path dumps every prompt and answer, ~0.5 ms of CPU a call.
    :attr:`call_cache` and :attr:`call_limiter` are the ones the model uses.
    """

    _transport: ChatTransport = PrivateAttr()
    _calls: CallCache | None = PrivateAttr(default=None)
    _limiter: BaseRateLimiter | None = PrivateAttr(default=None)
    _compat: dict[str, Any] | None = PrivateAttr(default=None)
    """LangChain's dictionary of the model's settings (:meth:`_dict_for_compat`), made once per template."""
    _settings_key: str | None = PrivateAttr(default=None)
    """The settings part of :meth:`_get_llm_string`, LangChain's own, computed once per model (LangChain re-dumps it per call)."""

    @classmethod
    def over(
        cls, transport: ChatTransport, cache: BaseCache | None = None, rate_limiter: BaseRateLimiter | None = None, **settings: Any
    ) -> HttpChatOpenAI:
        """A model with these (JSON) settings on ``transport``; runs share one validated template per settings (building one costs ~1 ms)."""
        template = _template(cls, json.dumps(settings, sort_keys=True))
        if isinstance(cache, CallCache):  # recorded by the model itself, with the limiter (see the class)
            model = template.model_copy(update={"cache": False, "rate_limiter": None})
            model._calls, model._limiter = cache, rate_limiter
        else:
            model = template.model_copy(update={"cache": cache, "rate_limiter": rate_limiter})
        model._transport = transport
        return model

    @property
    def call_cache(self) -> BaseCache | None:
        """The cache this model's calls are recorded in and served from, whether the model or LangChain applies it."""
        return self._calls if self._calls is not None else self.cache if isinstance(self.cache, BaseCache) else None

    @property
    def call_limiter(self) -> BaseRateLimiter | None:
        """The rate limiter this model's calls (those the cache does not answer) wait for."""
        return self._limiter if self._calls is not None else self.rate_limiter

    @classmethod
    def lc_id(cls) -> list[str]:
        return ChatOpenAI.lc_id()

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return super().get_name(suffix, name=name or self.name or ChatOpenAI.__name__)

    def _dict_for_compat(self) -> dict[str, Any]:
        """LangChain's dictionary of the model's settings, read twice a call for callbacks and tracing; made once (LangChain
        makes it per read, catching deprecation warnings: ~60 µs)."""
        if self._compat is None:
            self._compat = super()._dict_for_compat()
        return dict(self._compat)

    def _get_llm_string(self, stop: list[str] | None = None, **kwargs: Any) -> str:
        """LangChain's key of the call's settings (the cache's ``llm_string``), unchanged; the model's JSON part is taken from
        LangChain once per model, the call's parameters are formatted per call as LangChain does."""
        params = "---" + str(sorted({**kwargs, "stop": stop}.items()))
        if self._settings_key is None:
            whole = super()._get_llm_string(stop, **kwargs)
            if not whole.endswith(params):  # not LangChain's serialisable form: nothing to keep
                return whole
            self._settings_key = whole[: len(whole) - len(params)]
        return self._settings_key + params

    async def ainvoke(
        self, input: LanguageModelInput, config: RunnableConfig | None = None, *, stop: list[str] | None = None, **kwargs: Any
    ) -> AIMessage:
        """LangChain's ``ainvoke``; a call nothing observes (no callback handler, tracer, LangChain cache, rate limiter or
        streaming) goes straight to :meth:`_agenerate` and gets the message LangChain would return (its run id, response
        metadata), without the run managers, result objects and task LangChain makes per call (~0.3 ms of CPU)."""
        callbacks, run_id = _callbacks_and_run_id(config)
        if isinstance(input, str) or not isinstance(input, Sequence) or not self._unobserved(callbacks, kwargs):
            return await super().ainvoke(input, config, stop=stop, **kwargs)
        if not kwargs.pop("ls_structured_output_format", None):  # for LangChain's tracing only, dropped as it drops them
            kwargs.pop("structured_output_format", None)
        result = await self._agenerate(_normalize_messages(convert_to_messages(input)), stop=stop, **kwargs)
        run_id = run_id if run_id is not None else uuid7()  # one per call, as LangChain's run manager has
        for index, generation in enumerate(result.generations):  # as BaseChatModel._agenerate_with_cache finishes a result
            if generation.message.id is None:
                generation.message.id = f"{LC_ID_PREFIX}-{run_id}-{index}"
            generation.message.response_metadata = _gen_info_and_msg_metadata(generation)
        if len(result.generations) == 1 and result.llm_output is not None:
            message = result.generations[0].message
            message.response_metadata = {**result.llm_output, **message.response_metadata}
        return cast("AIMessage", result.generations[0].message)

    def _unobserved(self, callbacks: Callbacks, kwargs: dict[str, Any]) -> bool:
        """Whether LangChain would make this call with nothing watching or changing it: no LangChain cache or rate limiter,
        no streaming, no ``v1`` output, and no callback handler. Every source of a handler ``CallbackManager.configure``
        draws on is checked (the call's and the model's callbacks, ``verbose``, LangChain's debug flag, tracing by the
        environment or a tracing context, configure hooks such as ``collect_runs``), without building the manager (~60 µs)."""
        if self.rate_limiter is not None or self.output_version == "v1" or self._should_stream(async_api=True, **kwargs):
            return False
        if self.cache is not False and (self.cache is not None or get_llm_cache() is not None):
            return False
        return not (has_handlers(self.callbacks) or self.verbose) and unobserved(callbacks)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        # The messages, already checked by ainvoke (LangChain's, or the lean path's convert_to_messages), are not validated again.
        payload = self._get_request_payload(ChatPromptValue.model_construct(messages=messages), stop=stop, **kwargs)
        if "messages" not in payload:  # built for the Responses API (_get_request_payload asked _use_responses_api)
            return await super()._agenerate(messages, stop=stop, run_manager=run_manager, **kwargs)
        extra = payload.pop("extra_body", None)
        if extra:  # merged into the JSON, as the SDK does
            payload.update(extra)
        schema = payload.get("response_format")
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            payload["response_format"] = response_format_param(schema)
        else:
            schema = None
        cap = _pop_cap(payload)
        body = json.dumps(payload)  # the request sent, but for its answer-cap field (the one the endpoint reads)
        calls, key = self._calls, ""
        if calls is not None:
            key, recorded = calls.lookup_request(
                request_key(self._chat_url(), body, cap), lambda: self._legacy_call(messages, stop, kwargs)
            )
            if recorded is not None:
                return self._served(recorded, schema)
        if self._limiter is not None:
            await self._limiter.aacquire(blocking=True)
        answer, content = await self._complete(body, cap)
        result = self._answer(answer, schema)
        if calls is not None:
            calls.record_request(key, _answer_text(answer, content))
        return result

    def _answer(self, answer: dict[str, Any], schema: type[BaseModel] | None) -> ChatResult:
        """The result of a server's answer, as LangChain reads it, parsed into ``schema`` where one was asked for."""
        result = self._create_chat_result(answer)
        if schema is not None and result.generations:
            _attach_parsed(result, schema)
        return result

    def _served(self, recorded: str, schema: type[BaseModel] | None) -> ChatResult:
        """The result of a recorded answer (a server's JSON answer, or LangChain's dump of generations recorded before
        request keys), flagged as served from the cache."""
        if recorded.startswith("["):
            return ChatResult(generations=served_generations(recorded))  # type: ignore[arg-type]  # chat calls recorded chat generations
        result = self._answer(json.loads(recorded), schema)
        for generation in result.generations:
            generation.message.response_metadata[CACHED_FLAG] = True
        return result

    def _legacy_call(self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]) -> tuple[str, str]:
        """The ``(prompt, llm_string)`` LangChain's cache path gives a call (the key of answers recorded before request keys)."""
        normalized = [message.model_copy(update={"id": None}) if message.id is not None else message for message in messages]
        return dumps(normalized), self._get_llm_string(stop=stop, **kwargs)

    async def _complete(self, body: str, cap: int | None) -> tuple[dict[str, Any], bytes]:
        """Send ``body`` (a JSON object) with the answer cap in one field, the one the endpoint reads; a 400 naming it
        switches the endpoint to the other. The decoded answer and its body as it came."""
        url, base = self._chat_url(), (self.openai_api_base or DEFAULT_BASE_URL).rstrip("/")
        field = self._transport.cap_field(base)
        while True:
            try:
                return await self._transport.exchange(
                    url, self._headers(), _with_cap(body, field, cap), _timeout_s(self.request_timeout), self.max_retries or 0
                )
            except APIStatusError as exc:
                other = self._transport.refused_cap(base, field) if cap is not None and names_field(exc, field) else None
                if other is None:
                    raise
                field = other

    async def count_tokens(self, text: str) -> int | None:
        """``text``'s tokens as this model's server counts them (``/tokenize``, :mod:`~proactive_bench.llm.tokens`), or None
        when it offers no count. The count is recorded and replayed by the model's cache like an answer, so a replayed run
        clips its prompts as the recorded one did (a count missing from a recording is None: estimated)."""
        key = f"pbench-tokenize:{self.model_name}"
        cache = self.call_cache
        if cache is not None:
            try:
                recorded = await cache.alookup(text, key)
            except ReplayMissError:  # a replay of a run that did not count this prompt
                return None
            if recorded:
                return int(recorded[0].text)
        base = (self.openai_api_base or DEFAULT_BASE_URL).rstrip("/")
        counted = await count_tokens(self._transport.post_json, self._transport.tokenizers, base, self.model_name, self._headers(), text)
        if counted is not None and cache is not None:
            await cache.aupdate(text, key, [Generation(text=str(counted))])
        return counted

    def _chat_url(self) -> str:
        return f"{(self.openai_api_base or DEFAULT_BASE_URL).rstrip('/')}{CHAT_PATH}"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", **(self.default_headers or {})}
        if isinstance(self.openai_api_key, SecretStr):
            headers["Authorization"] = f"Bearer {self.openai_api_key.get_secret_value()}"
        elif self.openai_api_key is not None:
            raise TypeError("an API key given as a function is not supported on this transport")
        if self.openai_organization:
            headers["OpenAI-Organization"] = self.openai_organization
        return headers


vars(HttpChatOpenAI)["_agenerate"].__signature__ = inspect.signature(HttpChatOpenAI._agenerate)
"""LangChain reads ``_agenerate``'s signature at every call (to see whether it takes ``run_manager``): kept on the function, it
is read, not rebuilt (``inspect.signature`` of a bound method then only drops ``self``)."""


@lru_cache(maxsize=64)
def _template(cls: type[HttpChatOpenAI], settings: str) -> HttpChatOpenAI:
    """A model built from JSON ``settings`` (a hashable key, dict values such as ``extra_body`` included)."""
    model = cls(**json.loads(settings))
    getattr(model, "_serialized", None)  # LangChain's cached dump of the settings (~0.3 ms), copied with the template
    model._dict_for_compat()  # its dictionary of them, also copied
    return model


def _callbacks_and_run_id(config: RunnableConfig | None) -> tuple[Callbacks, Any]:
    """The callbacks and run id LangChain's ``ensure_config`` gives a call (the caller's config over the one of the runnable
    it runs in, such as a LangGraph node's), read without copying the rest (~40 µs a call inside a node)."""
    inherited = var_child_runnable_config.get() or {}
    given = config or {}
    callbacks, run_id = given.get("callbacks"), given.get("run_id")
    return (
        callbacks if callbacks is not None else inherited.get("callbacks"),
        run_id if run_id is not None else inherited.get("run_id"),
    )


def _answer_text(answer: dict[str, Any], content: bytes) -> str:
    """The answer as the call cache stores it: its body as the server sent it when that is UTF-8 text of a JSON object (what
    ``json.loads`` reads back as ``answer``), else ``answer`` encoded again (a body in another encoding, or with a BOM)."""
    try:
        text = content.decode()
    except UnicodeDecodeError:
        return json.dumps(answer)
    return text if text.lstrip().startswith("{") else json.dumps(answer)


def _pop_cap(payload: dict[str, Any]) -> int | None:
    """Remove both answer-cap fields (ChatOpenAI writes ``max_completion_tokens``, ``ChatSettings`` adds ``max_tokens``
    through ``extra_body``); the cap."""
    caps = [payload.pop(field, None) for field in CAP_FIELDS]
    return next((cap for cap in caps if cap is not None), None)


def _with_cap(body: str, field: CapField, cap: int | None) -> bytes:
    """The JSON object ``body`` with ``field: cap`` added last (what ``json.dumps`` gives the payload with the field set)."""
    if cap is None:
        return body.encode()
    return f"{body[:-1]}{', ' if body != '{}' else ''}{json.dumps(field)}: {json.dumps(cap)}}}".encode()


def _attach_parsed(result: ChatResult, schema: type[BaseModel]) -> None:
    """Validate the answer's JSON into ``schema`` as the SDK's ``parse`` does; an invalid one is left unparsed."""
    message = result.generations[0].message
    text = message.content if isinstance(message.content, str) else ""
    if not text:
        return
    try:
        message.additional_kwargs["parsed"] = schema.model_validate_json(text)
    except ValidationError:
        return


def _timeout_s(timeout: Any) -> float:
    """A whole-request timeout from ``ChatOpenAI.request_timeout`` (a number, or a (connect, read) pair)."""
    if isinstance(timeout, int | float):
        return float(timeout)
    if isinstance(timeout, tuple) and timeout:
        return float(sum(t for t in timeout if t))
    return UNSET_TIMEOUT_S
