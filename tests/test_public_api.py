"""The public API: ``import proactive_bench`` is cheap and every public name resolves, the Python entry points give
what the commands give, the old ``proactive_bench.scaffold`` path warns and works, ``Scaffold`` declares what the
runner reads, and the repo's examples and plug-ins import only public names."""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
import warnings
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

import proactive_bench as pb
from proactive_bench import scaffold as old_scaffold
from proactive_bench.dataset import load_episode
from tests.helpers.cli import run_cli, run_episode_json
from tests.helpers.paths import MINI, REPO

PYTHON = sys.executable
HEAVY = ("langchain", "langchain_core", "langgraph", "ray", "proactive_bench.")
"""Module prefixes ``import proactive_bench`` must not load (``proactive_bench.``: any subpackage, suites among them)."""


def python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    return subprocess.run([PYTHON, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


# --- the package ------------------------------------------------------------------------------------------------------


def test_importing_the_package_loads_nothing_heavy(tmp_path: Path) -> None:
    code = "import sys, json, proactive_bench; print(json.dumps(sorted(sys.modules)))"
    done = python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    loaded = [m for m in json.loads(done.stdout) if m.startswith(HEAVY)]
    assert loaded == [], loaded


def test_every_public_name_resolves_to_its_home() -> None:
    assert pb.__all__ == sorted(pb.__all__) and len(set(pb.__all__)) == len(pb.__all__)
    assert set(pb.__all__) == set(pb._HOME)
    for name in pb.__all__:
        home = importlib.import_module(pb._HOME[name])
        assert getattr(pb, name) is getattr(home, name), name
        if home.__name__ != "proactive_bench.registry":  # a top-level module's names are its own
            assert name in home.__all__, f"{name} is not in {home.__name__}.__all__"
    assert set(pb.__all__) <= set(dir(pb))


def test_the_type_checking_imports_list_the_same_names_from_the_same_homes() -> None:
    tree = ast.parse((REPO / "proactive_bench" / "__init__.py").read_text())
    (block,) = [n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"]
    declared = {alias.name: node.module for node in block.body if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert declared == pb._HOME
    outside = [
        ast.unparse(node)
        for top in tree.body
        if top is not block
        for node in ast.walk(top)
        if isinstance(node, (ast.Import, ast.ImportFrom))
    ]
    assert not [line for line in outside if "proactive_bench" in line], "the package's __init__ imports pbench only lazily"


def test_an_unknown_name_is_an_attribute_error_and_subpackages_still_import() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'run_epsiode'"):
        pb.run_epsiode  # noqa: B018 - the lookup is the test
    from proactive_bench import scaffolds

    assert scaffolds.Scaffold is pb.Scaffold


def test_version_is_the_installed_distributions(monkeypatch: pytest.MonkeyPatch) -> None:
    assert pb.__version__ == metadata.version("pbench")
    monkeypatch.setattr(pb, "DISTRIBUTION", "pbench-never-installed")
    assert pb.__version__ == "0+unknown"


def test_the_package_is_typed() -> None:
    assert (REPO / "proactive_bench" / "py.typed").is_file()
    assert (
        "py.typed"
        in (REPO / "pyproject.toml").read_text().split("[tool.setuptools.package-data]")[1].split("proactive_bench = [")[1].split("]")[0]
    )


# --- the entry points -------------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("admitted_pharmacist")  # the subject is the API against the command, not the data's checks
def test_run_episode_gives_what_pbench_episode_json_prints(tmp_path: Path) -> None:
    """The acceptance line of issue 36, as a user runs it (a fresh interpreter), against the command on the same sessions."""
    code = (
        "import json, proactive_bench as pb; "
        f"r = pb.run_episode(persona='pharmacist', model='scripted:reference', db={str(tmp_path / 'api.db')!r}, sessions=['s01_vanco_auc_review', 's02_dalbavancin_pt_review']); "
        "print(json.dumps(r.as_dict()))"
    )
    done = python(code, REPO)
    assert done.returncode == 0, done.stderr[-2000:]
    from_api = json.loads(done.stdout)
    from_cli = run_episode_json(
        "--persona", "pharmacist", "--model", "scripted:reference", "--sessions", "1-2", "--db", str(tmp_path / "cli.db")
    )
    assert from_api["proc"] == from_cli["proc"] == 1.0 and from_api["comp"] == from_cli["comp"] == 1.0
    assert from_api.pop("run_id") != from_cli.pop("run_id")
    assert from_api == from_cli
    assert len(from_api["sessions"]) == 2


def test_run_episode_results_are_stored_and_load_results_reads_them_back(tmp_path: Path) -> None:
    db = tmp_path / "runs" / "pbench.db"
    seen: list[tuple[str, bool]] = []
    result = pb.run_episode("mini", "scripted:asker", db=db, data_root=MINI, on_progress=lambda sid, r: seen.append((sid, r is not None)))
    sessions = [s.id for s in load_episode(MINI, "mini").sessions]
    assert [s.session_id for s in result.sessions] == sessions
    assert seen == [(sid, done) for sid in sessions for done in (False, True)]
    assert (tmp_path / "runs" / "workspaces" / result.run_id).is_dir()  # beside the database, as the command puts it
    (loaded,) = pb.load_results(result.run_id, db=db)
    assert loaded.as_dict() == result.as_dict()
    shown = run_cli("results", result.run_id, "--db", str(db), "--json")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["runs"][0]["proc"] == result.proc


def test_run_episode_takes_sessions_as_the_command_line_does(tmp_path: Path) -> None:
    ids = [s.id for s in load_episode(MINI, "mini").sessions]
    for chosen, expected in (("3,1", [ids[0], ids[2]]), ("2-3", ids[1:]), (ids[1], [ids[1]]), ([ids[2], ids[0]], [ids[0], ids[2]])):
        result = pb.run_episode("mini", "scripted:passive", db=tmp_path / "s.db", data_root=MINI, sessions=chosen)
        assert [s.session_id for s in result.sessions] == expected == result.planned


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"user": "llm"}, "--user llm needs --user-model"),
        ({"user": "nosuch"}, "--user must be 'rules' or 'llm', not 'nosuch'"),
        ({"sessions": ["a1", "nope"]}, "sessions: nope not in episode mini"),
        ({"sessions": "1-9"}, "sessions: '1-9' is not a session id, a position in 1-3 or a range of them (lo-hi) of episode mini"),
        ({"answers_from": "nosuch"}, "answers_from: no run nosuch in"),
        ({"max_turn": 3}, "unknown setting(s) max_turn"),
        ({"protocol": "pibench"}, "--protocol pibench plays π-Bench's LLM user: give --user-model MODEL"),
        ({"max_turns": 0}, "max_turns: Input should be greater than or equal to 1"),
    ],
)
def test_run_episode_refuses_bad_settings_in_one_line_before_storing_anything(
    tmp_path: Path, settings: dict[str, Any], message: str
) -> None:
    db = tmp_path / "pbench.db"
    with pytest.raises(pb.RunRefused) as refused:
        pb.run_episode("mini", "scripted:reference", db=db, data_root=MINI, **settings)
    assert message in str(refused.value) and "\n" not in str(refused.value)
    assert not db.exists()


