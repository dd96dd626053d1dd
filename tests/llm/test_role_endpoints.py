"""Per-role endpoints and keys: the agent on one server, user and judge on another, keys from named variables (loopback only)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proactive_bench.testing.stub_server import StubServer
from proactive_bench.testing.stub_zoo import plausible_model
from tests.helpers.cli import run_cli
from tests.helpers.paths import DATA


@pytest.mark.usefixtures("admitted_pharmacist")  # the subject is the servers and keys, not the data's checks
def test_each_role_goes_to_its_server_with_its_key_from_dotenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ZOO_AGENT_KEY", raising=False)
    monkeypatch.delenv("ZOO_JUDGE_KEY", raising=False)
    (tmp_path / ".env").write_text("ZOO_AGENT_KEY=agent-secret-1\nZOO_JUDGE_KEY=judge-secret-2\n")
    db = tmp_path / "r.db"
    with StubServer(plausible_model) as agent_server, StubServer(plausible_model) as judging:
        result = run_cli(
            "episode",
            "--json",
            "--data",
            str(DATA),
            "--persona",
            "pharmacist",
            "--sessions",
            "1",
            "--db",
            str(db),
            "--model",
            "openai/zoo-agent",
            "--user",
            "llm",
            "--user-model",
            "openai:zoo-user",
            "--judge-model",
            "openai:zoo-judge",
            "--agent-base-url",
            agent_server.base_url,
            "--base-url",
            judging.base_url,
            "--agent-key-env",
            "ZOO_AGENT_KEY",
            "--judge-key-env",
            "ZOO_JUDGE_KEY",
        )
        assert result.exit_code == 0, result.output
        assert {b["model"] for b in agent_server.requests} == {"zoo-agent"}
        assert {b["model"] for b in judging.requests} == {"zoo-user", "zoo-judge"}
        assert set(agent_server.authorizations) == {"Bearer agent-secret-1"}
        keys = {b["model"]: a for b, a in zip(judging.requests, judging.authorizations, strict=True)}
    assert keys["zoo-judge"] == "Bearer judge-secret-2" and keys["zoo-user"] != keys["zoo-judge"]
    assert all(s["status"] == "completed" for s in json.loads(result.stdout)["sessions"])
    stored = db.read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("r.db*"))
    assert b"agent-secret-1" not in stored and b"judge-secret-2" not in stored and b"ZOO_JUDGE_KEY" in stored  # the name, never the key


def test_a_key_variable_that_is_not_set_is_one_line_before_any_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    result = run_cli(
        "episode",
        "--data",
        str(DATA),
        "--persona",
        "pharmacist",
        "--db",
        str(tmp_path / "r.db"),
        "--model",
        "scripted:reference",
        "--user",
        "llm",
        "--user-model",
        "openai:u",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--user-key-env",
        "NO_SUCH_KEY_VAR",
    )
    assert result.exit_code == 2 and "the user's API key is read from $NO_SUCH_KEY_VAR, which is not set" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_an_unknown_provider_is_one_line_naming_the_known_ones(tmp_path: Path) -> None:
    with StubServer(plausible_model) as server:
        result = run_cli(
            "episode",
            "--data",
            str(DATA),
            "--persona",
            "pharmacist",
            "--sessions",
            "1",
            "--db",
            str(tmp_path / "r.db"),
            "--model",
            "scripted:reference",
            "--user",
            "llm",
            "--user-model",
            "mistery:big",
            "--base-url",
            server.base_url,
        )
    assert result.exit_code == 2 and "unknown model provider 'mistery' in 'mistery:big'; known: openai" in result.output
    assert "Traceback" not in result.output
