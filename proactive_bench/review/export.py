"""``pbench export``: stored sessions as chat-format records for other tools (one JSON object per line).

A record holds one session run: who ran it (run, sweep, model, persona,
ablation), how it ended, its scores, the conversation as OpenAI-style chat
messages (the opening request and the user's replies as ``user``, the agent's
tool calls as an ``assistant`` message with ``tool_calls`` followed by one
``tool`` message per result, the agent's reply as ``assistant``), the intent
labels and the checklist grades. Tool arguments and results are JSON strings,
so every record has the same shape and loads as one table (e.g. with the
``datasets`` library's ``json`` builder).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from proactive_bench.episode import run_spec, stored_session_result
from proactive_bench.store import ReadQueries, RunLike, SessionRunLike, StoredIntentEvent, StoredMessage, StoredToolCall

ROLES = {"user": "user", "event": "user", "agent": "assistant"}
"""Stored message roles -> chat roles (an event trigger is the user's side of the conversation)."""


def session_records(store: ReadQueries, runs: Sequence[RunLike]) -> Iterator[dict[str, Any]]:
    """One record per stored session run of each run, in run and session order."""
    for run in runs:
        spec = run_spec(run)
        for session_run in store.session_runs(run.id):
            yield _record(store, run, spec.ablation, session_run)


def _record(store: ReadQueries, run: RunLike, ablation: str, session_run: SessionRunLike) -> dict[str, Any]:
    assert session_run.id is not None
    result = stored_session_result(store, session_run)
    events: list[StoredIntentEvent] = store.rows(StoredIntentEvent, session_run.id)
    return {
        "run_id": run.id,
        "sweep_id": run.sweep_id,
        "model": run.model,
        "persona": run.persona,
        "ablation": ablation,
        "session_id": session_run.session_id,
        "position": session_run.position,
        "status": session_run.status,
        "error": session_run.error,
        "proc": result.proc,
        "comp": result.scored_comp,
        "messages": chat_messages(store.rows(StoredMessage, session_run.id), store.rows(StoredToolCall, session_run.id)),
        "intents": [
            {"intent_id": e.intent_id, "status": e.status, "stage": e.stage, "turn": e.turn, "evidence": e.evidence} for e in events
        ],
        "grades": [
            {
                "item_id": g.item_id,
                "grader": g.grader,
                "weight": g.weight,
                "score": g.score,
                "status": g.status,
                "rationale": g.rationale,
                "error": g.error,
            }
            for g in result.grades
        ],
    }


def chat_messages(messages: list[StoredMessage], calls: list[StoredToolCall]) -> list[dict[str, Any]]:
    """A session's turns as chat messages: each agent turn's tool calls and their results come before its reply."""
    by_turn: dict[int, list[StoredToolCall]] = {}
    for call in sorted(calls, key=lambda c: (c.turn, c.seq)):
        by_turn.setdefault(call.turn, []).append(call)
    chat: list[dict[str, Any]] = []
    for message in sorted(messages, key=lambda m: (m.turn, m.role != "agent")):
        if message.role == "agent" and (turn_calls := by_turn.pop(message.turn, [])):
            ids = [f"call_{message.turn}_{c.seq}" for c in turn_calls]
            chat.append(
                _message(
                    "assistant",
                    None,
                    [
                        {
                            "id": i,
                            "type": "function",
                            "function": {"name": c.tool_name, "arguments": json.dumps(c.call, ensure_ascii=False, default=str)},
                        }
                        for i, c in zip(ids, turn_calls, strict=True)
                    ],
                )
            )
            chat.extend(
                _message("tool", json.dumps(c.result, ensure_ascii=False, default=str), tool_call_id=i, name=c.tool_name)
                for i, c in zip(ids, turn_calls, strict=True)
            )
        chat.append(_message(ROLES.get(message.role, message.role), message.content))
    return chat


def _message(
    role: str, content: str | None, tool_calls: list[dict[str, Any]] | None = None, tool_call_id: str | None = None, name: str | None = None
) -> dict[str, Any]:
    """A chat message with every field present (null where unused), so records share one schema."""
    return {"role": role, "content": content, "tool_calls": tool_calls or [], "tool_call_id": tool_call_id, "name": name}


def write_jsonl(records: Iterator[dict[str, Any]]) -> Iterator[str]:
    """Records as JSON lines."""
    for record in records:
        yield json.dumps(record, ensure_ascii=False, default=str) + "\n"
