"""`pbench validate` passes on good data and names file, field and reason on broken copies."""

from __future__ import annotations

import json
import shutil
import time
import weakref
from functools import partial
from pathlib import Path

import pytest

from proactive_bench.dataset import draft_dataset, runnable_dataset
from proactive_bench.validation import lint
from proactive_bench.validation.cues import CueShape, is_local, required_literals
from proactive_bench.validation.lint import drafts_problems, validate_all, validate_root, validate_suites
from tests.helpers.cli import edit_yaml as _edit, run_cli
from tests.helpers.paths import AGENTIF_MINI, DATA, EXAMPLE, MINI, ODYSSEY_MINI

LAB = "episodes/lab_manager/sessions"


def test_mini_dataset_validates(mini_copy: Path) -> None:
    result = run_cli("validate", "--data", str(mini_copy))
    assert result.exit_code == 0, result.output
    assert "ok: 1 episode(s), 6 warning(s)" in result.output  # its sessions are shorter than the documented ranges


@pytest.mark.skipif(not (DATA / "episodes" / "pharmacist").is_dir(), reason="shipped data not present")
@pytest.mark.xdist_group("shipped-validation")
@pytest.mark.usefixtures("shipped_validation_cache")
def test_shipped_dataset_validates() -> None:
    result = run_cli("validate", "--stats")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("session", "breakage", "expected"),
    [
        (
            "a1",
            lambda d: d["trigger"].update(message=d["trigger"]["message"] + " Please give the values in mg/L."),
            "episodes/mini/sessions/a1.yaml: intents[0]: the intent is stated in the initial request",
        ),
        (
            "a1",
            lambda d: d["intents"][1].update(ask=["\\bzzz\\b"]),
            "episodes/mini/sessions/a1.yaml: intents[1].ask: no ask regex matches the intent's own example question",
        ),
        (
            "a1",
            lambda d: d["intents"][1].update(ask=["mean", "preferences"]),
            "episodes/mini/sessions/a1.yaml: intents[1].ask: an ask regex matches the generic question 'Do you have any other preferences?'",
        ),
        (
            "a1",
            lambda d: d["checklist"][1]["check"].update(python="graders.mini.checks:nope"),
            "episodes/mini/sessions/a1.yaml: checklist[1].check: 'graders.mini.checks:nope': graders/mini/checks.py has no function 'nope'",
        ),
        (
            "a2",
            lambda d: d["checklist"][0].update(check={"file_exists": "out/missing.md"}),
            "episodes/mini/sessions/a2.yaml: checklist[0].check: 'out/missing.md' matches no seed file and no file a reference solution writes",
        ),
        ("a3", lambda d: d.update(checklist=[]), "episodes/mini/sessions/a3.yaml: checklist: a session needs at least one checklist item"),
        (
            "a3",
            lambda d: d.update(intents=[], reference=[d["reference"][0]], checklist=d["checklist"][:1]),
            "episodes/mini/sessions/a3.yaml: intents: a session needs at least one hidden intent",
        ),
        (
            "a1",
            lambda d: d["intents"][0].update(evidence={"file_exists": "notes/batch.csv"}),
            "episodes/mini/sessions/a1.yaml: intents[0].evidence: already holds before the session starts (seed plus earlier reference solutions)",
        ),
        (
            "a2",
            lambda d: d["intents"][0].update(evidence={"file_matches": {"path": "out/summary.md", "pattern": "mg/L"}}),
            "episodes/mini/sessions/a2.yaml: intents[0].evidence: already holds before the session starts",
        ),
        (
            "a2",
            lambda d: d["reference"].pop(1),
            "episodes/mini/sessions/a2.yaml: intents[0].evidence: the reference solution does not satisfy it",
        ),
        (
            "a2",
            lambda d: d["reference"][1]["args"].update(old="# Nope\n"),
            "episodes/mini/sessions/a2.yaml: reference[1]: edit_file failed: 'old' occurs 0 times in out/weekly.md",
        ),
        (
            "a3",
            lambda d: d["checklist"].append(
                {"id": "c9", "text": "t", "grader": "rule", "check": {"python": "graders.mini.checks:explode"}}
            ),
            "episodes/mini/sessions/a3.yaml: checklist[2].check: cannot be evaluated: RuntimeError('grader bug')",
        ),
        (
            "a3",
            lambda d: d["checklist"].append(
                {"id": "c9", "text": "t", "grader": "rule", "check": {"app_rows_added": {"table": "gmail_pigeon"}}}
            ),
            "episodes/mini/sessions/a3.yaml: checklist[2].check: unknown app table 'gmail_pigeon'",
        ),
        (
            "a3",
            lambda d: d["checklist"].append(
                {"id": "c9", "text": "t", "grader": "rule", "check": {"tool_count": {"group": "telepathy", "max": 1}}}
            ),
            "episodes/mini/sessions/a3.yaml: checklist[2].check: unknown tool group 'telepathy'",
        ),
        (
            "a3",
            lambda d: d.update(tools=["workspace", "teleport"]),
            "episodes/mini/sessions/a3.yaml: tools: unknown tool or tool group 'teleport'",
        ),
    ],
)
def test_broken_copy_fails_precisely(mini_copy: Path, session: str, breakage, expected: str) -> None:
    _edit(mini_copy / f"episodes/mini/sessions/{session}.yaml", breakage)
    result = run_cli("validate", "--data", str(mini_copy))
    assert result.exit_code == 1
    output = " ".join(result.output.split())
    assert expected in output
    where = ": ".join(expected.split(": ")[:2]) + ":"
    assert output.count(where) == 1, f"{where} is reported once"


