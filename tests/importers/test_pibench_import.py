"""`pbench import pibench`: conversion of π-Bench-format data, its report, validation, and a scored run.

The fixture ``tests/data/pibench_mini`` imitates the public π-Bench data format,
with texts and test-double grader scripts written for pbench (see its README).
The end-to-end runs use the scripted agent in ``tests/helpers/pibench_agent.py`` and a
stub OpenAI-compatible server as user model and judge; both follow
``[<intent id>]`` markers.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from proactive_bench.data_model.evidence import Evidence, Message
from proactive_bench.dataset.ablation import dependency_units
from proactive_bench.dataset.loading import GraderResolver, load_dataset
from proactive_bench.dataset.predicates import PibenchScript, PibenchScriptArgs
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolRecord
from proactive_bench.env.workspace import Workspace
from proactive_bench.importers.pibench.scripts import ScriptError, script_check
from proactive_bench.store import Grade, IntentEvent, Store
from proactive_bench.testing.stub_server import (
    Reply,
    StubServer,
    error_reply,
    open_requirement_ids,
    prompt_section,
    prompt_text,
    structured_reply,
    text_reply,
)
from tests.helpers.cli import run_cli
from tests.helpers.paths import HELPERS, PIBENCH_MINI

AGENT = f"{HELPERS / 'pibench_agent.py'}:PibenchTestAgent"


def import_to(source: Path, out: Path) -> Any:
    result = run_cli("import", "pibench", str(source), "--out", str(out))
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pibench") / "imported"
    import_to(PIBENCH_MINI, out)
    return out


def source_counts(persona: str) -> dict[str, int]:
    """Counts read straight from the fixture's π-Bench files."""
    root = PIBENCH_MINI / "data" / persona
    order = [t["task_id"] for t in yaml.safe_load((root / "episode.yaml").read_text())["tasks"]]
    tasks = [yaml.safe_load((root / "tasks" / t / "task.yaml").read_text()) for t in order]
    objectives = [t.get("objectives") or {} for t in tasks]
    return {
        "sessions": len(tasks),
        "intents": sum(len(t["intent"]["hidden_intent"]) for t in tasks),
        "checklist": sum(len(o.get("checklist") or []) for o in objectives),
        "scripts": sum("tools_evaluation_path" in o for o in objectives),
    }


# ---- conversion ------------------------------------------------------------------------------


def test_import_prints_counts_matching_the_source_and_writes_the_report(tmp_path: Path) -> None:
    result = import_to(PIBENCH_MINI, tmp_path / "out")
    report = (tmp_path / "out" / "IMPORT_REPORT.md").read_text()
    for persona in ("Financier", "researcher"):
        expected = source_counts(persona)
        dataset = load_dataset(tmp_path / "out").episodes[persona]
        assert len(dataset.sessions) == expected["sessions"]
        assert sum(len(s.intents) for s in dataset.sessions) == expected["intents"]
        assert sum(c.grader == "rubric" for s in dataset.sessions for c in s.checklist) == expected["checklist"]
        assert sum(any(c.grader == "rule" for c in s.checklist) for s in dataset.sessions) == expected["scripts"]
    table = " ".join(result.stdout.split())  # piped: plain text, no box drawing
    assert "hidden intents imported 24 24 48" in table and "checklist items (rubric) 38 53 91" in table
    assert "script-graded items (rule) 3 3 6" in table and "tasks with a grader script 2 1 3" in table
    assert "| hidden intents imported | 24 | 24 | 48 |" in report and "| π-Bench hidden intents | 24 | 24 | 48 |" in report


