"""The release's world in a π-Bench import: the logins the tasks state are seeded and work, each task's files appear when
its session starts (and never in the ablation that removes it), the offline web where the release has pages, and
everything the import cannot reproduce is flagged on the sessions it affects (the dataset, the report, every result).

The release here is synthetic, written for these tests in the shape of the public one (``data/<persona>/...``).
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from proactive_bench import api
from proactive_bench.dataset import load_dataset
from proactive_bench.importers.pibench.reader import PiTask
from proactive_bench.importers.pibench.scripts import run_script
from proactive_bench.importers.pibench.world import Login, stated_logins
from proactive_bench.store import Grade, Store, ToolCallRow
from proactive_bench.testing.stub_server import StubServer
from tests.helpers.cli import run_cli
from tests.helpers.paths import HELPERS
from tests.helpers.stub_models import FakeUserModel
from tests.helpers.world_seeing_agent import SEEN

LOGIN_AGENT = f"{HELPERS / 'pibench_login_agent.py'}:LoginAgent"
SEEING_AGENT = "tests.helpers.world_seeing_agent:WorldSeeingAgent"  # as a module: its SEEN is the one imported here
EMAIL, PASSWORD = "kim.ortiz@example.org", "Qx7(v!2"

TASKS: dict[str, dict[str, Any]] = {
    "p1_task_001": {
        "request": f"My Simple Note login info:\n  Email: {EMAIL}\n  Password: {PASSWORD}\n\nPlease start a packing note for the lake trip.",
        "files": {"brief.md": "Lake trip brief.\n", "shared.md": "first version\n"},
        "objectives": {
            "checklist": [{"criterion": "The note lists the tent."}],
            "tools": [{"mcp_appworld_simple_note__show_account": {"result": ["response"]}}],
            "tools_evaluation_path": "data/p1/scripts/p1_task_001_note.py",
        },
    },
    "p1_task_002": {
        "request": "Check the guide at https://docs.example.org/guide and the paper at https://nowhere.example.org/paper, then update plan.md.",
        "files": {"plan.md": "Day 1: drive.\n", "shared.md": "second version\n"},
        "objectives": {"checklist": [{"criterion": "plan.md has a day 2."}]},
    },
    "p1_task_003": {
        "request": f"My Gmail login info: Email: {EMAIL} Password: Mn4]zt8 My Venmo login info: Email: {EMAIL} Password: Vv9(x Draft a thank-you.",
        "files": {},
        "objectives": {
            "checklist": [{"criterion": "The draft thanks the host."}],
            "tools_evaluation_path": "data/p1/scripts/p1_task_003_gmail.py",
        },
    },
}
SCRIPT = textwrap.dedent("""\
    import os

    def score(tools_history):
        read = any(item.get("tool_name") == "mcp_appworld_simple_note__show_account" for item in tools_history)
        workspace = os.path.expanduser("~/.nanobot/workspace")
        return {"account_read": int(read), "workspace_reachable": int(os.path.isfile(os.path.join(workspace, "brief.md")))}