def test_schema_errors_are_reported_without_traceback(mini_copy: Path) -> None:
    _edit(mini_copy / "episodes/mini/sessions/a2.yaml", lambda d: d["trigger"].update(type="telepathy"))
    result = run_cli("validate", "--data", str(mini_copy))
    assert result.exit_code == 1
    assert "episodes/mini/sessions/a2.yaml: trigger.type: Input should be 'user' or 'event'" in result.output
    assert "Traceback" not in result.output


def test_schema_command_prints_json_schema() -> None:
    result = run_cli("schema")
    schema = json.loads(result.stdout)
    assert {"Persona", "Episode", "Session", "HiddenIntent", "ChecklistItem"} <= set(schema["$defs"])
    defs = schema["$defs"]
    for kind in ("ToolCount", "AppRowsAdded", "FileNear", "LineCount", "TriggerRow"):
        assert defs[kind]["description"], kind
    assert "group" in defs["ToolCountArgs"]["properties"] and "within" in defs["NearArgs"]["properties"]


def test_rules_user_refuses_unannotated_intents_up_front(mini_copy: Path, tmp_path: Path) -> None:
    session = mini_copy / "episodes" / "mini" / "sessions" / "a3.yaml"
    text = session.read_text().replace('    ask: ["morning[^?]{0,40}(memory|remember)|(memory|remember)[^?]{0,40}morning"]\n', "")
    assert "ask:" not in text
    session.write_text(text)
    result = run_cli(
        "episode", "--data", str(mini_copy), "--persona", "mini", "--model", "scripted:passive", "--db", str(tmp_path / "x.db")
    )
    assert result.exit_code == 2
    assert "a3/memo" in result.output and "--user llm" in result.output


def test_a_loose_ask_cue_is_reported_with_an_off_target_question(mini_copy: Path) -> None:
    _edit(mini_copy / "episodes/mini/sessions/a1.yaml", lambda d: d["intents"][1].update(ask=["\\bmean\\b", "\\bcopy\\b"]))
    result = run_cli("validate", "--data", str(mini_copy))
    assert result.exit_code == 0, result.output
    line = next(out for out in result.output.splitlines() if "intents[1].ask[1]" in out)
    assert line.startswith("warning episodes/mini/sessions/a1.yaml: intents[1].ask[1]: fires on ")
    assert "off-target question(s), e.g. 'Should I copy" in line and "not about mean" in line
    assert "intents[1].ask[0]" not in result.output  # the focused cue is not reported


