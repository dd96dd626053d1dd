"""The named checkers of OdysseyBench-style tasks: argument models, and the check each one runs.

A task's criterion ``{checker: NAME, args: {...}}`` becomes a rule checklist
item whose predicate is ``{checker: {name: NAME, args: {...}}}`` (the dataset's
``checker`` kind); :func:`checker_check` evaluates it on a session's
:class:`~proactive_bench.data_model.Evidence` through ``dataset.PREDICATE_CHECKS``.
Paths are workspace-relative and read through the jail; the text of a file is
what the ``read_file`` tool shows (DOCX, XLSX cached values, PDF pages, else UTF-8).
A state the checker cannot judge (an unreadable spreadsheet, a formula it
cannot evaluate) raises :class:`CheckerError`, which grading records as an error, never as a fail.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Callable
from datetime import date, datetime
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from openpyxl import load_workbook
from openpyxl.utils.cell import coordinate_from_string, range_boundaries
from openpyxl.utils.exceptions import CellCoordinatesException
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from proactive_bench.dataset import check_regex, check_relative_path
from proactive_bench.env import DocumentError, Workspace, read_as_text

if TYPE_CHECKING:
    from pycel import ExcelCompiler

    from proactive_bench.data_model import Evidence
    from proactive_bench.dataset import CheckerArgs

EMAIL_TABLE = "gmail_email"
CALENDAR_TABLE = "calendar_event"


class CheckerError(Exception):
    """A state a checker cannot judge; the message says which and why."""


class CheckerArgsModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _path(value: str) -> str:
    return check_relative_path(value)


class FileExistsArgs(CheckerArgsModel):
    path: str = Field(description="Workspace-relative path of a regular file.")
    _p = field_validator("path")(_path)


class FileContainsArgs(CheckerArgsModel):
    path: str
    text: str = Field(min_length=1)
    mode: Literal["exact", "icase", "regex"] = "exact"
    absent: bool = Field(default=False, description="Pass when the file does NOT contain it (the file must still exist).")
    _p = field_validator("path")(_path)

    @model_validator(mode="after")
    def _regex_compiles(self) -> FileContainsArgs:
        if self.mode == "regex":
            check_regex(self.text)
        return self


class XlsxCellArgs(CheckerArgsModel):
    path: str
    sheet: str | None = Field(default=None, description="Sheet name; None: the first sheet.")
    cell: str = Field(description='A cell coordinate, e.g. "B4".')
    value: float | int | str | None = None
    formula: str | None = None
    tolerance: float = Field(default=1e-6, ge=0)
    _p = field_validator("path")(_path)

    @field_validator("cell")
    @classmethod
    def _coordinate(cls, value: str) -> str:
        try:
            coordinate_from_string(value.upper())
        except (ValueError, CellCoordinatesException):
            raise ValueError(f"{value!r} is not a cell coordinate like B4") from None
        return value.upper()

    @model_validator(mode="after")
    def _one_expectation(self) -> XlsxCellArgs:
        if (self.value is None) == (self.formula is None):
            raise ValueError("give exactly one of 'value' or 'formula'")
        return self


class XlsxRangeArgs(CheckerArgsModel):
    path: str
    sheet: str | None = None
    range: str = Field(description='One column or row, e.g. "A2:A6" or "B3:F3".')
    values: list[float | int | str | None] = Field(min_length=1)
    tolerance: float = Field(default=1e-6, ge=0)
    _p = field_validator("path")(_path)

    @model_validator(mode="after")
    def _line_of_right_length(self) -> XlsxRangeArgs:
        try:
            min_col, min_row, max_col, max_row = range_boundaries(self.range)
        except (ValueError, TypeError, CellCoordinatesException):
            raise ValueError(f"{self.range!r} is not a range like A2:A6") from None
        if min_col is None or min_row is None or max_col is None or max_row is None or (min_col != max_col and min_row != max_row):
            raise ValueError(f"{self.range!r} is not one column or one row")
        cells = (max_col - min_col + 1) * (max_row - min_row + 1)
        if cells != len(self.values):
            raise ValueError(f"{self.range!r} has {cells} cells but 'values' lists {len(self.values)}")
        return self


def iso_minute(value: str) -> datetime:
    try:
        return datetime.fromisoformat(value).replace(second=0, microsecond=0, tzinfo=None)
    except ValueError:
        raise ValueError(f"{value!r} is not an ISO date-time like 2025-03-14T09:30") from None


class CalendarEventArgs(CheckerArgsModel):
    title: str = Field(min_length=1, description="A case-insensitive substring of the event's title.")
    start: str | None = None
    end: str | None = None
    location: str | None = Field(default=None, description="A case-insensitive substring of the event's location.")
    attendees: list[str] = Field(default_factory=list, description="Addresses that must all be among the event's attendees.")

    @field_validator("start", "end")
    @classmethod
    def _iso(cls, value: str | None) -> str | None:
        if value is not None:
            iso_minute(value)
        return value


class CalendarNoOverlapArgs(CheckerArgsModel):
    on: date | None = Field(default=None, description="Only events starting on this date; None: all events.")


class EmailSentArgs(CheckerArgsModel):
    to: str = Field(min_length=3, description="A recipient address (case-insensitive).")
    subject_contains: str | None = None
    body_contains: list[str] | str = Field(default_factory=list)
    cc: str | None = None
    attachment: str | None = Field(default=None, description="A workspace path the e-mail must attach.")
    before: str | None = Field(default=None, description="Sent at or before this ISO minute on the apps' clock (a deadline).")

    @field_validator("before")
    @classmethod
    def _iso(cls, value: str | None) -> str | None:
        if value is not None:
            iso_minute(value)
        return value

    @property
    def body_parts(self) -> list[str]:
        return [self.body_contains] if isinstance(self.body_contains, str) else list(self.body_contains)


class AnswerMatchesArgs(CheckerArgsModel):
    path: str = "answer.txt"
    expected: str | float | int
    mode: Literal["exact", "icase", "number"] = "exact"
    tolerance: float = Field(default=1e-6, ge=0)
    _p = field_validator("path")(_path)

    @model_validator(mode="after")
    def _number_expected(self) -> AnswerMatchesArgs:
        if self.mode == "number" and _number(self.expected) is None:
            raise ValueError(f"mode 'number' needs a numeric 'expected', got {self.expected!r}")
        return self


# ---- the checks -------------------------------------------------------------------------------


def _regular_file(ws: Workspace, path: str) -> bool:
    return path.strip("/") in set(ws.files())


def _text(ws: Workspace, path: str) -> str | None:
    """The file's text as read_file shows it; None when it is not a regular file of the workspace."""
    if not _regular_file(ws, path):
        return None
    try:
        return read_as_text(ws.resolve(path))
    except DocumentError:
        return ""  # a damaged document holds no text: it contains nothing


