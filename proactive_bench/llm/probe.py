"""What an OpenAI-compatible server can do, found with one short call per capability.

``pbench probe --model openai:NAME --base-url URL`` prints the table; a run
probes each (base URL, model) it calls once, before its first decision,
stores the report (the store's table ``probe``) for later runs, and starts its
structured calls with the methods the server supports (the fallbacks of
:mod:`~proactive_bench.llm.structured` still apply). ``--no-probe`` skips it.

The ``vision`` capability asks for the colour of a small red square sent as an
image part: a model that names it reads images (the rubric judge then sees
rendered deliverables), anything else means it does not.

Each capability comes out as ``supported``, ``as text`` (a tool call written
as JSON in the content: read tolerantly), ``ignored`` (HTTP 200 but the
feature had no effect), ``rejected`` (an HTTP error about the request, its
status kept) or ``failed`` (no answer the probe could judge: connection
error, timeout, garbled body, rate limit or overload). Structured calls start
with every method neither rejected nor ignored.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import struct
import time
import zlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any, Literal
from weakref import WeakKeyDictionary

from proactive_bench.json_text import parse_json
from proactive_bench.llm.faults import Fault, classify
from proactive_bench.llm.model_specs import ModelSpecError, model_name
from proactive_bench.llm.structured import METHODS
from proactive_bench.llm.transport import CHAT_PATH, DEFAULT_BASE_URL, ChatTransport
from proactive_bench.store import Store

Outcome = Literal["supported", "as text", "ignored", "rejected", "failed"]
PROBE_TIMEOUT_S = 30.0
PROBE_MAX_TOKENS = 64
ANSWER_SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"], "additionalProperties": False}
QUESTION = "What is the capital of France? One word."
TOOL = {"type": "function", "function": {"name": "record_answer", "description": "Record the answer.", "parameters": ANSWER_SCHEMA}}
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The current weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
CONTEXT_KEYS = ("max_model_len", "context_length", "context_window", "max_context_length", "n_ctx", "n_ctx_train")
"""Where servers report a model's context in ``GET /models`` (vLLM, LM Studio/OpenRouter, others, llama.cpp's ``meta``)."""
VISION = "vision"
VISION_QUESTION = "What colour is this square? Answer with one word."


def _solid_png(rgb: tuple[int, int, int], side: int = 16) -> bytes:
    """A small PNG of one colour, made without an imaging library (the vision probe's picture)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes(rgb) * side for _ in range(side))
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


RED_SQUARE = "data:image/png;base64," + base64.b64encode(_solid_png((220, 20, 20))).decode("ascii")
CAP_PROBE_TOKENS = 4
COMPLETION_CAP = "max_completion_tokens"
"""The capability: a long answer asked for under ``max_completion_tokens`` alone comes back cut at it."""
STRUCTURED_CAPABILITY = {"json_schema": "json_schema", "function_calling": "function_calling", "json_mode": "json_mode"}


@dataclass(frozen=True)
class Capability:
    name: str
    outcome: Outcome
    latency_ms: float
    status: int | None = None
    detail: str = ""


@dataclass
class ProbeReport:
    base_url: str
    model: str
    capabilities: list[Capability] = field(default_factory=list)
    max_context: int | None = None

    def outcome(self, name: str) -> Outcome | None:
        return next((c.outcome for c in self.capabilities if c.name == name), None)

    @property
    def vision(self) -> bool:
        """Whether the model answered a question about a picture correctly (``vision`` supported)."""
        return self.outcome(VISION) == "supported"

    @property
    def reachable(self) -> bool:
        return any(c.outcome != "failed" for c in self.capabilities)

    def structured_methods(self) -> list[str]:
        """The structured-output methods to start with: those the server supports, in the usual order, then the prompt.
        All of them when even a plain chat call did not work (the probe tells nothing then)."""
        if self.outcome("plain chat") != "supported":
            return list(METHODS)
        left_out = ("rejected", "ignored")  # a method that failed to answer at all stays: the probe could not tell
        return [m for m in METHODS if m == "prompt" or self.outcome(STRUCTURED_CAPABILITY[m]) not in left_out]

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ProbeReport:
        data = json.loads(text)
        return cls(data["base_url"], data["model"], [Capability(**c) for c in data["capabilities"]], data.get("max_context"))


async def probe(transport: ChatTransport, base_url: str, model: str, api_key: str, timeout: float = PROBE_TIMEOUT_S) -> ProbeReport:
    """One short call per capability of ``model`` (its name on the server, no provider prefix), concurrently,
    and the context size if ``GET /models`` reports it."""
    url = f"{base_url.rstrip('/')}{CHAT_PATH}"
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {api_key}"}
    ask = [{"role": "user", "content": QUESTION}]
    calls: dict[str, tuple[dict[str, Any], Callable[[dict[str, Any]], tuple[Outcome, str]]]] = {
        "plain chat": ({"messages": [{"role": "user", "content": "Reply with the single word: ready"}]}, _plain),
        "json_schema": (
            {
                "messages": ask,
                "response_format": {"type": "json_schema", "json_schema": {"name": "probe", "strict": True, "schema": ANSWER_SCHEMA}},
            },
            _json_answer,
        ),
        "function_calling": (
            {"messages": ask, "tools": [TOOL], "tool_choice": {"type": "function", "function": {"name": "record_answer"}}},
            _forced_call,
        ),
        "json_mode": (
            {
                "messages": [{"role": "user", "content": f'{QUESTION} Answer as a JSON object {{"answer": "..."}}.'}],
                "response_format": {"type": "json_object"},
            },
            _json_answer,
        ),
        "tool use": (
            {"messages": [{"role": "user", "content": "What is the weather in Paris right now? Use your tool."}], "tools": [WEATHER_TOOL]},
            _tool_use,
        ),
        COMPLETION_CAP: (
            {"messages": [{"role": "user", "content": "Count from 1 to 100, the numbers separated by spaces."}]},
            _honours_cap,
        ),
        VISION: (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": VISION_QUESTION},
                            {"type": "image_url", "image_url": {"url": RED_SQUARE}},
                        ],
                    }
                ]
            },
            _sees_red,
        ),
    }

    async def one(name: str, extra: dict[str, Any], judge: Any) -> Capability:
        cap = {COMPLETION_CAP: CAP_PROBE_TOKENS} if name == COMPLETION_CAP else {"max_tokens": PROBE_MAX_TOKENS}
        payload = {"model": model, **cap, "temperature": 0, **extra}
        started = time.perf_counter()
        try:
            answer = await transport.complete(url, headers, payload, timeout, max_retries=2)
        except Exception as exc:  # every failure is a finding
            latency = (time.perf_counter() - started) * 1000
            status = getattr(exc, "status_code", None)
            detail = str(getattr(exc, "message", exc)).removeprefix(f"Error code: {status} - ")[:120]
            rejected = classify(exc) in (Fault.REJECTED, Fault.CLIENT_ERROR, Fault.AUTH, Fault.CONTEXT_LENGTH)
            return Capability(name, "rejected" if rejected else "failed", latency, status, detail)
        latency = (time.perf_counter() - started) * 1000
        outcome, detail = judge(answer)
        return Capability(name, outcome, latency, 200, detail)

    found, max_context = await asyncio.gather(
        asyncio.gather(*(one(name, extra, judge) for name, (extra, judge) in calls.items())),
        _max_context(transport, base_url, model, headers),
    )
    return ProbeReport(base_url, model, list(found), max_context)


