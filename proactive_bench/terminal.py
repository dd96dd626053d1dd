"""Tables that read at any width, on a terminal or through a pipe.

Every table pbench prints is a rich :class:`~rich.table.Table` printed by a
:class:`TableConsole`. A column added with ``no_wrap=True`` holds what people
copy or read whole (ids, model names, statuses, numbers) and is never cut;
the other columns wrap. When the table does not fit the width (``COLUMNS``
wins, as in rich) with its whole columns whole, it is printed stacked: one
block per row, one ``header  value`` line per column. Output that is not a
terminal is plain text: no box drawing and no colour codes.
"""

from __future__ import annotations

import os
import textwrap
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.table import Column, Table
from rich.text import Text

CELL_PADDING = 2
"""Columns a cell's padding takes (one space each side)."""
COMFORTABLE = 20
"""A wrapping column of short cells needs its longest word; one with longer cells (prose) this many columns."""
HEADER_WORD = 10
"""... and its header's longest word, up to this many columns."""


class TableConsole(Console):
    """A rich console that prints a lone :class:`Table` through :func:`print_table`; everything else as rich does."""

    def print(self, *objects: Any, **options: Any) -> None:
        if len(objects) == 1 and isinstance(objects[0], Table) and not options:
            print_table(self, objects[0])
        else:
            super().print(*objects, **options)


def current_width(console: Console) -> int:
    """The width to print at: ``COLUMNS`` when set (read now, not when the console was made), else the console's."""
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else console.width


def print_table(console: Console, table: Table) -> None:
    """Print ``table`` as a grid when it fits with its ``no_wrap`` columns whole, else stacked; plain when not a terminal."""
    width = current_width(console)
    plain = not console.is_terminal
    table.box = None if plain else box.SIMPLE_HEAD
    table.show_edge = False
    table.pad_edge = False
    if _narrowest(console, table) <= width:
        for column in table.columns:
            if column.no_wrap:
                column.min_width = _widest(console, column, header=True)
            elif column.overflow == "ellipsis":
                column.overflow = "fold"  # a word longer than its column breaks rather than being cut
        console.print(table, width=width, crop=False)
    else:
        _print_stacked(console, table, width)


def _narrowest(console: Console, table: Table) -> int:
    """The width the table needs: ``no_wrap`` columns whole, the others wide enough to read (see COMFORTABLE)."""
    widths = [_widest(console, c, header=True) if c.no_wrap else _comfortable(console, c) for c in table.columns]
    dividers = max(len(widths) - 1, 0) if table.box is not None else 0
    return sum(widths) + CELL_PADDING * max(len(widths) - 1, 0) + dividers  # no padding at the outer edges


def _widest(console: Console, column: Column, header: bool) -> int:
    texts = [_plain(console, cell) for cell in column.cells] + ([_plain(console, column.header)] if header else [])
    return max((cell_len(line) for text in texts for line in text.splitlines()), default=0)


def _comfortable(console: Console, column: Column) -> int:
    cells = [_plain(console, cell) for cell in column.cells]
    longest_word = max((cell_len(word) for text in cells for word in text.split()), default=0)
    header_word = max((cell_len(word) for word in _plain(console, column.header).split()), default=0)
    needed = COMFORTABLE if _widest(console, column, header=False) > COMFORTABLE else longest_word
    return max(needed, min(header_word, HEADER_WORD), 1)


def _plain(console: Console, cell: RenderableType) -> str:
    """A cell's text without markup, as the table would show it."""
    if isinstance(cell, Text):
        return cell.plain
    if isinstance(cell, str):
        return console.render_str(cell).plain
    return str(cell)


def _print_stacked(console: Console, table: Table, width: int) -> None:
    """One block per row: the row's ``header  value`` lines, values of wrapping columns wrapped under their start."""
    headers = [" ".join(_plain(console, c.header).split()) for c in table.columns]
    label_width = min(max((cell_len(h) for h in headers), default=0), max(width // 3, 8))
    value_width = max(width - label_width - 2, 10)
    if table.title:
        console.print(Text(_plain(console, table.title), style="bold"), width=width)
    for row in zip(*(list(column.cells) for column in table.columns), strict=False):  # a column added after rows has fewer cells
        console.print()
        for column, header, cell in zip(table.columns, headers, row, strict=True):
            value = _plain(console, cell)
            if not header:  # an unnamed column (a row label): the block's heading
                console.print(Text(value, style="bold"), soft_wrap=True)
                continue
            lines = [piece for line in value.splitlines() or [""] for piece in _wrapped(line, value_width, column.no_wrap)]
            if cell_len(header) > label_width:  # a long header gets a line of its own
                console.print(Text(header, style="bold"), soft_wrap=True)
                header = ""
            for i, line in enumerate(lines):
                label = header if i == 0 else ""
                console.print(Text.assemble((label.ljust(label_width), "bold"), "  ", line), soft_wrap=True)
    if table.caption:
        console.print()
        console.print(Text(_plain(console, table.caption), style="dim"), width=width)
    console.print()


def _wrapped(line: str, width: int, whole: bool) -> list[str]:
    if whole or cell_len(line) <= width:
        return [line]
    return textwrap.wrap(line, width, break_long_words=True, break_on_hyphens=False) or [""]
