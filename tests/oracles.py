"""Test agents that read the reference solution, run as ``--model NAME``: registered and granted it here, as pbench's
catalog grants its scripted baselines (an agent loaded from a file is refused if it claims it). Imported once, by conftest.

Ray workers are other processes that no grant made here reaches: tests/killable_agent.py reads its sessions from the
test data instead.
"""

from __future__ import annotations

from typing import Any

import crashing_agent
import mcp_reference_agent
import trainee_agents

from proactive_bench.scaffolds import SCAFFOLDS, grant_reference

TEST_ORACLES: dict[str, Any] = {
    "test:crashing-reference": crashing_agent.CrashingReference,
    "test:mcp-reference": mcp_reference_agent.McpReference,
    "test:guess-then-ask": trainee_agents.GuessThenAsk,
    "test:touch-then-guess": trainee_agents.TouchThenGuess,
}

for _name, _factory in TEST_ORACLES.items():
    SCAFFOLDS.add(_name, _factory)
    grant_reference(_name)
