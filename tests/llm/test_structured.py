"""Structured output against servers with different capabilities and faults (real HTTP on loopback)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from proactive_bench.llm.ledger import LLMCallRecord
from proactive_bench.llm.models import ChatSettings, make_chat_model
from proactive_bench.llm.structured import (
    ContextLengthError,
    RetryPolicy,
    StructuredCaller,
    StructuredOutputError,
)
from proactive_bench.llm.transport import ChatTransport
from proactive_bench.testing.stub_server import (
    RawReply,
    Reply,
    StubServer,
    error_reply,
    requested_format,
    structured_reply,
    text_reply,
)

FAST = RetryPolicy(backoff_s=0.0)
GOOD = {"label": "ok", "score": 3}


class Answer(BaseModel):
    label: str
    score: int


@pytest.fixture(params=["sdk", "transport"])
async def transport(request: pytest.FixtureRequest) -> AsyncIterator[ChatTransport | None]:
    """Every test runs over the OpenAI SDK's client and over the run's lean transport."""
    if request.param == "sdk":
        yield None
        return
    async with ChatTransport() as opened:
        yield opened


def caller(
    server: StubServer, records: list[LLMCallRecord], transport: ChatTransport | None, policy: RetryPolicy = FAST
) -> StructuredCaller:
    model = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, max_retries=0, timeout=5, transport=transport))
    return StructuredCaller(model, "stub", "judge", records.append, policy)


async def ask(c: StructuredCaller, **kwargs: Any) -> Any:
    return await c.call(Answer, [HumanMessage("grade this")], "test", prompt_hash="abc", **kwargs)


def only(*formats: str, payload: dict[str, Any] = GOOD) -> Any:
    """A server that supports only the given request formats and rejects the others with 400."""

    def respond(body: dict[str, Any]) -> Reply:
        if requested_format(body) not in formats:
            return error_reply(400, f"response format {requested_format(body)} is not supported")
        return structured_reply(body, payload)

    return respond


def cut(reply: dict[str, Any]) -> dict[str, Any]:
    """The reply as a server stopped at the token cap sends it (finish reason ``length``)."""
    reply["choices"][0]["finish_reason"] = "length"
    return reply


async def no_judgment(respond: Any, transport: ChatTransport | None) -> list[LLMCallRecord]:
    """The attempts of a call to a server answering with ``respond``, which must end without a judgment: every attempt
    recorded, none of them ok."""
    records: list[LLMCallRecord] = []
    with StubServer(respond) as server, pytest.raises(StructuredOutputError):
        await ask(caller(server, records, transport))
    assert records and not any(r.ok for r in records)
    return records


async def test_json_schema_server_answers_in_one_attempt(transport: ChatTransport | None) -> None:
    records: list[LLMCallRecord] = []
    with StubServer(only("json_schema")) as server:
        result = await ask(caller(server, records, transport))
    assert result.value == Answer(label="ok", score=3)
    assert (result.method, result.attempts) == ("json_schema", 1)
    assert server.requests[0]["response_format"]["type"] == "json_schema"
    assert [(r.method, r.ok, r.prompt_hash) for r in records] == [("json_schema", True, "abc")]


async def test_server_without_json_schema_falls_back_to_tools_and_remembers(transport: ChatTransport | None) -> None:
    records: list[LLMCallRecord] = []
    with StubServer(only("tools")) as server:
        c = caller(server, records, transport)
        first = await ask(c)
        second = await ask(c)
    assert (first.method, first.attempts) == ("function_calling", 2)
    assert (second.method, second.attempts) == ("function_calling", 1)  # json_schema is not tried again
    assert [requested_format(b) for b in server.requests] == ["json_schema", "tools", "tools"]
    assert records[0].ok is False and "unsupported" in (records[0].error or "")


async def test_json_mode_only_server_with_fenced_broken_json_is_parsed_tolerantly(transport: ChatTransport | None) -> None:
    def respond(body: dict[str, Any]) -> Reply:
        if requested_format(body) != "json_object":
            return error_reply(400, "unsupported")
        return text_reply('Here you go:\n```json\n{"label": "ok", "score": 3,}\n```')

    records: list[LLMCallRecord] = []
    with StubServer(respond) as server:
        result = await ask(caller(server, records, transport))
    assert result.value.score == 3 and result.method == "json_mode"
    assert "schema" in json.dumps(server.requests[-1]["messages"]).lower()


async def test_plain_server_gets_the_schema_in_the_prompt(transport: ChatTransport | None) -> None:
    with StubServer(only("text")) as server:
        result = await ask(caller(server, [], transport))
    assert result.method == "prompt" and result.value.label == "ok"


async def test_malformed_output_is_retried_then_falls_through(transport: ChatTransport | None) -> None:
    answers = iter([text_reply("not json at all"), text_reply('{"label": "ok"}')])

    def respond(body: dict[str, Any]) -> Reply:
        if requested_format(body) == "json_schema":
            return next(answers)
        return structured_reply(body, GOOD)

    records: list[LLMCallRecord] = []
    with StubServer(respond) as server:
        result = await ask(caller(server, records, transport))
    assert result.method == "function_calling" and result.attempts == 3
    assert [r.ok for r in records] == [False, False, True]
    assert all("malformed" in (r.error or "") for r in records[:2])


async def test_rate_limits_and_server_errors_are_retried_with_bounds(transport: ChatTransport | None) -> None:
    faults = iter([error_reply(429, "slow down"), error_reply(500, "boom")])

    def respond(body: dict[str, Any]) -> Reply:
        return next(faults, None) or structured_reply(body, GOOD)

    records: list[LLMCallRecord] = []
    with StubServer(respond) as server:
        c = caller(server, records, transport)
        result = await ask(c)
    assert result.method == "json_schema" and result.attempts == 3
    assert [r.error.split(":")[0] if r.error else None for r in records] == ["transient", "server error", None]
    assert c.methods[0] == "json_schema"  # one server error is no reason to abandon a method


async def test_transient_faults_are_retried_a_bounded_number_of_times(transport: ChatTransport | None) -> None:
    records: list[LLMCallRecord] = []
    with StubServer(lambda body: error_reply(503, "down")) as server, pytest.raises(StructuredOutputError, match="after 3 attempt"):
        await ask(caller(server, records, transport, RetryPolicy(transient_retries=2, backoff_s=0.0)))
    assert len(server.requests) == 3 and len(records) == 3 and not any(r.ok for r in records)


@pytest.mark.parametrize("status", [400, 422, 500])
async def test_a_rejection_naming_the_feature_abandons_the_method_at_once(transport: ChatTransport | None, status: int) -> None:
    """A 4xx or 500 naming response_format means the method itself is refused (a 502/503/504 is overload: test_faults.py)."""

    def respond(body: dict[str, Any]) -> Reply:
        if "response_format" in body:
            return error_reply(status, "1 validation error: body.response_format: json_schema is not supported")
        return structured_reply(body, GOOD)

    records: list[LLMCallRecord] = []
    with StubServer(respond) as server:
        c = caller(server, records, transport)
        first, second = await ask(c), await ask(c)
    assert (first.method, first.attempts, second.method, second.attempts) == ("function_calling", 2, "function_calling", 1)
    assert [requested_format(b) for b in server.requests] == ["json_schema", "tools", "tools"]
    assert "json_schema" not in c.methods and records[0].error and records[0].error.startswith("unsupported")


async def test_a_method_failing_the_same_way_twice_is_left_and_abandoned_once_another_works(transport: ChatTransport | None) -> None:
    def respond(body: dict[str, Any]) -> Reply:
        return error_reply(500, "internal error") if "response_format" in body else structured_reply(body, GOOD)

    records: list[LLMCallRecord] = []
    with StubServer(respond) as server:
        c = caller(server, records, transport)
        first, second = await ask(c), await ask(c)
    assert (first.method, first.attempts, second.attempts) == ("function_calling", 3, 1)
    assert [requested_format(b) for b in server.requests] == ["json_schema", "json_schema", "tools", "tools"]
    assert c.methods == ["function_calling", "json_mode", "prompt"]


async def test_a_server_that_fails_every_method_alike_raises_and_abandons_none(transport: ChatTransport | None) -> None:
    """The server is at fault, not a method: every attempt is stored, the decision is an error, nothing is guessed."""
    records: list[LLMCallRecord] = []
    with StubServer(lambda body: error_reply(500, "internal error")) as server:
        c = caller(server, records, transport)
        with pytest.raises(StructuredOutputError, match="after 8 attempt"):
            await ask(c)
    assert len(server.requests) == 8 and len(records) == 8 and not any(r.ok for r in records)
    assert [r.method for r in records] == ["json_schema"] * 2 + ["function_calling"] * 2 + ["json_mode"] * 2 + ["prompt"] * 2
    assert c.methods == ["json_schema", "function_calling", "json_mode", "prompt"]


async def test_a_server_ignoring_response_format_ends_up_on_function_calling(transport: ChatTransport | None) -> None:
    def respond(body: dict[str, Any]) -> Reply:
        return structured_reply(body, GOOD) if body.get("tools") else text_reply("The answer looks fine to me.")

    with StubServer(respond) as server:
        c = caller(server, [], transport)
        first, second = await ask(c), await ask(c)
    assert (first.method, first.attempts, second.attempts) == ("function_calling", 3, 1)
    assert "json_schema" not in c.methods


async def test_a_tool_call_written_as_text_is_read(transport: ChatTransport | None) -> None:
    def respond(body: dict[str, Any]) -> Reply:
        if "response_format" in body:
            return error_reply(400, "response_format is not supported")
        return text_reply(json.dumps({"name": "Answer", "arguments": GOOD}))

    with StubServer(respond) as server:
        result = await ask(caller(server, [], transport))
    assert (result.method, result.value) == ("function_calling", Answer(**GOOD))


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (error_reply(401, "invalid api key"), StructuredOutputError),
        (
            error_reply(400, "This model's maximum context length is 4096 tokens. However, your messages resulted in 9000 tokens."),
            ContextLengthError,
        ),
    ],
)
async def test_no_method_can_help_with_bad_keys_or_long_prompts(
    transport: ChatTransport | None, reply: Reply, error: type[Exception]
) -> None:
    records: list[LLMCallRecord] = []
    with StubServer(lambda body: reply) as server:
        c = caller(server, records, transport)
        with pytest.raises(error, match="after 1 attempt"):
            await ask(c)
    assert len(server.requests) == 1 and c.methods == ["json_schema", "function_calling", "json_mode", "prompt"]


async def test_transport_retries_are_recorded_as_attempts() -> None:
    faults = iter([RawReply(429, b'{"error": {"message": "slow down"}}', {"Retry-After": "0"}), RawReply(200, b"<html>bad gateway</html>")])
    records: list[LLMCallRecord] = []
    async with ChatTransport() as opened:
        with StubServer(lambda body: next(faults, None) or structured_reply(body, GOOD)) as server:
            model = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, max_retries=3, timeout=5, transport=opened))
            result = await ask(
                StructuredCaller(model, "stub", "judge", records.append, FAST),
            )
    assert result.attempts == 1 and len(server.requests) == 3
    assert [(r.attempt, r.ok, (r.error or "").split(":")[0]) for r in records] == [
        (1, False, "transport retry"),
        (1, False, "transport retry"),
        (1, True, ""),
    ]
    assert "RateLimitError" in (records[0].error or "") and "not JSON" in (records[1].error or "")


async def test_a_check_can_reject_an_answer(transport: ChatTransport | None) -> None:
    def must_be_positive(answer: Answer) -> None:
        if answer.score <= 0:
            raise ValueError("score must be positive")

    payloads = iter([{"label": "x", "score": 0}, GOOD])
    with StubServer(lambda body: structured_reply(body, next(payloads))) as server:
        result = await ask(caller(server, [], transport), check=must_be_positive)
    assert result.value.score == 3 and result.attempts == 2


async def test_a_prompt_over_the_context_is_clipped_asked_again_and_noted(transport: ChatTransport | None) -> None:
    """The server's context-length error teaches the window; the long evidence is clipped with a marker, the short parts kept."""
    from proactive_bench.llm.prompts import Prompt

    template = Prompt("t.v1", "## Item\n$item\n## Evidence\n$evidence\n")
    limit_chars = 4000

    def respond(body: dict[str, Any]) -> Reply:
        size = len(json.dumps(body["messages"]))
        if size > limit_chars:
            return error_reply(
                400, f"This model's maximum context length is 1000 tokens. However, your messages resulted in {size // 4} tokens."
            )
        return structured_reply(body, GOOD)

    records: list[LLMCallRecord] = []
    with StubServer(respond) as server:
        c = caller(server, records, transport)
        c.max_tokens = 100
        result = await c.call_prompt(Answer, template, "test", {"item": "Is the unit mg/L?"}, {"evidence": "x" * 20_000 + "THE END"})
        again = await c.call_prompt(Answer, template, "test", {"item": "Second item"}, {"evidence": "y" * 20_000})
    assert result.value == Answer(**GOOD) and again.attempts == 1 and c.context_tokens == 1000
    sent = json.dumps(server.requests[1]["messages"])
    assert "Is the unit mg/L?" in sent and "characters clipped to fit the model's context window" in sent and "THE END" in sent
    assert [(r.ok, (r.error or "").split(":")[0]) for r in records] == [
        (False, "fatal"),
        (True, "prompt clipped to fit 1000 tokens"),
        (True, "prompt clipped to fit 1000 tokens"),
    ]
    assert len(server.requests) == 3


