"""A fault zoo: stub model servers that behave like the real servers people run, quirks included.

:func:`plausible_model` answers every kind of request pbench sends (react
agent steps, the simulated user's judging stages and replies, rubric items,
probes) as a cooperative but unremarkable model would. :func:`with_quirk`
wraps any responder in one real-world quirk:

========================  ===============================================================
``reject-format-500``     ``response_format`` refused with HTTP 500 naming it (also ``-400``, ``-422``)
``ignore-format``         ``response_format`` silently ignored: prose comes back (tools work)
``tool-calls-as-text``    no ``response_format``; tool calls come back as JSON text in the content
``never-stops``           every text answer runs on until ``max_tokens`` (finish reason ``length``)
``small-context``         prompts over 4,096 tokens refused with the usual context-length message
``rate-limit``            every third request gets 429 with ``Retry-After``
``drop-connection``       every third connection is closed unanswered
``non-json-body``         every third answer is a 200 HTML page
``truncated-body``        every third answer is cut short of its announced length
``huge-body``             every third answer is a 50 MB JSON body
``endless-body``          every third answer is a JSON body that streams without end
``overload-naming-tools`` every third request gets 503 "tool server overloaded" (transient despite the word)
========================  ===============================================================

Serve one by hand for a real run::

    python -m proactive_bench.testing.stub_zoo reject-format-500 --port 8765
    pbench episode ... --base-url http://127.0.0.1:8765/v1
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import time
from typing import Any

from proactive_bench.testing.stub_server import (
    DROP,
    ENDLESS,
    RawReply,
    Reply,
    Responder,
    StubServer,
    error_reply,
    prompt_section,
    prompt_text,
    requested_format,
    silent_user_judgment,
    text_reply,
    tool_call_reply,
)

SMALL_CONTEXT_TOKENS = 4096
UNCAPPED_TOKENS = 6000
"""How long a never-stopping model runs on when the request sets no ``max_tokens``."""
FAULT_EVERY = 3
QUIRKS = (
    "none",
    "reject-format-500",
    "reject-format-400",
    "reject-format-422",
    "ignore-format",
    "tool-calls-as-text",
    "never-stops",
    "small-context",
    "rate-limit",
    "drop-connection",
    "non-json-body",
    "truncated-body",
    "huge-body",
    "endless-body",
    "overload-naming-tools",
)
INTERMITTENT = (
    "rate-limit",
    "drop-connection",
    "non-json-body",
    "truncated-body",
    "huge-body",
    "endless-body",
    "overload-naming-tools",
)
HUGE_BODY_BYTES = 50 * 10**6
SCHEMA_IN_PROMPT = "validate against this JSON Schema"


def plausible_model(body: dict[str, Any]) -> Reply:
    """An answer to any pbench request, in the shape the request asks for.

    The agent looks at the workspace once, then answers; the user finds
    nothing completed and nothing asked (so every intent is volunteered) and
    replies with what it has to convey; the judge passes every item.
    """
    judged = silent_user_judgment(body, structured)
    if judged is not None:
        return judged
    prompt = prompt_text(body)
    if "grading an AI assistant" in prompt:
        return structured(body, {"rationale": "The transcript shows it.", "verdict": "YES"})
    if "role-playing the user" in prompt:
        points = [line.split(": ", 1)[-1] for line in prompt_section(prompt, "What to convey").strip().splitlines()]
        return text_reply("Also: " + " ".join(points))
    if any(m.get("role") == "tool" for m in body.get("messages", [])[-1:]):
        return text_reply("I checked the workspace and did what you asked.")
    names = [tool["function"]["name"] for tool in body.get("tools") or []]
    if "list_dir" in names and requested_format(body) == "tools" and "tool_choice" not in body:
        return tool_call_reply([("list_dir", {})])
    if body.get("response_format") or SCHEMA_IN_PROMPT in prompt or names:
        return structured(body, {"answer": "ok"})
    return text_reply("Hello.")


def structured(body: dict[str, Any], payload: dict[str, Any]) -> Reply:
    """``payload`` as the request asks: a call of its forced tool, JSON text, or JSON in prose when only the prompt asks."""
    if body.get("tools"):
        return tool_call_reply([(_forced_tool(body), payload)])
    if body.get("response_format"):
        return text_reply(json.dumps(payload))
    if SCHEMA_IN_PROMPT in prompt_text(body):
        return text_reply(f"Here is my answer:\n```json\n{json.dumps(payload)}\n```")
    return text_reply("I think the assistant did fine.")


def _forced_tool(body: dict[str, Any]) -> str:
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        return str(choice["function"]["name"])
    return str(body["tools"][0]["function"]["name"])


def with_quirk(
    responder: Responder,
    quirk: str,
    retry_after: str = "1",
    every: int = FAULT_EVERY,
    context_tokens: int = SMALL_CONTEXT_TOKENS,
) -> Responder:
    """``responder`` behind one of :data:`QUIRKS`; intermittent faults hit every ``every``-th request; a small
    context holds ``context_tokens``."""
    if quirk not in QUIRKS:
        raise ValueError(f"unknown quirk {quirk!r}; known: {', '.join(QUIRKS)}")
    count = itertools.count(1)

    def respond(body: dict[str, Any]) -> Reply:
        if quirk.startswith("reject-format-") and body.get("response_format"):
            status = int(quirk.rsplit("-", 1)[1])
            return error_reply(
                status, f"1 validation error: body.response_format: type {body['response_format'].get('type')!r} is not supported"
            )
        if quirk == "ignore-format":
            return responder({k: v for k, v in body.items() if k != "response_format"})
        if quirk == "tool-calls-as-text":
            if body.get("response_format"):
                return error_reply(400, "response_format is not supported by this server")
            return _calls_as_text(responder(body))
        if quirk == "never-stops":
            return _run_on(responder(body), int(body.get("max_tokens") or body.get("max_completion_tokens") or UNCAPPED_TOKENS))
        if quirk == "small-context":
            used = prompt_tokens(body)
            if used > context_tokens:
                return error_reply(
                    400,
                    (
                        f"This model's maximum context length is {context_tokens} tokens. However, your messages resulted in "
                        f"{used} tokens. Please reduce the length of the messages."
                    ),
                )
            return responder(body)
        if quirk in INTERMITTENT and next(count) % every == 0:
            return _fault(quirk, responder(body), retry_after)
        return responder(body)

    return respond


def model_listing(quirk: str) -> dict[str, Any]:
    """What the zoo's server answers to ``GET /v1/models``: the small context where the quirk has one."""
    entry: dict[str, Any] = {"id": "zoo", "object": "model"}
    if quirk == "small-context":
        entry["max_model_len"] = SMALL_CONTEXT_TOKENS
    return {"object": "list", "data": [entry]}