def test_evidence_a_keyword_stuffed_file_satisfies_is_reported(mini_copy: Path) -> None:
    """A bare search for a word of the request in a file the agent writes anyway proves nothing."""
    _edit(
        mini_copy / "episodes/mini/sessions/a1.yaml",
        lambda d: d["intents"][1].update(evidence={"file_matches": {"path": "out/summary.md", "pattern": "batch"}}),
    )
    result = run_cli("validate", "--data", str(mini_copy))
    assert (
        "warning episodes/mini/sessions/a1.yaml: intents[1].evidence: holds on files and memory stuffed with what the agent can copy"
        in result.output
    )
    assert "intents[0].evidence" not in result.output  # mg/L is written by the work, not found in the inputs


def test_stuffing_is_linted_on_the_app_rows_the_session_sees(example_copy: Path) -> None:
    """The backorder e-mail appears when s2 starts: a check that needs it and a stuffable word is caught there."""
    from proactive_bench.dataset.loading import load_episode
    from proactive_bench.validation.gaming import stuffable_evidence

    needs_email = {
        "all": [
            {"app_rows": {"table": "gmail_email", "where": {"subject": "Backorder"}}},
            {"file_matches": {"path": "orders/week-12.md", "pattern": "concentrate"}},
        ]
    }
    _edit(example_copy / LAB / "s2_pfa_backorder.yaml", lambda d: d["checklist"][0].update(check=needs_email))
    problems = [str(p) for p in stuffable_evidence(load_episode(example_copy, "lab_manager"), example_copy)]
    assert len(problems) == 1 and problems[0].startswith(
        f"{LAB}/s2_pfa_backorder.yaml: checklist[0].check: holds on files and memory stuffed"
    ), problems


# --------------------------------------------------------------------------- one pass, each problem once


@pytest.fixture
def two_broken_episodes(mini_copy: Path) -> Path:
    """The mini dataset plus the worked example in one root, with one of each authoring problem."""
    shutil.copytree(EXAMPLE / "episodes" / "lab_manager", mini_copy / "episodes" / "lab_manager")
    shutil.copy(EXAMPLE / "personas" / "lab_manager.yaml", mini_copy / "personas")
    lab = mini_copy / LAB
    _edit(lab / "s1_week12_order.yaml", lambda d: d.update(tools=["workspace", "teleport"]))
    _edit(lab / "s2_pfa_backorder.yaml", lambda d: d["intents"][3].update(source_session="s3_week13_order"))
    _edit(
        lab / "s3_week13_order.yaml",
        lambda d: (d["intents"][2].pop("source_session"), d["intents"][4].update(source_session="s1_week12_order")),
    )
    (mini_copy / "episodes/lab_manager/apps/s9_gone").mkdir()
    mini = mini_copy / "episodes/mini/sessions"
    _edit(mini / "a1.yaml", lambda d: (d.update(category="Z"), d["reference"][2]["args"].update(old="Nothing like this\n")))
    _edit(mini / "a2.yaml", lambda d: d["trigger"].update(type="telepathy"))
    _edit(mini / "a3.yaml", lambda d: d["checklist"][1].update(check={"python": "graders.mini.checks:nope"}))
    return mini_copy


EVERY_PROBLEM = [
    f"error {LAB}/s1_week12_order.yaml: tools: unknown tool or tool group 'teleport'",
    f"warning {LAB}/s2_pfa_backorder.yaml: reference: not replayed: it depends on s1_week12_order, which has errors",
    f"warning {LAB}/s3_week13_order.yaml: reference: not replayed: it depends on s1_week12_order, which has errors",
    f"error {LAB}/s2_pfa_backorder.yaml: intents[3].source_session: 's3_week13_order' does not come before this session",
    f"error {LAB}/s3_week13_order.yaml: intents[2].source_session: a persistent intent names the earlier session",
    f"error {LAB}/s3_week13_order.yaml: intents[4].source_session: only a persistent intent has a source session",
    "error episodes/lab_manager/apps/s9_gone: no session of the episode has this id",
    "error episodes/mini/sessions/a1.yaml: category: 'Z' is not a taxonomy code",
    "error episodes/mini/sessions/a1.yaml: reference[2]: edit_file failed: 'old' occurs 0 times in out/summary.md; it must occur exactly once (the first failing step",
    "error episodes/mini/sessions/a2.yaml: trigger.type: Input should be 'user' or 'event'",
    "error episodes/mini/sessions/a3.yaml: checklist[1].check: 'graders.mini.checks:nope': graders/mini/checks.py has no function 'nope'",
    "warning episodes/mini/sessions/a1.yaml: intents: 2 hidden intent(s); a session has 5-12",
    "warning episodes/mini/sessions/a3.yaml: checklist: 2 checklist item(s); a session has 5-10",
]


