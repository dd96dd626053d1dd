"""The lean HTTP path to chat servers: same requests and answers as the SDK path, same faults (real HTTP on loopback)."""

from __future__ import annotations

import asyncio
import inspect
import json
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import openai
import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI

from proactive_bench.llm.cache import CallCache
from proactive_bench.llm.http_chat import HttpChatOpenAI, _with_cap
from proactive_bench.llm.models import ChatSettings, make_chat_model
from proactive_bench.llm.retry_log import listen, unlisten
from proactive_bench.llm.sent import REQUEST_SENT
from proactive_bench.llm.transport import ChatTransport, MalformedBodyError
from proactive_bench.store import Store
from proactive_bench.testing.stub_server import (
    DROP,
    RawReply,
    StubServer,
    error_reply,
    structured_reply,
    text_reply,
    tool_call_reply,
)
from tests.helpers.chat_shapes import Verdict, read_list

QUESTION = [HumanMessage("What is on the shopping list?")]


@pytest.fixture
async def transport() -> AsyncIterator[ChatTransport]:
    async with ChatTransport() as opened:
        yield opened


def http_model(server: StubServer, transport: ChatTransport, **kwargs: Any) -> Any:
    return make_chat_model(
        "openai:stub", ChatSettings(base_url=server.base_url, transport=transport, **{"max_retries": 0, "timeout": 5, **kwargs})
    )


async def test_requests_match_the_sdk_path_byte_for_byte(transport: ChatTransport) -> None:
    """Plain, tool-calling and structured requests carry the same JSON over both paths."""
    with StubServer(lambda body: structured_reply(body, {"label": "ok", "score": 1})) as server:
        for model in (make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, max_retries=0)), http_model(server, transport)):
            await model.ainvoke(QUESTION)
            await model.bind_tools([read_list]).ainvoke(QUESTION)
            await model.with_structured_output(Verdict, method="json_schema").ainvoke(QUESTION)
            await model.with_structured_output(Verdict, method="function_calling").ainvoke(QUESTION)
    sdk, http = server.requests[:4], server.requests[4:]
    assert http == sdk
    assert http[2]["response_format"]["json_schema"]["strict"] is True


async def test_answers_are_parsed_as_langchain_parses_them(transport: ChatTransport) -> None:
    replies = iter(
        [text_reply("Milk and eggs."), tool_call_reply([("read_list", {"name": "weekly"})]), text_reply('{"label": "ok", "score": 2}')]
    )
    with StubServer(lambda body: next(replies)) as server:
        model = http_model(server, transport)
        text = await model.ainvoke(QUESTION)
        called = await model.bind_tools([read_list]).ainvoke(QUESTION)
        verdict = await model.with_structured_output(Verdict, method="json_schema").ainvoke(QUESTION)
    assert text.content == "Milk and eggs." and text.usage_metadata["total_tokens"] == 18
    assert [(c["name"], c["args"]) for c in called.tool_calls] == [("read_list", {"name": "weekly"})]
    assert verdict == Verdict(label="ok", score=2)


async def test_the_cache_key_is_the_sdk_models(transport: ChatTransport) -> None:
    """Runs recorded through the SDK path replay through this one: the model serialises the same."""
    with StubServer(lambda body: text_reply("x")) as server:
        sdk = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, temperature=0))
        http = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, temperature=0, transport=transport))
    assert isinstance(http, HttpChatOpenAI)
    assert http._get_llm_string(stop=None) == sdk._get_llm_string(stop=None)


async def test_the_cache_key_stays_the_sdk_models_call_after_call(transport: ChatTransport) -> None:
    """The model's part of the key is kept after the first call; each call's own parameters (tools, stop) still count."""
    with StubServer(lambda body: text_reply("x")) as server:
        sdk = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, temperature=0))
        http = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, temperature=0, transport=transport))
    tools = [{"type": "function", "function": {"name": "read_list", "parameters": {"type": "object"}}}]
    calls: list[dict[str, Any]] = [{}, {"tools": tools}, {"stop": ["END"]}, {"tools": tools, "tool_choice": "auto"}, {}]
    keys = [http._get_llm_string(**call) for call in calls]
    assert keys == [sdk._get_llm_string(**call) for call in calls]
    assert len(set(keys)) == 4  # the first and last calls alike, the others apart
    other = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, temperature=1, transport=transport))
    assert other._get_llm_string() != keys[0]  # another model's settings: its own key


