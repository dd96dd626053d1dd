"""Where the tests' inputs live, so a test module's depth in ``tests/`` does not matter."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
REPO = TESTS.parent
HELPERS = TESTS / "helpers"  # the test agents, given to the CLI as ``HELPERS / "x_agent.py"``:Class
TEST_DATA = TESTS / "data"  # small datasets and fixtures made for the tests
MINI = TEST_DATA / "mini"  # the mini dataset most runs use
ODYSSEY_MINI = TEST_DATA / "odyssey_mini"
AGENTIF_MINI = TEST_DATA / "agentif_mini"
PIBENCH_MINI = TEST_DATA / "pibench_mini"
LEGACY_DBS = TEST_DATA / "legacy"  # results databases written by earlier versions
DATA = REPO / "pbench_data"  # the shipped dataset root
EXAMPLE = REPO / "examples" / "lab_orders"
