"""Generated workspace files: spreadsheets and documents built in memory from a template's data.

Office files are zip archives stamped with the time they are saved; the
archive is rewritten with one fixed stamp (:data:`STAMP`: zip entry times and
the document's created/modified properties), so the same data always gives the
same bytes (same seed, same scenario). A spreadsheet is written uncompressed (stored) for that rewrite, which
compresses each entry once. So a process builds a file once per data and keeps its bytes
(the last :data:`OFFICE_FILES_KEPT`; kept.py): a file is ~5 ms of CPU, and the tests compose many files again.
"""

from __future__ import annotations

import io
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any
from zipfile import ZIP_STORED, ZipFile

from docx import Document
from openpyxl import Workbook
from openpyxl.writer.excel import ExcelWriter

from proactive_bench.env import stable_office_bytes
from proactive_bench.suites.trainee.kept import KeptBytes

STAMP = datetime(2026, 1, 1)
OFFICE_FILES_KEPT = 1024
"""How many built spreadsheets and documents a process keeps (each ~5-40 kB)."""
_OFFICE_FILES = KeptBytes(lambda: OFFICE_FILES_KEPT)


def office_files_forgotten() -> AbstractContextManager[None]:
    """Within the block every spreadsheet and document is built anew; after it, those kept before are kept again."""
    return _OFFICE_FILES.forgotten()


def _stable(archive: bytes) -> bytes:
    return stable_office_bytes(archive, STAMP)


@_OFFICE_FILES.keep
def xlsx_bytes(sheets: dict[str, list[list[Any]]]) -> bytes:
    """A workbook with one sheet per entry (rows of values; the first row is the header)."""
    book = Workbook()
    first = book.active
    assert first is not None  # a new workbook opens with one worksheet
    book.remove(first)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    out = io.BytesIO()
    ExcelWriter(book, ZipFile(out, "w", ZIP_STORED)).save()  # stored: _stable compresses every entry once
    return _stable(out.getvalue())


@_OFFICE_FILES.keep
def docx_bytes(title: str, paragraphs: list[str]) -> bytes:
    """A document with a heading and plain paragraphs."""
    doc = Document()
    doc.add_heading(title, level=1)
    for text in paragraphs:
        doc.add_paragraph(text)
    out = io.BytesIO()
    doc.save(out)
    return _stable(out.getvalue())
