"""A sweep whose model server goes away: that server's runs pause, the rest go on, resume finishes them (loopback only)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proactive_bench.store import Run, Store
from proactive_bench.testing.stub_server import DROP, Reply, StubServer, text_reply
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI


class Flaky:
    """Answers until ``down`` is set, then closes every connection unanswered."""

    def __init__(self) -> None:
        self.down = False

    def __call__(self, body: dict[str, Any]) -> Reply:
        return DROP if self.down else text_reply("Done.")


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("proactive_bench.llm.transport.FIRST_BACKOFF_S", 0.001)


def test_a_dead_server_pauses_its_runs_and_resume_continues_them(tmp_path: Path) -> None:
    """The server is there for the start-up check, then drops every connection; the scripted run needs no server."""
    db, server = tmp_path / "s.db", Flaky()
    server.down = True
    with StubServer(server) as stub:
        first = run_cli(
            "sweep",
            "--json",
            "--data",
            str(MINI),
            "--personas",
            "mini",
            "--models",
            "openai:agent,scripted:reference",
            "--base-url",
            stub.base_url,
            "--db",
            str(db),
        )
        assert "Traceback" not in first.output
        store = Store(db)
        statuses = {r.model: r.status for r in _runs(db)}
        assert statuses == {"openai:agent": "stopped", "scripted:reference": "finished"}
        react = next(r for r in _runs(db) if r.model == "openai:agent")
        assert store.session_runs(react.id) == []  # the sessions the dead server broke were not kept as errors
        server.down = False
        sweep_id = react.sweep_id
        assert sweep_id is not None
        resumed = run_cli("resume", sweep_id, "--db", str(db), "--json")
    assert resumed.exit_code == 0, resumed.output
    assert {r.model: r.status for r in _runs(db)} == {"openai:agent": "finished", "scripted:reference": "finished"}
    assert [s.status for s in store.session_runs(react.id)] == ["completed"] * 3


def _runs(db: Path) -> list[Run]:
    from sqlmodel import Session, select

    with Session(Store(db).engine) as s:
        return list(s.exec(select(Run)))
