"""Checks that open an AgentIF deliverable with its format's library, added to the ``checker`` predicate kind's named checkers.

A task's rubric item writes ``{checker: {name: NAME, args: {...}}}``; each
check reads the workspace file through the jail and its library, so a rule
asks about the document a user opens, never about the bytes of a zip:

- ``table_value``: in a table of the file (every xlsx sheet, docx or pptx
  table, the csv, a Markdown pipe table, an HTML ``<table>``), the rows whose
  label matches ``row``, in the column whose header matches ``column``, hold
  ``value`` (a number, within ``tolerance``; ``$1,234.50`` reads as 1234.5) or
  match ``pattern``. Every matching row must hold it: a deliverable that lists
  a label twice with different values fails. ``formula``: the xlsx cell is a formula.
- ``table_rows``: the table with a header cell matching ``column`` has
  between ``min`` and ``max`` data rows (non-empty rows below the header).
- ``word_count``: the file's words (documents through their readers, HTML
  without its tags) lie between ``min`` and ``max``.
- ``headings``: the file's headings (docx heading styles and Title, Markdown
  ``#`` lines, HTML ``<h1>``-``<h6>``, pptx slide titles) number between
  ``min`` and ``max``, and each of ``patterns`` matches one, in order.
- ``pptx_slides``: the deck's slide count, slides with a picture or chart,
  slides with speaker notes, and slide titles matching ``titles`` in order.
- ``ics_events``: between ``min`` and ``max`` VEVENTs whose summary matches
  ``summary`` (and start, end, location when given) are in the calendar file
  (a file that does not parse as a calendar holds none: ``max: 0`` finds it);
  times are compared as written, or converted into ``tz`` when given.
- ``image_file``: the file is a PNG or JPEG image that opens, at least
  ``min_width`` x ``min_height`` pixels.

A file that is missing, or (but for ``ics_events``) that its library cannot open, fails the check.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import re
from datetime import date, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, field_validator, model_validator

from proactive_bench.dataset import check_regex, check_relative_path
from proactive_bench.env import DocumentError, Workspace, read_as_text
from proactive_bench.suites.odyssey.checkers import CHECKERS, Checker, CheckerArgsModel, CheckerError, iso_minute

if TYPE_CHECKING:
    from proactive_bench.data_model import Evidence

Table = list[list[Any]]
FLAGS = re.IGNORECASE | re.MULTILINE
CURRENCY = r"[£€$]|GBP|EUR|USD|CHF|DKK|PLN|SEK|NOK|kr"
NUMBER = re.compile(
    rf"\s*([-+]?)\s*(?:{CURRENCY})?\s*([-+]?(?:\d{{1,3}}(?:,\d{{3}})+|\d+)?(?:\.\d+)?)\s*(?:%|{CURRENCY}|h)?\s*", re.IGNORECASE
)
"""A number as a cell shows it: thousands commas, a sign before or after a currency sign or code, a per cent sign or ``h``."""
WORD = re.compile(r"[^\W_]+(?:['’.,-][^\W_]+)*")
IMAGE_FORMATS = {"PNG", "JPEG"}


def _path(value: str) -> str:
    return check_relative_path(value)


def _regexes(values: list[str]) -> list[str]:
    for value in values:
        check_regex(value)
    return values


class TableValueArgs(CheckerArgsModel):
    path: str
    row: str = Field(description="Regex matching a cell of the row (its label).")
    column: str = Field(description="Regex matching the column's header cell.")
    value: float | None = Field(default=None, description="The number the cell holds.")
    pattern: str | None = Field(default=None, description="Regex the cell's text matches (instead of value).")
    tolerance: float = Field(default=0.005, ge=0)
    sheet: str | None = Field(default=None, description="xlsx: only this sheet; None: every sheet.")
    formula: bool = Field(default=False, description="xlsx: the cell must be a formula, not a typed-in value.")
    _p = field_validator("path")(_path)
    _r = field_validator("row", "column")(check_regex)

    @model_validator(mode="after")
    def _one_expectation(self) -> TableValueArgs:
        if (self.value is None) == (self.pattern is None):
            raise ValueError("give exactly one of 'value' or 'pattern'")
        if self.pattern is not None:
            check_regex(self.pattern)
        return self


class TableRowsArgs(CheckerArgsModel):
    path: str
    column: str = Field(description="Regex matching a header cell of the table.")
    min: int = Field(default=1, ge=0)
    max: int | None = Field(default=None, ge=0)
    sheet: str | None = None
    _p = field_validator("path")(_path)
    _r = field_validator("column")(check_regex)


class WordCountArgs(CheckerArgsModel):
    path: str
    min: int = Field(default=0, ge=0)
    max: int | None = Field(default=None, ge=0)
    _p = field_validator("path")(_path)


class HeadingsArgs(CheckerArgsModel):
    path: str
    patterns: list[str] = Field(default_factory=list, description="Regexes each matching a heading, in this order.")
    min: int = Field(default=0, ge=0)
    max: int | None = Field(default=None, ge=0)
    _p = field_validator("path")(_path)
    _r = field_validator("patterns")(_regexes)


class PptxSlidesArgs(CheckerArgsModel):
    path: str
    min: int = Field(default=1, ge=0)
    max: int | None = Field(default=None, ge=0)
    titles: list[str] = Field(default_factory=list, description="Regexes each matching a slide title, in this order.")
    pictures: int = Field(default=0, ge=0, description="At least this many slides with a picture or chart.")
    notes: int = Field(default=0, ge=0, description="At least this many slides with speaker notes.")
    _p = field_validator("path")(_path)
    _r = field_validator("titles")(_regexes)


class IcsEventsArgs(CheckerArgsModel):
    path: str
    summary: str = Field(default="", description="Regex the event's SUMMARY matches ('' matches every event).")
    start: str | None = Field(default=None, description="ISO minute (or date, for an all-day event) of DTSTART, wall-clock time.")
    end: str | None = None
    location: str | None = Field(default=None, description="Regex the event's LOCATION matches.")
    tz: str | None = Field(
        default=None,
        description="IANA zone of start and end: an event's zoned time is converted into it (a floating time is taken as in it); "
        "None: every time is compared as written (wall clock).",
    )
    min: int = Field(default=1, ge=0)
    max: int | None = Field(default=None, ge=0)
    _p = field_validator("path")(_path)

    @field_validator("tz")
    @classmethod
    def _zone(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                ZoneInfo(value)
            except (ZoneInfoNotFoundError, ValueError):
                raise ValueError(f"{value!r} is not an IANA time zone like Europe/London or UTC") from None
        return value

    @field_validator("summary", "location")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        return value if value is None else check_regex(value)

    @field_validator("start", "end")
    @classmethod
    def _when(cls, value: str | None) -> str | None:
        if value is not None:
            _moment(value)
        return value


class ImageFileArgs(CheckerArgsModel):
    path: str
    min_width: int = Field(default=1, ge=1)
    min_height: int = Field(default=1, ge=1)
    _p = field_validator("path")(_path)


# ---- reading ----------------------------------------------------------------------------------


def _real(ws: Workspace, path: str) -> Path | None:
    """The file's real path when it is a regular file of the workspace, else None."""
    return ws.resolve(path) if path.strip("/") in set(ws.files()) else None