def test_persona_episode_order_and_dependency_units(imported: Path) -> None:
    dataset = load_dataset(imported)
    researcher = dataset.episodes["researcher"]
    assert researcher.persona.id == researcher.persona.name == "researcher"
    assert researcher.persona.role.startswith("# researcher") and researcher.persona.language == "zh"
    assert researcher.persona.preferences == ["language: zh", "verbosity: high"]
    assert researcher.persona.long_term_goals[0].startswith(
        "Finish the thesis project on evaluating long-horizon tool-using agents: a benchmark"
    )
    assert researcher.episode.title == "π-Bench ep_researcher"
    assert [s.id for s in researcher.sessions] == [f"researcher_task_{n}" for n in ("002", "006", "008", "014", "020")]
    assert dependency_units(researcher.episode) == [
        ["researcher_task_002", "researcher_task_008"],
        ["researcher_task_006"],
        ["researcher_task_014"],
        ["researcher_task_020"],
    ]
    financier = dataset.episodes["Financier"]
    assert dependency_units(financier.episode) == [
        ["Financier_task_001", "Financier_task_010"],
        ["Financier_task_002"],
        ["Financier_task_007", "Financier_task_017"],
    ]


def test_every_task_format_variation_converts(imported: Path) -> None:
    researcher = load_dataset(imported).episodes["researcher"]
    financier = load_dataset(imported).episodes["Financier"]
    # the release gives no category (its task types are not categories): none is guessed
    assert {s.category for s in researcher.sessions + financier.sessions} == {"unavailable"}
    # user and env triggers
    event = researcher.session("researcher_task_020").trigger
    assert (event.type, event.source) == ("event", "huggingface_hub") and json.loads(event.message)[
        "event"
    ] == "paper_recommendation_trigger"
    assert researcher.session("researcher_task_014").trigger.type == "user"
    # hidden intents (odd indentation in researcher_task_002), no rule annotations
    intents = researcher.session("researcher_task_002").intents
    assert [i.id for i in intents] == ["h1", "h2", "h3"] and intents[0].text.startswith("Knee history")
    assert not any(i.has_rules or i.ask or i.reveal for s in researcher.sessions for i in s.intents)
    # empty titles fall back to the task id
    assert financier.session("Financier_task_017").title == "Financier_task_017"
    # checklist criteria are rubric items that show the judge every tool record and the files π-Bench's judge reads
    item = financier.session("Financier_task_017").checklist[0]
    assert (item.id, item.grader, item.evidence.files, item.evidence.tools) == ("c1", "rubric", ["risk_correlation_pipeline.py"], ["*"])
    # tasks without a checklist (null, or no objectives) get none
    assert researcher.session("researcher_task_002").checklist == []
    assert [c.grader for c in researcher.session("researcher_task_014").checklist] == ["rule"] * 3


def test_grader_scripts_become_one_rule_item_per_criterion(imported: Path) -> None:
    dataset = load_dataset(imported)
    rules = [c for c in dataset.episodes["researcher"].session("researcher_task_014").checklist]
    assert [(c.id, c.text) for c in rules] == [
        ("t1", "[tools] task created with MCP tool name"),
        ("t2", "[tools] Morning stretching created"),
        ("t3", "[tools] friday_plan.md written"),
    ]
    check = rules[0].check
    assert isinstance(check, PibenchScript)
    assert check.pibench_script == PibenchScriptArgs(
        path="researcher/researcher_task_014_todoist.py",
        criterion="task created with MCP tool name",
        tools=("todoist__create_task", "todoist__update_task"),
    )
    assert (imported / "graders" / "researcher" / "researcher_task_014_todoist.py").is_file()
    # a missing script still gets an item, for the whole script
    (missing,) = [c for c in dataset.episodes["Financier"].session("Financier_task_017").checklist if c.grader == "rule"]
    assert isinstance(missing.check, PibenchScript) and missing.check.pibench_script.criterion is None
    assert missing.text == "[tools] every check of Financier_task_017.py"