def _message(answer: dict[str, Any]) -> dict[str, Any]:
    choices = answer.get("choices") or [{}]
    return choices[0].get("message") or {}


def _plain(answer: dict[str, Any]) -> tuple[Outcome, str]:
    text = str(_message(answer).get("content") or "").strip()
    return ("supported", text[:60]) if text else ("ignored", "empty answer")


def _sees_red(answer: dict[str, Any]) -> tuple[Outcome, str]:
    """A model that reads the picture names its colour; one that drops the image part answers something else."""
    text = str(_message(answer).get("content") or "").strip()
    if not text:
        return "ignored", "empty answer"
    return ("supported", text[:60]) if "red" in text.lower() else ("ignored", f"did not see the picture: {text[:60]!r}")


def _honours_cap(answer: dict[str, Any]) -> tuple[Outcome, str]:
    """Cut at the cap (finish reason ``length``, or no more tokens than it) when the server reads the field."""
    choices = answer.get("choices") or [{}]
    used = (answer.get("usage") or {}).get("completion_tokens")
    if choices[0].get("finish_reason") == "length" or (isinstance(used, int) and used <= CAP_PROBE_TOKENS):
        return "supported", f"cut at {used if isinstance(used, int) else '?'} tokens"
    return "ignored", f"ran on to {used} tokens (finish reason {choices[0].get('finish_reason')!r})"


def _json_answer(answer: dict[str, Any]) -> tuple[Outcome, str]:
    text = str(_message(answer).get("content") or "").strip()
    try:
        data = parse_json(text)
    except ValueError:
        return "ignored", f"not JSON: {text[:60]!r}"
    return ("supported", text[:60]) if isinstance(data, dict) and "answer" in data else ("ignored", f"other JSON: {text[:60]}")


def _forced_call(answer: dict[str, Any]) -> tuple[Outcome, str]:
    return _called(answer, "record_answer")


def _tool_use(answer: dict[str, Any]) -> tuple[Outcome, str]:
    return _called(answer, "get_weather")


def _called(answer: dict[str, Any], tool: str) -> tuple[Outcome, str]:
    message = _message(answer)
    calls = message.get("tool_calls") or []
    if calls and calls[0].get("function", {}).get("name") == tool:
        return "supported", str(calls[0]["function"].get("arguments", ""))[:60]
    text = str(message.get("content") or "").strip()
    if f'"{tool}"' in text:
        return "as text", text[:60]
    return "ignored", f"answered in prose: {text[:60]!r}"