def file_exists(args: FileExistsArgs, evidence: Evidence) -> bool:
    return _regular_file(evidence.workspace, args.path)


def file_contains(args: FileContainsArgs, evidence: Evidence) -> bool:
    text = _text(evidence.workspace, args.path)
    if text is None:
        return False
    if args.mode == "regex":
        found = re.search(args.text, text, re.IGNORECASE | re.MULTILINE) is not None
    elif args.mode == "icase":
        found = args.text.casefold() in text.casefold()
    else:
        found = args.text in text
    return found != args.absent


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        cleaned = value.strip().replace(",", "").removeprefix("$")
        try:
            return float(cleaned)
        except ValueError:
            return None
    return None


def _same_value(actual: Any, expected: Any, tolerance: float) -> bool:
    if expected is None:
        return actual is None or (isinstance(actual, str) and not actual.strip())
    if isinstance(expected, int | float) and not isinstance(expected, bool):
        number = actual if isinstance(actual, int | float) and not isinstance(actual, bool) else None
        return number is not None and math.isclose(float(number), float(expected), rel_tol=0, abs_tol=tolerance)
    return actual is not None and str(actual).strip() == str(expected).strip()


class _Sheet:
    """One worksheet: formulas as written, and (opened again when a formula is read) the values Excel cached (None when never computed)."""

    def __init__(self, ws: Workspace, path: str, sheet: str | None) -> None:
        if not _regular_file(ws, path):
            raise FileNotFoundError(path)
        real = self.real = ws.resolve(path)
        self._compiler: ExcelCompiler | None = None
        self._content = real.read_bytes()
        try:
            self.formulas_book = _book(self._content, values=False)
        except Exception as exc:  # openpyxl raises many types for a file that is not a workbook
            raise _NotAWorkbook(str(exc)) from exc
        names = self.formulas_book.sheetnames
        self.name = sheet if sheet is not None else names[0]
        if self.name not in names:
            raise KeyError(self.name)
        self.path = path

    def value(self, coordinate: str) -> Any:
        """The cell's value: a constant, a formula's cached result, or the formula evaluated over this workbook."""
        raw = self.formulas_book[self.name][coordinate].value
        if not (isinstance(raw, str) and raw.startswith("=")):
            return raw
        cached = _book(self._content, values=True)[self.name][coordinate].value  # parsed when a formula is first read
        if cached is not None:
            return cached
        return self._evaluated(coordinate)

    def _evaluated(self, coordinate: str) -> Any:
        """A formula no spreadsheet program has computed (openpyxl writes none), evaluated by pycel."""
        if self._compiler is None:
            from pycel import ExcelCompiler  # DEFERRED: pycel (with networkx) loads when a formula is evaluated, not with the suite

            self._compiler = ExcelCompiler(filename=str(self.real))
        try:
            result = self._compiler.evaluate(f"{self.name}!{coordinate}")
        except Exception as exc:  # pycel raises many types for a formula it cannot evaluate
            raise CheckerError(f"{self.path}: {self.name}!{coordinate}: cannot evaluate the formula: {exc}") from exc
        return result  # an Excel error value ("#DIV/0!") is a wrong value like any other

    def range_values(self, ref: str) -> list[Any]:
        min_col, min_row, max_col, max_row = range_boundaries(ref)
        sheet = self.formulas_book[self.name]
        return [self.value(cell.coordinate) for row in sheet.iter_rows(min_row, max_row, min_col, max_col) for cell in row]

    def formula(self, coordinate: str) -> str | None:
        raw = self.formulas_book[self.name][coordinate].value
        return raw if isinstance(raw, str) and raw.startswith("=") else None


