"""``pbench`` starts with only what the command needs: ``--help`` imports no command, ``runs`` no other command.

The commands are imported lazily (``cli/lazy.py``); ``--help`` lists them from
their help text read from the source, which must stay what typer shows once the
command is loaded. Subpackages load their public names on first use
(``exports.py``), so ``episode`` loads no Ray executor, and ``validate`` answers
from its cache (``validation/digests.py``) without loading the checks, until
the data or pbench change.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import proactive_bench.validation as validation
from proactive_bench.cli import PbenchCommands
from proactive_bench.env import catalog
from proactive_bench.store.engine import locate, make_engine
from proactive_bench.store.migration import HEAD, migrate, revision_of
from proactive_bench.testing import StubServer, error_reply
from proactive_bench.validation import digests
from tests.helpers.cli import loaded_run, modules_loaded, run_cli, run_python
from tests.helpers.paths import MINI, REPO

HEAVY = (
    "langchain",
    "langchain_core",
    "langchain_openai",
    "langgraph",
    "ray",
    "proactive_bench.suites",
    "proactive_bench.campaign.ray_executor",
    "proactive_bench.episode.runner",
    "mcp",
    "a2a",
    "openai",
    "opentelemetry",
)
"""What a read-only command has no use for: model clients, the agent loop, Ray, the MCP and A2A SDKs, the suites, OpenTelemetry."""
REGISTRY = ("proactive_bench.suites", "proactive_bench.suites.base")
"""The suites' protocol and registry, which name a stored run's suite and its settings models: no suite loads with them."""


def heavy_in(loaded: set[str]) -> list[str]:
    return sorted(m for m in loaded - set(REGISTRY) for heavy in HEAVY if m == heavy or m.startswith(heavy + "."))


def test_the_help_listing_shows_each_command_s_own_help() -> None:
    group = PbenchCommands(name="pbench")
    for source in PbenchCommands.SOURCES:
        listed = source.help()
        assert listed, f"{source.name}: no help text in {source.module}"
        assert group.commands[source.name].help == listed, source.name
    assert list(group.commands) == [source.name for source in PbenchCommands.SOURCES]


def test_a_command_of_the_lazy_table_is_a_cli_module_and_exists() -> None:
    for source in PbenchCommands.SOURCES:
        assert source.module.startswith("proactive_bench.cli."), f"{source.name}: commands live in cli/, not {source.module}"
    with pytest.raises(LookupError, match="defines no nothing"):
        type(PbenchCommands.SOURCES[0])("x", "proactive_bench.cli.runs", "nothing").help()


def test_help_imports_no_command_module() -> None:
    loaded = modules_loaded("--help")
    commands = {source.module for source in PbenchCommands.SOURCES}
    assert not loaded & commands, sorted(loaded & commands)
    assert not {m for m in loaded if m.split(".")[0] in ("sqlalchemy", "langchain_core", "openai")}


def test_listing_runs_imports_no_other_command_and_no_report_figures(tmp_path: Path) -> None:
    db = tmp_path / "pbench.db"
    recorded = run_cli("episode", "--data", str(MINI), "--persona", "mini", "--model", "scripted:asker", "--db", str(db))
    assert recorded.exit_code in (0, 1), recorded.output
    loaded = modules_loaded("runs", "--db", str(db))
    assert "proactive_bench.cli.runs" in loaded
    unneeded = ("proactive_bench.reporting.html", "proactive_bench.cli.run", "proactive_bench.cli.sweep", "proactive_bench.cli.episodes")
    assert not {m for m in loaded for other in unneeded if m == other or m.startswith(other + ".")}


@pytest.fixture(scope="module")
def recorded_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results database holding one scripted run of the mini episode, in a sweep."""
    db = tmp_path_factory.mktemp("db") / "pbench.db"
    done = run_cli("sweep", "--data", str(MINI), "--models", "scripted:asker", "--db", str(db))
    assert done.exit_code in (0, 1), done.output
    return db


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("--help",), id="help"),
        pytest.param(("runs",), id="runs"),
        pytest.param(("sweeps",), id="sweeps"),
        pytest.param(("results", "latest"), id="results"),
    ],
)
def test_a_read_only_command_imports_no_model_client_agent_loop_ray_or_suite(args: tuple[str, ...], recorded_db: Path) -> None:
    at = ("--db", str(recorded_db)) if args != ("--help",) else ()
    assert heavy_in(modules_loaded(*args, *at)) == []


