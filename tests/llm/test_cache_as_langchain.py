"""The call cache is LangChain's cache without importing it: ``BaseCache`` whichever of the two loads first, accepted as
a LangChain chat model's ``cache``, and LangChain's cache module still unloaded in a process that builds no such model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from langchain_core.caches import BaseCache
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration

from proactive_bench.llm import CallCache
from proactive_bench.store import Store
from tests.helpers.cli import run_python

CACHE_FIRST = """
import sys
from proactive_bench.llm.cache import CallCache
print("loaded with the cache:", "langchain_core.caches" in sys.modules, "langchain_core.messages" in sys.modules)
from langchain_core.caches import BaseCache
from langchain_openai import ChatOpenAI
cache = CallCache(None, "run")
model = ChatOpenAI(model="m", api_key="k", cache=cache)
print("a LangChain cache:", isinstance(cache, BaseCache), issubclass(CallCache, BaseCache), model.cache is cache)
"""

LANGCHAIN_FIRST = """
from langchain_core.caches import BaseCache
from proactive_bench.llm.cache import CallCache
print("a LangChain cache:", isinstance(CallCache(None, "run"), BaseCache))
"""


def test_the_cache_loads_no_langchain_cache_and_is_one_once_it_loads() -> None:
    out = run_python(CACHE_FIRST).splitlines()
    assert out == ["loaded with the cache: False False", "a LangChain cache: True True True"]


def test_the_cache_is_a_langchain_cache_when_langchain_loaded_first() -> None:
    assert run_python(LANGCHAIN_FIRST).strip() == "a LangChain cache: True"


def test_aclear_forgets_the_run_s_answers_as_clear_does(tmp_path: Path) -> None:
    store = Store(tmp_path / "c.db")
    try:
        cache = CallCache(store.answers, "run-a", fresh=True)
        assert isinstance(cache, BaseCache)
        cache.begin_session("s1")
        prompt = json.dumps([{"lc": 1, "type": "constructor", "id": ["HumanMessage"], "kwargs": {"content": "hi"}}])
        cache.update(prompt, "model=m", [ChatGeneration(message=AIMessage("hello"))])
        cache.flush()
        assert store.answers.sessions("run-a") == {"s1"}
        asyncio.run(cache.aclear())
        assert store.answers.sessions("run-a") == set()
    finally:
        store.close_connections()


@pytest.mark.parametrize("method", ["lookup", "update", "clear", "alookup", "aupdate", "aclear"])
def test_the_cache_has_every_method_of_langchain_s_cache(method: str) -> None:
    """LangChain calls these on its chat models' cache: each is the call cache's own (none left to an unloaded base)."""
    assert hasattr(BaseCache, method) and method in vars(CallCache)
