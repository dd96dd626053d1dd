"""The pytest plugin (entry point ``pytest11``: ``pbench``): the ``pbench`` marker, the ``pbench_episode`` fixture,
the ``--pbench-db`` and ``--pbench-refresh`` options. docs/pytest.md shows them.

A test marked ``@pytest.mark.pbench(persona=..., agent=..., min_proc=..., min_comp=...)`` runs that episode once
(before the test's body), fails when the run misses a threshold, and gets the run's result as ``pbench_episode``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from proactive_bench.pytest_plugin.gate import Gate, GateError
from proactive_bench.pytest_plugin.verdict import failure_text, shortfalls

if TYPE_CHECKING:
    from collections.abc import Generator

    from proactive_bench.scoring import EpisodeResult

DEFAULT_DB = Path(".pbench") / "pytest.db"
"""The plugin's results database, under pytest's rootdir unless ``--pbench-db`` or the ``pbench_db`` ini key says otherwise."""
MARKER = (
    "pbench(persona=None, *, sessions=None, agent=None, model=None, user='rules', min_proc=None, min_comp=None, ...): "
    "run this pbench episode before the test (as `pbench episode` would, the agent and model named as on its command line), "
    "fail the test when Proc or Comp is below the threshold; the run's result is the pbench_episode fixture (docs/pytest.md)"
)


@dataclass
class Tally:
    """The session's pbench runs and their model answers, for the summary line."""

    runs: int = 0
    made: int = 0
    served: int = 0
    failed: list[str] = field(default_factory=list)


TALLY = pytest.StashKey[Tally]()
RESULT = pytest.StashKey[tuple[Gate, "EpisodeResult"]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pbench", "pbench: proactivity thresholds for agents (docs/pytest.md)")
    group.addoption(
        "--pbench-db",
        metavar="PATH",
        default=None,
        help=f"SQLite results database of the marked tests' runs and their recorded model answers (default: rootdir/{DEFAULT_DB.as_posix()}).",
    )
    group.addoption(
        "--pbench-refresh",
        action="store_true",
        default=False,
        help="Call the models again instead of serving the answers the tests' previous runs recorded; the new answers are kept.",
    )
    parser.addini("pbench_db", "The --pbench-db default, relative to the rootdir.", default=None)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)
    config.stash[TALLY] = Tally()


def plugin_db(config: pytest.Config) -> Path:
    """Where the marked tests' runs are kept: ``--pbench-db`` (from the working directory), the ini key or the default (from the rootdir)."""
    given = config.getoption("pbench_db")
    if given:
        return Path(given).resolve()
    return (config.rootpath / (config.getini("pbench_db") or DEFAULT_DB)).resolve()


@pytest.fixture
def pbench_episode(request: pytest.FixtureRequest) -> EpisodeResult:
    """The scored run of the test's ``pbench`` marker (``EpisodeResult``: ``proc``, ``comp``, ``sessions``, ``run_id``)."""
    node = request.node
    if RESULT in node.stash:
        return node.stash[RESULT][1]
    marker = node.get_closest_marker("pbench")
    if marker is None:
        pytest.fail("pbench_episode: mark the test with @pytest.mark.pbench(persona=..., agent=..., ...) (docs/pytest.md)", pytrace=False)
    import proactive_bench.pytest_plugin.episodes as episodes  # pbench itself loads only when a marked test runs

    try:
        gate = Gate.from_marker(marker.args, marker.kwargs, episodes.extra_settings())
    except GateError as exc:
        pytest.fail(f"{node.nodeid}: {exc}", pytrace=False)
    config = request.config
    try:
        result, calls = episodes.run_gate(gate, node.nodeid, plugin_db(config), config.getoption("pbench_refresh"))
    except episodes.RUN_FAILURES as exc:
        pytest.fail(f"pbench: {gate.describe()}: {exc}", pytrace=False)
    tally = config.stash[TALLY]
    tally.runs += 1
    tally.made += calls.made
    tally.served += calls.served
    node.stash[RESULT] = (gate, result)
    return result


@pytest.fixture(autouse=True)
def _pbench_marked(request: pytest.FixtureRequest) -> None:
    """Run the episode of a marked test even when the test does not ask for ``pbench_episode``."""
    if request.node.get_closest_marker("pbench") is not None:
        request.getfixturevalue("pbench_episode")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """A marked test whose run misses a threshold fails before its own body runs."""
    if RESULT in item.stash:
        gate, result = item.stash[RESULT]
        missed = shortfalls(gate, result)
        if missed:
            item.config.stash[TALLY].failed.append(result.run_id)
            pytest.fail(failure_text(gate, result, missed, _shown(plugin_db(item.config))), pytrace=False)
    return (yield)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    tally = config.stash.get(TALLY, None)
    if tally is None or not tally.runs:
        return
    terminalreporter.write_line(
        f"pbench: {tally.runs} episode(s) in {_shown(plugin_db(config))}: {tally.made} answer(s) from the models, "
        f"{tally.served} served from the record" + (" (--pbench-refresh)" if config.getoption("pbench_refresh") else "")
    )


def _shown(db: Path) -> str:
    """The database's path as a user types it: relative to the working directory when under it."""
    try:
        return str(db.relative_to(Path.cwd()))
    except ValueError:
        return str(db)
