"""Predicates for counts and closeness: tool_count, app_rows_added, file_near, line_count."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import TypeAdapter, ValidationError

from proactive_bench.data_model.evidence import Evidence
from proactive_bench.dataset.loading import GraderResolver
from proactive_bench.dataset.predicates import Predicate, evaluate, near
from proactive_bench.env.apps.base import AppStore
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace
from tests.helpers.paths import REPO

PREDICATE = TypeAdapter(Predicate)
SEED = """
todoist_user:
  - {id: 1, name: Sam McCoy, email: sam@example.org, password: pw}
todoist_project:
  - {id: 1, owner_id: 1, name: Inbox}
todoist_task:
  - {id: 1, project_id: 1, title: Order gloves}
"""


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    apps = AppStore()
    (tmp_path / "seed").mkdir()
    (tmp_path / "seed" / "todoist.yaml").write_text(SEED)
    apps.seed_from(tmp_path / "seed")
    return ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory(), apps), resolve_tool_names(["workspace", "todoist"]))


def _holds(spec: dict, box: ToolBox, start: dict | None = None) -> bool:
    env = box.env
    evidence = Evidence([], box.records, env.workspace, env.memory, GraderResolver(Path(".")), env.apps, start)
    return evaluate(PREDICATE.validate_python(spec), evidence)


def _tasks(box: ToolBox, *titles: str) -> None:
    token = box.call("todoist__login", {"username": "sam@example.org", "password": "pw"}).result["response"]["access_token"]
    for title in titles:
        assert box.call("todoist__create_task", {"access_token": token, "project_id": 1, "title": title}).ok


def test_tool_count_by_name_glob_and_group_with_bounds(box: ToolBox) -> None:
    _tasks(box, "Order gowns", "Order masks", "Order caps", "Order tape")
    assert _holds({"tool_count": {"name": "todoist__create_task", "min": 4, "max": 4}}, box)
    assert not _holds({"tool_count": {"name": "todoist__create_task", "max": 3}}, box)  # "at most 3 new tasks"
    assert _holds({"tool_count": {"name": "todoist__*", "min": 5}}, box)  # the login counts too
    assert _holds({"tool_count": {"group": "todoist", "min": 5, "max": 5}}, box)
    assert _holds({"tool_count": {"group": "workspace", "max": 0}}, box)
    assert _holds({"tool_count": {"name": "todoist__create_task", "args": {"title": "masks|caps"}, "min": 2, "max": 2}}, box)


def test_tool_count_counts_failed_calls_only_when_asked(box: ToolBox) -> None:
    assert not box.call("read_file", {"path": "missing.md"}).ok
    assert _holds({"tool_count": {"name": "read_file", "max": 0}}, box)
    assert _holds({"tool_count": {"name": "read_file", "ok": False, "min": 1}}, box)
    assert _holds({"tool_count": {"name": "read_file", "ok": None, "min": 1, "max": 1}}, box)


def test_app_rows_added_counts_against_the_session_start(box: ToolBox) -> None:
    start = box.env.require_apps().snapshot()
    spec = {"app_rows_added": {"table": "todoist_task", "where": {"title": "^Order"}, "min": 1, "max": 2}}
    assert not _holds(spec, box, start)  # the seeded "Order gloves" row is not new
    _tasks(box, "Order gowns")
    assert _holds(spec, box, start)
    _tasks(box, "Order masks", "Order caps")
    assert not _holds(spec, box, start)  # three new rows: above max
    assert _holds({"app_rows": {"table": "todoist_task", "where": {"title": "^Order"}, "min": 4}}, box)
    assert not _holds(spec, box, None)  # no start state (e.g. evidence without apps): not satisfiable


def test_file_near_same_line_and_within_characters(box: ToolBox) -> None:
    box.env.workspace.write_text("plan.md", "Cefazolin 2 g IV q8h\nrenal dose: 1 g\n\nvancomycin trough 15\n")
    same_line = {"file_near": {"path": "*.md", "patterns": ["cefazolin", "q8h"]}}
    split = {"file_near": {"path": "*.md", "patterns": ["cefazolin", "1 g"]}}
    assert _holds(same_line, box)
    assert not _holds(split, box)  # on different lines
    assert _holds({"file_near": {"path": "plan.md", "patterns": ["cefazolin", "1 g"], "within": 30}}, box)
    assert not _holds({"file_near": {"path": "plan.md", "patterns": ["cefazolin", "trough"], "within": 30}}, box)


def test_near_chains_matches_and_needs_every_pattern() -> None:
    text = "alpha .... beta .... gamma"
    assert near(text, ["alpha", "beta", "gamma"], 6)  # gaps of 6 characters
    assert not near(text, ["alpha", "beta", "gamma"], 5)
    assert not near(text, ["alpha", "delta"], 100)
    assert near("x\nalpha beta\n", ["beta", "alpha"], None)  # order does not matter


def test_line_count_bounds_every_matching_file(box: ToolBox) -> None:
    ws = box.env.workspace
    ws.write_text("lists/a.md", "# Picks\n- one\n- two\n- three\n")
    ws.write_text("lists/b.md", "- one\n")
    assert _holds({"line_count": {"path": "lists/a.md", "pattern": "^- ", "min": 3, "max": 3}}, box)
    assert _holds({"line_count": {"path": "lists/a.md", "max": 4}}, box)
    assert not _holds({"line_count": {"path": "lists/*.md", "pattern": "^- ", "min": 2}}, box)  # b.md has one item
    assert not _holds({"line_count": {"path": "lists/none.md", "max": 10}}, box)  # no file: false, not vacuous


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ({"tool_count": {"max": 2}}, "exactly one of 'name' or 'group'"),
        ({"tool_count": {"name": "x", "group": "y"}}, "exactly one of 'name' or 'group'"),
        ({"tool_count": {"name": "x", "min": 3, "max": 2}}, "max 2 is below min 3"),
        ({"app_rows_added": {"table": "t", "min": 2, "max": 1}}, "max 1 is below min 2"),
        ({"file_near": {"path": "a.md", "patterns": ["one"]}}, "at least 2 items"),
        ({"file_near": {"path": "../a.md", "patterns": ["a", "b"]}}, "climbs out of the workspace"),
        ({"file_near": {"path": "a.md", "patterns": ["a", "("]}}, "invalid regular expression"),
        ({"line_count": {"path": "a.md", "pattern": "["}}, "invalid regular expression"),
    ],
)
def test_bad_arguments_are_load_errors(spec: dict, reason: str) -> None:
    with pytest.raises(ValidationError, match=reason.replace("(", r"\(")):
        PREDICATE.validate_python(spec)


def test_the_examples_in_the_authoring_guide_parse() -> None:
    import re

    import yaml

    guide = (REPO / "docs" / "authoring.md").read_text(encoding="utf-8")
    block = guide.split("Use the counting and closeness predicates", 1)[1].split("```yaml", 1)[1].split("```", 1)[0]
    examples = [yaml.safe_load(chunk) for chunk in re.split(r"\n(?=# )", block.strip())]
    kinds = {next(iter(e)) for e in examples}
    assert {"all", "file_near", "line_count", "tool_count"} <= kinds
    for example in examples:
        PREDICATE.validate_python(example)


def test_taxonomy_codes_match_the_taxonomy_document() -> None:
    import re

    from proactive_bench.dataset.taxonomy import CATEGORY_CODES

    text = (REPO / "docs" / "taxonomy.md").read_text(encoding="utf-8")
    assert tuple(re.findall(r"^\| ([A-Z]) \|", text, re.MULTILINE)) == CATEGORY_CODES


def test_a_check_walks_the_workspace_and_reads_each_file_once_per_evidence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Leaves of one check share the walk and the texts; a new evidence (the world changed) sees the change."""
    workspace = Workspace(tmp_path / "ws")
    workspace.write_text("out/plan.md", "PRODUCE\n- tomatoes 10\n")
    walks, reads = [], []
    monkeypatch.setattr(Workspace, "scan", lambda self, scan=Workspace.scan: walks.append(1) or scan(self))
    monkeypatch.setattr(Workspace, "read_text", lambda self, p, read=Workspace.read_text: reads.append(p) or read(self, p))
    check = PREDICATE.validate_python(
        {
            "all": [
                {"file_exists": "out/*.md"},
                {"file_matches": {"path": "out/plan.md", "pattern": "PRODUCE"}},
                {"file_near": {"path": "out/plan.md", "patterns": ["tomatoes", "10"]}},
                {"line_count": {"path": "out/*.md", "pattern": "^- ", "min": 1, "max": 1}},
            ]
        }
    )
    evidence = Evidence([], [], workspace, Memory(), GraderResolver(REPO))
    assert evaluate(check, evidence) and evaluate(check, evidence)
    assert len(walks) == 1 and reads == ["out/plan.md"]
    workspace.write_text("out/plan.md", "nothing here\n")
    assert not evaluate(check, Evidence([], [], workspace, Memory(), GraderResolver(REPO)))
