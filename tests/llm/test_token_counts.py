"""A judgment never overflows a small context window: the server's own token count where it serves ``/tokenize``, a
margin where it does not, and the ratio a context-length error states (real HTTP to stub servers on loopback)."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from proactive_bench.llm.cache import CallCache, ReplayMissError
from proactive_bench.llm.context import ESTIMATE_MARGIN, TEMPLATE_TOKENS, prompt_budget_tokens, tokens_from_error
from proactive_bench.llm.ledger import LLMCallRecord
from proactive_bench.llm.models import ChatSettings, make_chat_model
from proactive_bench.llm.prompts import Prompt
from proactive_bench.llm.structured import RetryPolicy, StructuredCaller
from proactive_bench.llm.tokens import count_tokens
from proactive_bench.llm.transport import ChatTransport
from proactive_bench.store import Store
from proactive_bench.testing.stub_server import Reply, StubServer, error_reply, structured_reply

WINDOW = 2048
CAP = 384
CHARS_A_TOKEN = 2
"""The stub model's tokenizer: a token per two characters, more than pbench's estimate (three) would guess."""
TEMPLATE = Prompt("judge.t1", "## Item\n$item\n## Evidence\n$evidence\n")
EVIDENCE = "\n".join(f"line {n}: the batch mean was 4.2 mg/L, within range" for n in range(900)) + "\nTHE END"
GOOD = {"label": "ok", "score": 3}


class Answer(BaseModel):
    label: str
    score: int


def tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_A_TOKEN)


def prompt_tokens(body: dict[str, Any]) -> int:
    """What the stub counts for a chat request: its messages' text and a few tokens of chat template each."""
    return sum(tokens(str(m.get("content") or "")) + 4 for m in body["messages"])


def small_model(body: dict[str, Any]) -> Reply:
    """A llama.cpp server with a 2,048-token window: a prompt that leaves no room for the answer's cap is refused."""
    counted = prompt_tokens(body)
    cap = body.get("max_tokens") or body.get("max_completion_tokens") or 0
    if counted + cap > WINDOW:
        return error_reply(400, f"request ({counted} tokens) exceeds the available context size ({WINDOW} tokens), try increasing it")
    return structured_reply(body, GOOD)


def llama_tokenizer(body: dict[str, Any]) -> Reply:
    return {"tokens": list(range(tokens(body["content"])))} if "content" in body else {"tokens": []}


def vllm_tokenizer(body: dict[str, Any]) -> Reply:
    if "prompt" not in body:
        return error_reply(400, "Field required: prompt")
    return {"count": tokens(body["prompt"]), "max_model_len": WINDOW, "tokens": list(range(tokens(body["prompt"])))}


@pytest.fixture
async def transport() -> AsyncIterator[ChatTransport]:
    async with ChatTransport() as opened:
        yield opened


def judge(server: StubServer, transport: ChatTransport, records: list[LLMCallRecord], cache: CallCache | None = None) -> StructuredCaller:
    settings = ChatSettings(base_url=server.base_url, max_retries=0, timeout=5, transport=transport, max_tokens=CAP, cache=cache)
    return StructuredCaller(
        make_chat_model("openai:small", settings),
        "small",
        "judge",
        records.append,
        RetryPolicy(backoff_s=0.0),
        ("prompt",),
        context_tokens=WINDOW,
        max_tokens=CAP,
    )


async def grade(c: StructuredCaller) -> Answer:
    return (await c.call_prompt(Answer, TEMPLATE, "rubric", {"item": "Is the unit mg/L?"}, {"evidence": EVIDENCE})).value


def assert_fits_and_keeps_most_evidence(body: dict[str, Any]) -> None:
    sent = prompt_tokens(body)
    assert sent + CAP <= WINDOW, sent
    assert sent >= 0.8 * (prompt_budget_tokens(WINDOW, CAP) - TEMPLATE_TOKENS), f"clipped far below the window: {sent}"
    text = body["messages"][0]["content"]
    assert "Is the unit mg/L?" in text and "characters clipped to fit" in text and "THE END" in text


async def test_a_judgment_is_clipped_to_the_servers_own_count_and_never_overflows(transport: ChatTransport) -> None:
    records: list[LLMCallRecord] = []
    with StubServer(small_model, tokenizer=llama_tokenizer) as server:
        c = judge(server, transport, records)
        assert await grade(c) == Answer(**GOOD)
        assert await grade(c) == Answer(**GOOD)
    assert len(server.requests) == 2, "no request was refused"
    for body in server.requests:
        assert_fits_and_keeps_most_evidence(body)
    assert [r.ok for r in records] == [True, True] and "prompt clipped to fit 2048 tokens" in (records[0].error or "")
    assert server.tokenize_requests and all("content" in b for b in server.tokenize_requests)
    assert 1.9 <= c.chars_per_token <= CHARS_A_TOKEN, "the ratio the count showed is kept for the next prompts"
    assert transport.tokenizers == {server.base_url.removesuffix("/v1") + "/tokenize": "llama.cpp"}


