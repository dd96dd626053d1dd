"""Loading scaffolds from --model specs, and the example custom scaffold."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace
from proactive_bench.scaffolds import (
    SCAFFOLDS,
    ScaffoldLoadError,
    ScaffoldOptions,
    SessionContext,
    call_respond,
    grant_reference,
    load_scaffold,
)
from proactive_bench.scaffolds.react import ReactAgent
from proactive_bench.scaffolds.scripted import ScriptedAgent
from tests.helpers.paths import REPO
from tests.helpers.plugins import install_fake_plugin

NOTES_AGENT = REPO / "scaffolds" / "notes_agent.py"
OPTIONS = ScaffoldOptions(model="unused")

AGENT_MODULE = """
from proactive_bench.scaffolds.protocol import AgentTurn


class EchoAgent:
    def __init__(self, options):
        self.options = options

    def start_session(self, ctx):
        pass

    def respond(self, message):
        return AgentTurn(reply=message)

    def end_session(self):
        pass


def broken():
    return object()


class ClaimsTheReference(EchoAgent):
    uses_reference_solution = True


def claims_it_late():  # a factory setting the claim on the object it builds
    agent = EchoAgent(None)
    agent.uses_reference_solution = True
    return agent
"""


@pytest.fixture
def agent_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An importable package ``pbench_test_agents`` with module ``echo``."""
    package = tmp_path / "pbench_test_agents"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "echo.py").write_text(AGENT_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "pbench_test_agents.echo"


REFUSAL = "declares uses_reference_solution: reference solutions go only to pbench's own scripted baselines; remove the attribute"


def test_file_spec_loads_the_notes_agent() -> None:
    agent = load_scaffold(f"{NOTES_AGENT}:NotesAgent", OPTIONS)
    assert type(agent).__name__ == "NotesAgent"


def test_module_spec_passes_options(agent_package: str) -> None:
    agent = load_scaffold(f"{agent_package}:EchoAgent", OPTIONS)
    assert agent.options is OPTIONS  # type: ignore[attr-defined]


def test_entry_point_spec(agent_package: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_fake_plugin(tmp_path, monkeypatch, "pbench.scaffolds", "echo-agent", f"{agent_package}:EchoAgent")
    SCAFFOLDS.rescan()  # the installed set is read once per process
    try:
        assert type(load_scaffold("echo-agent", OPTIONS)).__name__ == "EchoAgent"
    finally:
        monkeypatch.undo()
        SCAFFOLDS.rescan()


def test_builtin_specs() -> None:
    assert isinstance(load_scaffold("scripted:reference", OPTIONS), ScriptedAgent)
    react = load_scaffold("react:openai:some-model", ScaffoldOptions(model="ignored", base_url="http://127.0.0.1:9/v1"))
    assert isinstance(react, ReactAgent) and react.model_name == "openai:some-model"
    assert isinstance(
        load_scaffold("openai:some-model", ScaffoldOptions(model="openai:some-model", base_url="http://127.0.0.1:9/v1")), ReactAgent
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no/such/agent.py:Agent", "scaffold file not found: no/such/agent.py"),
        (f"{NOTES_AGENT}:Missing", "has no attribute 'Missing'"),
        ("pbench_no_such_pkg.agents:Agent", "cannot import scaffold module 'pbench_no_such_pkg.agents'"),
        ("scripted:nope", "unknown scripted baseline 'scripted:nope'; known: scripted:asker"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(ScaffoldLoadError, match=message.replace(".", r"\.")):
        load_scaffold(spec, OPTIONS)


@pytest.mark.parametrize("attr", ["ClaimsTheReference", "claims_it_late"])
def test_a_module_agent_claiming_the_reference_is_refused(agent_package: str, tmp_path: Path, attr: str) -> None:
    spec = f"{agent_package}:{attr}"
    with pytest.raises(ScaffoldLoadError, match=f"^scaffold '{spec}' {REFUSAL}"):
        load_scaffold(spec, OPTIONS)
    file_spec = f"{tmp_path / 'pbench_test_agents' / 'echo.py'}:{attr}"
    with pytest.raises(ScaffoldLoadError, match=REFUSAL):
        load_scaffold(file_spec, OPTIONS)


def test_an_entry_point_claiming_the_reference_is_refused(agent_package: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_fake_plugin(tmp_path, monkeypatch, "pbench.scaffolds", "claimer", f"{agent_package}:ClaimsTheReference")
    SCAFFOLDS.rescan()
    try:
        with pytest.raises(ScaffoldLoadError, match=f"^scaffold 'claimer' {REFUSAL}"):
            load_scaffold("claimer", OPTIONS)
        with pytest.raises(ScaffoldLoadError, match="no scaffold is registered under that name"):
            grant_reference("claimer")  # loaded or not, an entry point is never granted
    finally:
        monkeypatch.undo()
        SCAFFOLDS.rescan()


def test_object_without_methods_is_rejected(agent_package: str) -> None:
    with pytest.raises(ScaffoldLoadError, match="lacks method\\(s\\): start_session, respond, end_session"):
        load_scaffold(f"{agent_package}:broken", OPTIONS)


async def test_notes_agent_acts_through_the_toolbox(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    workspace.write_text("plan.md", "\n# Plan\nship it\n")
    toolbox = ToolBox(ToolEnv(workspace, Memory()), resolve_tool_names([]))
    agent: Any = load_scaffold(f"{NOTES_AGENT}:NotesAgent", OPTIONS)
    agent.start_session(SessionContext("s1", "user", workspace, toolbox.env.memory, toolbox))
    turn = await call_respond(agent, "Summarise plan.md and gone.txt.")
    agent.end_session()
    assert "The workspace holds: plan.md." in turn.reply
    assert "plan.md: 3 lines, starting with '# Plan'." in turn.reply
    assert "I could not read gone.txt: no such file: gone.txt" in turn.reply
    assert toolbox.env.memory.get("request_s1_1") == "Summarise plan.md and gone.txt."
    assert [(r.tool_name, r.ok) for r in toolbox.records] == [
        ("list_dir", True),
        ("read_file", True),
        ("read_file", False),
        ("memory_write", True),
    ]
