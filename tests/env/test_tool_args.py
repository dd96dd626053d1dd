"""Tool arguments: an unknown key is an error naming it and the keys the tool takes, for every tool and at any depth."""

from __future__ import annotations

from pathlib import Path

from proactive_bench.env import REGISTRY, Memory, ToolBox, ToolEnv, Workspace
from tests.helpers.app_calls import err
from tests.helpers.office_calls import office_box

UNKNOWN = "zz_not_an_argument"


def test_every_tool_in_the_catalog_refuses_an_unknown_key_naming_it_and_the_keys_its_schema_shows(tmp_path: Path) -> None:
    specs = list(REGISTRY.values())
    assert len(specs) > 150  # the whole catalog: files, office, web, shell, every app
    box = ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory()), specs)
    for spec in specs:
        record = box.call(spec.name, {UNKNOWN: 1})
        known = ", ".join(spec.json_schema().get("properties", {})) or "none"  # as a model (or an MCP client) is shown them
        assert not record.ok, spec.name
        assert f"unknown argument {UNKNOWN!r}; known: {known}" in record.result["error"], (spec.name, record.result)


def test_a_misspelt_office_argument_is_refused_at_any_depth_and_nothing_is_written(tmp_path: Path) -> None:
    box = office_box(tmp_path, "documents", "spreadsheets")
    heading = [{"type": "heading", "text": "Minutes", "lvl": 2}]
    assert err(box, "docx_create", path="a.docx", blocks=heading) == (
        "invalid arguments: blocks.0.heading: unknown argument 'lvl'; known: type, text, level"
    )
    table = [{"type": "table", "rows": [["a"]], "header": True}]
    assert "blocks.0.table: unknown argument 'header'; known: type, rows" in err(box, "docx_create", path="a.docx", blocks=table)
    assert err(box, "docx_create", path="a.docx", blocks=[{"type": "paragraph", "text": "x"}], overwite=True) == (
        "invalid arguments: unknown argument 'overwite'; known: path, blocks, overwrite"
    )
    assert not (box.env.workspace.root / "a.docx").exists()
    replace = [{"old": "May", "new": "June", "count": 1}]
    assert "replace.0: unknown argument 'count'; known: old, new" in err(box, "docx_edit", path="a.docx", replace=replace)
    assert err(box, "xlsx_write", path="t.xlsx", cells={"A1": 1}, sheet_name="Q2") == (
        "invalid arguments: unknown argument 'sheet_name'; known: path, cells, sheet"
    )
    assert not (box.env.workspace.root / "t.xlsx").exists()


def test_an_aliased_argument_is_known_by_the_name_a_caller_writes(tmp_path: Path) -> None:
    box = office_box(tmp_path, "chat")
    assert "unknown argument 'with_'; known: with" in err(box, "chat__read_history", with_="sam")