def test_task_files_are_placed_at_their_session_start_byte_for_byte(imported: Path) -> None:
    placed = imported / "episodes" / "researcher" / "session_files" / "researcher_task_006"
    source = PIBENCH_MINI / "data" / "researcher" / "tasks" / "researcher_task_006" / "paper_list.txt"
    assert (placed / "paper_list.txt").read_bytes() == source.read_bytes() and b"\r\n" in source.read_bytes()
    assert not (imported / "episodes" / "researcher" / "workspace").exists()
    invalid_yaml = imported / "episodes" / "Financier" / "session_files" / "Financier_task_010" / "pd_scorecard_model_spec.yaml"
    assert b"- >5000" in invalid_yaml.read_bytes()
    financier = load_dataset(imported).episodes["Financier"]
    assert financier.session("Financier_task_010").files == ["pd_scorecard_model_spec.yaml"]
    assert (imported / "episodes" / "Financier" / "skills" / "json-translator-1.0.0" / "_meta.json").is_file()


def test_session_tools_are_the_agent_groups_and_the_known_app_tools(imported: Path) -> None:
    session = load_dataset(imported).episodes["Financier"].session("Financier_task_002")
    assert session.tools[:4] == ["workspace", "memory", "shell", "skills"]
    assert "simple_note__create_note" in session.tools and "gmail__send_email" in session.tools


def test_report_lists_what_could_not_be_converted(imported: Path) -> None:
    report = (imported / "IMPORT_REPORT.md").read_text()
    for line in (
        "### `Financier/tasks/Financier_task_017/task.yaml`",
        "- objectives.tools_evaluation_path: data/Financier/scripts/Financier_task_017.py: no such file; its item will be graded as an error",
        "### `Financier/skills/json-translator-1.0.0`",
        "- no SKILL.md: copied, but list_skills does not offer it",
        "- long_term_goals[0]: an unquoted 'text: more text' that YAML reads as a mapping; joined back into one string",
        "- task fields description, environment_id, metadata have no pbench counterpart; not converted",
    ):
        assert line in report, line
    assert (
        "- researcher: apps: AppWorld's todoist records (its own database, not in the release) are absent; "
        "only the accounts the requests state are seeded (1 task(s): researcher_task_014)" in report
    )


def test_validate_passes_and_says_once_per_episode_that_intents_are_unannotated(imported: Path) -> None:
    result = run_cli("validate", "--data", str(imported))
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    assert output.count("the rules user cannot track") == 2
    assert "episodes/researcher/episode.yaml: intents: 24 of 24 intents have no evidence, ask, question or reveal" in output
    assert "no file graders/Financier/Financier_task_017.py: its items will be graded as errors" in output


def test_a_second_import_replaces_the_first_but_foreign_folders_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    import_to(PIBENCH_MINI, out)
    (out / "personas" / "stale.yaml").write_text("id: stale\n")
    import_to(PIBENCH_MINI, out)
    assert not (out / "personas" / "stale.yaml").exists()
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    result = run_cli("import", "pibench", str(PIBENCH_MINI), "--out", str(foreign))
    assert result.exit_code == 2 and "holds no earlier import" in result.output
    assert (foreign / "notes.txt").read_text() == "mine"


def test_the_data_folder_alone_imports_too(tmp_path: Path) -> None:
    import_to(PIBENCH_MINI / "data", tmp_path / "out")
    assert (tmp_path / "out" / "graders" / "researcher" / "researcher_task_014_todoist.py").is_file()


# ---- malformed inputs ------------------------------------------------------------------------

GOOD_TASK = {
    "schema_version": "v2",
    "title": "T",
    "description": "",
    "task_type": "short_term_independent",
    "trigger": {"type": "user"},
    "intent": {"initial_input": "Please help.", "hidden_intent": [{"content": "Be brief."}]},
    "objectives": {"checklist": [{"criterion": "It is brief."}]},
}


def write_task(root: Path, task_id: str, **changes: Any) -> None:
    data = {**GOOD_TASK, "task_id": task_id, **changes}
    folder = root / "tasks" / task_id
    folder.mkdir(parents=True)
    (folder / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))


