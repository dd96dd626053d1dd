"""The shipped replay examples (examples/agents/) against the in-process ``scripted:reference``: record the reference
on the pharmacist's first two sessions, play an external agent, and compare figures and tool calls in ``pbench export``."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2

from tests.helpers.cli import run_cli
from tests.helpers.paths import REPO

EXAMPLES = REPO / "examples" / "agents"
PHARMACIST = ["--data", str(REPO / "pbench_data"), "--persona", "pharmacist", "--sessions", "1-2"]
Recording = tuple[Path, list[dict[str, Any]]]
"""An exported run: its JSONL file and its records."""


def exported(db: Path, run_id: str, out: Path) -> list[dict[str, Any]]:
    result = run_cli("export", run_id, "--db", str(db), "--out", str(out))
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in out.read_text().splitlines()]


def agent_side(record: dict[str, Any]) -> list[Any]:
    """What the agent did in a session: per assistant message, its tool calls (name, arguments) and its text."""
    return [
        ([(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in m["tool_calls"]], m["content"])
        for m in record["messages"]
        if m["role"] == "assistant"
    ]


def record_reference(folder: Path) -> Recording:
    """An in-process scripted:reference run of the pharmacist's first two sessions, exported."""
    result = run_cli("episode", "--json", *PHARMACIST, "--agent", "scripted:reference", "--db", str(folder / "r.db"))
    assert result.exit_code == 0, result.output
    records = exported(folder / "r.db", json.loads(result.stdout)["run_id"], folder / "reference.jsonl")
    return folder / "reference.jsonl", records


def assert_replays_reference(tmp_path: Path, model: str, reference: list[dict[str, Any]], *flags: str) -> None:
    """``model`` (with ``flags``) on the same sessions gives the reference's figures (Proc 1.0, Comp 1.0) and tool calls, in order."""
    ran = run_cli("episode", "--json", *PHARMACIST, "--agent", model, "--db", str(tmp_path / "r.db"), *flags)
    assert ran.exit_code == 0, ran.output
    result = json.loads(ran.stdout)
    assert (result["proc"], result["comp"]) == (1.0, 1.0)
    replayed = exported(tmp_path / "r.db", result["run_id"], tmp_path / "replayed.jsonl")
    assert [r["session_id"] for r in replayed] == [r["session_id"] for r in reference]
    for ours, theirs in zip(replayed, reference, strict=True):
        assert (ours["status"], ours["proc"], ours["comp"]) == (theirs["status"], theirs["proc"], theirs["comp"])
        assert agent_side(ours) == agent_side(theirs) and agent_side(ours)[0][0], ours["session_id"]  # the same calls, in order


def median_round_trip_ms(client: httpx2.Client, method: str, url: str, body: dict[str, Any] | None = None, times: int = 21) -> float:
    """The median of ``times`` requests on one kept-alive connection, in milliseconds (after one to connect). A server
    whose socket lacks ``TCP_NODELAY`` sends a response's body only once the client acknowledges its headers, which
    Linux delays 40 ms: each round trip then takes 40 ms or more, against about 1 ms on loopback."""
    client.request(method, url, json=body).raise_for_status()
    took = []
    for _ in range(times):
        started = time.perf_counter()
        client.request(method, url, json=body).raise_for_status()
        took.append(1000 * (time.perf_counter() - started))
    return statistics.median(took)


@contextmanager
def example_service(script: str, recording: Path) -> Iterator[str]:
    """``examples/agents/SCRIPT RECORDING --port 0`` (a service: http_reference.py, a2a_reference.py) on a free loopback
    port; the URL it prints once it listens."""
    process = subprocess.Popen([sys.executable, str(EXAMPLES / script), str(recording), "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip()
    finally:
        process.terminate()
        process.wait(timeout=10)
