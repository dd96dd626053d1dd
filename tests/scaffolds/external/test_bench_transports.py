"""scripts/bench_transports.py runs end to end at tiny sizes and prints every figure it promises: a tool call per
path (in process and over MCP) and wall over model-waiting time for each transport, all of whose sessions completed."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys

import pytest

from tests.helpers.paths import REPO

TRANSPORTS = [
    "in process (scripted:reference)",
    "cmd: (a process per session)",
    "cmd: --agent-lifetime episode",
    "http:",
    "a2a:",
    "LangGraph graph",
]


def test_the_transport_benchmark_runs_at_tiny_sizes() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [
        sys.executable,
        str(REPO / "scripts" / "bench_transports.py"),
        "--calls",
        "10",
        "--sessions",
        "1",
        "--rounds",
        "1",
        "--delay",
        "0.05",
    ]
    ran = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO, timeout=600)
    assert ran.returncode == 0, ran.stderr[-3000:]
    out = ran.stdout
    for path in ("in process (ToolBox.acall)", "http, client in another process", "stdio (pbench mcp)"):
        assert re.search(rf"{re.escape(path)}\s+\d+\.\d+\s+\d+\.\d+", out), out
    assert re.search(r"a world's start: \d+\.\d ms, its stop: \d+\.\d ms", out), out
    for transport in TRANSPORTS:
        ratio = re.search(rf"^\s+{re.escape(transport)}.*?\s(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d{{3}})\s+-?\d+\s+-?\d+$", out, re.MULTILINE)
        assert ratio, f"{transport}: {out}"
        wall, waiting, over = map(float, ratio.groups())
        # the ratio of the two: wall and waiting are printed to the hundredth, so their quotient can be off by that rounding
        rounding = over * (0.005 / wall + 0.005 / waiting) + 0.0005 if waiting > 0 else 0
        assert waiting > 0 and abs(over - wall / waiting) <= rounding, out


def test_the_mcp_client_is_given_a_token_that_starts_with_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    """A world's token is ``secrets.token_urlsafe``: 1 in 64 start with "-", which argparse would take for an option."""
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    bench_mcp, client = importlib.import_module("bench_mcp"), importlib.import_module("bench_mcp_client")
    options = client.arguments(bench_mcp.client_arguments("http://127.0.0.1:1/mcp", "-Tok_en", 7))
    assert (options.url, options.token, options.calls) == ("http://127.0.0.1:1/mcp", "-Tok_en", 7)
