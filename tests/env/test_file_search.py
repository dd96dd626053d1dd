"""glob and grep over the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from proactive_bench.env import file_search
from proactive_bench.env.file_search import glob_regex
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    ws = Workspace(tmp_path / "ws")
    ws.write_text("notes/a.md", "Aspirin 100 mg\nibuprofen 200 mg\n")
    ws.write_text("notes/deep/b.md", "ASPIRIN again\n")
    ws.write_text("data/stock.csv", "drug,count\naspirin,4\n")
    ws.write_text("top.txt", "nothing here\n")
    (ws.root / "blob.bin").write_bytes(b"\x00\x01aspirin")
    return ToolBox(ToolEnv(ws, Memory()), resolve_tool_names(["workspace"]))


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.md", "a.md", True),
        ("*.md", "notes/a.md", False),
        ("**/*.md", "a.md", True),
        ("**/*.md", "notes/deep/b.md", True),
        ("notes/**", "notes/deep/b.md", True),
        ("note?/a.md", "notes/a.md", True),
        ("[ab].md", "b.md", True),
        ("[!ab].md", "b.md", False),
        ("a+b.md", "a+b.md", True),
        ("a+b.md", "aab.md", False),
    ],
)
def test_glob_regex(pattern: str, path: str, matches: bool) -> None:
    assert bool(glob_regex(pattern).match(path)) is matches


def test_glob_lists_workspace_relative_files(box: ToolBox) -> None:
    assert box.call("glob", {"pattern": "**/*.md"}).result == {"response": ["notes/a.md", "notes/deep/b.md"]}
    assert box.call("glob", {"pattern": "./data/*"}).result == {"response": ["data/stock.csv"]}
    assert box.call("glob", {"pattern": "*.txt"}).result == {"response": ["top.txt"]}


def test_glob_refuses_patterns_outside(box: ToolBox) -> None:
    for pattern in ["/etc/*", "../*", "notes/../../*", "~/x"]:
        record = box.call("glob", {"pattern": pattern})
        assert not record.ok and "inside the workspace" in record.result["error"]


def test_glob_is_capped(box: ToolBox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file_search, "MAX_PATHS", 2)
    paths = box.call("glob", {"pattern": "**"}).result["response"]
    assert paths[:2] == ["blob.bin", "data/stock.csv"] and paths[2] == "[... 3 more paths; narrow the pattern]"


def test_grep_finds_lines_with_case_and_filters(box: ToolBox) -> None:
    assert box.call("grep", {"pattern": "aspirin"}).result["response"] == ["data/stock.csv:2:aspirin,4"]
    assert box.call("grep", {"pattern": "aspirin", "ignore_case": True}).result["response"] == [
        "data/stock.csv:2:aspirin,4",
        "notes/a.md:1:Aspirin 100 mg",
        "notes/deep/b.md:1:ASPIRIN again",
    ]
    assert box.call("grep", {"pattern": r"\d+ mg", "path": "notes"}).result["response"] == [
        "notes/a.md:1:Aspirin 100 mg",
        "notes/a.md:2:ibuprofen 200 mg",
    ]
    assert box.call("grep", {"pattern": "(?i)aspirin", "glob": "**/*.md", "path": "notes/deep"}).result["response"] == [
        "notes/deep/b.md:1:ASPIRIN again"
    ]
    assert box.call("grep", {"pattern": "mg", "path": "notes/a.md"}).result["response"] == [
        "notes/a.md:1:Aspirin 100 mg",
        "notes/a.md:2:ibuprofen 200 mg",
    ]


def test_grep_caps_and_reports_errors(box: ToolBox) -> None:
    capped = box.call("grep", {"pattern": ".", "max_results": 2}).result["response"]
    assert len(capped) == 3 and capped[-1].startswith("[... more matching lines")
    assert "invalid regular expression" in box.call("grep", {"pattern": "("}).result["error"]
    assert "no such file or folder" in box.call("grep", {"pattern": "x", "path": "nope"}).result["error"]
    assert not box.call("grep", {"pattern": "x", "path": "../"}).ok
