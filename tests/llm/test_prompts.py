"""Prompt files: their hash."""

from __future__ import annotations

import hashlib

import pytest

import proactive_bench.llm.prompts as prompts
from proactive_bench.llm.prompts import Prompt, load_prompt


def test_a_prompts_hash_is_its_texts_short_sha256_worked_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    prompt = load_prompt("user/prompts", "completion.v1")
    first = prompt.hash
    assert first == hashlib.sha256(prompt.text.encode("utf-8")).hexdigest()[: prompts.PROMPT_HASH_CHARS]
    monkeypatch.setattr(prompts.hashlib, "sha256", lambda _data: pytest.fail("hashed again"))  # the LLM user asks at every judgment
    assert prompt.hash == first
    assert Prompt(prompt.name, prompt.text) == prompt  # equal by name and text, as before
