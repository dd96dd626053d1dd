"""Generated workspace files: spreadsheets and documents built in memory from a template's data.

Office files are zip archives stamped with the time they are saved; the
archive is rewritten with one fixed stamp (:data:`STAMP`: zip entry times and
the document's created/modified properties), so the same data always gives the
same bytes (same seed, same scenario).
"""

from __future__ import annotations

import io
import re
import zipfile
from datetime import datetime
from typing import Any

from docx import Document
from openpyxl import Workbook


STAMP = datetime(2026, 1, 1)
_CORE_TIME = re.compile(rb"(<dcterms:(created|modified)[^>]*>)[^<]*(</dcterms:\2>)")


def _stable(archive: bytes) -> bytes:
    """The archive with every entry's time and the core properties' times set to STAMP."""
    stamp = STAMP.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(archive)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "docProps/core.xml":
                data = _CORE_TIME.sub(lambda m: m.group(1) + stamp + m.group(3), data)
            target.writestr(zipfile.ZipInfo(info.filename, date_time=STAMP.timetuple()[:6]), data, zipfile.ZIP_DEFLATED)
    return out.getvalue()


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
    return _stable(out.getvalue())


def docx_bytes(title: str, paragraphs: list[str]) -> bytes:
    """A document with a heading and plain paragraphs."""
    doc = Document()
    doc.add_heading(title, level=1)
    for text in paragraphs:
        doc.add_paragraph(text)
    out = io.BytesIO()
    doc.save(out)
    return _stable(out.getvalue())
