"""Names that mean one thing (issue 36, item 3): ``--agent`` names the agent, ``--model`` its chat model, ``--judge`` the judge,
``--task`` a suite's task, ``personas`` the default suite; the 0.1 spellings keep working."""

from __future__ import annotations

import json
import sqlite3
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

import proactive_bench as pb
from proactive_bench.episode import RunSpec
from proactive_bench.scaffolds import (
    AGENT_KINDS,
    agent_and_model,
    agent_loader,
    split_agent_model,
)
from proactive_bench.scoring import JUDGES
from proactive_bench.store import Store
from proactive_bench.store.migration import HEAD as MIGRATION_HEAD
from proactive_bench.suites import DEFAULT_SUITE, SUITES
from proactive_bench.testing import StubServer, text_reply
from tests.helpers.cli import run_cli, run_episode_json
from tests.helpers.paths import MINI
from tests.helpers.plugins import install_fake_plugin

AGENT_FILE = '''
from proactive_bench import AgentTurn

SEEN = []


class ModelTeller:
    """Says which chat model it was given, then waits: proof of what --model reached."""

    def __init__(self, options):
        SEEN.append(options.model)
        self.model = options.model

    def start_session(self, ctx):
        pass

    def respond(self, message):
        return AgentTurn(reply=f"I run on {self.model or 'no model'}.")

    def end_session(self):
        pass
'''

JUDGE_PLUGIN = '''
from proactive_bench import RubricVerdict

GRADED = []


class Lenient:
    """Passes every rubric item without asking its model (proof it was the judge used)."""

    def __init__(self, model, model_name, recorder=None, settings=None):
        self.model_name = model_name

    async def grade(self, items, evidence, session):
        GRADED.extend(item.id for item in items)
        return {item.id: RubricVerdict(1, "lenient") for item in items}
'''