def _cell_number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    match = NUMBER.fullmatch(str(value).replace("\u2212", "-"))  # a typographic minus sign reads as one
    if match is None or not re.search(r"\d", match.group(2)) or (match.group(1) and match.group(2)[0] in "+-"):
        return None
    number = float(match.group(2).replace(",", ""))
    return -number if match.group(1) == "-" else number


def _cell_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


class _HtmlTables(HTMLParser):
    """The rows of every ``<table>`` of a page, and its visible text."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[Table] = []
        self.headings: list[str] = []
        self.text: list[str] = []
        self._cell: list[str] | None = None
        self._heading: list[str] | None = None
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._hidden += 1
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th") and self.tables and self.tables[-1]:
            self._cell = []
        elif re.fullmatch(r"h[1-6]", tag):
            self._heading = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._hidden = max(0, self._hidden - 1)
        elif tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif re.fullmatch(r"h[1-6]", tag) and self._heading is not None:
            self.headings.append(" ".join("".join(self._heading).split()))
            self._heading = None

    def handle_data(self, data: str) -> None:
        if self._hidden:
            return
        self.text.append(data)
        for part in (self._cell, self._heading):
            if part is not None:
                part.append(data)


def _html(path: Path) -> _HtmlTables:
    parser = _HtmlTables()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    parser.close()
    return parser


def _markdown_tables(text: str) -> list[Table]:
    tables: list[Table] = []
    previous = False
    for line in text.splitlines():
        row = line.strip()
        if not (row.startswith("|") and row.count("|") >= 2):
            previous = False
            continue
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        if not previous:
            tables.append([])
        previous = True
        if all(re.fullmatch(r":?-{2,}:?", cell) for cell in cells if cell):
            continue  # the separator row under the header
        tables[-1].append([re.sub(r"^\*\*(.*)\*\*$", r"\1", cell) for cell in cells])
    return tables


class _Workbook:
    """An xlsx opened for values and formulas; a formula no program computed is evaluated (pycel)."""

    def __init__(self, path: Path) -> None:
        from openpyxl import load_workbook

        self.path = path
        self.formulas = load_workbook(path, data_only=False)
        self._compiler: Any = None

    @functools.cached_property
    def values(self) -> Any:
        """The values a spreadsheet program cached, read when a formula is first read (a book without one never is)."""
        from openpyxl import load_workbook

        return load_workbook(self.path, data_only=True)

    def tables(self, sheet: str | None) -> list[tuple[str, Table]]:
        names = [n for n in self.formulas.sheetnames if sheet is None or n == sheet]
        return [(name, [[self.value(name, cell.coordinate) for cell in row] for row in self.formulas[name].iter_rows()]) for name in names]

    def is_formula(self, sheet: str, row: int, column: int) -> bool:
        raw = self.formulas[sheet].cell(row + 1, column + 1).value
        return isinstance(raw, str) and raw.startswith("=")

    def value(self, sheet: str, coordinate: str) -> Any:
        raw = self.formulas[sheet][coordinate].value
        if not (isinstance(raw, str) and raw.startswith("=")):
            return raw
        cached = self.values[sheet][coordinate].value
        if cached is not None:
            return cached
        if self._compiler is None:
            from pycel import ExcelCompiler  # DEFERRED: pycel (with networkx) loads when a formula is evaluated

            self._compiler = ExcelCompiler(filename=str(self.path))
        try:
            return self._compiler.evaluate(f"{sheet}!{coordinate}")
        except Exception as exc:  # pycel raises many types for a formula it cannot evaluate
            raise CheckerError(f"{self.path.name}: {sheet}!{coordinate}: cannot evaluate the formula: {exc}") from exc


def _tables(real: Path, sheet: str | None) -> tuple[tuple[Table, _Workbook | None, str], ...]:
    """Every table of a file: its rows of cell values, and for an xlsx sheet the workbook and sheet name (the caller's
    to read, not to change). Read once per file and content (:func:`_read_tables`): a task's checks read the same
    deliverable over and over, and parsing it is the cost."""
    try:
        digest = hashlib.blake2b(real.read_bytes(), digest_size=16).digest()
    except OSError:
        return ()
    return _read_tables(real, sheet, digest)


TABLES_KEPT = 16
"""The files whose tables :func:`_read_tables` keeps (the last read)."""


@functools.lru_cache(maxsize=TABLES_KEPT)
def _read_tables(real: Path, sheet: str | None, digest: bytes) -> tuple[tuple[Table, _Workbook | None, str], ...]:
    """:func:`_tables` of the file at ``real`` holding the content of ``digest`` (an xlsx workbook evaluates its
    formulas from that file)."""
    tables: list[tuple[Table, _Workbook | None, str]] = []
    suffix = real.suffix.lower()
    try:
        if suffix == ".xlsx":
            book = _Workbook(real)
            tables += [(table, book, name) for name, table in book.tables(sheet)]
        elif suffix == ".docx":
            from docx import Document

            for grid in Document(str(real)).tables:
                tables.append(([[cell.text.strip() for cell in row.cells] for row in grid.rows], None, ""))
        elif suffix == ".pptx":
            from pptx import Presentation

            for slide in Presentation(str(real)).slides:
                for shape in slide.shapes:
                    if getattr(shape, "has_table", False) and shape.has_table:
                        tables.append(([[cell.text.strip() for cell in row.cells] for row in shape.table.rows], None, ""))
        elif suffix in (".csv", ".tsv"):
            text = real.read_text(encoding="utf-8-sig", errors="replace")
            tables.append(([row for row in csv.reader(io.StringIO(text), delimiter="\t" if suffix == ".tsv" else ",")], None, ""))
        elif suffix in (".html", ".htm"):
            tables += [(table, None, "") for table in _html(real).tables]
        else:
            tables += [(table, None, "") for table in _markdown_tables(real.read_text(encoding="utf-8", errors="replace"))]
    except CheckerError:
        raise
    except Exception:  # the libraries raise many types for a file that is not what its name says: it holds no more table
        pass
    return tuple(tables)


def _header(table: Table, column: str) -> tuple[int, int] | None:
    """(row, column) of the first cell matching ``column``: the table's header."""
    regex = re.compile(column, FLAGS)
    for r, row in enumerate(table):
        for c, cell in enumerate(row):
            if regex.search(_cell_text(cell)):
                return r, c
    return None


