"""Test agents that read the reference solution, run as ``--model NAME``: registered and granted it here, as pbench's
catalog grants its scripted baselines (an agent loaded from a file is refused if it claims it). Imported once, by conftest.

Ray workers are other processes that no grant made here reaches: tests/helpers/killable_agent.py reads its sessions from the
test data instead.
"""

from __future__ import annotations

from typing import Any

from proactive_bench.scaffolds import SCAFFOLDS, grant_reference
from tests.helpers import crashing_agent, mcp_reference_agent, trainee_agents

TEST_ORACLES: dict[str, Any] = {
    "test:crashing-reference": crashing_agent.CrashingReference,
    "test:mcp-reference": mcp_reference_agent.McpReference,
    "test:guess-then-ask": trainee_agents.GuessThenAsk,
    "test:touch-then-guess": trainee_agents.TouchThenGuess,
}

for _name, _factory in TEST_ORACLES.items():
    SCAFFOLDS.add(_name, _factory)
    grant_reference(_name)
