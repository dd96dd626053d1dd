"""The documents tools: docx_create, docx_edit, docx_read (python-docx), through the workspace jail."""

from __future__ import annotations

import io
import zipfile
from datetime import datetime
from pathlib import Path

import docx
import pytest
from pydantic import TypeAdapter

from proactive_bench.env.documents import read_as_text
from proactive_bench.env.docx_tools import add_blocks
from proactive_bench.env.office_blocks import Block
from proactive_bench.env.toolbox import ToolBox
from tests.helpers.app_calls import err, ok
from tests.helpers.office_calls import assert_jailed, assert_refuses_bad_files, made_twice_at, office_box

MEMO = [
    {"type": "heading", "text": "Vendor comparison", "level": 1},
    {"type": "paragraph", "text": "For Priya Raman – practice owner.\nSecond line."},
    {"type": "heading", "text": "Options", "level": 2},
    {"type": "bullets", "items": ["Acme Dental Supply", "Brightline"]},
    {"type": "table", "rows": [["Vendor", "Price"], ["Acme", 1200], ["Brightline", 1150.5], ["Zeta"]]},
]


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    return office_box(tmp_path, "documents")


def test_create_then_read_back_with_python_docx(box: ToolBox) -> None:
    assert "5 blocks" in ok(box, "docx_create", path="shared/memo.docx", blocks=MEMO)
    document = docx.Document(str(box.env.workspace.root / "shared/memo.docx"))
    styled = [(p.style.name, p.text) for p in document.paragraphs]
    assert styled == [
        ("Heading 1", "Vendor comparison"),
        ("Normal", "For Priya Raman – practice owner.\nSecond line."),
        ("Heading 2", "Options"),
        ("List Bullet", "Acme Dental Supply"),
        ("List Bullet", "Brightline"),
    ]
    (table,) = document.tables
    assert [[c.text for c in row.cells] for row in table.rows] == [
        ["Vendor", "Price"],
        ["Acme", "1200"],
        ["Brightline", "1150.5"],
        ["Zeta", ""],
    ]
    assert all(run.bold for cell in table.rows[0].cells for run in cell.paragraphs[0].runs)
    assert ok(box, "docx_read", path="shared/memo.docx") == (
        "# Vendor comparison\nFor Priya Raman – practice owner.\nSecond line.\n## Options\n- Acme Dental Supply\n- Brightline\n"
        "Vendor | Price\nAcme | 1200\nBrightline | 1150.5\nZeta | "
    )
    # read_file's extraction (what the odyssey checkers read) stays unmarked
    assert read_as_text(box.env.workspace.root / "shared/memo.docx").startswith("Vendor comparison\nFor Priya Raman")


def test_create_refuses_to_overwrite_unless_asked_and_checks_its_blocks(box: ToolBox) -> None:
    ok(box, "docx_create", path="a.docx", blocks=[{"type": "paragraph", "text": "first"}])
    assert "already exists" in err(box, "docx_create", path="a.docx", blocks=[{"type": "paragraph", "text": "second"}])
    assert "first" in ok(box, "docx_read", path="a.docx")
    ok(box, "docx_create", path="a.docx", blocks=[{"type": "paragraph", "text": "second"}], overwrite=True)
    assert ok(box, "docx_read", path="a.docx") == "second"
    bad = {
        "level": [{"type": "heading", "text": "x", "level": 4}],
        "blocks": [],
        "type must be one of": [{"type": "image", "src": "x.png"}],
        "columns": [{"type": "table", "rows": [[]]}],
        "items": [{"type": "bullets", "items": []}],
        "text": [{"type": "heading", "text": "   "}],
    }
    for needle, blocks in bad.items():
        assert "invalid arguments" in (message := err(box, "docx_create", path="b.docx", blocks=blocks)) and needle in message, message
    assert "expected a .docx file" in err(box, "docx_create", path="b.doc", blocks=MEMO[:1])
    assert not (box.env.workspace.root / "b.docx").exists()


def make_split_runs(path: Path) -> None:
    """A document whose 'Priya Raman' is split over runs with different formatting, also in a table cell and a header."""
    document = docx.Document()
    paragraph = document.add_paragraph()
    paragraph.add_run("Dear Pri").bold = True
    paragraph.add_run("ya Ra")
    paragraph.add_run("man, the total is 1200. Priya Raman signs.")
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "Owner: Priya Raman"
    table.cell(0, 1).add_table(rows=1, cols=1).cell(0, 0).text = "nested Priya Raman"
    document.sections[0].header.paragraphs[0].text = "Memo for Priya Raman"
    document.save(str(path))