def test_run_episode_refuses_an_unknown_agent_and_data_validate_rejects(tmp_path: Path, mini_copy: Path) -> None:
    with pytest.raises(pb.RunRefused, match="unknown scripted baseline 'scripted:nosuch'"):
        pb.run_episode("mini", "scripted:nosuch", db=tmp_path / "a.db", data_root=MINI)
    session = next((mini_copy / "episodes" / "mini" / "sessions").glob("*.yaml"))
    session.write_text(session.read_text().replace("reference:", "reference:\n  - {tool: no_such_tool, args: {}}", 1))
    with pytest.raises(pb.RunRefused, match=r"error\(s\) in episode mini \(see pbench validate\)"):
        pb.run_episode("mini", "scripted:reference", db=tmp_path / "b.db", data_root=mini_copy)
    assert not (tmp_path / "b.db").exists()


def test_load_results_without_a_database_says_so(tmp_path: Path) -> None:
    with pytest.raises(pb.RunRefused, match="no results database at"):
        pb.load_results(db=tmp_path / "none.db")
    assert not (tmp_path / "none.db").exists()
    with pytest.raises(pb.RunRefused, match="^db mysql://host/x: a mysql URL; the results store runs on SQLite"):
        pb.load_results(db="mysql://host/x")
    with pytest.raises(pb.RunRefused, match="^db mysql://host/x: "):
        pb.run_episode("mini", "scripted:reference", db="mysql://host/x", data_root=MINI)