def test_serving_a_session_over_mcp_loads_no_agent_loop_nor_model_client(tmp_path: Path) -> None:
    """``pbench mcp`` serves one session's tools (``episode.session_world``): the MCP SDK (and the OpenTelemetry API it
    imports) and no runner, LangGraph, model client or Ray, which cost it 1.7 s of CPU a start when it loaded them."""
    args = ("mcp", "--transport", "stdio", "--persona", "mini", "--data", str(MINI), "--session", "a1", "--workspace", str(tmp_path / "ws"))
    loaded = modules_loaded(*args)  # stdin closed: the session is served, then ends
    assert "proactive_bench.episode.session_world" in loaded and "mcp.server" in loaded
    assert [m for m in heavy_in(loaded) if m.split(".")[0] not in ("mcp", "opentelemetry")] == []


ORM = ("sqlalchemy", "sqlmodel", "alembic", "proactive_bench.store.tables", "proactive_bench.store.database", "structlog")
"""The results store's ORM and migrations, and structlog: a command that only reads a SQLite database at this pbench's
revision loads none (nothing logs on its path; structlog would be set up if something imported it, ``logs.py``)."""


def orm_in(loaded: set[str]) -> list[str]:
    return sorted(m for m in loaded for orm in ORM if m == orm or m.startswith(orm + "."))


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("runs",), id="runs"),
        pytest.param(("runs", "--json", "--persona", "mini", "--since", "1d"), id="runs-filtered"),
        pytest.param(("sweeps",), id="sweeps"),
        pytest.param(("results", "latest"), id="results"),
        pytest.param(("results", "latest", "--json"), id="results-json"),
    ],
)
def test_a_read_only_command_on_sqlite_reads_without_the_orm(args: tuple[str, ...], recorded_db: Path) -> None:
    """``runs``, ``sweeps`` and ``results`` read a SQLite file at the head revision with the standard library's sqlite3
    (``store/reader.py``): SQLAlchemy, SQLModel, Alembic and structlog stay unloaded."""
    loaded = modules_loaded(*args, "--db", str(recorded_db))
    assert "proactive_bench.store.reader" in loaded  # it did read the database
    assert orm_in(loaded) == []


LOGS = """
import sys
from proactive_bench.logs import configure_logging_on_import
configure_logging_on_import(verbose={verbose})
print("loaded before:", "structlog" in sys.modules)
import structlog
log = structlog.get_logger("t")
log.info("an info line")
log.warning("a warning line", key=1)
print("loader kept:", structlog.__spec__.loader is structlog.__loader__ and type(structlog.__loader__).__module__ != "proactive_bench.after_import")
"""