def test_langchain_still_passes_the_run_manager_to_the_transport() -> None:
    """``_agenerate``'s signature is kept on the function; LangChain reads ``run_manager`` in it to pass callbacks on."""
    model = HttpChatOpenAI(model="stub", api_key="none", base_url="http://127.0.0.1:9/v1")
    assert "run_manager" in inspect.signature(model._agenerate).parameters
    assert "self" not in inspect.signature(model._agenerate).parameters


async def test_rate_limits_are_retried_after_the_servers_delay(transport: ChatTransport) -> None:
    faults = iter([RawReply(429, b'{"error": {"message": "slow down"}}', {"Retry-After": "0"}), error_reply(503, "busy")])
    with StubServer(lambda body: next(faults, None) or text_reply("done")) as server:
        answer = await http_model(server, transport, max_retries=2).ainvoke(QUESTION)
    assert answer.content == "done" and len(server.requests) == 3


async def test_server_errors_raise_the_sdks_exceptions_once_retries_are_spent(transport: ChatTransport) -> None:
    with StubServer(lambda body: error_reply(500, "boom")) as server:
        model = http_model(server, transport, max_retries=1)
        with pytest.raises(openai.InternalServerError, match="boom") as raised:
            await _without_backoff(model)
    assert raised.value.status_code == 500 and len(server.requests) == 2


@pytest.mark.parametrize(
    ("reply", "requests"),
    [
        (error_reply(500, "response_format json_schema is not supported"), 1),  # names the feature: retrying cannot help
        (error_reply(500, "internal error"), 2),  # the same answer twice: given up
        (error_reply(503, "overloaded"), 4),  # overload: every retry used
        (RawReply(200, b"<html>bad gateway</html>"), 4),
        (DROP, 4),
    ],
)
async def test_which_faults_are_retried(transport: ChatTransport, reply: Any, requests: int) -> None:
    retries: list[str] = []
    token = listen(lambda error, latency_ms: retries.append(error))
    try:
        with StubServer(lambda body: reply) as server, pytest.raises((openai.APIError, MalformedBodyError)):
            await _without_backoff(http_model(server, transport, max_retries=3))
    finally:
        unlisten(token)
    assert len(server.requests) == requests and len(retries) == requests - 1