def _holds(cell: Any, args: TableValueArgs) -> bool:
    if args.pattern is not None:
        return re.search(args.pattern, _cell_text(cell), FLAGS) is not None
    number = _cell_number(cell)
    return number is not None and args.value is not None and abs(number - args.value) <= args.tolerance


# ---- the checks -------------------------------------------------------------------------------


def table_value(args: TableValueArgs, evidence: Evidence) -> bool:
    real = _real(evidence.workspace, args.path)
    if real is None:
        return False
    label = re.compile(args.row, FLAGS)
    found: list[bool] = []
    for table, book, sheet in _tables(real, args.sheet):
        header = _header(table, args.column)
        if header is None:
            continue
        top, column = header
        for r in range(top + 1, len(table)):
            row = table[r]
            if not any(label.search(_cell_text(cell)) for n, cell in enumerate(row) if n != column):
                continue
            cell = row[column] if column < len(row) else None
            formula_ok = not args.formula or (book is not None and book.is_formula(sheet, r, column))
            found.append(_holds(cell, args) and formula_ok)
    return bool(found) and all(found)


def table_rows(args: TableRowsArgs, evidence: Evidence) -> bool:
    real = _real(evidence.workspace, args.path)
    if real is None:
        return False
    for table, _book, _sheet in _tables(real, args.sheet):
        header = _header(table, args.column)
        if header is None:
            continue
        rows = sum(any(_cell_text(cell) for cell in row) for row in table[header[0] + 1 :])
        if args.min <= rows and (args.max is None or rows <= args.max):
            return True
    return False


