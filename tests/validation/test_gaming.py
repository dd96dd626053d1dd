"""`pbench validate` flags cues a fixed question can fire and evidence an agent can satisfy by copying."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from tests.helpers.cli import edit_yaml as _edit, run_cli
from tests.helpers.paths import DATA

A1 = "episodes/mini/sessions/a1.yaml"


def _warnings(root: Path) -> list[str]:
    result = run_cli("validate", "--data", str(root))
    assert result.exit_code == 0, result.output
    return [" ".join(line.split()) for line in result.output.splitlines() if line.startswith("warning ")]


@pytest.mark.parametrize(
    ("cue", "expected"),
    [
        ("tracker", "intents[1].ask[1]: the alternative 'tracker' fires on the bare generic noun probe 'Should I update the tracker?'"),
        (
            "mean value|\\bcsv\\b",
            "intents[1].ask[1]: the alternative '\\\\bcsv\\\\b' fires on the bare file type probe 'Should I export a CSV?'",
        ),
        ("mean value|2025", "intents[1].ask[1]: the alternative '2025' fires on the bare year probe 'Is this for 2025?'"),
        ("\\bmean\\b|notes/", "intents[1].ask[1]: the alternative 'notes/' fires on the bare folder probe 'Should I use notes/?'"),
        ("INDEX\\.md", "intents[1].ask[1]: the alternative 'INDEX\\\\.md' fires on the bare file name probe 'Should I update INDEX.md?'"),
    ],
)
def test_a_cue_that_fires_on_a_bare_element_is_reported(mini_copy: Path, cue: str, expected: str) -> None:
    _edit(mini_copy / A1, lambda d: d["intents"][1].update(ask=["\\bmean\\b", cue]))
    lines = [w for w in _warnings(mini_copy) if "ask[" in w]
    assert lines == [
        f"warning {A1}: {expected}; name the requirement (the thing and what about it), not only the thing: a question not about mean would count"
    ]


def test_a_cue_that_fires_on_a_fixed_convention_question_is_reported(mini_copy: Path) -> None:
    _edit(mini_copy / A1, lambda d: d["intents"][1].update(ask=["\\bmean\\b", "reports? index"]))
    (line,) = [w for w in _warnings(mini_copy) if "ask[" in w]
    assert line.startswith(f"warning {A1}: intents[1].ask[1]: fires on ")
    assert "off-target question(s), e.g. 'Should I add this report to your reports index?'" in line


def test_a_cue_that_fires_on_a_convention_question_about_a_workspace_file_is_reported(mini_copy: Path) -> None:
    """No bare probe and no fixed question names notes/batch.csv: the question built from the workspace does."""
    _edit(mini_copy / A1, lambda d: d["intents"][1].update(ask=["\\bmean\\b", "add a row[^?]*notes/"]))
    (line,) = [w for w in _warnings(mini_copy) if "ask[" in w]
    assert line == (
        f"warning {A1}: intents[1].ask[1]: fires on 1 convention question(s) about a workspace file, "
        "e.g. 'Should I add a row for this to notes/batch.csv?': a question not about mean would count"
    )


def test_a_cue_that_fires_on_another_personas_question_is_reported(mini_copy: Path) -> None:
    """A second persona asks about its own morning routine; the first persona's memory cue fires on it."""
    persona = yaml.safe_load((mini_copy / "personas/tester.yaml").read_text())
    persona["id"] = "tester2"
    (mini_copy / "personas/tester2.yaml").write_text(yaml.safe_dump(persona))
    other = mini_copy / "episodes/other"
    shutil.copytree(mini_copy / "episodes/mini", other)
    for name in ("a1", "a2"):
        (other / f"sessions/{name}.yaml").unlink()
    (other / "episode.yaml").write_text("id: other\npersona: tester2\nsessions:\n  - id: a3\n")
    _edit(
        other / "sessions/a3.yaml",
        lambda d: d["intents"][0].update(question="Should I remember that your morning run comes first?", ask=["morning run"]),
    )
    lines = [w for w in _warnings(mini_copy) if "another persona" in w]
    assert lines == [
        "warning episodes/mini/sessions/a3.yaml: intents[0].ask[0]: fires on another persona's question "
        "'Should I remember that your morning run comes first?' (other/a3/memo): a question not about memo would count"
    ]


def test_memory_evidence_a_dump_of_the_request_satisfies_is_reported(mini_copy: Path) -> None:
    """The request says "morning": a memory entry holding every word of it satisfies a bare search for it."""
    _edit(mini_copy / "episodes/mini/sessions/a3.yaml", lambda d: d["intents"][0].update(evidence={"memory_matches": "morning"}))
    (line,) = [w for w in _warnings(mini_copy) if "stuffed" in w]
    assert line.startswith(
        "warning episodes/mini/sessions/a3.yaml: intents[0].evidence: holds on files and memory stuffed with what the agent"
    )
    assert "(on one line)" in line


