"""Excel workbooks (openpyxl): ``xlsx_read``, ``xlsx_write``, ``xlsx_append_rows`` (group ``spreadsheets``).

A string starting with ``=`` is written as a formula and stays one (openpyxl
does not compute it; Excel or LibreOffice do on opening). ``xlsx_read`` shows
both a cell's formula and its cached value, the value the program that last
computed the file stored (none for a file openpyxl saved). Saving a workbook
keeps cells, formulas, styles and merged cells; openpyxl drops what it does
not model (charts and images, for instance).
"""

from __future__ import annotations

import io
import re
from datetime import date, datetime, time, timedelta
from typing import Any

from openpyxl import Workbook, load_workbook
from openpyxl.cell.cell import MergedCell
from openpyxl.utils import get_column_letter
from openpyxl.utils.exceptions import IllegalCharacterError
from openpyxl.worksheet.formula import ArrayFormula
from openpyxl.worksheet.worksheet import Worksheet
from pydantic import BaseModel, Field

from proactive_bench.env.apps.base import env_now
from proactive_bench.env.office_files import load, require_suffix, save_office
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool

GROUP = "spreadsheets"
DEFAULT_SHEET = "Sheet1"
MAX_CELLS = 5_000
"""The most non-empty cells ``xlsx_read`` returns; a larger range is cut and says so."""
MAX_SCANNED = 2_000_000
"""The most cells, empty ones included, ``xlsx_read`` looks at."""
MAX_WRITES = 10_000
"""The most cells (or rows) one call writes."""
MAX_COLUMN, MAX_ROW = 16_384, 1_048_576
CELL_RE = re.compile(r"^\$?([A-Za-z]{1,3})\$?([0-9]{1,7})$")
CellValue = str | int | float | bool | None


def parse_cell(reference: str) -> tuple[int, int]:
    """A cell reference such as ``B4`` as (row, column); ToolError for anything else."""
    match = CELL_RE.match(reference.strip())
    column = 0
    for letter in match.group(1).upper() if match else "":
        column = column * 26 + ord(letter) - ord("A") + 1
    row = int(match.group(2)) if match else 0
    if not (1 <= column <= MAX_COLUMN and 1 <= row <= MAX_ROW):
        raise ToolError(f"invalid cell reference {reference!r}: expected a column A-XFD and a row 1-{MAX_ROW}, e.g. 'B4'")
    return row, column


def parse_range(reference: str) -> tuple[int, int, int, int]:
    """``A1:D10`` (or one cell) as (first row, first column, last row, last column), corners in any order."""
    corners = [parse_cell(part) for part in reference.split(":")] if reference.count(":") <= 1 else []
    if not corners:
        raise ToolError(f"invalid range {reference!r}: expected two cells such as 'A1:D10'")
    (r1, c1), (r2, c2) = corners[0], corners[-1]
    return min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)


def find_sheet(book: Workbook, name: str | None) -> Worksheet | None:
    """The sheet named ``name`` (case-insensitive, as in Excel), the first sheet when no name is given."""
    if name is None:
        return book.worksheets[0] if book.worksheets else None
    return next((sheet for sheet in book.worksheets if sheet.title.lower() == name.strip().lower()), None)


def _sheet_names(book: Workbook) -> str:
    return ", ".join(repr(sheet.title) for sheet in book.worksheets) or "none"


def _json(value: Any) -> Any:
    """A cell value as JSON: dates and times in ISO form, other non-JSON types as text."""
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value) if not isinstance(value, timedelta) else value.total_seconds()


def _formula(value: Any) -> str | None:
    if isinstance(value, ArrayFormula):
        return value.text
    return value if isinstance(value, str) and value.startswith("=") else None


class ReadArgs(BaseModel):
    path: str = Field(description="Workspace-relative path of a .xlsx file.")
    sheet: str | None = Field(default=None, description="Sheet name (default: the first sheet).")
    range: str | None = Field(default=None, description="Cells to read, e.g. 'A1:D10' (default: the whole sheet).")


def _cells(formulas: Any, values: Any, bounds: dict[str, int]) -> tuple[list[dict[str, Any]], str | None]:
    """Non-empty cells of two read-only views of one sheet, row by row (coordinate, cached value, formula), and why the list was cut.

    openpyxl pads the rows of a read-only sheet to the sheet's declared size,
    so a file with two far-apart cells would make billions of empty ones: the
    scan stops after :data:`MAX_SCANNED` cells, as it does after :data:`MAX_CELLS` non-empty ones.
    """
    cells: list[dict[str, Any]] = []
    scanned = 0
    for row_f, row_v in zip(formulas.iter_rows(**bounds), values.iter_rows(**bounds), strict=True):
        scanned += len(row_f)
        if scanned > MAX_SCANNED:
            return cells, f"stopped after scanning {MAX_SCANNED} cells; read a smaller range"
        for cell_f, cell_v in zip(row_f, row_v, strict=True):
            if cell_f.value is None:
                continue
            if len(cells) == MAX_CELLS:
                return cells, f"only the first {MAX_CELLS} non-empty cells; read a smaller range"
            formula = _formula(cell_f.value)
            entry = {"cell": f"{get_column_letter(cell_f.column)}{cell_f.row}", "value": _json(cell_v.value if formula else cell_f.value)}
            cells.append(entry | ({"formula": formula} if formula else {}))
    return cells, None


