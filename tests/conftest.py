"""Fixtures every test folder shares: an own cache folder, copies of the mini and example datasets, PostgreSQL.

Shared helpers that are not fixtures (running the CLI, paths, test agents) are in ``tests/helpers/``."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from proactive_bench.env import scratch
from proactive_bench.logs import configure_logging_on_import
from proactive_bench.postgres_server import LocalPostgres, missing
from tests.helpers import oracles  # noqa: F401  (registers the test oracles and grants them the reference solution)
from tests.helpers.paths import DATA, EXAMPLE, MINI

# The many ``pbench`` child processes the tests start read pbench's bytecode as an installed package does,
# instead of compiling its sources again each time (about 0.6 s of CPU a start) where the environment says
# PYTHONDONTWRITEBYTECODE; the first child writes the ``__pycache__`` files (git ignores them).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# The tests' temporary files (pytest's tmp_path, tempfile, the children they start: TMPDIR) go to a folder in memory
# (`env.scratch_directory`'s /dev/shm) unless TMPDIR names a place: on a disk mounted with `discard` (ext4 here) removing
# a folder waits about 2 ms for the disk and each SQLite commit for its flush, which the suite does tens of thousands of
# times. The run that makes the folder removes it at its end (its workers and children inherit TMPDIR and leave the
# folder alone); one left by a killed run is removed by the next.


def _scratch_in_memory() -> Path | None:
    """Make a memory folder this run's TMPDIR when none is set and the machine has one; the folder when made here."""
    if os.environ.get("TMPDIR"):
        return None
    base = scratch.memory_temp()
    if base is None or shutil.disk_usage(base).free < 2 * 1024**3:
        return None
    for stale in Path(base).glob("pbt*"):  # left by a run that was killed: its process is gone
        if stale.name[3:].isdigit() and not Path(f"/proc/{stale.name[3:]}").exists():
            shutil.rmtree(stale, ignore_errors=True)
    folder = Path(base) / f"pbt{os.getpid()}"  # short: the Unix sockets some tests make in tmp_path stay under 108 bytes
    folder.mkdir()
    folder.chmod(0o755)  # whatever the umask: the local PostgreSQL server (as root: the postgres user) makes its folder in here
    os.environ["TMPDIR"] = str(folder)
    tempfile.tempdir = None  # gettempdir reads TMPDIR again
    return folder


_SCRATCH = _scratch_in_memory()


def pytest_unconfigure(config: pytest.Config) -> None:
    if _SCRATCH is not None and not hasattr(config, "workerinput"):
        shutil.rmtree(_SCRATCH, ignore_errors=True)


# Logs as the CLI sets them up (warnings and errors, on stderr) for the tests that call pbench's functions directly, not
# only after some test ran a command in the process: structlog's own default renders every debug line (a line per tool
# call) to stdout, 5% of a scripted episode's CPU.
configure_logging_on_import()

# A test run started in the background by a non-interactive shell (`cmd &`, nohup) inherits SIGINT ignored, and so
# would every child a test starts: the Ctrl-C tests would then hang or see a clean exit. A handler set here becomes
# the default again in each child (exec keeps only ignored signals ignored), whatever launched pytest.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (addopts): a worker per core (xdist's count) for a run of folders, the whole suite; none, all in this
    process, for a run of named files or tests, where starting workers (each imports pbench and collects) costs more
    than it saves. ``-n 2`` or PYTEST_XDIST_AUTO_NUM_WORKERS still sets the count."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") is None and all(Path(arg.split("::")[0]).is_file() for arg in config.args):
        return 0
    return None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that share a module- or class-scoped fixture (one value of it, when it has parameters) get one
    ``xdist_group``: under ``--dist loadgroup`` they run on one worker, which builds the fixture once.

    Session-scoped fixtures are built once per worker whatever the grouping; a test marked with its own
    ``xdist_group`` keeps it. xdist tells the group by a suffix of the test's id (``...::test@group``), which
    pytest-xdist 3.8 can no longer write on pytest 9.2 (its structured ids: pytest-xdist issue 1386), so it
    is written here, after xdist's own hook, where it is missing.

    xdist hands out groups of several tests first (the largest first), then single tests in collection order; tests
    marked ``heavy`` (tens of seconds each) are moved to the front of that order, so that a run does not end with
    one worker playing a long test while the other has nothing left."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None and isinstance(item, pytest.Function):
            defs = item._fixtureinfo.name2fixturedefs
            shared = [name for name in item.fixturenames if name in defs and defs[name][-1].scope in ("module", "class")]
            if shared:
                indices = getattr(item, "callspec", None)
                values = sorted(f"{name}={indices.indices[name]}" for name in shared if indices is not None and name in indices.indices)
                module_wide = all(defs[name][-1].scope == "module" for name in shared)
                scope = item.nodeid.split("::")[0] if module_wide else item.nodeid.rsplit("::", 1)[0]
                item.add_marker(pytest.mark.xdist_group(":".join([scope, *values])))
        if config.getoption("loadgroup", False):
            _suffix_group(item)
    if hasattr(config, "workerinput"):  # a worker's collection: the order xdist hands out single tests in
        items.sort(key=lambda item: item.get_closest_marker("heavy") is None)


def _suffix_group(item: pytest.Item) -> None:
    """``item``'s id ends with ``@`` and its groups' names, as xdist's loadgroup scheduler reads them."""
    names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")})
    suffix = "@" + "_".join(names)
    if not names or item.nodeid.endswith(suffix):
        return
    if hasattr(item, "_id"):  # pytest >= 9.2
        item._id = type(item._id).parse(item.nodeid + suffix)
    else:
        item._nodeid = item.nodeid + suffix


@pytest.fixture(autouse=True)
def own_cache_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test its own empty user cache (``pbench validate`` keeps reports there), so no test reads another's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="session")
def _shipped_validation_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shared-cache")


@pytest.fixture
def shipped_validation_cache(_shipped_validation_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """One user cache for the tests that validate the shipped data unchanged, instead of their own: its report (the
    same for each, keyed by every file's content and pbench's code) is made by the first of them in a worker, not by
    each. Mark such a test ``xdist_group("shipped-validation")`` so they share a worker."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(_shipped_validation_cache))
    return _shipped_validation_cache


@pytest.fixture
def admitted_pharmacist(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The shipped pharmacist episode already admitted where runs on ``tmp_path/<db>`` look (its checks run once per
    test run: replaying its references costs more than a one-session run), for tests whose subject is not the data."""
    from tests.helpers.admitted import admit_unchanged  # loads the dataset and validation code only for the tests using it

    admit_unchanged(tmp_path, DATA, ["pharmacist"], tmp_path_factory)


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