@lru_cache(maxsize=16)
def _book(content: bytes, values: bool) -> Any:
    """A workbook's formulas, or (``values``) the values a spreadsheet program cached, parsed once per content of the
    file: a checklist checks one spreadsheet several times and every baseline's untouched copy is the same file. Only
    read: a cell looked up that was never written reads None however often it is looked up."""
    return load_workbook(io.BytesIO(content), data_only=values)


class _NotAWorkbook(Exception):
    pass


def _open_sheet(ws: Workspace, path: str, sheet: str | None) -> _Sheet | None:
    """The sheet, or None when the file or sheet is missing or is not a workbook (the check fails)."""
    try:
        return _Sheet(ws, path, sheet)
    except (FileNotFoundError, KeyError, _NotAWorkbook):
        return None


def _squeeze(formula: str) -> str:
    return re.sub(r"\s+", "", formula).upper().removeprefix("=")


def xlsx_cell(args: XlsxCellArgs, evidence: Evidence) -> bool:
    sheet = _open_sheet(evidence.workspace, args.path, args.sheet)
    if sheet is None:
        return False
    if args.formula is not None:
        written = sheet.formula(args.cell)
        return written is not None and _squeeze(written) == _squeeze(args.formula)
    return _same_value(sheet.value(args.cell), args.value, args.tolerance)


def xlsx_range(args: XlsxRangeArgs, evidence: Evidence) -> bool:
    sheet = _open_sheet(evidence.workspace, args.path, args.sheet)
    if sheet is None:
        return False
    actual = sheet.range_values(args.range)
    return all(_same_value(a, e, args.tolerance) for a, e in zip(actual, args.values, strict=True))


def _app_rows(evidence: Evidence, table: str) -> list[dict[str, Any]]:
    if evidence.apps is None:
        return []
    try:
        return evidence.apps.rows(table)
    except KeyError:
        raise CheckerError(f"no app table {table!r} in this installation") from None


def _as_list(value: Any) -> list[str]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            value = [value]
    return [str(v).strip().casefold() for v in value or []]


def _event_times(row: dict[str, Any]) -> tuple[datetime, datetime]:
    return iso_minute(str(row["start"])), iso_minute(str(row["end"]))


def calendar_event(args: CalendarEventArgs, evidence: Evidence) -> bool:
    for row in _app_rows(evidence, CALENDAR_TABLE):
        start, end = _event_times(row)
        if args.title.casefold() not in str(row.get("title") or "").casefold():
            continue
        if args.start is not None and start != iso_minute(args.start):
            continue
        if args.end is not None and end != iso_minute(args.end):
            continue
        if args.location is not None and args.location.casefold() not in str(row.get("location") or "").casefold():
            continue
        if not set(_as_list(args.attendees)) <= set(_as_list(row.get("attendees"))):
            continue
        return True
    return False


def calendar_no_overlap(args: CalendarNoOverlapArgs, evidence: Evidence) -> bool:
    spans = sorted(_event_times(row) for row in _app_rows(evidence, CALENDAR_TABLE))
    if args.on is not None:
        spans = [s for s in spans if s[0].date() == args.on]
    return all(later[0] >= earlier[1] for earlier, later in pairwise(spans))


