"""Word documents (python-docx): ``docx_create``, ``docx_edit``, ``docx_read`` (group ``documents``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from docx import Document
from docx.document import Document as DocxDocument
from docx.text.paragraph import Paragraph
from docx.text.run import Run
from pydantic import BaseModel, Field

from proactive_bench.env.documents import read_docx
from proactive_bench.env.office_blocks import BLOCKS_HELP, Block, BulletsBlock, HeadingBlock, ParagraphBlock
from proactive_bench.env.office_files import load, require_new, require_suffix, save_office
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool

GROUP = "documents"


def _styled(document: DocxDocument, text: str, style: str) -> Paragraph:
    """A paragraph in ``style``; a document made elsewhere may lack the style, then a plain paragraph."""
    try:
        return document.add_paragraph(text, style=style)
    except KeyError:
        return document.add_paragraph(text)


def add_blocks(document: DocxDocument, blocks: list[Block]) -> None:
    """Append blocks at the end of the document's body."""
    for block in blocks:
        if isinstance(block, HeadingBlock):
            _styled(document, block.text, f"Heading {block.level}")
        elif isinstance(block, ParagraphBlock):
            document.add_paragraph(block.text)
        elif isinstance(block, BulletsBlock):
            for item in block.items:
                _styled(document, item, "List Bullet")
        else:
            table = document.add_table(rows=len(block.rows), cols=block.width())
            try:
                table.style = "Table Grid"
            except (KeyError, ValueError):  # a document made elsewhere without the style: no borders
                pass
            for row, values in zip(table.rows, block.rows, strict=True):
                for cell, value in zip(row.cells, values, strict=False):
                    cell.text = value
            for cell in table.rows[0].cells:
                for run in cell.paragraphs[0].runs:
                    run.bold = True


def _paragraphs(document: DocxDocument) -> Iterator[Paragraph]:
    """Every paragraph: the body, table cells (nested; a merged cell once), and each section's own headers and footers."""
    seen: set[Any] = set()  # the cells' XML elements, held so that their identity stays theirs

    def inside(container: Any) -> Iterator[Paragraph]:
        yield from container.paragraphs
        for table in container.tables:
            for row in table.rows:
                for cell in row.cells:
                    if cell._tc not in seen:
                        seen.add(cell._tc)
                        yield from inside(cell)

    yield from inside(document)
    for section in document.sections:
        for part in (section.header, section.footer):
            if not part.is_linked_to_previous:  # a linked part has no content of its own (reading it would add one)
                yield from inside(part)


def _runs(paragraph: Paragraph) -> list[Run]:
    """The paragraph's runs, those inside hyperlinks included, in order."""
    return [run for item in paragraph.iter_inner_content() for run in ([item] if isinstance(item, Run) else item.runs)]


def replace_in_runs(runs: list[Run], old: str, new: str) -> int:
    """Replace every ``old`` in the runs' joined text, also across run borders; the count.

    The new text takes the formatting of the run where the old text starts;
    the rest of the old text is cut from the runs it spans.
    """
    count, search_from = 0, 0
    while (at := "".join(run.text for run in runs).find(old, search_from)) >= 0:
        end, position, placed = at + len(old), 0, False
        for run in runs:
            text = run.text
            start, stop = position, position + len(text)
            position = stop
            if stop <= at or start >= end:
                continue
            cut_from, cut_to = max(at, start) - start, min(end, stop) - start
            run.text = text[:cut_from] + ("" if placed else new) + text[cut_to:]
            placed = True
        count += 1
        search_from = at + len(new)
    return count


class CreateArgs(BaseModel):
    path: str = Field(description="Workspace-relative path of the new .docx file.")
    blocks: list[Block] = Field(min_length=1, description=BLOCKS_HELP)
    overwrite: bool = Field(default=False, description="Replace the file if it exists.")


@register_tool("docx_create", group=GROUP)
def docx_create(env: ToolEnv, args: CreateArgs) -> str:
    """Create a Word document (.docx) from headings, paragraphs, bullet lists and tables."""
    require_suffix(args.path, ".docx")
    require_new(env, args.path, args.overwrite)
    document = Document()
    add_blocks(document, args.blocks)
    size = save_office(env, args.path, document.save, modified=False)
    return f"wrote {args.path} ({len(args.blocks)} blocks, {size} bytes)"


class Replacement(BaseModel):
    old: str = Field(min_length=1, description="Text to replace; every occurrence in paragraphs, table cells, headers and footers.")
    new: str = Field(description="Replacement text.")


class EditArgs(BaseModel):
    path: str = Field(description="Workspace-relative path of an existing .docx file.")
    replace: list[Replacement] = Field(default_factory=list, description="Replacements, applied in order.")
    append: list[Block] = Field(default_factory=list, description=f"Blocks to add at the end. {BLOCKS_HELP}")


@register_tool("docx_edit", group=GROUP)
def docx_edit(env: ToolEnv, args: EditArgs) -> dict[str, Any]:
    """Edit a Word document: replace texts (every occurrence; formatting kept) and/or append blocks at the end."""
    if not args.replace and not args.append:
        raise ToolError("nothing to do: pass replace and/or append")
    document = load(env, args.path, ".docx", Document)
    counts: dict[str, int] = {}
    for pair in args.replace:
        counts[pair.old] = sum(replace_in_runs(_runs(p), pair.old, pair.new) for p in _paragraphs(document))
        if not counts[pair.old]:
            raise ToolError(f"{args.path}: text not found: {pair.old!r} (nothing was changed)")
    add_blocks(document, args.append)
    save_office(env, args.path, document.save, modified=False)
    return {"message": f"edited {args.path}", "replaced": counts, "appended_blocks": len(args.append)}


class ReadArgs(BaseModel):
    path: str = Field(description="Workspace-relative path of a .docx file.")


@register_tool("docx_read", group=GROUP)
def docx_read(env: ToolEnv, args: ReadArgs) -> str:
    """Read a Word document as text: headings start with '#' (one per level), bullets with '- ', table rows as 'a | b'."""
    return load(env, args.path, ".docx", lambda stream: read_docx(stream, mark_headings=True))