async def test_an_answer_cut_before_its_json_closed_is_not_repaired_into_a_judgment(transport: ChatTransport | None) -> None:
    """A judge stopped at the token cap mid-object: json_repair would complete it; the attempt is malformed instead."""

    records = await no_judgment(lambda body: cut(text_reply('{"label": "ok", "score": 3, "label": "the agent did not yet')), transport)
    assert any("cut at the max_tokens cap before its JSON object closed" in (r.error or "") for r in records)


async def test_an_answer_cut_after_its_json_closed_still_counts(transport: ChatTransport | None) -> None:
    def respond(body: dict[str, Any]) -> Reply:
        if requested_format(body) != "text":
            return error_reply(400, "response_format is not supported")
        return cut(text_reply('{"label": "ok", "score": 3} and then the model ran on and on'))

    with StubServer(respond) as server:
        result = await ask(caller(server, [], transport))
    assert result.value == Answer(label="ok", score=3)


async def test_a_200_without_choices_is_malformed_not_an_escape(transport: ChatTransport | None) -> None:
    empty = json.dumps({"id": "x", "object": "chat.completion", "choices": []}).encode()
    await no_judgment(lambda body: RawReply(200, empty, {"content-type": "application/json"}), transport)


@pytest.mark.parametrize("was_cut", [False, True])
async def test_an_answer_nested_too_deep_is_malformed_not_an_escape(transport: ChatTransport | None, was_cut: bool) -> None:
    """JSON nested deeper than Python's parser goes, in every method's answer: each attempt is malformed and recorded
    (the judgment is not made), never a RecursionError out of the caller."""

    deep = text_reply('{"label": ' + "[" * 100_000)
    records = await no_judgment(lambda body: cut(deep) if was_cut else deep, transport)
    assert all("malformed" in (r.error or "") for r in records)
