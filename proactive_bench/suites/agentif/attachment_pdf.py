"""The document :func:`.attachment_writers.pdf_file` hands over: its own module, so that fpdf2 (with fontTools and
PIL) loads only when a PDF is written, not with the other writers (``pbench validate``'s copy check writes none for
the shipped tasks)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from fpdf import FPDF


class AttachmentPdf(FPDF):
    """An fpdf2 document with its first page open, written as full-width lines (``pdf_file`` fixes its creation date)."""

    def __init__(self) -> None:
        super().__init__()
        self.add_page()

    def write_lines(
        self,
        lines: Iterable[str],
        height: float,
        *,
        size: float = 11,
        style: str = "",
        family: str = "Helvetica",
        wrap: bool = False,
    ) -> None:
        """Each line in the given font, ``height`` mm high: one cell, or with ``wrap`` a multi-cell that wraps (an empty line stays blank)."""
        self.set_font(family, style, size)
        for line in lines:
            if wrap:
                self.multi_cell(0, height, line or " ", new_x="LMARGIN", new_y="NEXT")
            else:
                self.cell(0, height, line, new_x="LMARGIN", new_y="NEXT")

    def heading(self, text: str, height: float, *, size: float = 12) -> None:
        """One bold line."""
        self.write_lines([text], height, size=size, style="B")

    def sections(
        self,
        sections: Iterable[tuple[str, Sequence[str]]],
        *,
        heading_height: float,
        line_height: float,
        bullet: str = "- ",
        wrap: bool = False,
    ) -> None:
        """Each section as a bold 12 pt heading over its lines, each line after ``bullet``."""
        for title, lines in sections:
            self.heading(title, heading_height)
            self.write_lines([f"{bullet}{line}" for line in lines], line_height, wrap=wrap)
