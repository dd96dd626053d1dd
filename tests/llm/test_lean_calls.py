"""A transport model's call that nothing observes skips LangChain's per-call machinery, and gives the message LangChain gives.

``HttpChatOpenAI.ainvoke`` goes straight to its ``_agenerate`` when no callback handler, tracer, LangChain cache, rate
limiter or streaming would see or change the call; anything that would sends the call through LangChain as before.
Real HTTP to a stub server on loopback.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from langchain_core.caches import InMemoryCache
from langchain_core.callbacks import AsyncCallbackHandler, AsyncCallbackManager
from langchain_core.globals import set_debug, set_llm_cache
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.rate_limiters import InMemoryRateLimiter
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tracers.context import collect_runs
from langchain_openai import ChatOpenAI
from langgraph.graph import END, START, StateGraph
from langsmith import tracing_context
from typing_extensions import TypedDict

from proactive_bench.llm.http_chat import HttpChatOpenAI
from proactive_bench.llm.models import ChatSettings, make_chat_model
from proactive_bench.llm.transport import ChatTransport
from proactive_bench.testing.stub_server import StubServer, text_reply, tool_call_reply
from tests.helpers.chat_shapes import Verdict, read_list
from tests.helpers.cli import run_python

QUESTION = [SystemMessage("You keep the shopping list."), HumanMessage("What is on it?")]


class Seen(AsyncCallbackHandler):
    """A handler that notes the model runs it is told of."""

    def __init__(self) -> None:
        self.starts = 0
        self.ends = 0

    async def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        self.starts += 1

    async def on_llm_end(self, *args: Any, **kwargs: Any) -> None:
        self.ends += 1


@pytest.fixture
async def transport() -> AsyncIterator[ChatTransport]:
    async with ChatTransport() as opened:
        yield opened


@pytest.fixture
def through_langchain(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Counts the calls that go through LangChain's ``agenerate`` (the path with run managers)."""
    calls: list[int] = []
    original = BaseChatModel.agenerate

    async def counted(self: BaseChatModel, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(BaseChatModel, "agenerate", counted)
    yield calls


def http_model(server: StubServer, transport: ChatTransport, **kwargs: Any) -> HttpChatOpenAI:
    model = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, transport=transport, max_retries=0, timeout=5, **kwargs))
    assert isinstance(model, HttpChatOpenAI)
    return model


def comparable(message: AIMessage) -> dict[str, Any]:
    """What a caller reads of an answer, but for its run id (new at every call)."""
    return {key: value for key, value in message.model_dump().items() if key != "id"}


REPLIES = [text_reply("Milk and eggs."), tool_call_reply([("read_list", {"name": "weekly"})], content="Looking."), text_reply("")]


async def test_an_unobserved_call_gives_the_message_langchain_gives(transport: ChatTransport, through_langchain: list[int]) -> None:
    """Content, tool calls, response metadata (model, finish reason, token usage, ...) and usage: the same as the same
    answer read through LangChain's path (taken here because a handler watches); the id has LangChain's run-id form."""
    replies = iter(REPLIES * 2)
    with StubServer(lambda body: next(replies)) as server:
        model = http_model(server, transport)
        tools = model.bind_tools([read_list])
        lean = [await model.ainvoke(QUESTION), await tools.ainvoke(QUESTION), await model.ainvoke(QUESTION)]
        assert through_langchain == []
        seen = Seen()
        config: RunnableConfig = {"callbacks": [seen]}
        full = [await model.ainvoke(QUESTION, config), await tools.ainvoke(QUESTION, config), await model.ainvoke(QUESTION, config)]
    assert len(through_langchain) == 3 and seen.starts == seen.ends == 3
    assert [comparable(m) for m in lean] == [comparable(m) for m in full]
    assert lean[1].tool_calls[0]["args"] == {"name": "weekly"} and lean[0].response_metadata["finish_reason"] == "stop"
    for message in lean:
        assert message.id is not None and message.id.startswith("lc_run--") and message.id.endswith("-0")
    assert len({m.id for m in lean}) == 3
    assert server.requests[:3] == server.requests[3:]  # the same requests both ways