def test_evidence_an_earlier_reveal_copied_on_its_own_line_satisfies_is_reported(mini_copy: Path) -> None:
    """a1's reveal "Please give the values in mg/L." copied into a2's note satisfies a bare search for mg/L."""
    _edit(
        mini_copy / "episodes/mini/sessions/a2.yaml",
        lambda d: d["intents"][0].update(evidence={"file_matches": {"path": "out/weekly.md", "pattern": "mg/L"}}),
    )
    (line,) = [w for w in _warnings(mini_copy) if "stuffed" in w]
    assert line.startswith("warning episodes/mini/sessions/a2.yaml: intents[0].evidence: holds on files and memory stuffed")
    assert "(one sentence or ID code per line)" in line


@pytest.mark.skipif(not (DATA / "episodes" / "pharmacist").is_dir(), reason="shipped data not present")
@pytest.mark.xdist_group("shipped-validation")
@pytest.mark.usefixtures("shipped_validation_cache")
def test_shipped_cues_pass_every_cue_check() -> None:
    result = run_cli("validate")
    assert result.exit_code == 0, result.output
    flagged = [line for line in result.output.splitlines() if line.startswith("warning ") and ".ask[" in line]
    assert flagged == []


def test_stuffing_writes_documents_in_their_format_and_puts_every_file_back_byte_for_byte(tmp_path: Path) -> None:
    """A grader that reads a .docx's text is tried on a real document (plain text in a .docx is unreadable, so it could
    never be flagged); a non-UTF-8 file the reference rewrites comes back unchanged and the folders stuffing made go."""
    from proactive_bench.data_model import Evidence
    from proactive_bench.dataset import Session
    from proactive_bench.env import Memory, SteadyWorkspace, ToolEnv, Workspace, file_text
    from proactive_bench.validation.gaming import SessionStart, stuffable_session

    workspace = Workspace(tmp_path / "ws")
    binary = bytes(range(256)) * 4  # not UTF-8: a text round trip would change it
    workspace.write_bytes("data/raw.bin", binary)
    seen: list[str] = []

    def reads_the_report(evidence: Evidence) -> bool:
        text = file_text(evidence.workspace, "out/new/report.docx", 10_000)
        seen.append(text)
        return "batch" in text

    session = Session.model_validate(
        {
            "id": "s1",
            "title": "Report",
            "category": "D",
            "trigger": {"type": "user", "message": "Write the batch report."},
            "checklist": [{"id": "c1", "text": "Names the batch", "grader": "rule", "check": {"python": "graders.report:names_batch"}}],
            "reference": [
                {"tool": "docx_create", "args": {"path": "out/new/report.docx", "blocks": [{"type": "paragraph", "text": "Batch 7"}]}},
                {"tool": "write_file", "args": {"path": "data/raw.bin", "content": "rewritten"}},
            ],
        }
    )
    env = ToolEnv(workspace, Memory())
    evidence = Evidence([], [], SteadyWorkspace(workspace), env.memory, lambda ref: reads_the_report)
    problems = stuffable_session(SessionStart(session, "s1.yaml", env, evidence, []))

    assert [p.field for p in problems] == ["checklist[0].check"]  # "batch" copied from the request, read from a real document
    assert any("batch" in text for text in seen)
    assert workspace.read_bytes("data/raw.bin", limit=len(binary)) == binary
    assert not (workspace.root / "out").exists()


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("", ": a folder, not a file"),
        (".", ".: a folder, not a file"),
        ("notes", "notes: a folder, not a file"),
        ("notes/batch.csv/x.md", "notes/batch.csv/x.md: a file or symlink on the way"),
        ("../x.md", "'..' is not allowed in paths: '../x.md'"),
    ],
)
def test_a_reference_writing_where_no_file_can_be_is_one_error_line(mini_copy: Path, path: str, reason: str) -> None:
    """The stuffing check skips a path no file can have (it tried to write there, then to remove what it found: the
    workspace itself, a folder), and the replay reports the step, as for any other failing step."""
    _edit(mini_copy / A1, lambda d: d["reference"][1]["args"].update(path=path))
    result = run_cli("validate", "--data", str(mini_copy))
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error ")]
    assert errors == [
        f"error {A1}: reference[1]: write_file failed: {reason} (the first failing step; the session's later checks are skipped)"
    ]