""")


def write_release(root: Path) -> Path:
    """A synthetic π-Bench release: one persona, three tasks, one grader script (the other is missing), an offline page."""
    persona = root / "data" / "p1"
    for task_id, task in TASKS.items():
        folder = persona / "tasks" / task_id
        folder.mkdir(parents=True)
        body = {
            "schema_version": "v2",
            "task_id": task_id,
            "user_id": "p1",
            "title": task_id,
            "task_type": "short_term_independent",
            "trigger": {"type": "user"},
            "intent": {"initial_input": task["request"], "hidden_intent": [{"content": "Keep it short."}]},
            "objectives": task["objectives"],
        }
        (folder / "task.yaml").write_text(yaml.safe_dump(body, sort_keys=False, allow_unicode=True))
        for name, text in task["files"].items():
            (folder / name).write_text(text)
    (persona / "profile.yaml").write_text(
        "schema_version: v2\nuser_id: p1\nrole: |-\n  A hiker who plans trips.\npreferences: {language: en}\n"
    )
    tools = ["simple_note__login", "simple_note__show_account", "simple_note__search_notes", "gmail__login", "gmail__send_email"]
    (persona / "tools.yaml").write_text(yaml.safe_dump({"tool_names": tools}))
    order = [{"task_id": "p1_task_001", "depends_on": []}, {"task_id": "p1_task_002", "depends_on": ["p1_task_001"]}]
    (persona / "episode.yaml").write_text(yaml.safe_dump({"schema_version": "v2", "tasks": [*order, {"task_id": "p1_task_003"}]}))
    (persona / "scripts").mkdir()
    (persona / "scripts" / "p1_task_001_note.py").write_text(SCRIPT)
    (persona / "web").mkdir()
    (persona / "web" / "guide.md").write_text("# Trip guide\n\nPark at the north lot.\n")
    (persona / "web" / "index.yaml").write_text("https://docs.example.org/guide: {file: guide.md, title: Trip guide}\n")
    return root


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    base = tmp_path_factory.mktemp("world")
    release = write_release(base / "release")
    out = base / "imported"
    result = run_cli("import", "pibench", str(release), "--out", str(out))
    assert result.exit_code == 0, result.output
    return release, out, result.output


def test_the_import_seeds_the_stated_logins_once_per_app_and_account(imported: tuple[Path, Path, str]) -> None:
    _, out, _ = imported
    seeds = yaml.safe_load((out / "episodes" / "p1" / "apps" / "accounts.yaml").read_text())
    assert seeds == {
        "simple_note_user": [{"id": 1, "name": "p1", "password": PASSWORD, "email": EMAIL}],
        "gmail_account": [{"id": 1, "name": "p1", "password": "Mn4]zt8", "email": EMAIL}],
    }  # the one-line request is read too; Venmo has no pbench app and is flagged below


def test_logins_are_read_as_the_requests_write_them() -> None:
    request = (
        "My Phone login info:\n  Phone number: 555 010 4477\n  Password: A!b2c\n"
        "My Simple Note login info: Email: kim@example.org. Password: p[=q Then my Notes login info: Password: only"
    )
    task = PiTask("t", Path("."), "", "", "user", request, ["Be brief."])
    logins, unread = stated_logins(task, frozenset({"phone", "simple_note"}))
    assert logins == [Login("phone", "5550104477", "A!b2c"), Login("simple_note", "kim@example.org", "p[=q")]
    assert unread == ["a Notes login, and pbench has no Notes app"]
    missing_password = PiTask("t", Path("."), "", "", "user", "My Gmail login info: Email: kim@example.org", ["Be brief."])
    assert stated_logins(missing_password, frozenset({"gmail"})) == ([], ["a Gmail login without an email and a password after it"])


def test_each_tasks_files_are_placed_when_its_session_starts(imported: tuple[Path, Path, str]) -> None:
    release, out, _ = imported
    episode = out / "episodes" / "p1"
    assert not (episode / "workspace").exists()
    assert (episode / "session_files" / "p1_task_001" / "brief.md").read_text() == "Lake trip brief.\n"
    assert (episode / "session_files" / "p1_task_002" / "shared.md").read_text() == "second version\n"
    sessions = {s.id: s for s in load_dataset(out).episodes["p1"].sessions}
    assert sessions["p1_task_002"].files == ["plan.md", "shared.md"]
    assert not list(release.rglob("__pycache__"))  # running score([]) at import leaves the release as it was
    assert run_cli("validate", "--data", str(out)).exit_code == 0


def test_what_cannot_be_reproduced_is_flagged_on_its_sessions_the_report_and_the_terminal(imported: tuple[Path, Path, str]) -> None:
    _, out, output = imported
    gaps = {s.id: s.gaps for s in load_dataset(out).episodes["p1"].sessions}
    assert [g.split(":")[0] for g in gaps["p1_task_001"]] == ["apps"]
    assert any("https" not in g and g.startswith("web:") for g in gaps["p1_task_002"])  # the second URL has no page
    flags = " ".join(gaps["p1_task_003"])
    assert "missing (data/p1/scripts/p1_task_003_gmail.py)" in flags and "a Venmo login, and pbench has no Venmo app" in flags
    assert "AppWorld's gmail records" in flags
    report = (out / "IMPORT_REPORT.md").read_text()
    assert "## Not reproduced: 3 session(s) flagged in every result" in report
    assert "- p1: grader: a grader script the release names is missing" in report and "(1 task(s): p1_task_003)" in report
    assert "names 1 URL(s) no offline page serves (first: https://nowhere.example.org/paper)" in report
    terminal = " ".join(output.split())
    assert "flagged p1: web:" in terminal and "3 session(s) flagged" in terminal


def test_the_release_web_pages_are_served_offline(imported: tuple[Path, Path, str]) -> None:
    _, out, _ = imported
    session = load_dataset(out).episodes["p1"].session("p1_task_002")
    assert "web" in session.tools and (out / "episodes" / "p1" / "web" / "guide.md").is_file()


def user_llm(server: StubServer) -> dict[str, Any]:
    return {"user": "llm", "user_model": "openai:stub-user", "base_url": server.base_url}


def tool_calls(db: Path, run_id: str) -> list[ToolCallRow]:
    store = Store(db)
    return [row for s in store.session_runs(run_id) for row in store.rows(ToolCallRow, s.id)]


def test_a_scripted_agent_logs_in_with_the_seeded_account_and_reads_it(imported: tuple[Path, Path, str], tmp_path: Path) -> None:
    _, out, _ = imported
    with StubServer(FakeUserModel()) as server:
        result = api.run_episode("p1", agent=LOGIN_AGENT, data_root=out, db=tmp_path / "r.db", sessions=["p1_task_001"], **user_llm(server))
    calls = {row.tool_name: row for row in tool_calls(tmp_path / "r.db", result.run_id)}
    assert calls["simple_note__login"].ok and calls["simple_note__show_account"].ok
    assert calls["simple_note__show_account"].result["response"]["email"] == EMAIL
    (session,) = result.sessions
    assert session.gaps and session.as_dict()["gaps"] == list(session.gaps)
    # the grader script ran as π-Bench runs it: it saw the account read, and found the workspace at ~/.nanobot/workspace
    store = Store(tmp_path / "r.db")
    (session_run,) = store.session_runs(result.run_id)
    assert {g.item_id: g.score for g in store.rows(Grade, session_run.id) if g.grader == "rule"} == {"t1": 1, "t2": 1}
    shown = run_cli("rescore", result.run_id, "--db", str(tmp_path / "r.db"))  # the per-session table of a stored run
    assert shown.exit_code == 0, shown.output
    assert "p1_task_001 ‡" in shown.output and "lacked part of their source world" in " ".join(shown.output.split())


def test_without_the_seeded_account_the_same_login_fails(imported: tuple[Path, Path, str], tmp_path: Path) -> None:
    _, out, _ = imported
    bare = tmp_path / "bare"
    shutil.copytree(out, bare)
    (bare / "episodes" / "p1" / "apps" / "accounts.yaml").unlink()
    with StubServer(FakeUserModel()) as server:
        result = api.run_episode(
            "p1", agent=LOGIN_AGENT, data_root=bare, db=tmp_path / "r.db", sessions=["p1_task_001"], **user_llm(server)
        )
    calls = {row.tool_name: row for row in tool_calls(tmp_path / "r.db", result.run_id)}
    assert not calls["simple_note__login"].ok and "simple_note__show_account" not in calls


def test_task_files_appear_from_their_session_on_and_never_in_the_ablation_that_removes_it(
    imported: tuple[Path, Path, str], tmp_path: Path
) -> None:
    _, out, _ = imported
    SEEN.clear()
    with StubServer(FakeUserModel()) as server:
        full = api.run_episode("p1", agent=SEEING_AGENT, data_root=out, db=tmp_path / "r.db", **user_llm(server))
        seen_full = {w.session_id: set(w.files) for w in SEEN}
        SEEN.clear()
        ablated = api.run_episode(
            "p1", agent=SEEING_AGENT, data_root=out, db=tmp_path / "r.db", ablation="no-dependency-history", **user_llm(server)
        )
    assert [s.session_id for s in full.sessions] == ["p1_task_001", "p1_task_002", "p1_task_003"]
    assert seen_full["p1_task_001"] >= {"brief.md", "shared.md"} and "plan.md" not in seen_full["p1_task_001"]
    assert seen_full["p1_task_002"] >= {"brief.md", "plan.md", "shared.md"}
    run = Store(tmp_path / "r.db").run(full.run_id)
    assert run is not None and (Path(run.workspace) / "shared.md").read_text() == "second version\n"  # the later task's copy
    assert [s.session_id for s in ablated.sessions] == ["p1_task_002"]
    (world,) = SEEN
    assert world.files and "brief.md" not in world.files and {"plan.md", "shared.md"} <= set(world.files)


def test_grader_scripts_find_the_workspace_where_pi_bench_puts_it_and_write_no_bytecode(tmp_path: Path) -> None:
    script = tmp_path / "release" / "grader.py"
    script.parent.mkdir()
    script.write_text(SCRIPT)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    history = [{"tool_name": "mcp_appworld_simple_note__show_account", "call": {}, "result": {"response": {}}}]
    assert run_script(script, [[], history], workspace) == [
        {"account_read": 0, "workspace_reachable": 0},
        {"account_read": 1, "workspace_reachable": 0},
    ]
    (workspace / "brief.md").write_text("x")
    assert run_script(script, [history], workspace) == [{"account_read": 1, "workspace_reachable": 1}]
    assert not list(script.parent.rglob("__pycache__"))