def test_run_sweep_runs_every_combination_and_reports_each_run(tmp_path: Path) -> None:
    db = tmp_path / "pbench.db"
    events: list[str] = []
    done = pb.run_sweep(
        {"models": ["scripted:reference", "scripted:passive"], "data": str(MINI), "runs": 2},
        db=db,
        on_event=lambda run, event: events.append(event),
    )
    assert done.status == "finished"
    assert sorted((r.model, r.proc) for r in done.runs) == [("scripted:passive", 0.0)] * 2 + [("scripted:reference", 1.0)] * 2
    assert [r.as_dict() for r in pb.load_results(done.sweep_id, db=db)] == [r.as_dict() for r in done.runs]
    assert events.count("start") == events.count("end") == 4
    with pytest.raises(pb.RunRefused, match="models"):
        pb.run_sweep({"personas": ["mini"], "data": str(MINI)}, db=db)


# --- the old import path ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(old_scaffold.MOVED))
def test_each_name_of_the_old_scaffold_module_warns_and_works(name: str) -> None:
    new = old_scaffold.MOVED[name]
    with pytest.warns(DeprecationWarning, match=rf"use 'from {new} import {name}'"):
        value = getattr(old_scaffold, name)
    assert value is getattr(importlib.import_module(new), name)
    with pytest.raises(AttributeError):
        old_scaffold.Scafold  # noqa: B018 - the lookup is the test


OLD_AGENT = """
from proactive_bench.scaffold import AgentTurn, SessionContext


class Agent:
    def start_session(self, ctx: SessionContext) -> None:
        self.ctx = ctx

    def respond(self, message: str) -> AgentTurn:
        self.ctx.tools.call("list_dir", {"path": "."})
        return AgentTurn(reply="Done.")

    def end_session(self) -> None:
        pass
"""


def test_an_agent_file_written_for_pbench_0_1_still_runs(tmp_path: Path) -> None:
    agent = tmp_path / "old_agent.py"
    agent.write_text(OLD_AGENT)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = pb.run_episode("mini", f"{agent}:Agent", db=tmp_path / "pbench.db", data_root=MINI)
    assert result.sessions and all(s.status != "error" for s in result.sessions)
    assert any(issubclass(w.category, DeprecationWarning) and "proactive_bench.scaffold is deprecated" in str(w.message) for w in caught)


# --- the agent protocol -----------------------------------------------------------------------------------------------


class ThreeMethods:
    def start_session(self, ctx: Any) -> None: ...

    def respond(self, message: str) -> pb.AgentTurn:
        return pb.AgentTurn(reply=message)

    def end_session(self) -> None: ...


class TwoMethods:
    def start_session(self, ctx: Any) -> None: ...

    def respond(self, message: str) -> pb.AgentTurn:
        return pb.AgentTurn(reply=message)


def test_a_three_method_agent_is_a_scaffold_and_a_two_method_one_is_not() -> None:
    assert isinstance(ThreeMethods(), pb.Scaffold)
    assert not isinstance(TwoMethods(), pb.Scaffold)


READ_BY_PENDING_CHANGE = {"uses_reference_solution"}
"""Read by the runner today; the reference-gate branch replaces it by pbench's own grant (not a Scaffold attribute)."""


OPTIONAL_HOOKS = {"end_episode": "read with getattr by scaffolds.call_end_episode: called when the agent has it (docs/agents.md)"}
"""Methods the runner calls on an agent that has them, beside the protocol's three."""


def test_the_episode_layer_reads_only_what_scaffold_declares() -> None:
    """Every attribute the runner and session graph read from the agent (``agent.x``, ``getattr(agent, "x")``), themselves
    or through the protocol's ``call_*`` helpers, is on Scaffold or an optional hook."""
    declared = {name for name in vars(pb.Scaffold) if not name.startswith("_")}
    assert declared == {"start_session", "respond", "end_session"}
    read: set[str] = set()
    for path in [*(REPO / "proactive_bench" / "episode").glob("*.py"), REPO / "proactive_bench" / "scaffolds" / "protocol.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and ast.unparse(node.value) in (
                "agent",
                "rt.agent",
                "participants.agent",
                "wiring.participants.agent",
            ):
                read.add(node.attr)
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "getattr" and "agent" in ast.unparse(node.args[0]):
                read.add(ast.literal_eval(node.args[1]))
    assert read, "the walk found no read of the agent: the names above changed"
    assert read - READ_BY_PENDING_CHANGE <= declared | set(OPTIONAL_HOOKS), sorted(read - declared)


# --- examples and plug-ins --------------------------------------------------------------------------------------------

