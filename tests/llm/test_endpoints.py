"""Failing fast on a model server that is not there: one line, no rows (loopback only)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from sqlmodel import Session, select

from proactive_bench.llm.endpoints import EndpointError, check_reachable
from proactive_bench.llm.model_specs import is_openai_model
from proactive_bench.store import Run, Store, Sweep
from proactive_bench.testing.stub_server import StubServer, text_reply
from tests.helpers.cli import run_cli
from tests.helpers.paths import DATA


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rows(db: Path) -> tuple[int, int]:
    with Session(Store(db).engine) as s:
        return len(list(s.exec(select(Run)))), len(list(s.exec(select(Sweep))))


@pytest.mark.usefixtures("admitted_pharmacist")  # the subject is the dead server, not the data's checks
@pytest.mark.parametrize("command", ["episode", "sweep"])
def test_an_unreachable_endpoint_is_one_line_and_no_rows(command: str, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    db = tmp_path / "r.db"
    common = [
        "--data",
        str(DATA),
        "--user",
        "llm",
        "--user-model",
        "openai:u",
        "--judge-model",
        "openai:j",
        "--base-url",
        url,
        "--db",
        str(db),
    ]
    args = (
        ["episode", "--persona", "pharmacist", "--model", "scripted:reference"]
        if command == "episode"
        else ["sweep", "--personas", "pharmacist", "--models", "scripted:reference"]
    )
    result = run_cli(*args, *common)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and f"cannot reach the model server at {url} (used by: user, judge): connection refused" in lines[0]
    assert rows(db) == (0, 0)


def test_a_server_that_accepts_but_never_answers_is_reported_within_the_timeout() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        with pytest.raises(EndpointError, match=r"used by: agent\): no answer"):
            check_reachable({url: ["agent"]}, timeout=0.2)


def test_any_http_answer_counts_as_reachable() -> None:
    with StubServer(lambda body: text_reply("ok")) as server:  # answers GET /models with 405
        check_reachable({server.base_url: ["judge"]})


def test_which_models_use_an_openai_compatible_server() -> None:
    assert [
        is_openai_model(m) for m in ("openai:x", "openai/x", "gpt-4o", "scripted:reference", "my.mod:factory", "anthropic:claude", None)
    ] == [
        True,
        True,
        True,
        False,
        False,
        False,
        False,
    ]