@pytest.mark.parametrize("verbose", [False, True])
def test_logging_set_up_on_import_applies_when_structlog_first_loads(verbose: bool) -> None:
    """``pbench runs`` leaves structlog unloaded; whatever imports it later logs as configure_logging says (stderr,
    warnings only unless verbose), not with structlog's defaults (every level, on stdout)."""
    done = subprocess.run([sys.executable, "-c", LOGS.format(verbose=verbose)], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "loaded before: False" in done.stdout and "loader kept: True" in done.stdout
    assert "a warning line" in done.stderr and "key=1" in done.stderr and "warning line" not in done.stdout
    assert ("an info line" in done.stderr) is verbose and "an info line" not in done.stdout


LAZY_LOGS = """
import sys
from proactive_bench.logs import configure_logging_on_import, get_logger
{set_up}
log = get_logger("t")
log.debug("a debug line")
log.info("an info line", key=1)
print("loaded after info:", "structlog" in sys.modules)
log.warning("a warning line", key=2)
print("loaded after warning:", "structlog" in sys.modules)
log.info("a later info line")
"""


@pytest.mark.parametrize("verbose", [False, True])
def test_a_logger_loads_structlog_for_a_message_at_the_level_set_up(verbose: bool) -> None:
    """pbench's loggers (``logs.get_logger``) leave structlog unloaded for what the level set up on import drops: a run
    that logs nothing at its level loads no structlog; a message at the level loads it and is written as configured."""
    code = LAZY_LOGS.format(set_up=f"configure_logging_on_import(verbose={verbose})")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    assert f"loaded after info: {verbose}" in done.stdout and "loaded after warning: True" in done.stdout
    assert "a warning line" in done.stderr and "key=2" in done.stderr and "debug line" not in done.stderr + done.stdout
    assert ("an info line" in done.stderr) is verbose and ("key=1" in done.stderr) is verbose
    assert ("a later info line" in done.stderr) is verbose and "info line" not in done.stdout


def test_logging_set_up_on_import_twice_applies_the_latest_level_with_one_hook() -> None:
    """Set up again before structlog loads (an in-process CLI runner, a service calling the commands), the latest level
    applies, and one import hook waits for structlog, not one per call."""
    code = LAZY_LOGS.format(
        set_up="import sys\nconfigure_logging_on_import(verbose=False)\nhooks = len(sys.meta_path)\n"
        "configure_logging_on_import(verbose=True)\nassert len(sys.meta_path) == hooks, sys.meta_path"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "an info line" in done.stderr and "a debug line" not in done.stderr


def test_a_logger_without_a_set_up_logs_as_structlog_s_own() -> None:
    """Without pbench's set-up (a library caller), a pbench logger is structlog's: its first message loads structlog,
    whose default writes every level."""
    done = subprocess.run([sys.executable, "-c", LAZY_LOGS.format(set_up="")], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "loaded after info: True" in done.stdout
    assert all(line in done.stdout for line in ("a debug line", "an info line", "a warning line", "a later info line"))


def test_a_read_only_command_on_an_older_database_migrates_it_as_before(tmp_path: Path) -> None:
    """A database at an earlier revision is not read as it is: ``runs`` opens it as the store does (SQLAlchemy loads),
    which migrates it to the head revision, and lists its runs."""
    db = tmp_path / "old.db"
    engine = make_engine(locate(db))
    migrate(engine, str(db), to="0008")
    engine.dispose()
    loaded = modules_loaded("runs", "--db", str(db))
    assert "sqlalchemy" in loaded and "proactive_bench.store.database" in loaded
    engine = make_engine(locate(db))
    assert revision_of(engine) == HEAD
    engine.dispose()


@pytest.mark.parametrize("command", ["episode", "sweep"])
def test_a_run_command_s_help_loads_no_trace_exporter(command: str) -> None:
    """Tracing is off by default: pbench's OpenTelemetry module and the OTLP exporter stay unloaded. (LangChain's langsmith
    imports the OpenTelemetry SDK itself when it is installed, so the SDK's core may be there.)"""
    loaded = modules_loaded(command, "--help")
    assert f"proactive_bench.cli.{'run' if command == 'episode' else 'sweep'}" in loaded
    assert not {
        m
        for m in loaded
        if m == "proactive_bench.episode.otel" or m.startswith(("opentelemetry.exporter", "opentelemetry.sdk.trace.export"))
    }


RUN_STACK = (
    "proactive_bench.cli.run_exec",
    "proactive_bench.cli.sweep_exec",
    "proactive_bench.cli.guards",
    "proactive_bench.campaign.sweep",
    "proactive_bench.dataset.loading",
    "proactive_bench.store.engine",
    "proactive_bench.episode.launch",
    "proactive_bench.episode.runner",
    "sqlalchemy",
    "langgraph",
)
"""What a run command's work loads (its checks, the sweep and dataset code, the results store and its ORM, the runner)
and its ``--help`` has no use for: the options come from ``options.py``, ``common.py`` and the suites' settings models."""


@pytest.mark.parametrize("command", ["episode", "resume", "replay", "sweep"])
def test_a_run_command_s_help_loads_none_of_the_run_stack(command: str) -> None:
    """``pbench episode --help`` (and resume's, replay's, sweep's) builds the command from its options alone (``run.py``,
    ``sweep.py``); the run's work (``run_exec.py``, ``sweep_exec.py``) loads when it runs (0.65 s of CPU a --help when it did)."""
    loaded = modules_loaded(command, "--help")
    assert f"proactive_bench.cli.{'sweep' if command == 'sweep' else 'run'}" in loaded  # it did build the command
    assert sorted(m for m in loaded for other in RUN_STACK if m == other or m.startswith(other + ".")) == []


@pytest.mark.parametrize(
    ("command", "unneeded"),
    [
        ("view", ("proactive_bench.reporting.view", "starlette", "uvicorn", "sqlalchemy")),
        (
            "mcp",
            (
                "proactive_bench.mcp_world.http_server",
                "proactive_bench.mcp_world.stdio",
                "proactive_bench.episode.launch",
                "mcp",
                "starlette",
                "uvicorn",
                "sqlalchemy",
            ),
        ),
    ],
)
def test_a_server_command_s_help_loads_neither_its_server_nor_the_store(command: str, unneeded: tuple[str, ...]) -> None:
    """``pbench view --help`` and ``pbench mcp --help`` build the command from its options; the web app, the session's
    world and the MCP SDK load when it runs (1,137 and 999 modules a --help when they did, 440 each now)."""
    loaded = modules_loaded(command, "--help")
    assert f"proactive_bench.cli.{'view' if command == 'view' else 'mcp_serve'}" in loaded  # it did build the command
    assert sorted(m for m in loaded for other in unneeded if m == other or m.startswith(other + ".")) == []


@pytest.mark.parametrize(
    ("command", "module", "unneeded"),
    [
        (
            ("generate", "agentif"),
            "generate",
            (
                "proactive_bench.cli.generate_exec",
                "proactive_bench.suites.agentif.task",
                "proactive_bench.llm.structured",
                "langchain_core",
                "sqlalchemy",
            ),
        ),
        (
            ("generate", "odyssey"),
            "generate",
            ("proactive_bench.cli.generate_exec", "proactive_bench.suites.odyssey.generation", "langchain_core"),
        ),
        (
            ("audit", "model"),
            "audit",
            (
                "proactive_bench.cli.audit_exec",
                "proactive_bench.review",
                "proactive_bench.reporting.tables",
                "langchain_core",
                "sqlalchemy",
            ),
        ),
        (("play",), "play", ("proactive_bench.cli.play_exec", *RUN_STACK, "proactive_bench.user")),
    ],
)
def test_generate_audit_and_play_help_load_none_of_their_work(command: tuple[str, ...], module: str, unneeded: tuple[str, ...]) -> None:
    """``pbench generate``'s, ``audit``'s and ``play``'s ``--help`` build the command from its options; the models, the
    suites' generation code, the review code, the store and the runner load when one runs (1,159, 973 and 847 modules a
    --help when they did; 441, 435 and 480 now)."""
    loaded = modules_loaded(*command, "--help")
    assert f"proactive_bench.cli.{module}" in loaded  # it did build the command
    assert sorted(m for m in loaded for other in unneeded if m == other or m.startswith(other + ".")) == []


EPISODE_UNNEEDED = (
    "ray",
    "proactive_bench.campaign.ray_executor",
    "proactive_bench.campaign.dataset_archives",
    "proactive_bench.campaign.workers",
    "fpdf",
    "matplotlib",
    "a2a",
    "grpc",
    "mcp",
    "proactive_bench.scaffolds.external.a2a_agent",
    "proactive_bench.scaffolds.external.http_agent",
    "proactive_bench.scaffolds.external.command_agent",
    "pycel",
    "networkx",
    "openpyxl",
    "docx",
    "proactive_bench.env.docx_tools",
    "proactive_bench.env.xlsx_tools",
    "proactive_bench.env.pdf_tools",
    "proactive_bench.suites.odyssey.suite",
    "proactive_bench.suites.odyssey.generation",
    "proactive_bench.suites.odyssey.checkers",
    "proactive_bench.suites.agentif",
    "proactive_bench.suites.trainee.suite",
    "proactive_bench.suites.trainee.templates",
    "icalendar",
)
"""What ``episode`` of the react agent has no use for before its first model request: the sweep machinery, the PDF
writer and figures, the external agents' transports and SDKs (A2A, gRPC, MCP), the formula evaluator of odyssey's checkers,
the office tools a persona session does not offer (their modules load by tool name), the other suites (their options
come from their settings models alone), and the calendar's ICS parser (the app's tables load with a run's first app use;
the parser with the first .ics file read or written)."""


AGENT = ("openai", "langchain_core", "langchain_openai", "langgraph", "proactive_bench.scaffolds.react")
"""The agent under test and its model client: built only once the model servers answered."""
DEAD = "http://127.0.0.1:9/v1"
"""A model server that is not there: nothing listens on port 9."""


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("episode", "--persona", "pharmacist", "--model", "openai:x"), id="episode"),
        pytest.param(("sweep", "--data", str(MINI), "--models", "openai:x,openai:y"), id="sweep"),
    ],
)
def test_a_dead_endpoint_fails_before_loading_an_agent_or_runner(args: tuple[str, ...], tmp_path: Path) -> None:
    """A model server that is not there (nothing listens on port 9) is the first check that needs one: it fails before the
    agent, its model client (openai, LangChain) or the runner (LangGraph) is imported."""
    done, loaded = loaded_run(*args, "--base-url", DEAD, "--db", str(tmp_path / "p.db"))
    assert done.returncode == 2 and f"cannot reach the model server at {DEAD}" in done.stderr, done.stderr
    assert "proactive_bench.dataset.loading" in loaded  # it did load the episodes
    unneeded = (*EPISODE_UNNEEDED, *AGENT, "proactive_bench.episode.runner", "proactive_bench.episode.launch")
    assert not {m for m in loaded for other in unneeded if m == other or m.startswith(other + ".")}