async def test_a_truncated_body_is_retried(transport: ChatTransport) -> None:
    whole = json.dumps(text_reply("complete")).encode()
    replies = iter([RawReply(200, whole, cut_at=len(whole) // 2)])
    with StubServer(lambda body: next(replies, None) or text_reply("complete")) as server:
        answer = await _without_backoff(http_model(server, transport, max_retries=1))
    assert answer.content == "complete" and len(server.requests) == 2


async def test_client_errors_are_not_retried(transport: ChatTransport) -> None:
    with (
        StubServer(lambda body: error_reply(400, "response_format is not supported")) as server,
        pytest.raises(openai.BadRequestError, match="not supported") as raised,
    ):
        await http_model(server, transport, max_retries=3).ainvoke(QUESTION)
    assert raised.value.body == {"error": {"message": "response_format is not supported", "type": "stub_error", "code": 400}}
    assert len(server.requests) == 1


async def test_a_redirect_is_named_and_not_followed_or_retried(transport: ChatTransport) -> None:
    moved = "https://models.example/v1/chat/completions"
    with (
        StubServer(lambda body: RawReply(307, b"", {"Location": moved})) as server,
        pytest.raises(openai.APIStatusError, match=f"307 - a redirect to {moved}; pbench does not follow redirects") as raised,
    ):
        await http_model(server, transport, max_retries=3).ainvoke(QUESTION)
    assert raised.value.status_code == 307 and len(server.requests) == 1


async def test_a_slow_server_times_out(transport: ChatTransport) -> None:
    with StubServer(lambda body: text_reply("late"), delay=1.0) as server, pytest.raises(openai.APITimeoutError):
        await http_model(server, transport, timeout=0.2).ainvoke(QUESTION)


async def test_a_closed_port_is_a_connection_error(transport: ChatTransport) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = make_chat_model("openai:stub", ChatSettings(base_url=f"http://127.0.0.1:{port}/v1", transport=transport, max_retries=0))
    with pytest.raises(openai.APIConnectionError, match="Connection error"):
        await model.ainvoke(QUESTION)


@pytest.mark.parametrize(
    ("body", "reason"),
    [(b"<html>proxy error</html>", "not JSON"), (json.dumps("ok").encode(), "not an object"), (b"[" * 100_000, "not JSON")],
)
async def test_answers_that_are_not_json_objects_are_named(transport: ChatTransport, body: bytes, reason: str) -> None:
    with StubServer(lambda request: RawReply(200, body)) as server, pytest.raises(ValueError, match=reason) as raised:
        await http_model(server, transport).ainvoke(QUESTION)
    assert "/chat/completions" in str(raised.value)


async def test_work_waiting_for_a_request_runs_while_the_caller_waits_on_the_answer(transport: ChatTransport) -> None:
    """The event in the caller's context is set as the request leaves, also from tasks the caller starts."""
    sent, order = asyncio.Event(), []

    async def after_sent() -> None:
        await sent.wait()
        order.append("ran")

    with StubServer(lambda body: text_reply("ok"), delay=0.2) as server:
        model = http_model(server, transport)
        waiter = asyncio.create_task(after_sent())
        await model.ainvoke(QUESTION)  # outside the context that holds the event
        assert not sent.is_set()
        token = REQUEST_SENT.set(sent)
        try:
            await asyncio.create_task(model.ainvoke(QUESTION))
        finally:
            REQUEST_SENT.reset(token)
        order.append("answered")
    await asyncio.wait_for(waiter, 5)
    assert order == ["ran", "answered"]


async def test_the_transport_closes_and_reopens() -> None:
    transport = ChatTransport()
    with StubServer(lambda body: text_reply("one")) as server:
        model = http_model(server, transport)
        assert (await model.ainvoke(QUESTION)).content == "one"
        await transport.aclose()
        assert (await model.ainvoke(QUESTION)).content == "one"  # a closed transport opens a new session on use
        await transport.aclose()


async def _without_backoff(model: Any) -> Any:
    import proactive_bench.llm.transport as transport_module

    saved = transport_module.retry_delay
    transport_module.retry_delay = lambda exc, attempt: 0.0
    try:
        return await model.ainvoke(QUESTION)
    finally:
        transport_module.retry_delay = saved


def test_retry_delay_prefers_the_servers_word_within_a_cap() -> None:
    import httpx2

    from proactive_bench.llm.transport import (
        MAX_BACKOFF_S,
        MAX_RETRY_AFTER_S,
        retry_delay,
    )

    def limited(retry_after: str) -> openai.RateLimitError:
        response = httpx2.Response(429, headers={"retry-after": retry_after}, request=httpx2.Request("POST", "http://127.0.0.1/v1"))
        return openai.RateLimitError("slow down", response=response, body=None)

    assert retry_delay(limited("2.5"), attempt=0) == 2.5
    assert retry_delay(limited("86400"), attempt=0) == MAX_RETRY_AFTER_S
    assert all(0 <= retry_delay(limited("soon"), attempt=n) <= MAX_BACKOFF_S for n in range(10))


async def test_models_built_from_one_template_keep_their_own_transport_and_cache() -> None:
    from langchain_core.caches import InMemoryCache
    from langchain_core.load import dumpd

    first, second = ChatTransport(), ChatTransport()
    caches = InMemoryCache(), InMemoryCache()
    with StubServer(lambda body: text_reply("ok")) as server:
        a = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, transport=first, cache=caches[0]))
        b = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, transport=second, cache=caches[1]))
        assert (a._transport, b._transport, a.cache, b.cache) == (first, second, *caches)
        assert a._serialized == dumpd(a)  # the template's dump, as LangChain would make it for this copy
        await a.ainvoke(QUESTION)
    assert len(caches[0]._cache) == 1 and len(caches[1]._cache) == 0  # only the first model's cache holds the answer
    await first.aclose()
    await second.aclose()


