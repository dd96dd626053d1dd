"""``pbench export`` records, and what an agent did in them: the replay examples' tests compare runs with these."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers.cli import run_cli


def exported(db: Path, run_id: str, out: Path) -> list[dict[str, Any]]:
    """``pbench export RUN_ID`` into ``out``, which must succeed; its records."""
    result = run_cli("export", run_id, "--db", str(db), "--out", str(out))
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in out.read_text().splitlines()]


def agent_side(record: dict[str, Any]) -> list[Any]:
    """What the agent did in a session: per assistant message, its tool calls (name, arguments) and its text."""
    return [
        ([(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in m["tool_calls"]], m["content"])
        for m in record["messages"] if m["role"] == "assistant"
    ]
