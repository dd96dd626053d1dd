"""The answer cap goes in one field, the one the server reads: from the probe, or learnt from a 400 naming the other
(real HTTP on loopback)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import pytest
from langchain_core.messages import HumanMessage

from proactive_bench.llm import probe
from proactive_bench.llm.models import ChatSettings, make_chat_model
from proactive_bench.llm.probe import known_capabilities
from proactive_bench.llm.transport import ChatTransport
from proactive_bench.store import Store
from proactive_bench.testing.stub_server import Reply, StubServer, error_reply
from proactive_bench.testing.stub_zoo import plausible_model

QUESTION = [HumanMessage("What is on the shopping list?")]
BOTH = "max_tokens and max_completion_tokens cannot both be set"
NO_MCT = "Unrecognized request argument supplied: max_completion_tokens"
NO_MAX_TOKENS = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."


def strict_server(refuses: str | None) -> Any:
    """A server refusing requests that carry both caps, and (``refuses``) one of the fields; it honours a cap it reads
    (a long answer is cut there)."""

    def respond(body: dict[str, Any]) -> Reply:
        if "max_tokens" in body and "max_completion_tokens" in body:
            return error_reply(400, BOTH)
        if refuses is not None and refuses in body:
            return error_reply(400, NO_MCT if refuses == "max_completion_tokens" else NO_MAX_TOKENS)
        reply = plausible_model(body)
        cap = body.get("max_tokens") or body.get("max_completion_tokens")
        if isinstance(reply, dict) and cap is not None and cap < 8:
            reply["choices"][0]["finish_reason"] = "length"
            reply["usage"]["completion_tokens"] = cap
        return reply

    return respond


def caps_sent(server: StubServer) -> list[tuple[str, ...]]:
    return [tuple(field for field in ("max_tokens", "max_completion_tokens") if field in body) for body in server.requests]


async def ask_twice(server: StubServer, transport: ChatTransport) -> None:
    model = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, transport=transport, max_tokens=50, max_retries=0))
    for _ in range(2):
        assert (await model.ainvoke(QUESTION)).content


async def test_a_server_refusing_both_caps_gets_one() -> None:
    async with ChatTransport() as transport:
        with StubServer(strict_server(None)) as server:
            await ask_twice(server, transport)
    assert caps_sent(server) == [("max_tokens",)] * 2 and server.requests[0]["max_tokens"] == 50


async def test_a_400_naming_max_tokens_switches_the_endpoint_to_max_completion_tokens() -> None:
    async with ChatTransport() as transport:
        with StubServer(strict_server("max_tokens")) as server:
            await ask_twice(server, transport)
            assert transport.cap_field(server.base_url) == "max_completion_tokens"
    assert caps_sent(server) == [("max_tokens",), ("max_completion_tokens",), ("max_completion_tokens",)]  # remembered
    assert server.requests[-1]["max_completion_tokens"] == 50


async def test_a_400_naming_max_completion_tokens_switches_back_to_max_tokens() -> None:
    async with ChatTransport() as transport:
        with StubServer(strict_server("max_completion_tokens")) as server:
            transport.cap_fields[server.base_url] = "max_completion_tokens"  # as a stale probe might say
            await ask_twice(server, transport)
    assert caps_sent(server) == [("max_completion_tokens",), ("max_tokens",), ("max_tokens",)]


async def test_a_400_about_something_else_is_raised_not_looped_on() -> None:
    async with ChatTransport() as transport:
        with StubServer(lambda body: error_reply(400, "max_tokens and max_completion_tokens must be below 10")) as server:
            model = make_chat_model(
                "openai:stub", ChatSettings(base_url=server.base_url, transport=transport, max_tokens=50, max_retries=0)
            )
            with pytest.raises(openai.BadRequestError):
                await model.ainvoke(QUESTION)
    assert caps_sent(server) == [("max_tokens",), ("max_completion_tokens",)]


@pytest.mark.parametrize(
    ("refuses", "field", "outcome"), [("max_completion_tokens", "max_tokens", "rejected"), (None, "max_completion_tokens", "supported")]
)
async def test_the_probe_decides_the_field_and_its_finding_is_stored(tmp_path: Path, refuses: str | None, field: str, outcome: str) -> None:
    store = Store(tmp_path / "probe.db")
    with StubServer(strict_server(refuses)) as server:
        async with ChatTransport() as transport:
            report = await known_capabilities(store, transport, server.base_url, "stub", "key")
            assert report.outcome("max_completion_tokens") == outcome
            await ask_twice(server, transport)
        sent = caps_sent(server)[len(report.capabilities) :]
        async with ChatTransport() as later:  # a later run: the stored probe, no new one
            await known_capabilities(store, later, server.base_url, "stub", "key")
            assert later.cap_field(server.base_url) == field
    assert sent == [(field,)] * 2


async def test_runs_sharing_a_transport_read_the_stored_probe_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sweep's runs of one process (one transport) start with the stored report the first of them read; a run of
    another transport reads the store again."""
    store = Store(tmp_path / "probe.db")
    reads: list[str] = []
    stored_probe = probe.stored_probe
    monkeypatch.setattr(probe, "stored_probe", lambda *args: reads.append(args[2]) or stored_probe(*args))
    with StubServer(strict_server(None)) as server:
        async with ChatTransport() as transport:
            first = await known_capabilities(store, transport, server.base_url, "stub", "key")  # probed, then stored
            assert reads == ["stub", "stub"]  # none stored yet; read again before storing its own
            again = [await known_capabilities(store, transport, server.base_url, "stub", "key") for _ in range(3)]
            assert reads == ["stub"] * 3  # the stored report, read once
            assert [r.capabilities for r in again] == [first.capabilities] * 3
        async with ChatTransport() as other:
            await known_capabilities(store, other, server.base_url, "stub", "key")
            assert reads == ["stub"] * 4