INTERNALS_ALLOWED = {
    "tests/helpers/crashing_agent.py": "a test oracle: subclasses pbench's own scripted baseline",
    "tests/helpers/killable_agent.py": "a test oracle: subclasses pbench's own scripted baseline",
    "tests/helpers/long_writer_agent.py": "writes past the clipping limit it imports to test clipping",
    "tests/helpers/agentif_copy_agent.py": "a test oracle: copies attachments verbatim as read_file shows them (env.file_text)",
    "tests/helpers/trainee_agents.py": "test oracles: KeywordCanvass sends pbench's own four keyword questions (suites.trainee.KEYWORD_QUESTIONS)",
    "tests/helpers/mcp_reference_agent.py": "a test oracle: pbench's own scripted baseline, its calls over an McpWorld (mcp_world)",
}
"""Plug-ins in the repo that build on pbench's internals on purpose, and why."""


def plugin_files() -> list[Path]:
    """Every agent or other plug-in in the repo: the examples, and the test modules loaded as ``--model file.py:Class``."""
    tests = [p for p in (REPO / "tests" / "helpers").glob("*.py") if not p.name.startswith("__") and "def start_session" in p.read_text()]
    return sorted([*(REPO / "scaffolds").rglob("*.py"), *(REPO / "examples").rglob("*.py"), *tests])


def pbench_imports(code: str) -> list[tuple[str, tuple[str, ...], int]]:
    """``(module, names, line)`` of each import of pbench in ``code`` (names: () for ``import module``)."""
    found = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "proactive_bench":
            found.append((node.module, tuple(a.name for a in node.names), node.lineno))
        elif isinstance(node, ast.Import):
            found += [(a.name, (), node.lineno) for a in node.names if a.name.split(".")[0] == "proactive_bench"]
    return found


@pytest.mark.parametrize("path", plugin_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_examples_and_plugins_import_only_public_names(path: Path) -> None:
    relative = str(path.relative_to(REPO))
    spec = importlib.util.spec_from_file_location(f"plugin_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    spec.loader.exec_module(importlib.util.module_from_spec(spec))  # it imports
    if relative in INTERNALS_ALLOWED:
        return
    imports = pbench_imports(path.read_text())
    wrong = [f"{relative}:{line} imports {module}" for module, _, line in imports if module != "proactive_bench"]
    wrong += [
        f"{relative}:{line} imports {name}, not in proactive_bench.__all__"
        for _, names, line in imports
        for name in names
        if name not in pb.__all__
    ]
    assert not wrong, "\n".join(wrong)


def test_the_plugin_walk_finds_the_plugins() -> None:
    names = {str(p.relative_to(REPO)) for p in plugin_files()}
    assert {"scaffolds/notes_agent.py", "tests/helpers/pibench_agent.py", "tests/helpers/trainee_agents.py", *INTERNALS_ALLOWED} <= names


def test_the_scaffolds_readme_shows_only_public_imports() -> None:
    blocks = (REPO / "scaffolds" / "README.md").read_text().split("```python")[1:]
    imports = [found for block in blocks for found in pbench_imports(block.split("```")[0])]
    assert imports, "scaffolds/README.md shows no import"
    for module, names, _ in imports:
        assert module == "proactive_bench" and set(names) <= set(pb.__all__), f"scaffolds/README.md imports {names} from {module}"


MOVED_IN_0_2 = [
    ("proactive_bench.review.audits", "disagreement", "proactive_bench.review"),
    ("proactive_bench.review.audits", "Disagreement", "proactive_bench.review"),
    ("proactive_bench.review.audits", "POLARITIES", "proactive_bench.review"),
    ("proactive_bench.llm.tool_models", "UsesToolModels", "proactive_bench.llm"),
    ("proactive_bench.llm.transport", "is_context_length_error", "proactive_bench.llm"),
    ("proactive_bench.llm.transport", "HttpChatOpenAI", "proactive_bench.llm.http_chat"),
    ("proactive_bench.llm.transport", "response_format_param", "proactive_bench.llm.http_chat"),
    ("proactive_bench.llm.transport", "UNSET_TIMEOUT_S", "proactive_bench.llm.http_chat"),
    ("proactive_bench.episode.runner", "session_toolbox", "proactive_bench.episode"),
    ("proactive_bench.suites.agentif.attachment_writers", "AttachmentPdf", "proactive_bench.suites.agentif.attachment_pdf"),
]


@pytest.mark.parametrize(("old", "name", "new"), MOVED_IN_0_2)
def test_a_moved_name_warns_and_is_the_same_object(old: str, name: str, new: str) -> None:
    with pytest.warns(DeprecationWarning, match=f"{old}.{name} moved: import it from {new}"):
        found = getattr(importlib.import_module(old), name)
    assert found is getattr(importlib.import_module(new), name)


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        importlib.import_module("proactive_bench.review.audits").nothing_here  # noqa: B018
