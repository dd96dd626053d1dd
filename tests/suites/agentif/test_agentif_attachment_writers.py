"""The writers the AgentIF attachment generators share: real files, read back with the libraries; same bytes on every run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from docx import Document
from openpyxl import load_workbook
from pypdf import PdfReader

from proactive_bench.suites.agentif.attachment_writers import (
    docx_file,
    pdf_file,
    srt_time,
    svg_named_shapes,
    write_csv,
    write_sheet,
    write_srt,
    write_svg,
)


def test_srt_cues_are_numbered_with_hour_minute_second_millisecond_stamps(tmp_path: Path) -> None:
    assert srt_time(3725.5) == "01:02:05,500" and srt_time(2.0) == "00:00:02,000"
    path = tmp_path / "deep" / "talk.srt"
    write_srt(path, [("00:00:01,000", "00:00:02,500", "Hello."), (srt_time(3), srt_time(4.25), "Bye.")])
    assert path.read_text(encoding="utf-8") == "1\n00:00:01,000 --> 00:00:02,500\nHello.\n\n2\n00:00:03,000 --> 00:00:04,250\nBye.\n"


def test_csv_quotes_only_where_needed_and_takes_another_delimiter(tmp_path: Path) -> None:
    write_csv(tmp_path / "a.csv", [("item", "note"), ("tea", "green, loose")])
    write_csv(tmp_path / "b.csv", [("#separator:semicolon",), ("q", "a")], delimiter=";")
    assert (tmp_path / "a.csv").read_text(encoding="utf-8") == 'item,note\ntea,"green, loose"\n'
    assert (tmp_path / "b.csv").read_text(encoding="utf-8") == "#separator:semicolon\nq;a\n"


def test_svg_has_its_canvas_title_and_a_centred_label_per_named_shape(tmp_path: Path) -> None:
    shapes = svg_named_shapes({"T1": (100, 50)}, '<circle id="{name}" cx="{x}" cy="{y}" r="9"/>', label_offset=(0, 5))
    write_svg(tmp_path / "plan.svg", ['<rect x="0" y="0" width="4" height="4"/>', *shapes], width=300, height=200, title="Plan")
    lines = (tmp_path / "plan.svg").read_text(encoding="utf-8").splitlines()
    assert lines[0] == '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200" viewBox="0 0 300 200">'
    assert lines[1:] == [
        "  <title>Plan</title>",
        '  <rect x="0" y="0" width="4" height="4"/>',
        '  <circle id="T1" cx="100" cy="50" r="9"/>',
        '  <text x="100" y="55" text-anchor="middle" font-size="16">T1</text>',
        "</svg>",
    ]


def test_sheet_keeps_its_rows_and_empty_row_and_is_byte_stable(tmp_path: Path) -> None:
    rows = [("name", "gbp"), ("Ruth", 72.13), (), ("note",)]
    write_sheet(tmp_path / "one.xlsx", "March", rows, creator="finance")
    write_sheet(tmp_path / "two.xlsx", "March", rows, creator="finance")
    assert (tmp_path / "one.xlsx").read_bytes() == (tmp_path / "two.xlsx").read_bytes()
    book = load_workbook(tmp_path / "one.xlsx")
    sheet = book["March"]
    assert [list(r) for r in sheet.iter_rows(values_only=True)] == [["name", "gbp"], ["Ruth", 72.13], [None, None], ["note", None]]
    assert book.properties.creator == "finance"


def test_docx_is_saved_byte_stable_on_leaving_and_not_at_all_when_the_block_fails(tmp_path: Path) -> None:
    for name in ("one.docx", "two.docx"):
        with docx_file(tmp_path / name, author="student") as doc:
            doc.add_heading("Notes", level=1)
            doc.add_paragraph("Bring cake.")
    assert (tmp_path / "one.docx").read_bytes() == (tmp_path / "two.docx").read_bytes()
    read = Document(str(tmp_path / "one.docx"))
    assert [p.text for p in read.paragraphs] == ["Notes", "Bring cake."] and read.core_properties.author == "student"
    with pytest.raises(ValueError), docx_file(tmp_path / "broken.docx") as doc:
        raise ValueError("content went wrong")
    assert not (tmp_path / "broken.docx").exists()


def test_pdf_lines_headings_and_sections_read_back_in_order_and_byte_stable(tmp_path: Path) -> None:
    for name in ("one.pdf", "two.pdf"):
        with pdf_file(tmp_path / "inbox" / name) as pdf:
            pdf.heading("Quotes", 12, size=15)
            pdf.sections([("ErgoSeat", ["Price: 189.00"])], heading_height=10, line_height=7)
            pdf.write_lines(["", "A long closing remark " * 8], 7, wrap=True)
    assert (tmp_path / "inbox" / "one.pdf").read_bytes() == (tmp_path / "inbox" / "two.pdf").read_bytes()
    text = PdfReader(tmp_path / "inbox" / "one.pdf").pages[0].extract_text()
    assert text.index("Quotes") < text.index("ErgoSeat") < text.index("- Price: 189.00") < text.index("A long closing remark")


def test_a_generator_writes_into_its_out_folder_or_the_workspace_beside_it(tmp_path: Path) -> None:
    script = tmp_path / "task" / "make_attachments.py"
    script.parent.mkdir()
    script.write_text(
        "from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_csv\n"
        'write_csv(workspace_folder(__file__) / "inbox" / "x.csv", [("a",)])\n',
        encoding="utf-8",
    )
    subprocess.run([sys.executable, str(script)], check=True)
    subprocess.run([sys.executable, str(script), "--out", str(tmp_path / "elsewhere")], check=True)
    assert (tmp_path / "task" / "workspace" / "inbox" / "x.csv").read_text() == "a\n"
    assert (tmp_path / "elsewhere" / "inbox" / "x.csv").read_text() == "a\n"
