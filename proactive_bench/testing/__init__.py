"""Test doubles that are real servers: an OpenAI-compatible stub on 127.0.0.1 and a zoo of misbehaving ones.

``stub_server`` answers chat completions from a scripted reply function
(text, tool calls, structured output, errors, dropped connections) and, when given an embedder, ``/v1/embeddings``;
``stub_zoo`` (``python -m proactive_bench.testing.stub_zoo``) serves the
quirky servers the fault tests and benchmarks run against.
"""

from proactive_bench.testing.stub_server import (
    StubServer,
    embedding_reply,
    error_reply,
    hashed_embeddings,
    prompt_text,
    silent_user_judgment,
    structured_reply,
    text_reply,
    tool_call_reply,
    unremarkable_exchange,
)

__all__ = [
    "StubServer",
    "embedding_reply",
    "error_reply",
    "hashed_embeddings",
    "prompt_text",
    "silent_user_judgment",
    "structured_reply",
    "text_reply",
    "tool_call_reply",
    "unremarkable_exchange",
]