async def _max_context(transport: ChatTransport, base_url: str, model: str, headers: dict[str, str]) -> int | None:
    listing = await transport.get_json(f"{base_url.rstrip('/')}/models", headers, timeout=5.0)
    entries = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(entries, list):
        return None
    entry = next((e for e in entries if isinstance(e, dict) and e.get("id") == model), entries[0] if len(entries) == 1 else None)
    if not isinstance(entry, dict):
        return None
    for source in (entry, entry.get("meta") or {}):
        for key in CONTEXT_KEYS:
            if isinstance(source.get(key), int):
                return int(source[key])
    return None


def stored_probe(store: Store, base_url: str, model: str) -> ProbeReport | None:
    """The latest stored probe of ``model`` on ``base_url``."""
    report = store.probe_report(base_url, model)
    return ProbeReport.from_json(report) if report is not None else None


def store_probe(store: Store, report: ProbeReport) -> None:
    store.add_probe_report(report.base_url, report.model, report.to_json())


def _keep_first(store: Store, base_url: str, model: str, report: ProbeReport) -> None:
    """Store a reachable server's report of ``model`` on ``base_url`` unless one was stored meanwhile (by another run)."""
    if stored_probe(store, base_url, model) is None and report.reachable:
        store_probe(store, report)


_in_flight: WeakKeyDictionary[ChatTransport, dict[tuple[str, str], asyncio.Task[ProbeReport]]] = WeakKeyDictionary()
_found: WeakKeyDictionary[ChatTransport, dict[tuple[Any, str, str], ProbeReport]] = WeakKeyDictionary()
"""Per transport, the stored reports its runs have read, by database (its location), base URL and model."""


async def known_capabilities(store: Store, transport: ChatTransport, base_url: str, model: str, api_key: str) -> ProbeReport:
    """The stored probe of ``model`` on ``base_url``, else a new one (stored); runs sharing a transport probe once, and
    read a stored report once (a sweep's runs of one process start with the report the first of them read).
    The store is read and written on its writing thread: on a database server, a round trip would stall the event loop."""
    found = _found.setdefault(transport, {})
    where = (store.location, base_url, model)
    stored = found.get(where) or await store.writer.run(partial(stored_probe, store, base_url, model))
    if stored is not None:
        found[where] = stored
        learn_cap_field(transport, stored)
        return stored
    probing = _in_flight.setdefault(transport, {})
    key = (base_url, model)
    if key not in probing:
        probing[key] = asyncio.ensure_future(probe(transport, base_url, model, api_key))
    report = await asyncio.shield(probing[key])
    await store.writer.run(partial(_keep_first, store, base_url, model, report))
    learn_cap_field(transport, report)
    return report


def learn_cap_field(transport: ChatTransport, report: ProbeReport) -> None:
    """Send the server ``max_completion_tokens`` alone when the probe saw it honoured, ``max_tokens`` alone when not
    (a probe from before this capability leaves the transport's default)."""
    outcome = report.outcome(COMPLETION_CAP)
    if outcome in ("supported", "rejected", "ignored"):
        transport.cap_fields[report.base_url.rstrip("/")] = "max_completion_tokens" if outcome == "supported" else "max_tokens"


async def probe_model(spec: str, base_url: str | None, api_key: str | None = None) -> ProbeReport:
    """Probe an ``openai:NAME`` model (the ``probe`` command) over a transport of its own."""
    provider, name = model_name(spec)
    if provider != "openai":
        raise ModelSpecError(f"probe: {spec!r} is not an OpenAI-compatible model (openai:NAME)")
    key = api_key or os.environ.get("OPENAI_API_KEY") or "not-needed"
    async with ChatTransport() as transport:
        return await probe(transport, base_url or DEFAULT_BASE_URL, name, key)


def probe_table(report: ProbeReport) -> Any:
    """The report as a rich table."""
    from rich.table import Table

    context = f"max context: {report.max_context} tokens" if report.max_context else "max context: not reported"
    table = Table(
        title=f"{report.model} at {report.base_url}",
        caption=f"{context}; structured calls start with: {', '.join(report.structured_methods())}",
    )
    for column in ("capability", "result", "status", "latency ms", "detail"):
        table.add_column(column, no_wrap=column != "detail")
    for c in report.capabilities:
        table.add_row(c.name, c.outcome, str(c.status or "—"), f"{c.latency_ms:.0f}", c.detail)
    return table


async def probe_reports(store: Store, transport: ChatTransport, models: dict[str, tuple[str, str, str | None]]) -> dict[str, ProbeReport]:
    """``{role: its model's probe}`` for ``{role: (model spec, base URL, API key or None)}``, stored ones reused, new ones stored."""
    default_key = os.environ.get("OPENAI_API_KEY") or "not-needed"
    reports = await asyncio.gather(
        *(known_capabilities(store, transport, url, model_name(spec)[1], key or default_key) for spec, url, key in models.values())
    )
    return dict(zip(models, reports, strict=True))