@pytest.fixture
def agent_file(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "teller.py"
    path.write_text(AGENT_FILE)
    yield path
    sys.modules.pop("pbench_user_scaffold_teller", None)


def _one_line_error(result: object, starts: str) -> str:
    lines = result.output.strip().splitlines()  # type: ignore[attr-defined]
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith(f"error: {starts}"), result.output  # type: ignore[attr-defined]
    return lines[0]


def test_agent_names_resolve_in_one_place_and_a_prefix_is_one_registration() -> None:
    assert split_agent_model("scripted:reference") == ("scripted:reference", None)
    assert split_agent_model("openai:gpt-4o") == ("react", "openai:gpt-4o")
    assert split_agent_model("react:openai:gpt-4o") == ("react", "openai:gpt-4o")
    assert split_agent_model("pkg.agents:Mine") == ("pkg.agents:Mine", None)
    assert split_agent_model("agents/mine.py:Mine") == ("agents/mine.py:Mine", None)
    assert agent_loader("echo:hello") is None  # not yet a kind of agent: a chat model of provider "echo"
    AGENT_KINDS.add("echo", lambda name, options: None)
    try:
        assert agent_loader("echo:hello") is AGENT_KINDS.get("echo")
        assert split_agent_model("echo:hello") == ("echo:hello", None)
    finally:
        AGENT_KINDS._entries.pop("echo")


def test_agent_and_model_says_which_spellings_are_old_and_refuses_mixed_ones() -> None:
    assert agent_and_model(None, "scripted:reference") == ("scripted:reference", None, None)  # the documented shorthand
    assert agent_and_model(None, "openai:m") == ("react", "openai:m", None)
    agent, model, note = agent_and_model(None, "a/b.py:C")
    assert (agent, model) == ("a/b.py:C", None) and note is not None and "--agent a/b.py:C" in note
    assert agent_and_model("a/b.py:C", "openai:m") == ("a/b.py:C", "openai:m", None)
    with pytest.raises(ValueError, match=r"^--model scripted:passive names an agent; --model names the chat model"):
        agent_and_model("scripted:reference", "scripted:passive")
    with pytest.raises(ValueError, match=r"^unknown agent 'reac'; did you mean react\?"):
        agent_and_model("reac", "openai:m")
    with pytest.raises(ValueError, match=r"^--agent or --model is required"):
        agent_and_model(None, None)


def test_agent_and_model_reach_the_agent_and_the_run_row(tmp_path: Path, agent_file: Path) -> None:
    db = tmp_path / "r.db"
    with StubServer(lambda body: text_reply("ok")) as server:
        out = run_episode_json(
            "--data",
            str(MINI),
            "--persona",
            "mini",
            "--sessions",
            "1",
            "--agent",
            f"{agent_file}:ModelTeller",
            "--model",
            "openai:stub-agent",
            "--base-url",
            server.base_url,
            "--db",
            str(db),
        )
    assert sys.modules["pbench_user_scaffold_teller"].SEEN[-1] == "openai:stub-agent"
    run = Store(db).run(out["run_id"])
    assert run is not None and run.agent == f"{agent_file}:ModelTeller" and run.model == f"{agent_file}:ModelTeller/openai:stub-agent"
    spec = RunSpec.model_validate(run.config)
    assert (spec.agent, spec.model) == (f"{agent_file}:ModelTeller", "openai:stub-agent")


def test_the_old_model_spelling_still_runs_scripted_baselines_and_agent_files(tmp_path: Path, agent_file: Path) -> None:
    old = run_episode_json("--data", str(MINI), "--persona", "mini", "--model", "scripted:reference", "--db", str(tmp_path / "a.db"))
    new = run_episode_json("--data", str(MINI), "--persona", "mini", "--agent", "scripted:reference", "--db", str(tmp_path / "b.db"))
    assert {k: v for k, v in old.items() if k != "run_id"} == {k: v for k, v in new.items() if k != "run_id"}
    assert Store(tmp_path / "a.db").run(old["run_id"]).agent == "scripted:reference"  # type: ignore[union-attr]
    filed = run_cli(
        "episode",
        "--json",
        "--data",
        str(MINI),
        "--persona",
        "mini",
        "--sessions",
        "1",
        "--model",
        f"{agent_file}:ModelTeller",
        "--db",
        str(tmp_path / "c.db"),
    )
    assert filed.exit_code == 0, filed.output
    assert f"warning: --model {agent_file}:ModelTeller names an agent: give it as --agent" in filed.stderr
    assert sys.modules["pbench_user_scaffold_teller"].SEEN[-1] == ""  # no chat model was named
    swept = run_cli("sweep", "--data", str(MINI), "--models", f"scripted:passive,{agent_file}:ModelTeller", "--db", str(tmp_path / "d.db"))
    assert swept.exit_code == 0, swept.output
    assert f"warning: --models {agent_file}:ModelTeller names an agent" in swept.stderr and "scripted:passive names" not in swept.stderr


def test_bad_agent_names_are_one_line_before_anything_is_stored(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    base = ("episode", "--data", str(MINI), "--persona", "mini", "--db", str(db))
    assert "did you mean react" in _one_line_error(run_cli(*base, "--agent", "reactt", "--model", "openai:m"), "unknown agent 'reactt'")
    _one_line_error(run_cli(*base, "--agent", "react"), "the react agent runs on a chat model: give --model")
    _one_line_error(
        run_cli(*base, "--agent", "scripted:reference", "--model", "scripted:passive"), "--model scripted:passive names an agent"
    )
    _one_line_error(
        run_cli("sweep", "--data", str(MINI), "--agent", "scriptd:reference", "--db", str(db)),
        "flags: agent: Value error, unknown agent 'scriptd:reference'; did you mean scripted:reference",
    )
    assert not db.exists()


def test_a_run_stored_before_agents_had_a_name_reads_its_agent_from_model(tmp_path: Path) -> None:
    for stored, expected in (("scripted:asker", ("scripted:asker", None)), ("openai:x", ("react", "openai:x"))):
        spec = RunSpec.model_validate({"persona": "mini", "model": stored, "data_root": str(MINI), "suite": "pibench"})
        assert (spec.agent, spec.model, spec.suite, spec.label) == (*expected, DEFAULT_SUITE, stored)


def test_a_database_of_revision_0005_gains_the_agent_column_and_keeps_its_runs(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    out = run_episode_json("--data", str(MINI), "--persona", "mini", "--model", "scripted:passive", "--db", str(db))
    with sqlite3.connect(db) as conn:  # as revision 0005 wrote it
        conn.execute("alter table run drop column agent")
        conn.execute("drop table personlabel")  # revision 0008
        conn.execute("alter table lease drop column boot_id")  # revision 0009
        conn.execute("alter table lease drop column started")
        conn.execute("update alembic_version set version_num = '0005'")
    run = Store(db).run(out["run_id"])
    assert run is not None and run.agent is None and run.model == "scripted:passive"
    shown = run_cli("results", out["run_id"], "--db", str(db), "--json")
    assert shown.exit_code == 0, shown.output
    with sqlite3.connect(db) as conn:
        assert conn.execute("select version_num from alembic_version").fetchone()[0] == MIGRATION_HEAD


def test_judge_reaches_the_judges_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "pbench_lenient_judge.py").write_text(JUDGE_PLUGIN)
    monkeypatch.syspath_prepend(str(modules))
    install_fake_plugin(tmp_path, monkeypatch, "pbench.judges", "lenient", "pbench_lenient_judge:Lenient")
    JUDGES.rescan()
    try:
        with StubServer(lambda body: text_reply("unused")) as server:
            out = run_episode_json(
                "--data",
                str(MINI),
                "--persona",
                "mini",
                "--model",
                "scripted:passive",
                "--judge",
                "lenient",
                "--judge-model",
                "openai:stub-judge",
                "--no-probe",
                "--base-url",
                server.base_url,
                "--db",
                str(tmp_path / "r.db"),
            )
            judged = [b for b in server.requests if "messages" in b]
        import pbench_lenient_judge

        assert pbench_lenient_judge.GRADED and not judged  # every rubric item went to the plugin, none to the model
        assert isinstance(pbench_lenient_judge.Lenient(None, "m"), pb.Judge)  # the public protocol is what it implements
        assert out["sessions"]
        bad = run_cli(
            "episode",
            "--data",
            str(MINI),
            "--persona",
            "mini",
            "--model",
            "scripted:passive",
            "--judge",
            "rubrik",
            "--db",
            str(tmp_path / "b.db"),
        )
        assert (
            _one_line_error(bad, "unknown judge 'rubrik'") == "error: unknown judge 'rubrik'; did you mean rubric? known: rubric, lenient"
        )
    finally:
        JUDGES.rescan()
        sys.modules.pop("pbench_lenient_judge", None)


def test_the_default_suite_is_personas_and_pibench_an_alias_that_warns(tmp_path: Path) -> None:
    assert DEFAULT_SUITE == "personas" and SUITES.get("pibench") is SUITES.get("personas") and "pibench" not in SUITES.names()
    result = run_cli(
        "episode",
        "--json",
        "--suite",
        "pibench",
        "--data",
        str(MINI),
        "--persona",
        "mini",
        "--model",
        "scripted:passive",
        "--db",
        str(tmp_path / "r.db"),
    )
    assert result.exit_code == 0 and "warning: --suite pibench is now --suite personas" in result.stderr
    assert Store(tmp_path / "r.db").run(json.loads(result.stdout)["run_id"]).config["suite"] == "personas"  # type: ignore[union-attr]


def test_tasks_is_the_old_spelling_of_task(tmp_path: Path) -> None:
    result = run_cli(
        "episode", "--suite", "trainee", "--tasks", "s3-n3", "--model", "scripted:passive", "--json", "--db", str(tmp_path / "r.db")
    )
    assert result.exit_code == 0, result.output
    assert "warning: --tasks is now --task" in result.stderr


def test_the_python_api_takes_agent_and_model_and_warns_on_an_agent_given_as_model(tmp_path: Path, agent_file: Path) -> None:
    by_agent = pb.run_episode(agent="scripted:reference", persona="mini", data_root=MINI, db=tmp_path / "a.db")
    by_model = pb.run_episode("mini", "scripted:reference", data_root=MINI, db=tmp_path / "b.db")
    assert (by_agent.proc, by_agent.comp) == (by_model.proc, by_model.comp) == (1.0, 1.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pb.run_episode("mini", f"{agent_file}:ModelTeller", sessions=["a1"], data_root=MINI, db=tmp_path / "c.db")
    assert [w.category for w in caught if "names an agent" in str(w.message)] == [DeprecationWarning]
    with pytest.raises(pb.RunRefused, match="give persona .* or task"):
        pb.run_episode(agent="scripted:reference", data_root=MINI, db=tmp_path / "d.db")
    stored = Store(tmp_path / "a.db").run(by_agent.run_id)
    assert stored is not None and stored.agent == "scripted:reference"