def visible_text(real: Path) -> str:
    """What a reader sees of a file: documents through their readers, HTML without tags, anything else as UTF-8."""
    if real.suffix.lower() in (".html", ".htm"):
        return " ".join(_html(real).text)
    return read_as_text(real)


def words(text: str) -> int:
    """The words of a text (a number or a hyphenated word is one word; table pipes and bullets are none)."""
    return len(WORD.findall(text))


def word_count(args: WordCountArgs, evidence: Evidence) -> bool:
    real = _real(evidence.workspace, args.path)
    if real is None:
        return False
    try:
        count = words(visible_text(real))
    except DocumentError:
        return False
    return args.min <= count and (args.max is None or count <= args.max)


def _slide_titles(real: Path) -> list[str]:
    from pptx import Presentation

    titles = []
    for slide in Presentation(str(real)).slides:
        title = slide.shapes.title
        titles.append(title.text_frame.text.strip() if title is not None and title.has_text_frame else "")
    return titles


def headings_of(real: Path) -> list[str]:
    """The file's headings in order (docx heading styles and Title, Markdown ``#`` lines, HTML h1-h6, pptx slide titles)."""
    suffix = real.suffix.lower()
    if suffix == ".docx":
        from docx import Document

        found = []
        for paragraph in Document(str(real)).paragraphs:
            style = paragraph.style.name if paragraph.style is not None else ""
            if (style == "Title" or style.startswith("Heading")) and paragraph.text.strip():
                found.append(paragraph.text.strip())
        return found
    if suffix == ".pptx":
        return [t for t in _slide_titles(real) if t]
    if suffix in (".html", ".htm"):
        return _html(real).headings
    text = real.read_text(encoding="utf-8", errors="replace")
    return [m.group(1).strip() for m in re.finditer(r"^ {0,3}#{1,6}\s+(.+?)\s*#*\s*$", text, re.MULTILINE)]


def in_order(patterns: list[str], texts: list[str]) -> bool:
    """Whether each pattern matches one of ``texts``, in order (each text used once)."""
    at = 0
    for pattern in patterns:
        regex = re.compile(pattern, FLAGS)
        while at < len(texts) and not regex.search(texts[at]):
            at += 1
        if at == len(texts):
            return False
        at += 1
    return True


