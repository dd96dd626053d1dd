"""PostgreSQL connections pinged before use only after sitting idle (:data:`~proactive_bench.store.engine.PING_IDLE_S`)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text

from proactive_bench.store import Store, engine as store_engine


def pings(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The connections the store's dialect pings from now on (each ping still goes to the server)."""
    pinged: list[Any] = []
    real = store.engine.dialect.do_ping

    def counted(dbapi_connection: Any) -> bool:
        pinged.append(dbapi_connection)
        return real(dbapi_connection)

    monkeypatch.setattr(store.engine.dialect, "do_ping", counted)
    return pinged


def test_a_connection_used_recently_is_not_pinged_and_an_idle_one_is(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(postgres_url)
    pinged = pings(store, monkeypatch)
    for _ in range(3):
        assert store.run("missing") is None
    assert pinged == []
    monkeypatch.setattr(store_engine, "PING_IDLE_S", -1.0)  # every pooled connection counts as idle
    assert store.run("missing") is None
    assert len(pinged) == 1


def test_connections_the_server_dropped_while_idle_are_replaced_before_use(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(postgres_url)
    with store.engine.connect() as db:
        first = db.execute(text("select pg_backend_pid()")).scalar_one()
    with Store(postgres_url).engine.connect() as other:  # the server ends the pooled connection, as a restart would
        assert other.execute(text("select pg_terminate_backend(:pid)"), {"pid": first}).scalar_one()
    monkeypatch.setattr(store_engine, "PING_IDLE_S", -1.0)
    pinged = pings(store, monkeypatch)
    with store.engine.connect() as db:
        assert db.execute(text("select pg_backend_pid()")).scalar_one() != first
    assert len(pinged) == 1
    assert store.run("missing") is None