def _sent_now(evidence: Evidence) -> list[dict[str, Any]]:
    """E-mails sent during the session: rows of the table that were not there when it started (seeded mail never counts)."""
    before = {row.get("id") for row in (evidence.apps_at_start or {}).get(EMAIL_TABLE, [])}
    return [row for row in _app_rows(evidence, EMAIL_TABLE) if row.get("id") not in before]


def email_sent(args: EmailSentArgs, evidence: Evidence) -> bool:
    for row in _sent_now(evidence):
        if args.to.strip().casefold() not in _as_list(row.get("recipient_emails")):
            continue
        if args.cc is not None and args.cc.strip().casefold() not in _as_list(row.get("cc_emails")):
            continue
        if args.subject_contains is not None and args.subject_contains.casefold() not in str(row.get("subject") or "").casefold():
            continue
        body = str(row.get("body") or "").casefold()
        if not all(part.casefold() in body for part in args.body_parts):
            continue
        if args.attachment is not None and Path(args.attachment).as_posix() not in {
            Path(p).as_posix() for p in _as_list(row.get("attachment_file_paths"))
        }:
            continue
        if args.before is not None and iso_minute(str(row.get("sent_at"))) > iso_minute(args.before):
            continue
        return True
    return False


def answer_matches(args: AnswerMatchesArgs, evidence: Evidence) -> bool:
    text = _text(evidence.workspace, args.path)
    if text is None:
        return False
    answer, expected = text.strip(), str(args.expected).strip()
    if args.mode == "number":
        found = _number(answer)
        return found is not None and math.isclose(found, float(_number(args.expected) or 0.0), rel_tol=0, abs_tol=args.tolerance)
    if args.mode == "icase":
        return answer.casefold() == expected.casefold()
    return answer == expected


class Checker(BaseModel):
    """A named checker: its argument model, its check, and what it checks in one line."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)
    args: type[CheckerArgsModel]
    check: Callable[[Any, Any], bool]
    says: str


CHECKERS: dict[str, Checker] = {
    "file_exists": Checker(args=FileExistsArgs, check=file_exists, says="{path} exists"),
    "file_contains": Checker(args=FileContainsArgs, check=file_contains, says="{path} contains {text!r} ({mode})"),
    "xlsx_cell": Checker(args=XlsxCellArgs, check=xlsx_cell, says="{path} cell {cell} holds the expected value"),
    "xlsx_range": Checker(args=XlsxRangeArgs, check=xlsx_range, says="{path} range {range} holds the expected values"),
    "calendar_event": Checker(args=CalendarEventArgs, check=calendar_event, says="the calendar has an event titled {title!r}"),
    "calendar_no_overlap": Checker(args=CalendarNoOverlapArgs, check=calendar_no_overlap, says="no two calendar events overlap"),
    "email_sent": Checker(args=EmailSentArgs, check=email_sent, says="an e-mail was sent to {to}"),
    "answer_matches": Checker(args=AnswerMatchesArgs, check=answer_matches, says="{path} holds the expected answer"),
}
"""Every checker by name; a task's criterion names one of them."""


def parse_checker_args(name: str, args: dict[str, Any]) -> BaseModel:
    """The checker's arguments validated; ValueError naming the checker and every argument error (KeyError-free)."""
    checker = CHECKERS.get(name)
    if checker is None:
        raise ValueError(f"unknown checker {name!r}; known: {', '.join(CHECKERS)}")
    try:
        return checker.args.model_validate(args)
    except ValidationError as exc:
        raise ValueError(f"{name}: " + "; ".join(_arg_problem(e) for e in exc.errors())) from None


def _arg_problem(error: Any) -> str:
    """One argument error as ``where: reason``."""
    where = ".".join(str(p) for p in error["loc"])
    reason = "unknown argument" if error["type"] == "extra_forbidden" else str(error["msg"]).removeprefix("Value error, ")
    return f"{where}: {reason}" if where else reason


def describe(name: str, args: BaseModel) -> str:
    """What a criterion checks, in one line (the checklist item's text)."""
    fields = args.model_dump()
    if name == "file_contains" and fields.get("absent"):
        return "{path} does not contain {text!r} ({mode})".format(**fields)
    return CHECKERS[name].says.format(**fields)


def checker_check(predicate: CheckerArgs, evidence: Evidence) -> bool:
    """The ``checker`` predicate kind: run the named checker on the session's evidence."""
    try:
        args = parse_checker_args(predicate.name, predicate.args)
    except ValueError as exc:
        raise CheckerError(str(exc)) from None
    return bool(CHECKERS[predicate.name].check(args, evidence))
