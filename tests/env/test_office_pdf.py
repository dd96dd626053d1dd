"""The pdf tools: pdf_create (fpdf2) from text or a DOCX, pdf_extract_text (pypdf); the text made is extractable."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from pypdf import PdfReader

import proactive_bench.env.pdf_tools as pdf_tools
from proactive_bench.env.apps.base import DEFAULT_NOW
from proactive_bench.env.pdf_tools import text_blocks
from proactive_bench.env.toolbox import ToolBox
from tests.helpers.app_calls import err, ok
from tests.helpers.office_calls import assert_jailed, assert_refuses_bad_files, made_twice_at, office_box

TEXT = """# Larkspur Dental – vendor memo

Prepared for Priya Raman.
Prices in € and in US$.

## Options
- Acme Dental Supply: 1,200
- Brightline: 1,150

Naïve café totals: 2,350."""


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    return office_box(tmp_path, "pdf", "documents")


def test_text_blocks() -> None:
    assert [b.model_dump() for b in text_blocks("# A\nbody\nmore\n\n- x\n* y\nafter\n### C")] == [
        {"type": "heading", "text": "A", "level": 1},
        {"type": "paragraph", "text": "body\nmore"},
        {"type": "bullets", "items": ["x", "y"]},
        {"type": "paragraph", "text": "after"},
        {"type": "heading", "text": "C", "level": 3},
    ]


def test_text_to_pdf_and_back(box: ToolBox) -> None:
    assert "1 pages" in ok(box, "pdf_create", path="out/memo.pdf", text=TEXT, title="Vendor memo")
    reader = PdfReader(box.env.workspace.root / "out/memo.pdf")
    assert reader.metadata is not None and reader.metadata.title == "Vendor memo"
    extracted = ok(box, "pdf_extract_text", path="out/memo.pdf")
    assert extracted["page_count"] == 1 and extracted["pages"][0]["page"] == 1
    text = extracted["pages"][0]["text"]
    for expected in [
        "Vendor memo",
        "Larkspur Dental – vendor memo",
        "Prepared for Priya Raman.",
        "Prices in € and in US$.",
        "• Acme Dental Supply: 1,200",
        "Naïve café totals: 2,350.",
    ]:
        assert expected in text, (expected, text)
    assert "# " not in text and "## Options" not in text  # heading marks are layout, not text


def test_docx_to_pdf_keeps_headings_bullets_and_tables(box: ToolBox) -> None:
    ok(
        box,
        "docx_create",
        path="memo.docx",
        blocks=[
            {"type": "heading", "text": "Quarterly supplies", "level": 1},
            {"type": "paragraph", "text": "Order before 2025-03-21."},
            {"type": "bullets", "items": ["gloves", "masks"]},
            {"type": "table", "rows": [["Item", "Qty"], ["Gloves", 40], ["Masks", 25]]},
        ],
    )
    ok(box, "pdf_create", path="memo.pdf", from_docx="memo.docx")
    text = ok(box, "pdf_extract_text", path="memo.pdf")["pages"][0]["text"]
    for expected in ["Quarterly supplies", "Order before 2025-03-21.", "• gloves", "Item", "Gloves", "40", "Masks", "25"]:
        assert expected in text, (expected, text)


def test_long_text_runs_over_pages(box: ToolBox, monkeypatch: pytest.MonkeyPatch) -> None:
    paragraphs = "\n\n".join(f"Paragraph {n}: " + "word " * 60 for n in range(60))
    ok(box, "pdf_create", path="long.pdf", text=paragraphs + "\n\n" + "x" * 400)  # an unbreakable word too
    extracted = ok(box, "pdf_extract_text", path="long.pdf")
    assert extracted["page_count"] > 2 and "truncated" not in extracted
    assert [p["page"] for p in extracted["pages"]] == list(range(1, extracted["page_count"] + 1))
    assert "Paragraph 0:" in extracted["pages"][0]["text"] and "Paragraph 59:" in extracted["pages"][-1]["text"]
    monkeypatch.setattr(pdf_tools, "MAX_PAGES", 2)
    cut = ok(box, "pdf_extract_text", path="long.pdf")
    assert len(cut["pages"]) == 2 and cut["page_count"] == extracted["page_count"] and "first 2" in cut["truncated"]


def test_create_arguments_are_checked(box: ToolBox) -> None:
    assert "exactly one of text and from_docx" in err(box, "pdf_create", path="a.pdf")
    assert "exactly one of text and from_docx" in err(box, "pdf_create", path="a.pdf", text="x", from_docx="a.docx")
    assert "expected a .pdf file" in err(box, "pdf_create", path="a.txt", text="x")
    assert "no such file" in err(box, "pdf_create", path="a.pdf", from_docx="missing.docx")
    assert "expected a .docx file" in err(box, "pdf_create", path="a.pdf", from_docx="notes.txt")
    ok(box, "pdf_create", path="a.pdf", text="first")
    assert "already exists" in err(box, "pdf_create", path="a.pdf", text="second")
    ok(box, "pdf_create", path="a.pdf", text="second", overwrite=True)
    assert ok(box, "pdf_extract_text", path="a.pdf")["pages"][0]["text"] == "second"


def test_too_much_text_is_refused(box: ToolBox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_tools, "MAX_CHARACTERS", 50)
    assert "more than the 50" in err(box, "pdf_create", path="a.pdf", text="x" * 51)
    ok(box, "docx_create", path="big.docx", blocks=[{"type": "paragraph", "text": "y" * 60}])
    assert "big.docx: 60 characters" in err(box, "pdf_create", path="a.pdf", from_docx="big.docx")
    assert not (box.env.workspace.root / "a.pdf").exists()


def test_paths_are_jailed_and_bad_files_refused(box: ToolBox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "secret.pdf"
    pdf_tools.render_pdf(text_blocks("Secret figures"), None).output(str(outside))
    assert_jailed(box, "pdf_extract_text", "path", outside)
    assert_jailed(box, "pdf_create", "path", outside, text="overwritten", overwrite=True)
    assert_refuses_bad_files(box, monkeypatch, "pdf_extract_text", "path", ".pdf")
    assert_refuses_bad_files(box, monkeypatch, "pdf_create", "from_docx", ".docx", path="x.pdf")
    assert not (box.env.workspace.root / "x.pdf").exists()


def test_a_pdf_is_dated_with_the_simulated_time_so_the_same_text_gives_the_same_bytes(tmp_path: Path) -> None:
    """fpdf2 dates a PDF with the machine's clock unless told otherwise: a PDF the agent made carried the real date, not
    the world's, and the same session played twice wrote different bytes. The size the tool reports stays the same."""
    said = made_twice_at(tmp_path, "pdf", datetime(2026, 3, 4, 10, 30), "pdf_create", "memo.pdf", text=TEXT)
    assert PdfReader(tmp_path / "ws0" / "memo.pdf").metadata.creation_date == datetime(2026, 3, 4, 10, 30, tzinfo=UTC)
    undated = pdf_tools.render_pdf(text_blocks(TEXT), None).output()
    assert said.endswith(f", {len(undated)} bytes)")  # the same size as a PDF dated by the machine: the text an agent reads is unchanged


def test_a_pdf_made_without_apps_is_dated_with_the_apps_default_time(box: ToolBox) -> None:
    ok(box, "pdf_create", path="memo.pdf", text=TEXT)
    assert PdfReader(box.env.workspace.root / "memo.pdf").metadata.creation_date == DEFAULT_NOW.replace(tzinfo=UTC)
