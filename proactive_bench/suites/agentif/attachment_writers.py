"""What a task's ``make_attachments.py`` writes with: the ``--out`` folder and byte-stable writers per format.

A generator script keeps only its task's content (data, text) and calls these:
:func:`workspace_folder` for where to write; :func:`write_text` (txt, md,
json), :func:`write_svg` (with :func:`svg_named_shapes`), :func:`write_csv`, :func:`write_srt`, :func:`write_sheet` (one xlsx
sheet), :func:`docx_file` and :func:`pdf_file` (context managers that hand
over the library's document and save it on leaving). Every writer creates the
file's folder, and every file comes out the same bytes on every run: fixed
PDF creation date, Office files through :func:`normalize_zip`.
"""

from __future__ import annotations

import argparse
import csv
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docx import Document
from docx.document import Document as DocxDocument
from openpyxl import Workbook
from openpyxl.worksheet.worksheet import Worksheet

from proactive_bench.env import stable_office_bytes
from proactive_bench.exports import moved_names

if TYPE_CHECKING:
    from proactive_bench.suites.agentif.attachment_pdf import AttachmentPdf

FIXED_TIME = datetime(2025, 1, 1)
Cue = tuple[str, str, str]  # start, end ("HH:MM:SS,mmm"), text


def workspace_folder(script: str) -> Path:
    """The folder a generator writes into: its ``--out DIR``, by default ``workspace/`` beside ``script`` (pass ``__file__``)."""
    parser = argparse.ArgumentParser(description="Write this task's attachments.")
    parser.add_argument("--out", type=Path, default=Path(script).parent / "workspace", help="the folder to write into")
    return parser.parse_args().out


def _parent_made(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def normalize_zip(path: Path) -> None:
    """Rewrite an Office file (xlsx, docx, pptx) in place with fixed entry times and created/modified stamps, so it is byte-stable."""
    path.write_bytes(stable_office_bytes(path.read_bytes(), FIXED_TIME))


def write_text(path: Path, text: str) -> None:
    """A UTF-8 text file (plain text, Markdown, JSON) exactly as given."""
    _parent_made(path).write_text(text, encoding="utf-8")


def write_svg(path: Path, elements: Iterable[str], *, width: int, height: int, title: str, font_family: str = "") -> None:
    """An SVG drawing ``width`` x ``height`` (its viewBox from 0 0) with a ``<title>``, one element a line, indented by two spaces."""
    font = f' font-family="{font_family}"' if font_family else ""
    head = f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}"{font}>'
    write_text(path, "\n".join([head, f"  <title>{title}</title>", *(f"  {element}" for element in elements), "</svg>"]) + "\n")


def svg_named_shapes(places: dict[str, tuple[int, int]], shape: str, *, label_offset: tuple[int, int]) -> list[str]:
    """SVG elements for named places: per place (x, y), ``shape`` (a format string of ``name``, ``x``, ``y``)
    and then its name as a 16 pt label centred at (x, y) moved by ``label_offset``."""
    dx, dy = label_offset
    return [
        line
        for name, (x, y) in places.items()
        for line in (
            shape.format(name=name, x=x, y=y),
            f'<text x="{x + dx}" y="{y + dy}" text-anchor="middle" font-size="16">{name}</text>',
        )
    ]


def write_csv(path: Path, rows: Iterable[Sequence[Any]], *, delimiter: str = ",") -> None:
    """A CSV file, header first, ``\\n`` line ends, quoted only where needed."""
    with open(_parent_made(path), "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, delimiter=delimiter, lineterminator="\n").writerows(rows)


def srt_time(seconds: float) -> str:
    """A SubRip timestamp ``HH:MM:SS,mmm`` of ``seconds`` from the start."""
    whole = int(seconds)
    return f"{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d},{round((seconds - whole) * 1000):03d}"


def write_srt(path: Path, cues: Iterable[Cue]) -> None:
    """A SubRip subtitle file: the cues numbered from 1, a blank line between them."""
    blocks = [f"{n}\n{start} --> {end}\n{text}\n" for n, (start, end, text) in enumerate(cues, start=1)]
    write_text(path, "\n".join(blocks))


def write_sheet(path: Path, title: str, rows: Iterable[Sequence[Any]], *, creator: str = "pbench") -> None:
    """An xlsx workbook of one sheet named ``title`` holding ``rows`` (an empty row stays empty), byte-stable."""
    book = Workbook()
    sheet = book.active
    assert isinstance(sheet, Worksheet)  # a new workbook opens with one worksheet
    sheet.title = title
    for row in rows:
        sheet.append(list(row))
    book.properties.created = book.properties.modified = FIXED_TIME
    book.properties.creator = creator
    book.save(_parent_made(path))
    normalize_zip(path)


@contextmanager
def docx_file(path: Path, *, author: str = "pbench") -> Iterator[DocxDocument]:
    """A new Word document to fill with python-docx's own calls; saved byte-stable to ``path`` when the block ends."""
    doc = Document()
    doc.core_properties.created = doc.core_properties.modified = FIXED_TIME
    doc.core_properties.author = author
    yield doc
    doc.save(str(_parent_made(path)))
    normalize_zip(path)


@contextmanager
def pdf_file(path: Path) -> Iterator[AttachmentPdf]:
    """An :class:`AttachmentPdf` with a fixed creation date to write into; saved to ``path`` when the block ends."""
    from proactive_bench.suites.agentif.attachment_pdf import AttachmentPdf  # fpdf2 (fontTools, PIL): only writing a PDF pays for it

    pdf = AttachmentPdf()
    pdf.set_creation_date(FIXED_TIME)
    yield pdf
    pdf.output(str(_parent_made(path)))


__getattr__ = moved_names(__name__, {"AttachmentPdf": "proactive_bench.suites.agentif.attachment_pdf"})