@pytest.fixture
def malformed(tmp_path: Path) -> Path:
    root = tmp_path / "checkout" / "data" / "p1"
    root.mkdir(parents=True)
    (root / "profile.yaml").write_text("user_id: someone_else\nrole: [not, text]\npreferences: {language: en}\n")
    (root / "tools.yaml").write_text("tool_names:\n  - gmail__send_email\n  - teleport__beam\n")
    (root / "episode.yaml").write_text(
        textwrap.dedent("""\
        tasks:
          - task_id: t_ok
            depends_on: [t_missing]
          - task_id: t_cycle_a
            depends_on: [t_cycle_b]
          - task_id: t_cycle_b
            depends_on: [t_cycle_a]
          - task_id: t_before
            depends_on: [t_after]
          - task_id: t_after
            depends_on: oops
          - task_id: t_no_intents
          - task_id: t_no_folder
          - just a string
          - task_id: t_broken
          - task_id: t_env_text
            depends_on: [t_no_intents]
          - task_id: t_script
          - task_id: t_ok
        """)
    )
    write_task(
        root,
        "t_ok",
        title=None,
        task_type=None,
        trigger=None,
        objectives={"checklist": [{"criterion": "Fine."}], "tools": {"gmail__send_email": {}}, "bogus": 1},
    )
    write_task(root, "t_cycle_a", objectives={"checklist": "not a list"})
    write_task(root, "t_cycle_b")
    write_task(root, "t_before")
    write_task(root, "t_after")
    write_task(root, "t_no_intents", intent={"initial_input": "Hi", "hidden_intent": "be brief"})
    (root / "tasks" / "t_broken").mkdir()
    (root / "tasks" / "t_broken" / "task.yaml").write_text("intent: [unclosed\n")
    write_task(root, "t_env_text", trigger={"type": "env"})
    write_task(
        root,
        "t_script",
        trigger={"type": "timer"},
        intent={"initial_input": "Go.", "hidden_intent": [{"content": "Be brief."}, "bare string", {"content": ""}]},
        objectives={
            "checklist": [{"criterion": "Heavy.", "weight": -1}, {"nope": 1}],
            "tools": [{"mcp_appworld_gmail__send_email": {"call": ["body"]}}, "not a mapping", {"teleport__beam": {}}],
            "tools_evaluation_path": "data/p1/scripts/boom.py",
        },
    )
    write_task(root, "t_unlisted")
    (root / "scripts").mkdir()
    (root / "scripts" / "boom.py").write_text("raise ImportError('broken grader module')\n")
    return tmp_path / "checkout"


