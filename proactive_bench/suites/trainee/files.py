"""Generated workspace files: spreadsheets and documents built in memory from a template's data."""

from __future__ import annotations

import io
from typing import Any

from docx import Document
from openpyxl import Workbook


def xlsx_bytes(sheets: dict[str, list[list[Any]]]) -> bytes:
    """A workbook with one sheet per entry (rows of values; the first row is the header)."""
    book = Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def docx_bytes(title: str, paragraphs: list[str]) -> bytes:
    """A document with a heading and plain paragraphs."""
    doc = Document()
    doc.add_heading(title, level=1)
    for text in paragraphs:
        doc.add_paragraph(text)
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()