def test_episode_loads_no_ray_executor_nor_dataset_archives(tmp_path: Path) -> None:
    """Up to its first model request (here refused with a 401), ``episode`` loads no sweep machinery, PDF writer, external
    agent transport nor formula evaluator."""
    with StubServer(lambda _body: error_reply(401, "no such key")) as server:
        args = ("episode", "--data", str(MINI), "--persona", "mini", "--sessions", "a1", "--model", "openai:agent")
        loaded = modules_loaded(*args, "--base-url", server.base_url, "--db", str(tmp_path / "p.db"), code=1)
        assert server.requests, "no model request was made"
    assert "proactive_bench.episode.runner" in loaded  # it did get as far as a run
    assert "langchain_openai" in loaded and "proactive_bench.scaffolds.react" in loaded  # the agent was built
    assert not {m for m in loaded for other in EPISODE_UNNEEDED if m == other or m.startswith(other + ".")}


MODEL_CLIENT = (
    "openai",
    "langchain_openai",
    "langchain_core.language_models.chat_models",
    "aiohttp",
    "proactive_bench.llm.http_chat",
    "proactive_bench.scaffolds.react",
    "json_repair",
)
"""The model clients (the SDK, LangChain's OpenAI integration and chat-model machinery, the transport's HTTP client, the
repair of a model's broken JSON) and the agent that uses them: a run whose agent, user and judge call no model loads none (the transport it opens loads its HTTP
client on first request; the modules that only name a chat model in annotations import it for type checking only)."""