async def test_a_run_id_given_in_the_config_names_the_message_as_langchain_names_it(transport: ChatTransport) -> None:
    run_id = uuid.UUID("0192f0c5-0000-7000-8000-000000000001")
    with StubServer(lambda body: text_reply("ok")) as server:
        model = http_model(server, transport)
        lean = await model.ainvoke(QUESTION, {"run_id": run_id})
        full = await model.ainvoke(QUESTION, {"run_id": run_id, "callbacks": [Seen()]})
    assert lean.id == full.id == f"lc_run--{run_id}-0"


async def test_structured_calls_send_no_tracing_arguments(transport: ChatTransport, through_langchain: list[int]) -> None:
    """``with_structured_output`` passes LangChain a tracing-only argument; the lean path drops it as LangChain does."""
    replies = iter([tool_call_reply([("Verdict", {"label": "ok", "score": 3})]), text_reply('{"label": "ok", "score": 4}')])
    with StubServer(lambda body: next(replies)) as server:
        model = http_model(server, transport)
        called = await model.with_structured_output(Verdict, method="function_calling").ainvoke(QUESTION)
        schema = await model.with_structured_output(Verdict, method="json_schema").ainvoke(QUESTION)
    assert (called, schema) == (Verdict(label="ok", score=3), Verdict(label="ok", score=4))
    assert through_langchain == []
    assert all("ls_structured_output_format" not in body and "structured_output_format" not in body for body in server.requests)


OBSERVERS = {
    "a handler in the call's config": lambda model: ({"callbacks": [Seen()]}, None),
    "a manager with a handler in the config": lambda model: ({"callbacks": AsyncCallbackManager(handlers=[Seen()])}, None),
    "a handler on the model": lambda model: ({}, model.model_copy(update={"callbacks": [Seen()]})),
    "a verbose model": lambda model: ({}, model.model_copy(update={"verbose": True})),
    "a LangChain cache on the model": lambda model: ({}, model.model_copy(update={"cache": True})),
    "a rate limiter on the model": lambda model: (
        {},
        model.model_copy(update={"rate_limiter": InMemoryRateLimiter(requests_per_second=100)}),
    ),
    "v1 output": lambda model: ({}, model.model_copy(update={"output_version": "v1"})),
}


@pytest.mark.parametrize("observer", sorted(OBSERVERS))
async def test_an_observed_call_goes_through_langchain(transport: ChatTransport, through_langchain: list[int], observer: str) -> None:
    """Every source of a handler or of a change LangChain makes to a call sends it down LangChain's own path."""
    with StubServer(lambda body: text_reply("ok")) as server:
        base = http_model(server, transport)
        config, changed = OBSERVERS[observer](base)
        model = changed or base
        if observer == "a LangChain cache on the model":
            with pytest.raises(ValueError, match="no cache found"):  # LangChain's own answer to a cache that is not there
                await model.ainvoke(QUESTION, config)
        else:
            await model.ainvoke(QUESTION, config)
    assert through_langchain == [1]


def test_streaming_and_tracing_are_observers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A streaming model, a LangSmith tracing context, a tracer in the environment: not lean (checked, not called: each
    would need a streaming server or LangSmith)."""
    model = HttpChatOpenAI(model="stub", api_key="none", base_url="http://127.0.0.1:9/v1")
    assert model._unobserved(None, {})
    assert not model.model_copy(update={"streaming": True})._unobserved(None, {})
    assert not model._unobserved(None, {"stream": True})
    with tracing_context(enabled=True):
        assert not model._unobserved(None, {})
    with tracing_context(enabled=False):
        assert model._unobserved(None, {})
    monkeypatch.setenv("LANGCHAIN_HANDLER", "langchain")  # read at every call, as LangChain reads it
    assert not model._unobserved(None, {})


FRESH_CHECKS = """
import os, sys
for name in [n for n in os.environ if n.startswith(("LANGCHAIN_", "LANGSMITH_"))]:
    del os.environ[name]
