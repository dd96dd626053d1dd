"""Files as text for the agent: PDF, DOCX, XLSX and PPTX through their libraries, anything else as UTF-8."""

from __future__ import annotations

import csv
import functools
import hashlib
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from proactive_bench.env.office_blocks import Block, BulletsBlock, HeadingBlock, ParagraphBlock, TableBlock, blocks_text


class DocumentError(ValueError):
    """A document that its format's library cannot read."""


def pdf_pages(source: Path | BinaryIO, max_pages: int | None = None) -> tuple[list[str], int]:
    """The text of the first ``max_pages`` pages (all by default) and the page count (pypdf)."""
    from pypdf import PdfReader

    pages = PdfReader(source).pages
    return [page.extract_text() or "" for page in pages[:max_pages]], len(pages)


def read_pdf(path: Path | BinaryIO) -> str:
    """The text of every page, each under a ``--- page N ---`` line."""
    return "\n".join(f"--- page {n} ---\n{text}".rstrip() for n, text in enumerate(pdf_pages(path)[0], start=1))


def docx_blocks(source: Path | BinaryIO) -> list[Block]:
    """A DOCX's body in document order as blocks: heading styles as headings, runs of list paragraphs as bullets."""
    from docx import Document
    from docx.table import Table

    blocks: list[Block] = []
    styles: dict[str | None, str] = {}  # style name by the paragraph's style id: python-docx scans every style for each unstyled one
    for item in Document(str(source) if isinstance(source, Path) else source).iter_inner_content():
        if isinstance(item, Table):  # read as it is: no checks on the column count
            blocks.append(TableBlock.model_construct(type="table", rows=[[cell.text for cell in row.cells] for row in item.rows]))
            continue
        if (style_id := item._p.style) not in styles:
            styles[style_id] = found.name if (found := item.style) is not None else ""
        style = styles[style_id]
        level = 1 if style == "Title" else int(style[8:]) if style.startswith("Heading ") and style[8:].isdigit() else 0
        if level and item.text.strip():
            blocks.append(HeadingBlock(type="heading", text=item.text, level=min(level, 3)))
        elif not style.startswith("List"):
            blocks.append(ParagraphBlock(type="paragraph", text=item.text))
        elif blocks and isinstance(blocks[-1], BulletsBlock):
            blocks[-1].items.append(item.text)
        else:
            blocks.append(BulletsBlock(type="bullets", items=[item.text]))
    return blocks


def read_docx(source: Path | BinaryIO, mark_headings: bool = False) -> str:
    """Paragraphs and tables in document order; table cells joined by `` | `` (see :func:`blocks_text`)."""
    return blocks_text(docx_blocks(source), mark_headings)


def read_xlsx(path: Path | BinaryIO) -> str:
    """Each sheet under a ``--- sheet NAME ---`` line, its rows as CSV (cached values, not formulas)."""
    from openpyxl import load_workbook

    book = load_workbook(path, read_only=True, data_only=True)
    try:
        parts = []
        for sheet in book.worksheets:
            out = io.StringIO()
            writer = csv.writer(out, lineterminator="\n")
            for row in sheet.iter_rows(values_only=True):
                writer.writerow(["" if value is None else value for value in row])
            parts.append(f"--- sheet {sheet.title} ---\n{out.getvalue().rstrip()}")
        return "\n".join(parts)
    finally:
        book.close()


def read_pptx(path: Path | BinaryIO) -> str:
    """Each slide under a ``--- slide N ---`` line: its shapes' text frames and table cells (`` | ``), then its notes."""
    from pptx import Presentation

    parts = []
    for n, slide in enumerate(Presentation(str(path) if isinstance(path, Path) else path).slides, start=1):
        lines = [f"--- slide {n} ---"]
        for shape in slide.shapes:
            if shape.has_text_frame:
                lines.extend(p.text for p in shape.text_frame.paragraphs if p.text)
            if getattr(shape, "has_table", False) and shape.has_table:
                lines.extend(" | ".join(cell.text for cell in row.cells) for row in shape.table.rows)
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = slide.notes_slide.notes_text_frame.text.strip()
            if notes:
                lines.append(f"notes: {notes}")
        parts.append("\n".join(lines))
    return "\n".join(parts)


READERS: dict[str, Callable[[Path | BinaryIO], str]] = {".pdf": read_pdf, ".docx": read_docx, ".xlsx": read_xlsx, ".pptx": read_pptx}


def read_as_text(path: Path) -> str:
    """A file's text: documents through their readers, other files decoded as UTF-8 (bad bytes replaced)."""
    return bytes_as_text(path.read_bytes(), path.name)


def bytes_as_text(data: bytes, name: str) -> str:
    """A file's bytes as text, as :func:`read_as_text` reads the file (``name`` gives its type)."""
    return document_text(data, name) if is_document(name) else data.decode("utf-8", errors="replace")


def is_document(name: str) -> bool:
    """Whether a file of this name is read through a document library (pdf, docx, xlsx, pptx)."""
    return Path(name).suffix.lower() in READERS


def document_text(data: bytes, name: str) -> str:
    """The text of a document's bytes (``name`` gives its type); DocumentError when its library cannot read them.

    The text of the last :data:`TEXT_CACHE_SIZE` documents read is kept by content: graders, the user's view and
    the validator's checks read the same unchanged spreadsheet session after session, and parsing it is the cost.
    """
    suffix = Path(name).suffix.lower()
    try:
        return _parsed(_Document(hashlib.blake2b(data, digest_size=16).digest(), suffix, data))
    except Exception as exc:  # the libraries raise many types for a damaged file
        raise DocumentError(f"cannot read {Path(name).name} as {suffix.lstrip('.').upper()}: {exc}") from exc


TEXT_CACHE_SIZE = 64


@dataclass(frozen=True)
class _Document:
    """A document's bytes, equal to another by content digest and type alone (the cache key)."""

    digest: bytes
    suffix: str
    data: bytes = field(compare=False, repr=False)


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _parsed(document: _Document) -> str:
    return READERS[document.suffix](io.BytesIO(document.data))