def unneeded_by_scripted_runs(loaded: set[str], needed: tuple[str, ...] = ()) -> list[str]:
    """What of :data:`EPISODE_UNNEEDED` and :data:`MODEL_CLIENT`, but ``needed``, is in ``loaded``."""
    unneeded = [m for m in (*EPISODE_UNNEEDED, *MODEL_CLIENT) if m not in needed]
    return sorted(m for m in loaded for other in unneeded if m == other or m.startswith(other + "."))


OWN_SCRIPTED_AGENT = f"{REPO / 'tests' / 'helpers' / 'killable_agent.py'}:MiniReference"
"""A scripted agent of the user's own file (``file.py:attr``): building it loads the LangGraph adapter, not the react agent."""


@pytest.mark.parametrize("model", ["scripted:reference", "scripted:asker", pytest.param(OWN_SCRIPTED_AGENT, id="own-file")])
def test_a_scripted_episode_loads_no_model_client_ray_or_other_suite(model: str, tmp_path: Path) -> None:
    """A scripted agent (a baseline or the user's own) with the rules user and no judge model runs its episode to the end
    without the model clients (~1 s of CPU a start, which every kill, resume and docs test's child paid)."""
    done, loaded = loaded_run("episode", "--data", str(MINI), "--persona", "mini", "--model", model, "--db", str(tmp_path / "p.db"))
    assert done.returncode in (0, 1), done.stderr
    assert "proactive_bench.episode.runner" in loaded and "proactive_bench.llm.transport" in loaded  # it did run, on a transport
    assert unneeded_by_scripted_runs(loaded) == []
    assert not [m for m in loaded if m.split(".")[0] == "alembic"]  # its new results file is made from the head schema
    assert not loaded & UNTOUCHED_APPS, sorted(loaded & UNTOUCHED_APPS)  # its sessions touch no app: no app's tables are made
    assert not [m for m in loaded if m.split(".")[0] == "structlog"]  # nothing logged at its level: no logger loaded structlog
    if model != OWN_SCRIPTED_AGENT:  # (the user's own agent may be a LangGraph graph: its adapter loads LangGraph and messages)
        assert [m for m in loaded for other in (*UNOBSERVED_UNNEEDED, *LANGCHAIN_UNNEEDED) if m == other or m.startswith(other + ".")] == []


