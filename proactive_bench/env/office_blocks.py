"""The content blocks the office tools write: headings, paragraphs, bullet lists and tables.

``docx_create`` and ``docx_edit`` take them as arguments, ``pdf_create``
renders them (parsed from its text, or read back from a DOCX), so a document
means the same whichever tool made it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Discriminator, Field, StringConstraints, Tag, model_validator

MAX_COLUMNS = 63
"""Word's own limit on table columns."""
NonBlank = Annotated[str, StringConstraints(min_length=1, pattern=r"\S")]


def _cell_text(value: object) -> str:
    """A table cell as text: numbers as written, nothing as empty."""
    return "" if value is None else str(value)


CellText = Annotated[str, BeforeValidator(_cell_text)]


class HeadingBlock(BaseModel):
    type: Literal["heading"]
    text: NonBlank = Field(description="The heading's text.")
    level: int = Field(default=1, ge=1, le=3, description="1 (top) to 3.")


class ParagraphBlock(BaseModel):
    type: Literal["paragraph"]
    text: str = Field(description="The paragraph's text; a newline starts a new line within it.")


class BulletsBlock(BaseModel):
    type: Literal["bullets"]
    items: list[str] = Field(min_length=1, description="One bullet per item.")


class TableBlock(BaseModel):
    type: Literal["table"]
    rows: list[list[CellText]] = Field(min_length=1, description="Rows of cells; the first row is the header. Short rows are padded.")

    @model_validator(mode="after")
    def _has_columns(self) -> TableBlock:
        if not 1 <= self.width() <= MAX_COLUMNS:
            raise ValueError(f"a table needs 1 to {MAX_COLUMNS} columns, got {self.width()}")
        return self

    def width(self) -> int:
        return max(len(row) for row in self.rows)


def _block_type(value: Any) -> Any:
    return value.get("type") if isinstance(value, dict) else getattr(value, "type", None)


Block = Annotated[
    Annotated[HeadingBlock, Tag("heading")]
    | Annotated[ParagraphBlock, Tag("paragraph")]
    | Annotated[BulletsBlock, Tag("bullets")]
    | Annotated[TableBlock, Tag("table")],
    Discriminator(
        _block_type, custom_error_type="block_type", custom_error_message="type must be one of heading, paragraph, bullets, table"
    ),
]
"""One block, chosen by its ``type`` (a plain ``oneOf`` in the JSON schema: no ``discriminator`` keyword for model servers to trip on)."""
BLOCKS_HELP = (
    "Content in order: {type: heading, text, level 1-3}, {type: paragraph, text}, {type: bullets, items: [...]}, "
    "{type: table, rows: [[...], ...]} (first row = header)."
)


def blocks_text(blocks: list[Block], mark_headings: bool = False) -> str:
    """Blocks as plain text, one line per paragraph, bullet and table row (cells joined by `` | ``).

    With ``mark_headings``, headings start with one ``#`` per level and bullets with ``- ``.
    """
    lines: list[str] = []
    for block in blocks:
        if isinstance(block, HeadingBlock):
            lines.append(f"{'#' * block.level} {block.text}" if mark_headings else block.text)
        elif isinstance(block, ParagraphBlock):
            lines.append(block.text)
        elif isinstance(block, BulletsBlock):
            lines.extend(f"- {item}" if mark_headings else item for item in block.items)
        else:
            lines.extend(" | ".join(row) for row in block.rows)
    return "\n".join(lines)
