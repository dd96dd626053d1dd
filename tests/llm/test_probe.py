"""``pbench probe`` against each kind of zoo server (real HTTP on loopback)."""

from __future__ import annotations

import json
import socket

import pytest

from proactive_bench.testing.stub_server import StubServer, text_reply
from proactive_bench.testing.stub_zoo import model_listing, plausible_model, with_quirk
from tests.helpers.cli import run_cli

EXPECTED = {  # the zoo's text-only model never names the red square: vision "ignored" (tests/suites/agentif/test_agentif_judge.py has one that does)
    "none": ("supported", "supported", "supported", "supported", "supported", "ignored", "ignored"),
    "reject-format-500": ("supported", "rejected 500", "supported", "rejected 500", "supported", "ignored", "ignored"),
    "reject-format-422": ("supported", "rejected 422", "supported", "rejected 422", "supported", "ignored", "ignored"),
    "ignore-format": ("supported", "ignored", "supported", "ignored", "supported", "ignored", "ignored"),
    "tool-calls-as-text": ("supported", "rejected 400", "as text", "rejected 400", "as text", "ignored", "ignored"),
}


@pytest.mark.parametrize("quirk", list(EXPECTED))
def test_the_probe_tells_what_each_server_does(quirk: str) -> None:
    with StubServer(with_quirk(plausible_model, quirk), models=model_listing(quirk)) as server:
        result = run_cli("probe", "--model", "openai/zoo", "--base-url", server.base_url, "--json")
        table = run_cli("probe", "--model", "openai:zoo", "--base-url", server.base_url)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    found = tuple(c["outcome"] + (f" {c['status']}" if c["outcome"] == "rejected" else "") for c in report["capabilities"])
    assert [c["name"] for c in report["capabilities"]] == [
        "plain chat",
        "json_schema",
        "function_calling",
        "json_mode",
        "tool use",
        "max_completion_tokens",
        "vision",
    ]
    assert found == EXPECTED[quirk]
    assert table.exit_code == 0 and "function_calling" in table.stdout and "structured calls start with" in table.stdout


def test_the_probe_reads_the_context_size_the_server_reports() -> None:
    with StubServer(with_quirk(plausible_model, "small-context"), models=model_listing("small-context")) as server:
        report = json.loads(run_cli("probe", "--model", "openai:zoo", "--base-url", server.base_url, "--json").stdout)
    assert report["max_context"] == 4096


def test_probing_a_dead_server_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("proactive_bench.llm.transport.FIRST_BACKOFF_S", 0.001)  # the retries still happen, without the waits
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = run_cli("probe", "--model", "openai:zoo", "--base-url", f"http://127.0.0.1:{port}/v1")
    assert result.exit_code == 2 and "no answer from" in result.output and "Traceback" not in result.output


def test_answers_nested_too_deep_are_not_json_not_a_failed_probe() -> None:
    with StubServer(lambda body: text_reply('{"answer": ' + "[" * 100_000)) as server:
        result = run_cli("probe", "--model", "openai:zoo", "--base-url", server.base_url, "--json")
    assert result.exit_code == 0, result.output
    outcomes = {c["name"]: (c["outcome"], c["detail"][:9]) for c in json.loads(result.stdout)["capabilities"]}
    assert outcomes["json_schema"] == outcomes["json_mode"] == ("ignored", "not JSON:")