UNOBSERVED_UNNEEDED = ("langgraph", "langsmith", "langchain_core.tracers")
"""What a run nothing observes has no use for: LangGraph (its sessions run as the session graph's plain step loop),
LangChain's tracers and LangSmith (together ~0.4 s of CPU a start)."""


LANGCHAIN_UNNEEDED = (
    "langchain_core.caches",
    "langchain_core.callbacks",
    "langchain_core.messages",
    "langchain_core.outputs",
    "langchain_core.load",
    "requests",
    "pydantic.v1",
)
"""What a run that builds no LangChain model has no use for: LangChain's cache (the call cache becomes one as that module
loads, ``llm/cache.py``), callbacks, messages, generations and dump, and the HTTP client and pydantic v1 its utilities
import (~0.12 s of CPU a start; LangChain's rate limiter, a small module, stays)."""


UNTOUCHED_APPS = {f"proactive_bench.env.{m}" for m in catalog.TABLE_MODULES}
"""The apps, none of which the mini episode's sessions use: their database is made at first use, with every app's tables
(~0.3 s of CPU a start when every run made it); the chat and clock apps load with an episode that has colleagues or keeps time."""


WORKER_MODULES = """
import json, os, sys
from pathlib import Path
from proactive_bench.campaign import workers
folder = Path(os.environ.pop("PBENCH_WORKER_MODULES"))
real = workers.run_episodes
async def run_and_list(*args, **kwargs):
    try:
        return await real(*args, **kwargs)
    finally:
        (folder / f"{os.getpid()}.json").write_text(json.dumps(sorted(sys.modules)))
workers.run_episodes = run_and_list
sys.argv[0] = "pbench"
from proactive_bench.cli import app
app()
"""
"""``pbench ARGS`` whose (forked) sweep workers each write, once their runs are done, the modules they had imported (a JSON
list in ``$PBENCH_WORKER_MODULES/<pid>.json``)."""