def test_every_problem_is_reported_once_in_one_run(two_broken_episodes: Path) -> None:
    result = run_cli("validate", "--data", str(two_broken_episodes))
    lines = [" ".join(line.split()) for line in result.output.splitlines()]
    assert result.exit_code == 1 and "Traceback" not in result.output
    for expected in EVERY_PROBLEM:
        hits = [line for line in lines if line.startswith(expected)]
        assert len(hits) == 1, (expected, result.output)
    # the cascade is cut: nothing after a1's broken step, nothing of s3 failing for want of s1's output
    assert not any("a1.yaml: intents" in line and "does not satisfy" in line for line in lines)
    assert not any("read_file failed" in line or "cannot be evaluated" in line for line in lines)
    assert not any("nope" in line and "a3.yaml" in line for line in lines if not line.startswith(EVERY_PROBLEM[10]))
    problems = [line for line in lines if line.startswith(("error ", "warning "))]
    assert len(problems) == len(set(problems))
    errors = sum(line.startswith("error ") for line in problems)
    assert f"{errors} error(s), {len(problems) - errors} warning(s)" in " ".join(lines)


def test_json_output_lists_the_same_problems(two_broken_episodes: Path) -> None:
    text = run_cli("validate", "--data", str(two_broken_episodes)).output
    result = run_cli("validate", "--data", str(two_broken_episodes), "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["errors"] == sum(p["level"] == "error" for p in report["problems"])
    assert {"file", "field", "reason", "level"} == set(report["problems"][0])
    shown = [
        f"{p['level']} {p['file']}: {p['field']}: {p['reason']}" if p["field"] else f"{p['level']} {p['file']}: {p['reason']}"
        for p in report["problems"]
    ]
    assert all(" ".join(s.split()) in " ".join(text.split()) for s in shown)


def test_a_later_session_that_does_not_depend_on_a_broken_one_is_still_replayed(mini_copy: Path) -> None:
    _edit(mini_copy / "episodes/mini/sessions/a2.yaml", lambda d: d["trigger"].update(type="telepathy"))
    _edit(mini_copy / "episodes/mini/sessions/a3.yaml", lambda d: d["reference"].pop(1))  # a3 does not depend on a2
    result = run_cli("validate", "--data", str(mini_copy))
    assert "a3.yaml: intents[0].evidence: the reference solution does not satisfy it" in " ".join(result.output.split())


def test_a_failure_after_a_broken_session_it_does_not_declare_names_that_session(mini_copy: Path) -> None:
    _edit(mini_copy / "episodes/mini/sessions/a1.yaml", lambda d: d.update(tools=["workspace", "teleport"]))
    _edit(
        mini_copy / "episodes/mini/sessions/a3.yaml",
        lambda d: d["reference"].insert(0, {"tool": "read_file", "args": {"path": "out/summary.md"}}),
    )
    output = " ".join(run_cli("validate", "--data", str(mini_copy)).output.split())
    assert "a3.yaml: reference[0]: read_file failed" in output
    assert "a1 has errors: if this session needs its output, add it to depends_on" in output
    assert "a2.yaml: reference: not replayed: it depends on a1, which has errors" in output


# --------------------------------------------------------------------------- every independent error of one file


def _validate_lines(root: Path) -> list[str]:
    result = run_cli("validate", "--data", str(root))
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    return [" ".join(line.split()) for line in result.output.splitlines()]


def _hits(lines: list[str], start: str) -> int:
    return sum(line.startswith(start) for line in lines)


def test_an_unknown_tool_group_does_not_hide_a_bad_category(mini_copy: Path) -> None:
    _edit(mini_copy / "episodes/mini/sessions/a1.yaml", lambda d: d.update(tools=["workspace", "telepathy", "teleport"], category="Z"))
    lines = _validate_lines(mini_copy)
    a1 = "error episodes/mini/sessions/a1.yaml"
    assert _hits(lines, f"{a1}: tools: unknown tool or tool group 'telepathy'") == 1
    assert _hits(lines, f"{a1}: tools: unknown tool or tool group 'teleport'") == 1
    assert _hits(lines, f"{a1}: category: 'Z' is not a taxonomy code") == 1
    assert not any("is not among the session's tools" in line for line in lines)  # which tools the typo meant is not known
    assert _hits(lines, "warning episodes/mini/sessions/a2.yaml: reference: not replayed: it depends on a1, which has errors") == 1


def test_a_schema_error_in_one_intent_does_not_hide_the_other_fields(mini_copy: Path) -> None:
    def breaks(d: dict) -> None:
        d["category"] = "Z"
        d["intents"][0]["scope"] = "forever"  # a schema error in one intent...
        d["intents"][1]["source_session"] = "a1"  # ...and independent ones in the next intent and the checklist
        d["checklist"][0]["check"] = {"app_rows_added": {"table": "gmail_pigeon"}}

    _edit(mini_copy / "episodes/mini/sessions/a1.yaml", breaks)
    lines = _validate_lines(mini_copy)
    a1 = "error episodes/mini/sessions/a1.yaml"
    assert _hits(lines, f"{a1}: intents[0].scope: Input should be 'session' or 'persistent'") == 1
    assert _hits(lines, f"{a1}: category: 'Z' is not a taxonomy code") == 1
    assert _hits(lines, f"{a1}: intents[1].source_session: only a persistent intent has a source session") == 1  # the file's numbering
    assert _hits(lines, f"{a1}: checklist[0].check: unknown app table 'gmail_pigeon'") == 1
    assert not any("a1.yaml: intents:" in line for line in lines)  # a count of what is left would count the broken intent out


def test_a_missing_required_field_does_not_hide_a_bad_category(mini_copy: Path) -> None:
    _edit(
        mini_copy / "episodes/mini/sessions/a3.yaml",
        lambda d: (d.pop("title"), d["trigger"].update(type="telepathy"), d.update(category="Z")),
    )
    lines = _validate_lines(mini_copy)
    a3 = "error episodes/mini/sessions/a3.yaml"
    for expected in ("title: Field required", "trigger.type: Input should be 'user' or 'event'", "category: 'Z' is not a taxonomy code"):
        assert _hits(lines, f"{a3}: {expected}") == 1, (expected, lines)


def test_what_points_at_a_broken_intent_is_not_reported_again(mini_copy: Path) -> None:
    """The cascade stays cut: the checklist item and reference step naming an intent that does not parse are its consequence."""

    def breaks(d: dict) -> None:
        d["intents"][1]["evidence"] = {"file_exist": "out/summary.md"}  # intent 'mean' does not parse
        d["checklist"][2]["intent"] = "meen"  # an independent typo

    _edit(mini_copy / "episodes/mini/sessions/a1.yaml", breaks)
    lines = _validate_lines(mini_copy)
    a1 = "error episodes/mini/sessions/a1.yaml"
    assert _hits(lines, f"{a1}: intents[1].evidence: a predicate is a mapping with exactly one key") == 1
    assert _hits(lines, f"{a1}: checklist[2].intent: item 'c3' names unknown intent 'meen'") == 1
    assert not any("'mean'" in line for line in lines), lines  # c2 and reference[3] point at the broken intent
    errors = [line for line in lines if line.startswith("error ")]
    assert len(errors) == 2, errors


def test_every_broken_link_of_a_session_is_reported(mini_copy: Path) -> None:
    def breaks(d: dict) -> None:
        d["intents"].append(dict(d["intents"][0]))  # a repeated intent id
        d["intents"][1]["scope"] = "forever"  # beside a broken intent
        d["checklist"][1]["intent"] = "median"
        d["reference"][2]["requires"] = ["unit"]

    _edit(mini_copy / "episodes/mini/sessions/a1.yaml", breaks)
    lines = _validate_lines(mini_copy)
    a1 = "error episodes/mini/sessions/a1.yaml"
    assert _hits(lines, f"{a1}: intents: duplicate ids: ['units']") == 1
    assert _hits(lines, f"{a1}: checklist[1].intent: item 'c2' names unknown intent 'median'") == 1
    assert _hits(lines, f"{a1}: reference[2].requires: names unknown intents: ['unit']") == 1
    assert _hits(lines, f"{a1}: intents[1].scope: Input should be") == 1
    assert sum(line.startswith("error ") for line in lines) == 4, lines  # reference[3] requires the broken intent: not again


def test_a_broken_persona_or_episode_file_does_not_hide_the_sessions(mini_copy: Path) -> None:
    _edit(mini_copy / "personas/tester.yaml", lambda d: d.pop("name"))
    _edit(
        mini_copy / "episodes/mini/episode.yaml",
        lambda d: (
            d.update(title=["not", "text"]),
            d["sessions"][1].update(depends_on=["nope"]),
            d["sessions"][2].update(depends_on=["a9"]),
        ),
    )
    _edit(mini_copy / "episodes/mini/sessions/a3.yaml", lambda d: d.update(category="Z"))
    lines = _validate_lines(mini_copy)
    assert _hits(lines, "error personas/tester.yaml: name: Field required") == 1
    assert _hits(lines, "error episodes/mini/episode.yaml: title: Input should be a valid string") == 1
    assert _hits(lines, "error episodes/mini/episode.yaml: sessions[1].depends_on: session 'a2' depends on 'nope'") == 1
    assert _hits(lines, "error episodes/mini/episode.yaml: sessions[2].depends_on: session 'a3' depends on 'a9'") == 1
    assert _hits(lines, "error episodes/mini/sessions/a3.yaml: category: 'Z' is not a taxonomy code") == 1


def test_checks_that_read_a_broken_field_are_not_reported(mini_copy: Path) -> None:
    """A reference step that does not parse leaves unknown which files the references write; a broken ``tools`` which tools are offered."""

    def breaks(d: dict) -> None:
        d["reference"][0].update(say="Noting it.")  # the only step that writes notes/prefs.md, which checklist[0] reads
        d["reference"].insert(1, {"tool": "gmail__create_draft", "args": {}})
        d.update(tools="workspace, memory, gmail", category="Z")

    _edit(mini_copy / "episodes/mini/sessions/a3.yaml", breaks)
    lines = _validate_lines(mini_copy)
    a3 = "error episodes/mini/sessions/a3.yaml"
    assert _hits(lines, f"{a3}: reference[0]: a reference step has exactly one of 'tool' or 'say'") == 1
    assert _hits(lines, f"{a3}: tools: Input should be a valid list") == 1
    assert _hits(lines, f"{a3}: category: 'Z' is not a taxonomy code") == 1
    assert not any("matches no seed file" in line or "not among the session's tools" in line for line in lines), lines
    assert sum(line.startswith("error ") for line in lines) == 3, lines


ODYSSEY_TASK = "odyssey/od_test_email_supplier/task.yaml"


@pytest.fixture
def odyssey_copy(tmp_path: Path) -> Path:
    shutil.copytree(ODYSSEY_MINI, tmp_path / "od")
    return tmp_path / "od"


def test_a_task_file_schema_error_does_not_hide_its_other_checks(odyssey_copy: Path) -> None:
    def breaks(d: dict) -> None:
        d["details"][0]["cue"] = "(unclosed"  # detail d1 does not parse...
        d["details"][1]["cue"] = "forty boxes"  # ...and d2 is found nowhere in the history
        d["tools"] = ["teleport"]
        d["id"] = "od_other"

    _edit(odyssey_copy / ODYSSEY_TASK, breaks)
    lines = _validate_lines(odyssey_copy)
    task = f"error {ODYSSEY_TASK}"
    assert _hits(lines, f"{task}: details[0].cue: invalid regular expression") == 1
    assert _hits(lines, f"{task}: details[1].cue: 'forty boxes' matches nothing in the history") == 1  # the file's numbering
    assert _hits(lines, f"{task}: tools: unknown tool or tool group 'teleport'") == 1
    assert _hits(lines, f"{task}: id: is 'od_other' but the folder is named 'od_test_email_supplier'") == 1
    assert not any("unknown detail ids" in line or "is used by no reference step" in line for line in lines), lines  # d1 is cut
    assert sum(line.startswith(f"error {ODYSSEY_TASK}") for line in lines) == 4, lines


def test_every_broken_rule_across_a_task_s_fields_is_reported(odyssey_copy: Path) -> None:
    def breaks(d: dict) -> None:
        d["history"][2].update(date="2025-04-04")
        d["reference"][1].update(details=["d1", "d9"])
        d["criteria"][0]["args"].update(to="x", bcc="a@b.example")

    _edit(odyssey_copy / ODYSSEY_TASK, breaks)
    lines = _validate_lines(odyssey_copy)
    assert _hits(lines, f"error {ODYSSEY_TASK}: history[2].date: 2025-04-04 does not come after") == 1
    assert _hits(lines, f"error {ODYSSEY_TASK}: reference[1].details: unknown detail ids ['d9']") == 1
    (criterion,) = [line for line in lines if line.startswith(f"error {ODYSSEY_TASK}: criteria[0]: email_sent: ")]
    assert "to: String should have at least 3 characters" in criterion and "bcc: unknown argument" in criterion


def test_sessions_are_not_replayed_when_the_episode_s_order_is_broken(mini_copy: Path) -> None:
    """An entry of episode.yaml that does not parse leaves the order and dependencies unknown: the sessions are checked, not replayed."""
    _edit(mini_copy / "episodes/mini/episode.yaml", lambda d: d["sessions"][0].update(depends_on="a0"))  # a1's entry is lost
    _edit(mini_copy / "episodes/mini/sessions/a3.yaml", lambda d: (d["reference"].pop(1), d.update(category="Z")))  # would fail its replay
    lines = _validate_lines(mini_copy)
    assert _hits(lines, "error episodes/mini/episode.yaml: sessions[0].depends_on: Input should be a valid list") == 1
    assert _hits(lines, "error episodes/mini/sessions/a3.yaml: category: 'Z' is not a taxonomy code") == 1
    assert not any("does not satisfy" in line or "failed" in line or "not replayed" in line or "depends on" in line for line in lines), (
        lines
    )


def test_episodes_checked_in_forked_workers_report_what_one_process_does(two_broken_episodes: Path) -> None:
    """``validate`` checks the episodes over the cores; in the same order and with the same problems as one by one."""
    drafts, _problems = draft_dataset(two_broken_episodes)
    root = runnable_dataset(two_broken_episodes, drafts).root
    serial = drafts_problems(list(drafts.values()), root, workers=1)
    forked = drafts_problems(list(drafts.values()), root, workers=2)
    assert len(serial) == 2 and all(serial)
    assert forked == serial


def test_validate_all_reports_what_the_episodes_and_the_suites_report_apart(two_broken_episodes: Path) -> None:
    """The suites' tasks load in the episodes' workers: the same tasks, and the same problems in the same order."""
    shutil.copytree(ODYSSEY_MINI / "odyssey", two_broken_episodes / "odyssey")
    broken = two_broken_episodes / "odyssey/od_test_vendor_memo/task.yaml"
    broken.write_text(broken.read_text() + "\nunknown_field: 1\n")
    dataset, problems = validate_root(two_broken_episodes)
    tasks, task_problems = validate_suites(two_broken_episodes)
    together, together_tasks, together_problems = validate_all(two_broken_episodes)
    assert together_problems == problems + task_problems
    assert task_problems and any(p.level == "error" for p in problems)
    assert sorted(together_tasks) == sorted(tasks) and sorted(together.episodes) == sorted(dataset.episodes)


def test_a_suite_s_tasks_checked_in_shares_report_what_its_load_all_does(
    two_broken_episodes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shares of one task each, over the workers after the episodes: the tasks in the same order, the same problems."""
    shutil.copytree(ODYSSEY_MINI / "odyssey", two_broken_episodes / "odyssey")
    shutil.copytree(AGENTIF_MINI / "agentif", two_broken_episodes / "agentif")
    broken = two_broken_episodes / "odyssey/od_test_vendor_memo/task.yaml"
    broken.write_text(broken.read_text() + "\nunknown_field: 1\n")
    _edit(two_broken_episodes / "odyssey/od_test_email_supplier/task.yaml", lambda d: d["reference"][0].update(details=["d9"]))
    tasks, task_problems = validate_suites(two_broken_episodes)
    monkeypatch.setattr(lint, "TASKS_PER_JOB", 1)
    jobs = [job for name in ("odyssey", "agentif") for job in lint._suite_jobs(name, two_broken_episodes)]
    assert len(jobs) == 6 and {lint._size(job) for job in jobs} == {0}  # after every episode
    _, together_tasks, together_problems = validate_all(two_broken_episodes)
    assert list(together_tasks) == list(tasks) and len(tasks) == 4
    assert together_problems[-len(task_problems) :] == task_problems
    assert {p.file for p in task_problems} >= {"odyssey/od_test_vendor_memo/task.yaml", "odyssey/od_test_email_supplier/task.yaml"}


def test_an_episode_job_hands_back_the_shape_of_each_ask_pattern_for_the_cues_across_personas() -> None:
    """The parent looks for the cues across personas with the shapes the worker worked out (no parse of its own)."""
    draft, _problems, _checked, shapes = lint._checked_episode(MINI.resolve(), "mini")
    assert draft is not None
    asks = {p for s in draft.episode.sessions for i in s.intents for p in i.ask}
    assert len(asks) > 2 and shapes == {p: CueShape(required_literals(p), is_local(p)) for p in asks}


def test_the_episode_with_the_most_session_text_is_checked_first() -> None:
    """The shipped episodes all have twenty sessions; the one with the longest session files (the most steps to
    replay) starts first, so it does not end last on its worker."""
    root = DATA.resolve()
    sizes = {p: lint._size(partial(lint._checked_episode, root, p)) for p in ("pharmacist", "researcher")}
    sessions = {p: len(list((root / "episodes" / p / "sessions").glob("*.yaml"))) for p in sizes}
    assert sessions["pharmacist"] == sessions["researcher"] and sizes["pharmacist"] > sizes["researcher"] > 0


def _wait_for(flag: Path) -> str:
    """A worker job that ends when ``flag`` appears (or after 20 s)."""
    deadline = time.monotonic() + 20
    while not flag.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return "saw the flag" if flag.exists() else "timed out"


def test_the_workers_results_stream_in_while_the_later_jobs_run(tmp_path: Path) -> None:
    """The first result reaches the caller before the second job ends: it works on it (the cues) meanwhile."""
    flag = tmp_path / "flag"
    found = lint._streamed([partial(str, "first"), partial(_wait_for, flag)], workers=2)
    assert next(found) == "first"
    flag.touch()  # only now may the second job end
    assert list(found) == ["saw the flag"]


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_a_job_s_cyclic_garbage_is_collected_when_it_ends() -> None:
    """No collection while a job runs; the cycles it leaves are gone before the next starts."""
    made: list[weakref.ref[_Cycle]] = []

    def cycle() -> bool:
        made.append(weakref.ref(_Cycle()))
        return made[0]() is not None  # not collected while the job runs

    def dead() -> bool:
        return made[0]() is None

    assert lint._in_workers([cycle, dead], workers=1) == [True, True]