def test_edit_replaces_every_occurrence_across_runs_cells_and_headers(box: ToolBox) -> None:
    path = box.env.workspace.root / "letter.docx"
    make_split_runs(path)
    result = ok(
        box,
        "docx_edit",
        path="letter.docx",
        replace=[{"old": "Priya Raman", "new": "Dr. P. Raman"}, {"old": "1200", "new": "1,150"}],
        append=[{"type": "heading", "text": "Next steps", "level": 2}, {"type": "bullets", "items": ["Order by Friday"]}],
    )
    assert result["replaced"] == {"Priya Raman": 5, "1200": 1} and result["appended_blocks"] == 2
    document = docx.Document(str(path))
    first = document.paragraphs[0]
    assert first.text == "Dear Dr. P. Raman, the total is 1,150. Dr. P. Raman signs."
    assert first.runs[0].text == "Dear Dr. P. Raman" and first.runs[0].bold  # the new text takes the formatting where the old began
    assert document.tables[0].cell(0, 0).text == "Owner: Dr. P. Raman"
    assert document.tables[0].cell(0, 1).tables[0].cell(0, 0).text == "nested Dr. P. Raman"
    assert document.sections[0].header.paragraphs[0].text == "Memo for Dr. P. Raman"
    assert ok(box, "docx_read", path="letter.docx").endswith("## Next steps\n- Order by Friday")


def test_a_replacement_containing_its_old_text_ends(box: ToolBox) -> None:
    ok(box, "docx_create", path="a.docx", blocks=[{"type": "paragraph", "text": "cat cat"}])
    assert ok(box, "docx_edit", path="a.docx", replace=[{"old": "cat", "new": "catcat"}])["replaced"] == {"cat": 2}
    assert ok(box, "docx_read", path="a.docx") == "catcat catcat"


def test_edit_errors_change_nothing(box: ToolBox) -> None:
    ok(box, "docx_create", path="a.docx", blocks=MEMO)
    before = (box.env.workspace.root / "a.docx").read_bytes()
    message = err(box, "docx_edit", path="a.docx", replace=[{"old": "Acme", "new": "ACME"}, {"old": "Globex", "new": "x"}])
    assert "text not found: 'Globex'" in message and "a.docx" in message
    assert "nothing to do" in err(box, "docx_edit", path="a.docx")
    assert "invalid arguments" in err(box, "docx_edit", path="a.docx", replace=[{"old": "", "new": "x"}])
    assert (box.env.workspace.root / "a.docx").read_bytes() == before


def test_paths_are_jailed_and_bad_files_refused(box: ToolBox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "secret.docx"
    document = docx.Document()
    document.add_paragraph("Secret plans")
    document.save(str(outside))
    assert_jailed(box, "docx_read", "path", outside)
    assert_jailed(box, "docx_edit", "path", outside, replace=[{"old": "Secret", "new": "Public"}])
    assert_jailed(box, "docx_create", "path", outside, blocks=MEMO, overwrite=True)
    assert_refuses_bad_files(box, monkeypatch, "docx_read", "path", ".docx")
    assert_refuses_bad_files(box, monkeypatch, "docx_edit", "path", ".docx", append=MEMO)


def test_tools_are_in_the_documents_group(box: ToolBox) -> None:
    assert {spec.name for spec in box.specs} == {"docx_create", "docx_edit", "docx_read"}


def test_a_document_is_dated_with_the_simulated_time_and_its_reported_size_stays(tmp_path: Path) -> None:
    """python-docx stamps a document's zip entries with the machine's clock (its created and modified properties are
    fixed): the same session played twice wrote different bytes. The entries now carry the world's time; the size
    docx_create reports is that of the machine-dated file, so the text an agent reads is unchanged."""
    blocks = [{"type": "heading", "text": "Batch 7", "level": 1}, {"type": "paragraph", "text": "Two samples."}]
    said = made_twice_at(tmp_path, "documents", datetime(2026, 3, 4, 10, 30), "docx_create", "r.docx", blocks=blocks)
    with zipfile.ZipFile(tmp_path / "ws0" / "r.docx") as archive:
        assert {info.date_time for info in archive.infolist()} == {(2026, 3, 4, 10, 30, 0)}
    machine_dated = io.BytesIO()
    document = docx.Document()
    add_blocks(document, TypeAdapter(list[Block]).validate_python(blocks))
    document.save(machine_dated)
    assert said.endswith(f", {len(machine_dated.getvalue())} bytes)")