from proactive_bench.llm import unobserved
seen = [unobserved(), any(m == "langsmith" or m.startswith("langchain_core.tracers") for m in sys.modules)]
from langchain_core.globals import set_debug
set_debug(True)
seen.append(unobserved())
set_debug(False)
os.environ["LANGSMITH_TRACING"] = "true"
seen.append(unobserved())
print(*seen)
"""
"""In a fresh process: the check with nothing set, whether it loaded LangChain's tracers or LangSmith, the check with LangChain's
debug flag on, then with tracing turned on by the environment."""


def test_a_fresh_process_checks_without_loading_the_tracers_until_the_environment_names_one() -> None:
    """Nothing loaded could have turned an observer on: the check loads no tracer; the debug flag and the environment still count."""
    assert run_python(FRESH_CHECKS).split() == ["True", "False", "False", "False"]


async def test_an_old_tracing_setting_fails_as_langchain_fails(transport: ChatTransport, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGCHAIN_TRACING", "true")
    with StubServer(lambda body: text_reply("ok")) as server, pytest.raises(RuntimeError, match="no longer supported"):
        await http_model(server, transport).ainvoke(QUESTION)


@pytest.mark.parametrize("context", ["debug", "collect_runs", "global cache"])
async def test_global_observers_send_calls_through_langchain(transport: ChatTransport, through_langchain: list[int], context: str) -> None:
    """LangChain's debug flag, a run collector, a global LangChain cache."""
    with StubServer(lambda body: text_reply("ok")) as server:
        model = http_model(server, transport)
        if context == "debug":
            set_debug(True)
            try:
                await model.ainvoke(QUESTION)
            finally:
                set_debug(False)
        elif context == "collect_runs":
            with collect_runs() as collected:
                await model.ainvoke(QUESTION)
            assert len(collected.traced_runs) == 1
        else:
            set_llm_cache(InMemoryCache())
            try:
                await model.ainvoke(QUESTION)
            finally:
                set_llm_cache(None)
    assert through_langchain == [1]


async def test_unobserved_means_langchain_would_build_no_handler(transport: ChatTransport) -> None:
    """Where the lean path is taken, LangChain's own callback manager for the call would have no handler at all."""
    with StubServer(lambda body: text_reply("ok")) as server:
        model = http_model(server, transport)
    for config in ({}, {"callbacks": []}, {"callbacks": AsyncCallbackManager(handlers=[])}, {"tags": ["a"], "metadata": {"k": 1}}):
        assert model._unobserved(config.get("callbacks"), {})  # type: ignore[attr-defined]
        manager = AsyncCallbackManager.configure(config.get("callbacks"), model.callbacks, model.verbose, config.get("tags"))  # type: ignore[attr-defined]
        assert manager.handlers == []


class State(TypedDict):
    answer: str


async def test_calls_inside_a_langgraph_node_are_lean(transport: ChatTransport, through_langchain: list[int]) -> None:
    """A session runs its participants inside LangGraph nodes; the graph's own run configuration brings no handler."""
    with StubServer(lambda body: text_reply("ok")) as server:
        model = http_model(server, transport)

        async def node(state: State) -> State:
            return {"answer": str((await model.ainvoke(QUESTION)).text)}

        graph = StateGraph(State)
        graph.add_node("ask", RunnableLambda(node))
        graph.add_edge(START, "ask")
        graph.add_edge("ask", END)
        out = await graph.compile().ainvoke({"answer": ""})
    assert out == {"answer": "ok"} and through_langchain == []


async def test_responses_api_calls_go_to_langchains_own_client(transport: ChatTransport, monkeypatch: pytest.MonkeyPatch) -> None:
    """The transport speaks chat completions only: a model set to the Responses API is answered by ChatOpenAI's own call."""
    answered: list[str] = []

    async def responses_call(self: ChatOpenAI, messages: list[Any], **kwargs: Any) -> ChatResult:
        answered.append(str(messages[-1].content))
        return ChatResult(generations=[ChatGeneration(message=AIMessage("from the Responses API"))])

    monkeypatch.setattr(ChatOpenAI, "_agenerate", responses_call)
    with StubServer(lambda body: text_reply("from chat completions")) as server:
        chat = http_model(server, transport)
        responses = chat.model_copy(update={"use_responses_api": True})
        assert (await responses.ainvoke(QUESTION)).content == "from the Responses API"
        assert (await chat.ainvoke(QUESTION)).content == "from chat completions"
    assert answered == ["What is on it?"] and len(server.requests) == 1
