"""PDF files: ``pdf_create`` (fpdf2) from text or from a workspace DOCX, ``pdf_extract_text`` (pypdf); group ``pdf``.

Text is set in DejaVu Sans, the font matplotlib (a dependency) ships, so any
text the font covers prints, not only Latin-1; fpdf2 embeds it with a Unicode
map, so the text of a PDF made here can be extracted again.
"""

from __future__ import annotations

import importlib.util
import re
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, model_validator

from proactive_bench.env.apps.base import env_now
from proactive_bench.env.documents import docx_blocks, pdf_pages
from proactive_bench.env.office_blocks import Block, BulletsBlock, HeadingBlock, ParagraphBlock, TableBlock, blocks_text
from proactive_bench.env.office_files import load, require_new, require_suffix, save
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool

if TYPE_CHECKING:
    from fpdf import FPDF

GROUP = "pdf"
FONT = "DejaVu"


def _package_folder(name: str) -> Path:
    """An installed package's folder, found without importing it (importing matplotlib costs every pbench start)."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise ImportError(f"pbench needs the {name} package (for its fonts); it is not installed")
    return Path(spec.origin).parent


FONT_FOLDER = _package_folder("matplotlib") / "mpl-data" / "fonts" / "ttf"
BODY_SIZE = 11
HEADING_SIZES = {1: 18, 2: 15, 3: 13}
LINE = 6
MAX_CHARACTERS = 300_000
"""The most text ``pdf_create`` lays out (about 100 pages)."""
MAX_PAGES = 300
"""The most pages ``pdf_extract_text`` reads; the page count says how many there are."""
HEADING_RE = re.compile(r"^(#{1,3}) +(\S.*)$")
BULLET_RE = re.compile(r"^[-*] +(\S.*)$")


def text_blocks(text: str) -> list[Block]:
    """Blocks from plain text: blank lines end paragraphs, ``# ``/``## ``/``### `` lines are headings, ``- `` lines bullets."""
    blocks: list[Block] = []
    lines: list[str] = []

    def flush() -> None:
        if lines:
            blocks.append(ParagraphBlock(type="paragraph", text="\n".join(lines)))
            lines.clear()

    for line in text.splitlines():
        heading, bullet = HEADING_RE.match(line.strip()), BULLET_RE.match(line.strip())
        if heading or bullet or not line.strip():
            flush()
        if heading:
            blocks.append(HeadingBlock(type="heading", text=heading.group(2), level=len(heading.group(1))))
        elif bullet and blocks and isinstance(blocks[-1], BulletsBlock):
            blocks[-1].items.append(bullet.group(1))
        elif bullet:
            blocks.append(BulletsBlock(type="bullets", items=[bullet.group(1)]))
        elif line.strip():
            lines.append(line.rstrip())
    flush()
    return blocks


def _write(pdf: FPDF, text: str, size: int, style: str = "", indent: str = "") -> None:
    from fpdf.enums import XPos, YPos  # loaded with fpdf by render_pdf

    pdf.set_font(FONT, style, size)
    pdf.multi_cell(0, LINE if size == BODY_SIZE else size * 0.6, f"{indent}{text}", new_x=XPos.LMARGIN, new_y=YPos.NEXT)


def render_pdf(blocks: list[Block], title: str | None) -> FPDF:
    """A PDF of the blocks (A4, DejaVu Sans), with ``title`` as its metadata title and first heading."""
    from fpdf import FPDF  # fpdf2 loads numpy, PIL and fontTools: only writing a PDF pays for them, not every pbench start

    pdf = FPDF(format="A4")
    pdf.add_font(FONT, "", str(FONT_FOLDER / "DejaVuSans.ttf"))
    pdf.add_font(FONT, "B", str(FONT_FOLDER / "DejaVuSans-Bold.ttf"))
    pdf.set_auto_page_break(True, margin=15)
    pdf.add_page()
    if title:
        pdf.set_title(title)
        blocks = [HeadingBlock(type="heading", text=title, level=1), *blocks]
    for block in blocks:
        if isinstance(block, HeadingBlock):
            pdf.ln(2)
            _write(pdf, block.text, HEADING_SIZES[block.level], "B")
        elif isinstance(block, ParagraphBlock):
            _write(pdf, block.text, BODY_SIZE)
            pdf.ln(2)
        elif isinstance(block, BulletsBlock):
            for item in block.items:
                _write(pdf, item, BODY_SIZE, indent="\u2022 ")
            pdf.ln(2)
        elif isinstance(block, TableBlock) and block.width():
            pdf.set_font(FONT, "", BODY_SIZE - 1)
            with pdf.table(first_row_as_headings=True) as table:
                for values in block.rows:
                    row = table.row()
                    for value in [*values, *[""] * (block.width() - len(values))]:
                        row.cell(value)
            pdf.ln(2)
    return pdf


class CreateArgs(BaseModel):
    path: str = Field(description="Workspace-relative path of the new .pdf file.")
    text: str | None = Field(
        default=None,
        description="The content: paragraphs separated by blank lines; a line starting with '# ' ('## ', '### ') is a heading, '- ' a bullet.",
    )
    from_docx: str | None = Field(default=None, description="Instead of text: a workspace .docx file to convert.")
    title: str | None = Field(default=None, description="Document title (metadata and a first heading).")
    overwrite: bool = Field(default=False, description="Replace the file if it exists.")

    @model_validator(mode="after")
    def _one_source(self) -> CreateArgs:
        if (self.text is None) == (self.from_docx is None):
            raise ValueError("give exactly one of text and from_docx")
        return self


@register_tool("pdf_create", group=GROUP)
def pdf_create(env: ToolEnv, args: CreateArgs) -> str:
    """Create a PDF from text (headings with '# ') or from a workspace .docx file."""
    require_suffix(args.path, ".pdf")
    require_new(env, args.path, args.overwrite)
    blocks = text_blocks(args.text) if args.text is not None else load(env, args.from_docx or "", ".docx", docx_blocks)
    if (size := len(blocks_text(blocks))) > MAX_CHARACTERS:
        raise ToolError(f"{args.from_docx or 'text'}: {size} characters, more than the {MAX_CHARACTERS} a PDF is made of here")
    pdf = render_pdf(blocks, args.title)
    pdf.set_creation_date(env_now(env).replace(tzinfo=UTC))  # the world's time (the apps' is UTC): same text, same bytes
    size = save(env, args.path, lambda stream: stream.write(pdf.output()))
    return f"wrote {args.path} ({pdf.pages_count} pages, {size} bytes)"


class ExtractArgs(BaseModel):
    path: str = Field(description="Workspace-relative path of a .pdf file.")


@register_tool("pdf_extract_text", group=GROUP)
def pdf_extract_text(env: ToolEnv, args: ExtractArgs) -> dict[str, Any]:
    """Extract a PDF's text, page by page."""
    texts, count = load(env, args.path, ".pdf", lambda stream: pdf_pages(stream, MAX_PAGES))
    result: dict[str, Any] = {"page_count": count, "pages": [{"page": n, "text": text} for n, text in enumerate(texts, start=1)]}
    if count > len(texts):
        result["truncated"] = f"only the first {len(texts)} of {count} pages"
    return result
