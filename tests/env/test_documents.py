"""read_file reads PDF, DOCX and XLSX as text."""

from __future__ import annotations

from pathlib import Path

import docx
import openpyxl
import pytest
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from proactive_bench.env import documents
from proactive_bench.env.documents import document_text, read_as_text
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace


def write_pdf(path: Path, pages: list[str]) -> None:
    """A PDF whose pages show the given lines in Helvetica (pypdf alone, no layout library)."""
    writer = PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    for text in pages:
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
        stream = DecodedStreamObject()
        stream.set_data(f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode())
        page.replace_contents(stream)
    with path.open("wb") as handle:
        writer.write(handle)


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    return ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory()), resolve_tool_names(["read_file"]))


def test_pdf_pages_as_text(box: ToolBox) -> None:
    write_pdf(box.env.workspace.root / "leaflet.pdf", ["Take 2 tablets daily", "Store below 25 C"])
    text = box.call("read_file", {"path": "leaflet.pdf"}).result["response"]
    assert text == "--- page 1 ---\nTake 2 tablets daily\n--- page 2 ---\nStore below 25 C"


def test_docx_paragraphs_and_tables_in_order(box: ToolBox) -> None:
    document = docx.Document()
    document.add_paragraph("Stock report")
    table = document.add_table(rows=2, cols=2)
    for r, row in enumerate([["drug", "count"], ["aspirin", "4"]]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.add_paragraph("End of report")
    document.save(str(box.env.workspace.root / "report.docx"))
    text = box.call("read_file", {"path": "report.docx"}).result["response"]
    assert text == "Stock report\ndrug | count\naspirin | 4\nEnd of report"


def test_xlsx_sheets_as_csv_with_values_not_formulas(box: ToolBox) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Stock"
    sheet.append(["drug", "count", "note"])
    sheet.append(["aspirin", 4, "low, reorder"])
    sheet.append(["ibuprofen", 12, None])
    orders = book.create_sheet("Orders")
    orders.append(["id", "total"])
    orders.append([1, 9.5])
    book.save(box.env.workspace.root / "stock.xlsx")
    text = box.call("read_file", {"path": "stock.xlsx"}).result["response"]
    assert text == ('--- sheet Stock ---\ndrug,count,note\naspirin,4,"low, reorder"\nibuprofen,12,\n--- sheet Orders ---\nid,total\n1,9.5')


def test_damaged_document_is_an_error_result(box: ToolBox) -> None:
    (box.env.workspace.root / "broken.pdf").write_bytes(b"not a pdf at all")
    (box.env.workspace.root / "broken.xlsx").write_bytes(b"PK nope")
    for name in ["broken.pdf", "broken.xlsx"]:
        record = box.call("read_file", {"path": name})
        assert not record.ok and record.result["error"].startswith(f"cannot read {name} as ")


def test_other_files_are_read_as_utf8(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_bytes("drug,note\naspirin,caf\xe9\n".encode() + b"\xff")
    assert read_as_text(tmp_path / "a.csv") == "drug,note\naspirin,caf\xe9\n\ufffd"


def test_a_document_read_again_unchanged_is_parsed_once_and_a_changed_one_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Graders and checks read the same spreadsheet every session: its text is kept by content, never by name."""
    parsed: list[bytes] = []

    def counting(source: object) -> str:
        data = source.read()  # type: ignore[attr-defined]
        parsed.append(data)
        return f"text of {data!r}"

    monkeypatch.setitem(documents.READERS, ".xlsx", counting)
    first, changed = f"{tmp_path} first".encode(), f"{tmp_path} changed".encode()  # bytes no other test has parsed
    assert document_text(first, "a.xlsx") == document_text(first, "b/other.xlsx") == f"text of {first!r}"
    assert document_text(changed, "a.xlsx") == f"text of {changed!r}"
    assert parsed == [first, changed]
