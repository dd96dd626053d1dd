"""Throughput of the session loop: seconds per session and per turn, rules vs LLM user.

Runs the shipped pharmacist episode with scripted baselines and the rules user,
then the mini test dataset with the LLM user against a local stub model server
(real HTTP), and prints figures. Ratios are measured within this one run, since
absolute times vary between machines.

    python scripts/bench_session_loop.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from proactive_bench.cli import app
from proactive_bench.testing.stub_server import (
    StubServer,
    silent_user_judgment,
    text_reply,
)

REPO = Path(__file__).resolve().parent.parent
MINI = REPO / "tests" / "data" / "mini"


def run(args: list[str]) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    result = CliRunner().invoke(app, ["episode", "--json", *args])
    elapsed = time.perf_counter() - started
    if result.exit_code != 0:
        sys.exit(f"episode failed: {result.output}")
    return elapsed, json.loads(result.stdout)


def user_model(body: dict[str, Any]) -> Any:
    """A stub that completes nothing, targets nothing and replies with a fixed sentence."""
    return silent_user_judgment(body) or text_reply("Please also do that.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    rows = []
    with tempfile.TemporaryDirectory() as tmp, StubServer(user_model) as server:
        cases = {
            "pharmacist reference, rules user": ["--persona", "pharmacist", "--model", "scripted:reference"],
            "pharmacist passive, rules user": ["--persona", "pharmacist", "--model", "scripted:passive"],
            "mini passive, rules user": ["--data", str(MINI), "--persona", "mini", "--model", "scripted:passive"],
            "mini passive, llm user (stub HTTP)": [
                "--data",
                str(MINI),
                "--persona",
                "mini",
                "--model",
                "scripted:passive",
                "--user",
                "llm",
                "--user-model",
                "openai:stub",
                "--base-url",
                server.base_url,
            ],
        }
        for name, args in cases.items():
            times, turns, sessions = [], 0, 0
            for n in range(repeat):
                elapsed, out = run([*args, "--db", str(Path(tmp) / f"{n}-{len(rows)}.db")])
                times.append(elapsed)
                turns = sum(s["turns"] for s in out["sessions"])
                sessions = len(out["sessions"])
            median = statistics.median(times)
            rows.append((name, sessions, turns, median, median / sessions, median / max(turns, 1)))
    print(f"{'case':40} {'sessions':>8} {'turns':>6} {'episode s':>10} {'s/session':>10} {'ms/turn':>8}")
    for name, sessions, turns, median, per_session, per_turn in rows:
        print(f"{name:40} {sessions:8d} {turns:6d} {median:10.3f} {per_session:10.3f} {1000 * per_turn:8.1f}")
    rules_turn, llm_turn = rows[2][5], rows[3][5]
    print(f"\nLLM-user overhead per turn vs rules user (same episode, stub server): x{llm_turn / rules_turn:.1f}")


if __name__ == "__main__":
    main()