def headings(args: HeadingsArgs, evidence: Evidence) -> bool:
    real = _real(evidence.workspace, args.path)
    if real is None:
        return False
    try:
        found = headings_of(real)
    except Exception:  # the libraries raise many types for a damaged document: it has no headings
        return False
    return args.min <= len(found) and (args.max is None or len(found) <= args.max) and in_order(args.patterns, found)


def pptx_slides(args: PptxSlidesArgs, evidence: Evidence) -> bool:
    real = _real(evidence.workspace, args.path)
    if real is None or real.suffix.lower() != ".pptx":
        return False
    from pptx import Presentation
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    try:
        slides = list(Presentation(str(real)).slides)
        titles = _slide_titles(real)
    except Exception:  # a damaged deck has no slides
        return False
    pictures = sum(
        any(shape.shape_type == MSO_SHAPE_TYPE.PICTURE or getattr(shape, "has_chart", False) for shape in slide.shapes) for slide in slides
    )
    notes = sum(
        slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None and bool(slide.notes_slide.notes_text_frame.text.strip())
        for slide in slides
    )
    return (
        args.min <= len(slides)
        and (args.max is None or len(slides) <= args.max)
        and pictures >= args.pictures
        and notes >= args.notes
        and in_order(args.titles, titles)
    )


def _moment(value: str) -> datetime | date:
    """An ISO date (an all-day event) or minute."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return date.fromisoformat(value)
    return iso_minute(value)


def _wall(value: Any, tz: str | None) -> datetime | date | None:
    """A DTSTART/DTEND value as wall-clock time to the minute: in ``tz`` when given and the value has a zone, else as
    written (its zone dropped); a date stays a date."""
    if isinstance(value, datetime):
        if tz is not None and value.tzinfo is not None:
            value = value.astimezone(ZoneInfo(tz))
        return value.replace(second=0, microsecond=0, tzinfo=None)
    return value if isinstance(value, date) else None


def ics_events(args: IcsEventsArgs, evidence: Evidence) -> bool:
    real = _real(evidence.workspace, args.path)
    if real is None:
        return False
    from icalendar import Calendar

    try:
        events = Calendar.from_ical(real.read_bytes()).walk("VEVENT")
    except Exception:  # not a calendar: it holds no event
        events = []
    count = 0
    for event in events:
        if not re.search(args.summary, str(event.get("SUMMARY", "")), FLAGS):
            continue
        start, end = event.get("DTSTART"), event.get("DTEND")
        if args.start is not None and (start is None or _wall(start.dt, args.tz) != _moment(args.start)):
            continue
        if args.end is not None and (end is None or _wall(end.dt, args.tz) != _moment(args.end)):
            continue
        if args.location is not None and not re.search(args.location, str(event.get("LOCATION", "")), FLAGS):
            continue
        count += 1
    return args.min <= count and (args.max is None or count <= args.max)


def image_file(args: ImageFileArgs, evidence: Evidence) -> bool:
    real = _real(evidence.workspace, args.path)
    if real is None:
        return False
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(real) as image:
            image.verify()
            kind, (width, height) = image.format, image.size
    except (OSError, UnidentifiedImageError, SyntaxError, ValueError):
        return False
    return kind in IMAGE_FORMATS and width >= args.min_width and height >= args.min_height


DELIVERABLE_CHECKERS = {
    "table_value": Checker(args=TableValueArgs, check=table_value, says="{path}: row {row!r}, column {column!r} holds the value"),
    "table_rows": Checker(args=TableRowsArgs, check=table_rows, says="{path}: the table under {column!r} has the rows asked for"),
    "word_count": Checker(args=WordCountArgs, check=word_count, says="{path} has between {min} and {max} words"),
    "headings": Checker(args=HeadingsArgs, check=headings, says="{path} has the headings asked for"),
    "pptx_slides": Checker(args=PptxSlidesArgs, check=pptx_slides, says="{path} has the slides asked for"),
    "ics_events": Checker(args=IcsEventsArgs, check=ics_events, says="{path} has events matching {summary!r}"),
    "image_file": Checker(args=ImageFileArgs, check=image_file, says="{path} is an image of at least {min_width}x{min_height}"),
}
CHECKERS.update(DELIVERABLE_CHECKERS)