def prompt_tokens(body: dict[str, Any]) -> int:
    """A rough token count of a request (four characters a token), as a small server would count."""
    return (len(json.dumps(body.get("messages", []))) + len(json.dumps(body.get("tools", [])))) // 4


def _fault(quirk: str, reply: Reply, retry_after: str) -> Reply:
    if quirk == "rate-limit":
        return RawReply(429, b'{"error": {"message": "Rate limit reached, please retry later"}}', {"Retry-After": retry_after})
    if quirk == "drop-connection":
        return DROP
    if quirk == "non-json-body":
        return RawReply(200, b"<html><body>502 Bad Gateway</body></html>", {"Content-Type": "text/html"})
    if quirk == "huge-body":
        return huge_body()
    if quirk == "endless-body":
        return ENDLESS
    if quirk == "overload-naming-tools":
        return error_reply(503, "tool server overloaded: function calls are queued, try again")
    body = json.dumps(reply).encode()
    return RawReply(200, body, cut_at=len(body) // 2)  # truncated-body


def huge_body(size: int = HUGE_BODY_BYTES) -> RawReply:
    """A well-formed chat completion of about ``size`` bytes (its text padded)."""
    reply = text_reply("")
    padding = size - len(json.dumps(reply).encode())
    reply["choices"][0]["message"]["content"] = "x" * max(0, padding)
    return RawReply(200, json.dumps(reply).encode())


def _calls_as_text(reply: Reply) -> Reply:
    """Tool calls moved into the content as JSON text, as some chat templates do."""
    if not isinstance(reply, dict):
        return reply
    message = reply["choices"][0]["message"]
    calls = message.pop("tool_calls", None)
    if calls:
        written = [{"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])} for c in calls]
        message["content"] = json.dumps(written[0] if len(written) == 1 else written)
        reply["choices"][0]["finish_reason"] = "stop"
    return reply


def _run_on(reply: Reply, max_tokens: int) -> Reply:
    """A text answer padded with filler up to ``max_tokens`` words, cut there."""
    if not isinstance(reply, dict):
        return reply
    choice = reply["choices"][0]
    content = choice["message"].get("content") or ""
    if choice["message"].get("tool_calls"):
        return reply
    words = len(re.findall(r"\S+", content))
    choice["message"]["content"] = content + " and so on" * max(0, (max_tokens - words) // 3)
    choice["finish_reason"] = "length"
    reply["usage"] = {"prompt_tokens": 11, "completion_tokens": max_tokens, "total_tokens": 11 + max_tokens}
    return reply


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve a plausible model with one real-world quirk on 127.0.0.1.")
    parser.add_argument("quirk", choices=QUIRKS)
    parser.add_argument("--port", type=int, default=0, help="0: any free port")
    parser.add_argument("--retry-after", default="1")
    args = parser.parse_args()
    with StubServer(with_quirk(plausible_model, args.quirk, args.retry_after), port=args.port, models=model_listing(args.quirk)) as server:
        print(server.base_url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