def test_the_workers_of_a_scripted_sweep_load_no_model_client_nor_ray(tmp_path: Path) -> None:
    """Forked workers share what the sweep's parent imported before the fork: it preloads the model clients only for runs
    that call a model, and imports the Ray executor only for a sweep on Ray."""
    folder = tmp_path / "modules"
    folder.mkdir()
    args = ("sweep", "--data", str(MINI), "--models", "scripted:reference,scripted:asker", "--workers", "2", "--db", str(tmp_path / "p.db"))
    done = subprocess.run(
        [sys.executable, "-c", WORKER_MODULES, *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PBENCH_WORKER_MODULES": str(folder)},
        timeout=300,
    )
    assert done.returncode in (0, 1), done.stderr
    listed = sorted(folder.glob("*.json"))
    assert len(listed) == 2, f"expected one list per worker, got {[p.name for p in listed]}"
    for listing in listed:
        loaded = set(json.loads(listing.read_text()))
        assert "proactive_bench.episode.runner" in loaded  # the worker did run its share
        assert unneeded_by_scripted_runs(loaded, needed=("proactive_bench.campaign.workers",)) == [], listing.name
        assert [m for m in loaded for other in LANGCHAIN_UNNEEDED if m == other or m.startswith(other + ".")] == [], listing.name
        assert not [m for m in loaded if m.split(".")[0] == "structlog"], listing.name  # nor structlog (logs.py)


def test_an_agent_name_is_checked_without_loading_its_module() -> None:
    """The built-in ``react`` is declared by name (``LAZY_SCAFFOLDS``): listing or checking agent names imports no model
    client; building it imports its module then."""
    code = (
        "import sys; from proactive_bench.scaffolds import SCAFFOLDS, ScaffoldOptions, agent_and_model, load_agent;"
        "print(agent_and_model(None, 'openai:x')[0], 'react' in SCAFFOLDS.names(), 'proactive_bench.scaffolds.react' in sys.modules,"
        "any(m.split('.')[0] in ('openai', 'langchain_core', 'langgraph') for m in sys.modules));"
        "agent = load_agent('react', ScaffoldOptions(model='openai:x', base_url='http://127.0.0.1:9/v1'));"
        "print(type(agent).__name__, 'proactive_bench.scaffolds.react' in sys.modules)"
    )
    out = run_python(code)
    assert out.split() == ["react", "True", "False", "False", "ReactAgent", "True"]


def test_an_a2a_agent_still_loads_its_transport_when_named() -> None:
    """The transports load by name when an agent of theirs is built: the deferral above does not lose one."""
    code = (
        "import sys; from proactive_bench.scaffolds import ScaffoldOptions; from proactive_bench.scaffolds.external import external_agent;"
        "agent = external_agent('a2a:http://127.0.0.1:9', ScaffoldOptions(model='')); print(type(agent).__name__, 'a2a' in sys.modules)"
    )
    out = run_python(code)
    assert out.split() == ["A2aAgent", "True"]


def test_the_tools_load_no_pdf_writer_until_one_writes_a_pdf() -> None:
    """fpdf2 (with numpy, PIL, fontTools) and matplotlib, whose font the PDFs use, cost every command that loads the tools."""
    code = "import sys, proactive_bench.env; print(sorted(m for m in sys.modules if m.split('.')[0] in ('fpdf', 'matplotlib')))"
    out = run_python(code)
    assert json.loads(out.replace("'", '"')) == []


def test_a_cached_validate_loads_no_checks_and_no_database(tmp_path: Path) -> None:
    """The second ``validate`` of unchanged data answers from the report the first stored (same output, same exit code)."""
    data = tmp_path / "mini"
    shutil.copytree(MINI, data)
    cold, checked = loaded_run("validate", "--data", str(data), timeout=300)
    assert cold.returncode == 0, cold.stderr
    assert "proactive_bench.validation.lint" in checked and "proactive_bench.episode.environment" in checked  # it did replay
    unneeded = (
        "proactive_bench.episode.runner",
        "proactive_bench.validation.oracle",
        "langgraph",
        "ray",
        "a2a",
        "mcp",
        "openai",  # the model clients: odyssey's summaries and embeddings, trainee's LLM colleagues load them when used
        "langchain_openai",
    )
    assert not {m for m in checked for other in unneeded if m == other or m.startswith(other + ".")}  # no agent loop without --oracle
    loaded = modules_loaded("validate", "--data", str(data))
    assert not {
        m
        for m in loaded
        if m.startswith(("proactive_bench.validation.lint", "proactive_bench.dataset.schema", "sqlalchemy", "proactive_bench.env"))
    }
    assert heavy_in(loaded) == []


def test_validate_answers_from_its_cache_until_the_data_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "mini"
    shutil.copytree(MINI, data)
    first = run_cli("validate", "--data", str(data))
    assert first.exit_code == 0, first.output
    assert list(digests.cache_dir().glob("*.json")), "no report stored"
    with monkeypatch.context() as patched:
        patched.setattr(validation, "validate_all", refuse)
        again = run_cli("validate", "--data", str(data))
        assert again.exit_code == 0 and again.output == first.output  # the same report, and no check ran
        session = data / "episodes" / "mini" / "sessions" / "a1.yaml"
        fields = yaml.safe_load(session.read_text())
        session.write_text(yaml.safe_dump({**fields, "intents": "not a list"}, sort_keys=False))
        assert isinstance(run_cli("validate", "--data", str(data)).exception, AssertionError), "a changed file reused the old report"
    changed = run_cli("validate", "--data", str(data))
    assert changed.exit_code == 1 and "a1.yaml" in changed.output


def test_validate_with_and_without_stats_answers_from_one_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--stats`` is a view of the report, not another check: after one run, both forms (text and JSON) are recalled."""
    plain = run_cli("validate", "--data", str(MINI), "--json")
    assert plain.exit_code == 0, plain.output
    monkeypatch.setattr(validation, "validate_all", refuse)
    counted = run_cli("validate", "--data", str(MINI), "--stats", "--json")
    assert counted.exit_code == 0, counted.output
    shown, plain_json = json.loads(counted.stdout), json.loads(plain.stdout)
    assert "stats" not in plain_json and {k: v for k, v in shown.items() if k != "stats"} == plain_json
    assert [row["persona"] for row in shown["stats"]] == ["tester"] and shown["stats"][0]["sessions"] > 0
    table = run_cli("validate", "--data", str(MINI), "--stats")
    assert table.exit_code == 0 and "tester" in table.stdout, table.output


def test_validate_checks_again_when_pbench_changes_or_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = tmp_path / "pbench"
    code.mkdir()
    (code / "lint.py").write_text("RULES = 1\n")
    monkeypatch.setattr(digests, "PACKAGE", code)
    assert run_cli("validate", "--data", str(MINI)).exit_code == 0
    monkeypatch.setattr(validation, "validate_all", refuse)
    assert run_cli("validate", "--data", str(MINI)).exit_code == 0  # cached
    for label, change in (
        ("--no-cache", lambda: None),
        ("code", lambda: (code / "lint.py").write_text("RULES = 2\n")),
        ("version", lambda: monkeypatch.setattr(digests, "version", lambda _name: "99.0")),
    ):
        change()
        extra = ("--no-cache",) if label == "--no-cache" else ()
        assert isinstance(run_cli("validate", "--data", str(MINI), *extra).exception, AssertionError), f"{label}: the report was reused"


def test_an_unreadable_report_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_cli("validate", "--data", str(MINI)).exit_code == 0
    monkeypatch.setattr(validation, "validate_all", refuse)
    for garbage in ("{not json", "[1, 2]", '{"json": {}}'):
        for stored in digests.cache_dir().glob("*.json"):
            stored.write_text(garbage)
        assert isinstance(run_cli("validate", "--data", str(MINI)).exception, AssertionError), garbage


def test_a_validate_that_checked_leaves_the_heap_out_of_the_last_collection(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checked (not recalled, no --oracle): ``gc.freeze`` runs at exit, so the interpreter does not walk the checks' objects."""
    from proactive_bench.cli import validate as command

    registered: list[object] = []
    monkeypatch.setattr(command.atexit, "register", registered.append)
    command._no_collection_at_exit.cache_clear()
    assert run_cli("validate", "--data", str(MINI)).exit_code == 0
    assert registered == [gc.freeze]
    command._no_collection_at_exit.cache_clear()
    assert run_cli("validate", "--data", str(MINI)).exit_code == 0
    assert registered == [gc.freeze]  # recalled from the cache: nothing was checked, nothing more registered
    command._no_collection_at_exit.cache_clear()


def refuse(*_args: object) -> None:
    raise AssertionError("checks ran")


def test_the_code_stamp_reads_no_source_and_changes_with_any_edit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``validate``'s key stamps pbench's source by stat: an edit of the same size, a new file, a replaced file each change it."""
    code = tmp_path / "pbench"
    (code / "checks").mkdir(parents=True)
    check = code / "checks" / "lint.py"
    check.write_text("LIMIT = 1\n")
    first = digests.code_stamp(code)
    assert digests.code_stamp(code) == first
    check.write_text("LIMIT = 2\n")  # same size
    edited = digests.code_stamp(code)
    assert edited != first
    (code / "checks" / "new.py").write_text("")
    added = digests.code_stamp(code)
    assert added not in (first, edited)
    replacement = tmp_path / "lint.py"
    replacement.write_text("LIMIT = 2\n")
    os.utime(replacement, ns=(check.stat().st_atime_ns, check.stat().st_mtime_ns))  # same content, size and mtime
    replacement.replace(check)
    assert digests.code_stamp(code) != added
    opened: list[str] = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda path, *a, **k: opened.append(str(path)) or real_open(path, *a, **k))
    digests.report_key(MINI, {})
    assert opened and not [p for p in opened if p.startswith(str(digests.PACKAGE))], "the key read pbench's source"
