"""Chat completion answers LangChain cannot read are malformed bodies, retried as such; plain quirks are mended
(real HTTP on loopback)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from proactive_bench.llm.answer_shape import mend_chat_answer
from proactive_bench.llm.cache import CallCache
from proactive_bench.llm.models import ChatSettings, make_chat_model
from proactive_bench.llm.transport import ChatTransport, MalformedBodyError
from proactive_bench.store import Store
from proactive_bench.testing.stub_server import RawReply, StubServer, error_reply, text_reply, tool_call_reply
from tests.helpers.chat_shapes import read_list

QUESTION = [HumanMessage("What is on the shopping list?")]


def answer(message: Any = None, **fields: Any) -> dict[str, Any]:
    return {"id": "c1", "object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}], **fields}


UNREADABLE = {
    "no choices": ({"id": "c1"}, "it has no choices"),
    "empty choices": ({"id": "c1", "choices": []}, "it has no choices"),
    "choices not a list": ({"id": "c1", "choices": {"0": 1}}, "it has no choices"),
    "message null": (answer(None), "choices[0] holds no message object"),
    "content a number": (answer({"role": "assistant", "content": 42}), "choices[0].message.content is int, not text"),
    "content an object": (answer({"role": "assistant", "content": {"a": 1}}), "content is dict, not text"),
    "tool_calls a string": (answer({"role": "assistant", "tool_calls": "read_list"}), "tool_calls is str, not a list"),
    "a call without a name": (
        answer({"role": "assistant", "tool_calls": [{"function": {"arguments": "{}"}}]}),
        "tool_calls[0] names no function",
    ),
    "arguments a number": (
        answer({"role": "assistant", "tool_calls": [{"id": "t", "function": {"name": "read_list", "arguments": 3}}]}),
        "tool_calls[0].function.arguments is int, not JSON text",
    ),
}


@pytest.mark.parametrize("case", list(UNREADABLE))
def test_an_answer_without_the_shape_is_refused_saying_why(case: str) -> None:
    body, reason = UNREADABLE[case]
    with pytest.raises(ValueError, match=reason.replace("[", r"\[").replace("]", r"\]")):
        mend_chat_answer(body)


def test_object_arguments_and_unreadable_usage_are_mended_and_a_good_answer_is_left_alone() -> None:
    good = text_reply("Milk.")
    before = json.dumps(good)
    assert mend_chat_answer(good) is False and json.dumps(good) == before
    quirky = answer(
        {
            "role": "assistant",
            "tool_calls": [{"id": "t", "type": "function", "function": {"name": "read_list", "arguments": {"name": "weekly"}}}],
        },
        usage={"prompt_tokens": "many", "completion_tokens": 1},
    )
    assert mend_chat_answer(quirky) is True
    assert quirky["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] == '{"name": "weekly"}' and "usage" not in quirky
    details = answer({"role": "assistant", "content": "x"}, usage={"prompt_tokens": 1, "prompt_tokens_details": "cached"})
    assert mend_chat_answer(details) is True and "usage" not in details


@pytest.fixture
async def transport() -> AsyncIterator[ChatTransport]:
    async with ChatTransport() as opened:
        yield opened


def model(server: StubServer, transport: ChatTransport, **settings: Any) -> Any:
    return make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, transport=transport, timeout=5, **settings))


def raw(body: dict[str, Any]) -> RawReply:
    return RawReply(200, json.dumps(body).encode(), {"content-type": "application/json"})


@pytest.mark.parametrize("case", ["no choices", "message null", "tool_calls a string"])
async def test_an_unreadable_answer_is_retried_as_a_malformed_body(
    transport: ChatTransport, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("proactive_bench.llm.transport.FIRST_BACKOFF_S", 0.001)
    replies = iter([raw(UNREADABLE[case][0])])
    with StubServer(lambda body: next(replies, None) or text_reply("Milk.")) as server:
        said = await model(server, transport, max_retries=1).ainvoke(QUESTION)
    assert said.content == "Milk." and len(server.requests) == 2
    with StubServer(lambda body: raw(UNREADABLE[case][0])) as server, pytest.raises(MalformedBodyError, match="not a chat completion"):
        await model(server, transport, max_retries=2).ainvoke(QUESTION)
    assert len(server.requests) == 3  # bounded


async def test_object_arguments_are_read_and_replay_as_read(tmp_path: Path, transport: ChatTransport) -> None:
    quirky = tool_call_reply([("read_list", {"name": "weekly"})])
    quirky["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = {"name": "weekly"}
    store = Store(tmp_path / "answers.db")
    recording = CallCache(store.answers, "run-a", fresh=True)
    recording.begin_session("s1")
    replies = iter([raw(quirky)])
    with StubServer(lambda body: next(replies, error_reply(500, "asked twice"))) as server:
        live = await model(server, transport, max_retries=0, cache=recording).bind_tools([read_list]).ainvoke(QUESTION)
        recording.flush()
        replaying = CallCache(store.answers, "run-b", "replay", "run-a", fresh=True)
        replaying.begin_session("s1")
        replayed = await model(server, transport, max_retries=0, cache=replaying).bind_tools([read_list]).ainvoke(QUESTION.copy())
    assert [(c["name"], c["args"]) for c in live.tool_calls] == [("read_list", {"name": "weekly"})]
    assert replayed.tool_calls == live.tool_calls and len(server.requests) == 1


async def test_lone_surrogates_in_text_and_arguments_are_read_and_replayed_as_the_replacement_character(
    tmp_path: Path, transport: ChatTransport
) -> None:
    """JSON may escape a lone surrogate (``\\ud800``), which no stored text can hold: the answer is read with U+FFFD in
    its place, in its text and in its tool calls' arguments (JSON text within JSON), and the call cache keeps it so."""
    texts = RawReply(200, json.dumps(text_reply("ok PLACE done")).replace("PLACE", "\\ud800").encode())
    called = tool_call_reply([("read_list", {"name": "PLACE"})])
    called["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = '{"name": "week\\udfff"}'
    store = Store(tmp_path / "answers.db")
    recording = CallCache(store.answers, "run-a", fresh=True)
    recording.begin_session("s1")
    replies = iter([texts, raw(called)])
    with StubServer(lambda body: next(replies, error_reply(500, "asked twice"))) as server:
        said = await model(server, transport, max_retries=0, cache=recording).ainvoke(QUESTION)
        asked = await model(server, transport, max_retries=0, cache=recording).bind_tools([read_list]).ainvoke(QUESTION)
        recording.flush()
        replaying = CallCache(store.answers, "run-b", "replay", "run-a", fresh=True)
        replaying.begin_session("s1")
        said_again = await model(server, transport, max_retries=0, cache=replaying).ainvoke(QUESTION.copy())
        asked_again = await model(server, transport, max_retries=0, cache=replaying).bind_tools([read_list]).ainvoke(QUESTION.copy())
    assert said.content == said_again.content == "ok \ufffd done"
    assert asked.tool_calls[0]["args"] == asked_again.tool_calls[0]["args"] == {"name": "week\ufffd"}
    assert len(server.requests) == 2