async def test_a_recorded_call_also_releases_work_waiting_for_a_request() -> None:
    """Models that bypass the transport (other providers, the SDK client) release it once their call is recorded."""
    from proactive_bench.episode.runner import CallLedger
    from proactive_bench.llm.ledger import LLMCallRecord

    sent, ledger = asyncio.Event(), CallLedger("run")
    record = LLMCallRecord(role="agent", purpose="react_step", model="m", method="tools", ok=True, latency_ms=1.0)
    ledger(record)  # outside the context that holds the event
    assert not sent.is_set()
    token = REQUEST_SENT.set(sent)
    try:
        ledger(record)
    finally:
        REQUEST_SENT.reset(token)
    assert sent.is_set() and len(ledger.take()) == 2


@pytest.mark.parametrize("payload", [{"model": "m", "messages": [{"role": "user", "content": 'hé "x"'}]}, {}])
def test_the_answer_cap_goes_last_in_the_body_as_json_dumps_puts_it(payload: dict[str, Any]) -> None:
    """The body is encoded once, without its cap, for the call's key and the request; the cap field is added to the text."""
    body = json.dumps(payload)
    assert _with_cap(body, "max_tokens", 64) == json.dumps({**payload, "max_tokens": 64}).encode()
    assert _with_cap(body, "max_completion_tokens", None) == body.encode()


async def test_the_models_settings_dictionary_is_langchains_made_once(transport: ChatTransport) -> None:
    """LangChain reads it for callbacks and tracing on every call; the model keeps it, each read gets its own copy."""
    with StubServer(lambda body: text_reply("x")) as server:
        model = http_model(server, transport, temperature=0.5, max_tokens=77)
    expected = ChatOpenAI._dict_for_compat(model)
    first = model._dict_for_compat()
    first["stop"] = ["changed"]
    assert model._dict_for_compat() == expected and expected["temperature"] == 0.5 and "stop" not in expected


ANSWER = {
    "id": "c1",
    "object": "chat.completion",
    "model": "stub",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Milk, é."}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
}


@pytest.mark.parametrize(
    ("body", "stored_as_sent"),
    [
        (json.dumps(ANSWER, indent=2).encode(), True),  # spaced as a server may space it: kept as sent
        (json.dumps(ANSWER, ensure_ascii=False).encode(), True),
        (b"\xef\xbb\xbf" + json.dumps(ANSWER).encode(), False),  # a BOM: JSON reads it, a str would not: encoded again
        (json.dumps(ANSWER).encode("utf-16"), False),  # another encoding JSON detects: encoded again
    ],
)
async def test_a_recorded_answer_is_the_body_the_server_sent_and_replays_the_same(
    tmp_path: Path, transport: ChatTransport, body: bytes, stored_as_sent: bool
) -> None:
    """The call cache stores the answer's body without decoding and encoding it again; replayed, it is the same message."""
    store = Store(tmp_path / "answers.db")
    recording = CallCache(store.answers, "run-a", fresh=True)
    recording.begin_session("s1")
    replies = iter([RawReply(200, body)])
    with StubServer(lambda request: next(replies, error_reply(500, "asked twice"))) as server:
        live = await http_model(server, transport, cache=recording).ainvoke(QUESTION)
        recording.flush()
        ((key, occurrence),) = store.answers.keys("run-a/s1")
        stored = store.answers.generations("run-a/s1", key, occurrence)
        assert stored == (body.decode() if stored_as_sent else json.dumps(ANSWER))
        replaying = CallCache(store.answers, "run-b", "replay", "run-a", fresh=True)
        replaying.begin_session("s1")
        replayed = await http_model(server, transport, cache=replaying).ainvoke(QUESTION.copy())
    assert len(server.requests) == 1  # the replay asked nothing
    assert (replayed.content, replayed.usage_metadata, replayed.response_metadata["finish_reason"]) == (
        live.content,
        live.usage_metadata,
        "stop",
    ) and live.content == "Milk, é."