async def test_without_a_count_the_errors_ratio_shrinks_the_prompt_and_it_is_asked_again(transport: ChatTransport) -> None:
    """No ``/tokenize``: the estimate with its margin still overflows this tokenizer; the 400 says how many tokens the
    prompt took, the prompt is clipped by that ratio and asked once more, and later prompts fit the first time."""
    records: list[LLMCallRecord] = []
    with StubServer(small_model) as server:
        c = judge(server, transport, records)
        assert await grade(c) == Answer(**GOOD)
        assert await grade(c) == Answer(**GOOD)
    refused, *fitted = server.requests
    assert prompt_tokens(refused) + CAP > WINDOW and len(fitted) == 2
    for body in fitted:
        assert prompt_tokens(body) + CAP <= WINDOW
        assert "THE END" in body["messages"][0]["content"]
    assert [(r.ok, (r.error or "").split(":")[0]) for r in records][0] == (False, "fatal")
    assert all(r.ok for r in records[1:])
    assert c.chars_per_token < CHARS_A_TOKEN * 1.05
    assert transport.tokenizers == {server.base_url.removesuffix("/v1") + "/tokenize": None}, "asked once, then estimated"
    assert len(server.tokenize_requests) == 2  # both shapes tried once


async def test_the_margin_alone_fits_a_tokenizer_close_to_the_estimate(transport: ChatTransport) -> None:
    """A model whose tokens take 2.7 characters: the estimate (3) alone would overflow, its margin does not."""

    def close_model(body: dict[str, Any]) -> Reply:
        counted = sum(math.ceil(len(str(m.get("content") or "")) / 2.7) + 4 for m in body["messages"])
        if counted + CAP > WINDOW:
            return error_reply(400, f"request ({counted} tokens) exceeds the available context size ({WINDOW} tokens)")
        return structured_reply(body, GOOD)

    records: list[LLMCallRecord] = []
    with StubServer(close_model) as server:
        assert await grade(judge(server, transport, records)) == Answer(**GOOD)
    assert len(server.requests) == 1 and records[0].ok
    assert (1 - ESTIMATE_MARGIN) * 3 < 2.7


async def test_counts_are_recorded_and_replayed_so_a_replay_clips_alike(transport: ChatTransport, tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db")
    recording = CallCache(store.answers, "run1", "record", fresh=True)
    recording.begin_session("a1")
    with StubServer(small_model, tokenizer=llama_tokenizer) as server:
        assert await grade(judge(server, transport, [], recording)) == Answer(**GOOD)
        recording.flush()
        asked, counted = len(server.requests), len(server.tokenize_requests)
        assert counted > 0
        server.responder = lambda body: error_reply(500, "a replay must not call the model")
        server.tokenizer = lambda body: error_reply(500, "a replay must not count")
        replaying = CallCache(store.answers, "run2", "replay", "run1")
        replaying.begin_session("a1")
        async with ChatTransport() as fresh:  # a new process: nothing learnt about the server
            assert await grade(judge(server, fresh, [], replaying)) == Answer(**GOOD)
        assert (len(server.requests), len(server.tokenize_requests)) == (asked, counted), "answer and counts came from the recording"
        other = CallCache(store.answers, "run3", "replay", "run1")
        other.begin_session("b2")  # a session the recording does not have: the count is estimated, the answer is a miss
        async with ChatTransport() as fresh:
            with pytest.raises(ReplayMissError):
                await grade(judge(server, fresh, [], other))


async def test_a_vllm_tokenizer_is_learnt_and_asked_in_its_shape_alone(transport: ChatTransport) -> None:
    with StubServer(small_model, tokenizer=vllm_tokenizer) as server:
        known: dict[str, str | None] = {}
        first = await count_tokens(transport.post_json, known, server.base_url, "small", {}, "x" * 100)
        second = await count_tokens(transport.post_json, known, server.base_url, "small", {}, "y" * 50)
    assert (first, second) == (50, 25)
    assert [sorted(b) for b in server.tokenize_requests] == [
        ["add_special", "content"],
        ["add_special_tokens", "model", "prompt"],
        ["add_special_tokens", "model", "prompt"],
    ]


@pytest.mark.parametrize(
    ("message", "counted"),
    [
        ("request (8391 tokens) exceeds the available context size (8192 tokens), try increasing it", 8391),
        (
            "This model's maximum context length is 8192 tokens. However, you requested 8391 tokens "
            "(8007 in the messages, 384 in the completion). Please reduce the length of the messages or completion.",
            8007,
        ),
        ("This model's maximum context length is 8192 tokens. However, your messages resulted in 8391 tokens.", 8391),
        ("maximum context length is 8192 tokens. However, your request has 8391 input tokens.", 8391),
        ("the prompt is too long", None),
    ],
)
def test_the_tokens_a_context_length_error_states(message: str, counted: int | None) -> None:
    assert tokens_from_error(message) == counted
