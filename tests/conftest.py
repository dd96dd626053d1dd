"""Shared fixtures: the mini dataset and a helper to run the CLI in-process."""

from __future__ import annotations

import json
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import oracles  # noqa: F401  (registers the test oracles and grants them the reference solution)
import pytest
import yaml
from typer.testing import CliRunner

from proactive_bench.cli import app
from proactive_bench.postgres_server import LocalPostgres, missing

MINI = Path(__file__).parent / "data" / "mini"
REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "pbench_data"  # the shipped dataset root
EXAMPLE = REPO / "examples" / "lab_orders"


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


def edit_yaml(path: Path, change: Any) -> None:
    """Load a YAML file, let ``change`` modify the data in place, write it back."""
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def run_cli(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    return result


def run_episode_json(*args: str) -> dict[str, Any]:
    result = run_cli("episode", "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


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