def test_malformed_inputs_are_reported_item_by_item_and_the_rest_still_validates(malformed: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    import_to(malformed, out)
    report = (out / "IMPORT_REPORT.md").read_text()
    expected = {
        "p1/profile.yaml": [
            "user_id: is 'someone_else' but the folder is 'p1'; the folder name is used",
            "role: expected text, got list; ignored",
            "role: no role text; the simulated user knows only its name",
        ],
        "p1/tools.yaml": ["tool_names[1]: 'teleport__beam' is not a pbench tool; not offered"],
        "p1/episode.yaml": [
            "tasks[0].depends_on: 't_missing' is not a task of this episode; dependency dropped",
            "tasks[4].depends_on: expected a list, got str; ignored",
            "tasks[9].depends_on: 't_no_intents' is a task that was not imported; dependency dropped",
            "tasks[8]: no readable task 't_broken' under tasks/; skipped",
            "tasks[6]: no readable task 't_no_folder' under tasks/; skipped",
            "tasks[7]: expected a mapping with a task_id, got 'just a string'; skipped",
            "tasks[11]: 't_ok' is listed twice; the first entry is used",
            "tasks[1].depends_on: ['t_cycle_b'] form a cycle with 't_cycle_a'; dropped",
            "tasks: sessions moved so that each follows the tasks it depends on",
        ],
        "p1/tasks/t_ok/task.yaml": [
            "trigger: expected a mapping with a type, got None; a user trigger is assumed",
            "objectives.bogus: unknown field; not converted",
            "objectives.tools: expected a list, got dict; ignored",
        ],
        "p1/tasks/t_cycle_a/task.yaml": ["objectives.checklist: expected a list, got str; ignored"],
        "p1/tasks/t_no_intents/task.yaml": [
            "intent.hidden_intent: expected a list, got str",
            "intent.hidden_intent: no hidden intents; task not imported (π-Bench rejects it too)",
        ],
        "p1/tasks/t_broken/task.yaml": ["line 2, column 1: invalid YAML"],
        "p1/tasks/t_env_text/task.yaml": [
            "intent.initial_input: the env trigger's payload is not JSON with a 'source'; the event has no source"
        ],
        "p1/tasks/t_script/task.yaml": [
            "trigger.type: unknown trigger type 'timer'; a user request is assumed",
            "intent.hidden_intent[1]: expected {content: text}, got 'bare string'; skipped",
            "intent.hidden_intent[2]: expected {content: text}, got {'content': ''}; skipped",
            "objectives.checklist[0].weight: -1 is not a positive number; weight 1 used",
            "objectives.checklist[1]: expected {criterion: text}, got {'nope': 1}; skipped",
            "objectives.tools[1]: expected a mapping with one tool name, got 'not a mapping'; skipped",
            "objectives.tools: 'teleport__beam' is not a pbench tool; the agent cannot call it",
            "objectives.tools_evaluation_path: score([]) failed (boom.py: ImportError: broken grader module); one item stands for the whole script",
        ],
        "p1/tasks/t_unlisted/task.yaml": ["task_id: not listed in episode.yaml; not imported (π-Bench does not run it)"],
    }
    for file, lines in expected.items():
        section = report.split(f"### `{file}`", 1)[1].split("###", 1)[0]
        for line in lines:
            assert f"- {line}" in section, (file, line)
    episode = load_dataset(out).episodes["p1"]
    assert [(e.id, e.depends_on) for e in episode.episode.sessions] == [
        ("t_ok", []),
        ("t_after", []),
        ("t_before", ["t_after"]),
        ("t_env_text", []),
        ("t_script", []),
        ("t_cycle_a", []),
        ("t_cycle_b", ["t_cycle_a"]),
    ]
    ok = episode.session("t_ok")
    assert (ok.title, ok.category, ok.trigger.type) == ("t_ok", "unavailable", "user")
    assert episode.session("t_env_text").trigger.model_dump(exclude_defaults=True) == {"type": "event", "message": "Please help."}
    script = episode.session("t_script")
    assert [i.text for i in script.intents] == ["Be brief."] and [c.weight for c in script.checklist if c.grader == "rubric"] == [1.0]
    (rule,) = [c for c in script.checklist if c.grader == "rule"]
    assert isinstance(rule.check, PibenchScript) and rule.check.pibench_script.tools == ("gmail__send_email", "teleport__beam")
    assert "teleport__beam" not in script.tools
    result = run_cli("validate", "--data", str(out))
    assert result.exit_code == 0, result.output


def test_a_folder_without_personas_is_an_error(tmp_path: Path) -> None:
    result = run_cli("import", "pibench", str(tmp_path), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2 and "no π-Bench personas" in result.output
    assert not (tmp_path / "out").exists()


# ---- script grading --------------------------------------------------------------------------


def evidence_with(records: list[ToolRecord], root: Path, workspace: Path) -> Evidence:
    return Evidence([Message("agent", "done", 1)], records, Workspace(workspace), Memory(), GraderResolver(root))


def test_scripts_see_the_latest_allowed_call_per_turn_with_mcp_names(imported: Path, tmp_path: Path) -> None:
    created = [
        ToolRecord("todoist__create_task", {"title": t}, {"response": {"task_id": n}}, True, turn=1)
        for n, t in enumerate(("Morning stretching", "Lunch"))
    ]
    evidence = evidence_with([*created, ToolRecord("todoist__login", {}, {"response": {}}, True, turn=1)], imported, tmp_path / "ws")
    args = PibenchScriptArgs(path="researcher/researcher_task_014_todoist.py", tools=("todoist__create_task",))
    assert script_check(args.model_copy(update={"criterion": "task created with MCP tool name"}), evidence) is True
    # π-Bench keeps only the latest call of each tool per turn: the first task is not seen
    assert script_check(args.model_copy(update={"criterion": "Morning stretching created"}), evidence) is False
    assert script_check(args.model_copy(update={"criterion": "friday_plan.md written"}), evidence) is False
    (tmp_path / "ws" / "friday_plan.md").write_text("plan")
    fresh = evidence_with(evidence.tool_records, imported, tmp_path / "ws")
    assert script_check(args.model_copy(update={"criterion": "friday_plan.md written"}), fresh) is True
    assert script_check(args, fresh) is False  # null criterion: every criterion must pass
    with pytest.raises(ScriptError, match="no criterion 'gone'"):
        script_check(args.model_copy(update={"criterion": "gone"}), fresh)


def test_a_script_result_that_is_not_zero_or_one_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "graders").mkdir()
    (tmp_path / "graders" / "odd.py").write_text("def score(history):\n    return {'fine': 1, 'odd': 0.5}\n")
    evidence = evidence_with([], tmp_path, tmp_path / "ws")
    with pytest.raises(ScriptError, match="criterion 'odd' is 0.5, not 0 or 1"):
        script_check(PibenchScriptArgs(path="odd.py", criterion="fine"), evidence)


# ---- running an imported episode -------------------------------------------------------------


class FakeModels:
    """User model and judge: an intent is met when ``[id]`` is in the turn's files or tool calls,
    targeted when a question names ``[id]``; the judge passes items that mention a table."""

    def __init__(self) -> None:
        self.judge_prompts: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        prompt = prompt_text(body)
        if "already satisfied" in prompt:
            work = prompt_section(prompt, "Files created or changed in the latest turn") + prompt_section(
                prompt, "Tool calls in the latest assistant turn"
            )
            findings = [{"intent_id": i, "completed": f"[{i}]" in work, "evidence": f"[{i}]"} for i in open_requirement_ids(prompt)]
            return structured_reply(body, {"findings": findings})
        if "asks a question that targets" in prompt:
            latest = prompt_section(prompt, "The assistant's latest message")
            findings = [{"intent_id": i, "targeted": f"[{i}]" in latest, "question": f"[{i}]"} for i in open_requirement_ids(prompt)]
            return structured_reply(body, {"findings": findings, "relevance_order": open_requirement_ids(prompt)})
        if "role-playing the user" in prompt:
            return text_reply("Here is one more thing I need.")
        if "grading an AI assistant" in prompt:
            self.judge_prompts.append(prompt)
            verdict = "YES" if re.search(r"\btable\b", prompt_section(prompt, "Checklist item"), re.IGNORECASE) else "NO"
            return structured_reply(body, {"rationale": "stub judge", "verdict": verdict})
        return error_reply(400, "unexpected prompt")


def run_imported(imported: Path, db: Path, fake: FakeModels, persona: str, sessions: str) -> tuple[Any, dict[str, Any]]:
    with StubServer(fake) as server:
        result = run_cli(
            "episode",
            "--json",
            "--data",
            str(imported),
            "--persona",
            persona,
            "--sessions",
            sessions,
            "--model",
            AGENT,
            "--db",
            str(db),
            "--user",
            "llm",
            "--user-model",
            "openai:stub-user",
            "--judge-model",
            "openai:stub-judge",
            "--base-url",
            server.base_url,
        )
    return result, json.loads(result.stdout)


def grades(db: Path, run_id: str) -> dict[str, dict[str, Grade]]:
    store = Store(db)
    return {s.session_id: {g.item_id: g for g in store.rows(Grade, s.id)} for s in store.session_runs(run_id)}


def test_an_imported_episode_runs_with_the_llm_user_pooled_proc_and_script_items(imported: Path, tmp_path: Path) -> None:
    fake = FakeModels()  # the Todoist login the agent uses is the one researcher_task_014 states: the import seeded it
    result, out = run_imported(
        imported, tmp_path / "r.db", fake, "researcher", "researcher_task_002,researcher_task_008,researcher_task_014"
    )
    assert result.exit_code == 0, result.output
    by_id = {s["session_id"]: s for s in out["sessions"]}
    assert {s["status"] for s in out["sessions"]} == {"completed"}
    assert [(by_id[s]["completed"], by_id[s]["inferred"], by_id[s]["provided"]) for s in by_id] == [(0, 0, 3), (0, 1, 6), (1, 1, 1)]
    # Proc pools researcher_task_002 with the task that depends on it, as π-Bench does
    tasks = {t["session_id"]: t for t in out["tasks"]}
    assert tasks["researcher_task_008"]["trajectory"] == ["researcher_task_002", "researcher_task_008"]
    assert (tasks["researcher_task_008"]["proc"], tasks["researcher_task_008"]["proc_weight"]) == (pytest.approx(1 / 10), 2)
    assert tasks["researcher_task_002"]["proc_weight"] == 0  # scored through the task that depends on it
    assert out["proc"] == pytest.approx((2 * 1 / 10 + 2 / 3) / 3)  # the group weighs by its size
    # rubric items by the judge (3 of 8 mention a table); script items by the test-double script
    assert by_id["researcher_task_008"]["comp"] == pytest.approx(3 / 8)
    assert by_id["researcher_task_002"]["comp"] is None
    graded = grades(tmp_path / "r.db", out["run_id"])["researcher_task_014"]
    assert {i: g.score for i, g in graded.items()} == {"t1": 1, "t2": 0, "t3": 1}
    assert by_id["researcher_task_014"]["comp"] == pytest.approx(2 / 3)
    assert out["comp"] == pytest.approx((3 / 8 + 2 / 3) / 2)
    judged = [p for p in fake.judge_prompts if "laid out as a table" in prompt_section(p, "Checklist item")]
    assert judged and "(no files requested)" in prompt_section(judged[0], "Files")
    store = Store(tmp_path / "r.db")
    events = [e for s in store.session_runs(out["run_id"]) for e in store.rows(IntentEvent, s.id)]
    assert events and all(e.decided_by == "llm:openai:stub-user" for e in events)


def test_scripts_that_raise_or_are_missing_leave_their_items_errored(imported: Path, tmp_path: Path) -> None:
    fake = FakeModels()
    result, out = run_imported(imported, tmp_path / "f.db", fake, "Financier", "Financier_task_002,Financier_task_007,Financier_task_017")
    assert result.exit_code == 0, result.output
    by_id = {s["session_id"]: s for s in out["sessions"]}
    assert by_id["Financier_task_002"]["comp_basis"]["errored_items"] == 2
    assert by_id["Financier_task_017"]["comp_basis"] == {"graders": ["rubric"], "graded_items": 4, "ungraded_items": 0, "errored_items": 1}
    graded = grades(tmp_path / "f.db", out["run_id"])
    raising = graded["Financier_task_002"]
    assert {raising["t1"].score, raising["t2"].score} == {None} and "cannot read the history" in (raising["t1"].error or "")
    assert "no file graders/Financier/Financier_task_017.py" in (graded["Financier_task_017"]["t1"].error or "")
    judged = [p for p in fake.judge_prompts if "risk_correlation_pipeline.py: no such file" in prompt_section(p, "Files")]
    assert judged  # the judge is shown the files π-Bench's judge reads (files_read)


def test_the_rules_user_is_refused_with_a_pointer_to_the_llm_user(imported: Path, tmp_path: Path) -> None:
    result = run_cli("episode", "--data", str(imported), "--persona", "researcher", "--model", AGENT, "--db", str(tmp_path / "x.db"))
    assert result.exit_code == 2
    output = " ".join(result.output.split())
    assert "π-Bench" in output and "--user llm" in output