@register_tool("xlsx_read", group=GROUP)
def xlsx_read(env: ToolEnv, args: ReadArgs) -> dict[str, Any]:
    """Read a sheet's non-empty cells: coordinate, value and, for formula cells, the formula (the value is then the cached result, if any)."""
    bounds: dict[str, int] = {}
    if args.range is not None:
        r1, c1, r2, c2 = parse_range(args.range)
        bounds = {"min_row": r1, "min_col": c1, "max_row": r2, "max_col": c2}

    def both(stream: io.BytesIO) -> tuple[Workbook, Workbook]:
        return load_workbook(stream, read_only=True), load_workbook(io.BytesIO(stream.getvalue()), read_only=True, data_only=True)

    formulas, values = load(env, args.path, ".xlsx", both)
    try:
        sheet = find_sheet(formulas, args.sheet)
        if sheet is None:
            raise ToolError(f"{args.path}: no sheet {args.sheet!r}; sheets: {_sheet_names(formulas)}")
        cells, cut = _cells(sheet, values[sheet.title], bounds)
        return {"sheet": sheet.title, "sheets": formulas.sheetnames, "cells": cells} | ({"truncated": cut} if cut else {})
    finally:
        formulas.close()
        values.close()


def _open_for_writing(env: ToolEnv, path: str, sheet_name: str | None) -> tuple[Workbook, Worksheet]:
    """The workbook at ``path`` (a new one when there is no file) and the sheet to write, created when missing."""
    if env.workspace.resolve(require_suffix(path, ".xlsx")).exists():
        book = load(env, path, ".xlsx", load_workbook)
    else:
        book = Workbook()
        book.properties.created = env_now(env)  # the world's time, not the machine's (save_office dates the rest)
        first = book.active
        assert isinstance(first, Worksheet)  # a new workbook opens with one worksheet
        first.title = (sheet_name or DEFAULT_SHEET).strip()
    sheet = find_sheet(book, sheet_name)
    if sheet is None:
        if sheet_name is None:
            raise ToolError(f"{path}: the workbook has no worksheet")
        try:
            sheet = book.create_sheet(sheet_name.strip())
        except ValueError as exc:
            raise ToolError(f"invalid sheet name {sheet_name!r}: {exc}") from None
    return book, sheet


def _put(sheet: Worksheet, row: int, column: int, value: CellValue) -> None:
    cell = sheet.cell(row=row, column=column)
    if isinstance(cell, MergedCell):
        raise ToolError(f"{cell.coordinate} is inside a merged range; write its top-left cell")
    try:
        cell.value = value
    except IllegalCharacterError:
        raise ToolError(f"{cell.coordinate}: the text holds control characters a spreadsheet cannot store") from None


class WriteArgs(BaseModel):
    path: str = Field(description="Workspace-relative path of a .xlsx file; created if missing.")
    cells: dict[str, CellValue] = Field(
        min_length=1,
        max_length=MAX_WRITES,
        description="Cell to value, e.g. {'A1': 'Total', 'B1': 1200, 'B5': '=SUM(B1:B4)'}: a string starting with '=' is a formula; null clears.",
    )
    sheet: str | None = Field(
        default=None, description=f"Sheet name (default: the first sheet; '{DEFAULT_SHEET}' in a new workbook); created if missing."
    )


@register_tool("xlsx_write", group=GROUP)
def xlsx_write(env: ToolEnv, args: WriteArgs) -> str:
    """Write values and formulas into cells of a workbook (created if missing); other cells are kept."""
    targets = [(parse_cell(ref), value) for ref, value in args.cells.items()]
    book, sheet = _open_for_writing(env, args.path, args.sheet)
    for (row, column), value in targets:
        _put(sheet, row, column, value)
    save_office(env, args.path, book.save, modified=True)
    return f"wrote {len(targets)} cells to sheet {sheet.title!r} of {args.path}"


class AppendArgs(BaseModel):
    path: str = Field(description="Workspace-relative path of a .xlsx file; created if missing.")
    rows: list[list[CellValue]] = Field(
        min_length=1, max_length=MAX_WRITES, description="Rows of values (from column A); '=...' is a formula."
    )
    sheet: str | None = Field(default=None, description="Sheet name (default: the first sheet); created if missing.")


def last_used_row(sheet: Worksheet) -> int:
    """The last row holding a value (0 for an empty sheet); formatted but empty rows below it do not count.

    Looks at the cells the sheet holds (openpyxl's ``_cells``), not at every
    coordinate of its dimensions as ``iter_rows`` would (which creates them).
    """
    return max((row for (row, _column), cell in sheet._cells.items() if cell.value is not None), default=0)


@register_tool("xlsx_append_rows", group=GROUP)
def xlsx_append_rows(env: ToolEnv, args: AppendArgs) -> dict[str, Any]:
    """Append rows after the last row that holds a value."""
    if max(len(row) for row in args.rows) > MAX_COLUMN:
        raise ToolError(f"a row has more than {MAX_COLUMN} cells")
    book, sheet = _open_for_writing(env, args.path, args.sheet)
    first = last_used_row(sheet) + 1
    if first + len(args.rows) - 1 > MAX_ROW:
        raise ToolError(f"the sheet would pass its last row {MAX_ROW}")
    for offset, values in enumerate(args.rows):
        for column, value in enumerate(values, start=1):
            _put(sheet, first + offset, column, value)
    save_office(env, args.path, book.save, modified=True)
    return {
        "message": f"appended {len(args.rows)} rows to sheet {sheet.title!r} of {args.path}",
        "first_row": first,
        "last_row": first + len(args.rows) - 1,
    }
