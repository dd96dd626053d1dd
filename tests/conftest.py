"""Fixtures every test folder shares: an own cache folder, copies of the mini and example datasets, PostgreSQL.

Shared helpers that are not fixtures (running the CLI, paths, test agents) are in ``tests/helpers/``."""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from proactive_bench.postgres_server import LocalPostgres, missing
from tests.helpers import oracles  # noqa: F401  (registers the test oracles and grants them the reference solution)
from tests.helpers.paths import EXAMPLE, MINI


@pytest.fixture(autouse=True)
def own_cache_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test its own empty user cache (``pbench validate`` keeps reports there), so no test reads another's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def mini_copy(tmp_path: Path) -> Path:
    """A writable copy of the mini dataset."""
    target = tmp_path / "mini"
    shutil.copytree(MINI, target)
    return target


@pytest.fixture
def example_copy(tmp_path: Path) -> Path:
    """A writable copy of the worked example dataset (examples/lab_orders)."""
    shutil.copytree(EXAMPLE, tmp_path / "lab")
    return tmp_path / "lab"


@pytest.fixture(scope="session")
def local_postgres() -> Iterator[LocalPostgres]:
    """A throwaway PostgreSQL server for the whole test session (fsync off); skipped, with the reason, without the binaries.

    Its folder is under the system temporary folder, not pytest's (as root the
    server runs as ``postgres``, which cannot enter ``/tmp/pytest-of-root``).
    """
    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    with tempfile.TemporaryDirectory(prefix="pbench-pg-") as folder:
        server = LocalPostgres(Path(folder), durable=False)
        server.start(database=None)
        try:
            yield server
        finally:
            server.stop(immediate=True)


@pytest.fixture
def postgres_url(local_postgres: LocalPostgres) -> str:
    """The URL of a new, empty PostgreSQL database for one test."""
    return local_postgres.create_database(f"t{uuid.uuid4().hex[:12]}")
