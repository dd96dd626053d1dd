"""The deliverable checks that open docx/xlsx/pptx/html/ics/png files: each on a passing and a failing file, and the cheap agents that must fail them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from pptx import Presentation
from pptx.util import Inches
from pydantic import TypeAdapter

from proactive_bench.data_model.evidence import Evidence
from proactive_bench.dataset import Problem
from proactive_bench.dataset.loading import GraderResolver
from proactive_bench.dataset.predicates import Predicate, evaluate
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace
from proactive_bench.suites.agentif import deliverable_checks as checks
from proactive_bench.suites.agentif.loading import read_task
from proactive_bench.suites.agentif.validity import checker_problems
from proactive_bench.suites.odyssey.checkers import CHECKERS, parse_checker_args
from tests.helpers.paths import REPO

PREDICATE = TypeAdapter(Predicate)
BUDGET = [
    ["Course", "Participants", "Cost per person", "Total"],
    ["Excel for analysts", 12, 180, "=B4*C4"],  # the formula of row 4: the tables below start on row 3
    ["First aid", 8, "£95.00", 760],
]


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    return ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory(), None), resolve_tool_names(["workspace", "documents", "spreadsheets"]))


def holds(box: ToolBox, name: str, **args: Any) -> bool:
    env = box.env
    evidence = Evidence([], box.records, env.workspace, env.memory, GraderResolver(Path(".")), env.apps, None)
    return evaluate(PREDICATE.validate_python({"checker": {"name": name, "args": args}}), evidence)


def call(box: ToolBox, tool: str, **args: Any) -> None:
    record = box.call(tool, args)
    assert record.ok, record.result


def sheet(box: ToolBox, rows: list[list[Any]], path: str = "out/budget.xlsx") -> None:
    call(box, "xlsx_append_rows", path=path, rows=rows)


def test_checkers_join_the_named_checkers_and_refuse_bad_arguments() -> None:
    assert set(checks.DELIVERABLE_CHECKERS) <= set(CHECKERS)
    with pytest.raises(ValueError, match="exactly one of 'value' or 'pattern'"):
        parse_checker_args("table_value", {"path": "a.xlsx", "row": "x", "column": "y"})
    with pytest.raises(ValueError, match="path"):
        parse_checker_args("word_count", {"path": "../a.md", "max": 3})
    with pytest.raises(ValueError, match="ISO"):
        parse_checker_args("ics_events", {"path": "a.ics", "start": "next Monday"})


# ---- table_value and table_rows --------------------------------------------------------------


def test_table_value_reads_an_xlsx_by_row_label_and_column_header_wherever_they_are(box: ToolBox) -> None:
    sheet(box, [["Training budget 2025"], [], *BUDGET])  # the table starts on row 3
    assert holds(box, "table_value", path="out/budget.xlsx", row="excel", column="^total$", value=2160)  # a formula openpyxl never computed
    assert holds(box, "table_value", path="out/budget.xlsx", row="first aid", column="cost per person", value=95)  # "£95.00" reads as 95
    assert not holds(box, "table_value", path="out/budget.xlsx", row="first aid", column="^total$", value=2160)
    assert not holds(box, "table_value", path="out/budget.xlsx", row="forklift", column="^total$", value=2160)  # no such row
    assert holds(box, "table_value", path="out/budget.xlsx", row="excel", column="^total$", value=2160, formula=True)
    assert not holds(box, "table_value", path="out/budget.xlsx", row="first aid", column="^total$", value=760, formula=True)  # typed in


def test_table_value_fails_when_a_label_is_listed_twice_with_different_values(box: ToolBox) -> None:
    sheet(box, [["Item", "Total"], ["Excel", 2160], ["Excel", 1980]])  # a cheap agent hedging between candidates
    assert not holds(box, "table_value", path="out/budget.xlsx", row="excel", column="total", value=2160)
    assert not holds(box, "table_value", path="out/budget.xlsx", row="excel", column="total", value=1980)


def test_table_value_reads_docx_csv_markdown_and_html_tables(box: ToolBox) -> None:
    call(
        box,
        "docx_create",
        path="out/minutes.docx",
        blocks=[
            {"type": "heading", "text": "Actions"},
            {"type": "table", "rows": [["Owner", "Action", "Due"], ["Priya", "Send the brief", "2025-03-14"]]},
        ],
    )
    assert holds(box, "table_value", path="out/minutes.docx", row="priya", column="due", pattern=r"^2025-03-14$")
    assert not holds(box, "table_value", path="out/minutes.docx", row="priya", column="due", pattern=r"^2025-03-21$")
    box.env.workspace.write_text("out/q.csv", 'supplier,total_gbp\nKestrel,"2,196.96"\n')
    assert holds(box, "table_value", path="out/q.csv", row="kestrel", column="total", value=2196.96)
    box.env.workspace.write_text("out/quote.csv", 'item,amount\nDiscount,"-£2,383.00"\nTables,"14,700.00 DKK"\nNote,see above\n')
    assert holds(box, "table_value", path="out/quote.csv", row="discount", column="amount", value=-2383)
    assert holds(box, "table_value", path="out/quote.csv", row="tables", column="amount", value=14700)
    assert not holds(box, "table_value", path="out/quote.csv", row="note", column="amount", value=0)  # words are no number
    box.env.workspace.write_text("out/a.md", "# Plan\n\n| Session | Start |\n|---|:--:|\n| **Opening** | 09:30 |\n")
    assert holds(box, "table_value", path="out/a.md", row="^opening$", column="start", pattern="09:30")
    box.env.workspace.write_text(
        "out/p.html",
        "<table><tr><th>Region</th><th>Sales</th><th>Change %</th></tr><tr><td>North</td><td>€1,250</td><td>\u22129.7 %</td></tr></table>",
    )
    assert holds(box, "table_value", path="out/p.html", row="north", column="sales", value=1250)
    assert holds(box, "table_value", path="out/p.html", row="north", column="change", value=-9.7)  # a typographic minus


def test_a_file_s_tables_are_read_once_per_content_and_again_when_it_changes(box: ToolBox, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[Path] = []
    workbook = checks._Workbook
    monkeypatch.setattr(checks, "_Workbook", lambda path: opened.append(path) or workbook(path))
    checks._read_tables.cache_clear()
    sheet(box, [["Training budget 2025"], [], *BUDGET])
    for _ in range(3):
        assert holds(box, "table_value", path="out/budget.xlsx", row="excel", column="^total$", value=2160)
    assert len(opened) == 1
    call(box, "xlsx_write", path="out/budget.xlsx", cells={"D4": 1980})  # the same file, another total
    assert not holds(box, "table_value", path="out/budget.xlsx", row="excel", column="^total$", value=2160)
    assert holds(box, "table_value", path="out/budget.xlsx", row="excel", column="^total$", value=1980)
    assert len(opened) == 2
    box.env.workspace.write_text("out/q.csv", "supplier,total\nKestrel,10\n")
    assert holds(box, "table_value", path="out/q.csv", row="kestrel", column="total", value=10)
    box.env.workspace.write_text("out/q.csv", "supplier,total\nKestrel,12\n")
    assert holds(box, "table_value", path="out/q.csv", row="kestrel", column="total", value=12)


def test_a_stuffed_deliverable_has_no_table(box: ToolBox) -> None:
    words = "Course Participants Total Excel for analysts 12 180 2160 First aid 8 95 760"
    call(box, "docx_create", path="out/minutes.docx", blocks=[{"type": "paragraph", "text": words}])
    box.env.workspace.write_text("out/q.csv", words.replace(" ", ",") + "\n")  # one line: a header and no rows
    call(box, "xlsx_write", path="out/budget.xlsx", cells={"A1": words})
    for path in ("out/minutes.docx", "out/q.csv", "out/budget.xlsx"):
        assert not holds(box, "table_value", path=path, row="excel", column="total", value=2160), path
        assert not holds(box, "table_rows", path=path, column="total", min=1), path


def test_table_rows_counts_the_non_empty_rows_under_the_header(box: ToolBox) -> None:
    sheet(box, [["Training budget"], [], *BUDGET, [], ["Total", None, None, "=D4+D5"]])
    assert holds(box, "table_rows", path="out/budget.xlsx", column="participants", min=3, max=3)
    assert not holds(box, "table_rows", path="out/budget.xlsx", column="participants", min=4)
    assert not holds(box, "table_rows", path="out/missing.xlsx", column="participants", min=0)


# ---- text, headings, slides, calendars, images -----------------------------------------------------


def test_word_count_reads_documents_and_html_without_tags(box: ToolBox) -> None:
    call(box, "docx_create", path="out/memo.docx", blocks=[{"type": "paragraph", "text": "We approve the Q3 budget of 2,160.00 today."}])
    assert holds(box, "word_count", path="out/memo.docx", min=8, max=8)
    box.env.workspace.write_text("out/p.html", '<html><style>p {color: red}</style><p class="lead">One two <b>three</b></p></html>')
    assert holds(box, "word_count", path="out/p.html", min=3, max=3)
    assert not holds(box, "word_count", path="out/absent.md", max=100)


def test_headings_in_docx_markdown_and_html_in_order(box: ToolBox) -> None:
    blocks = [{"type": "heading", "text": t, "level": 1} for t in ("Attendees", "Decisions", "Action items")]
    call(box, "docx_create", path="out/minutes.docx", blocks=[*blocks, {"type": "paragraph", "text": "Risks"}])
    assert holds(box, "headings", path="out/minutes.docx", patterns=["attendees", "decisions", "action"], min=3, max=3)
    assert not holds(box, "headings", path="out/minutes.docx", patterns=["decisions", "attendees"])  # out of order
    assert not holds(box, "headings", path="out/minutes.docx", patterns=["risks"])  # a paragraph, not a heading
    box.env.workspace.write_text("out/a.md", "# Agenda\n\nsome # text\n## Lunch ##\n")
    assert holds(box, "headings", path="out/a.md", patterns=["agenda", "^lunch$"], max=2)
    box.env.workspace.write_text("out/p.html", "<h1>News</h1><h2>Canteen <em>reopens</em></h2>")
    assert holds(box, "headings", path="out/p.html", patterns=["news", "canteen reopens"])


def _deck(path: Path, titles: list[str], picture: Path | None = None, notes: str = "") -> None:
    deck = Presentation()
    for title in titles:
        slide = deck.slides.add_slide(deck.slide_layouts[5])
        slide.shapes.title.text = title
        if picture is not None:
            slide.shapes.add_picture(str(picture), Inches(1), Inches(2), width=Inches(3))
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    path.parent.mkdir(parents=True, exist_ok=True)
    deck.save(str(path))


def test_pptx_slides_counts_slides_pictures_notes_and_titles(box: ToolBox, tmp_path: Path) -> None:
    chart = tmp_path / "chart.png"
    Image.new("RGB", (40, 30), "white").save(chart)
    out = box.env.workspace.resolve("out/deck.pptx")
    _deck(out, ["Q1 review", "North: €1.2m", "Next steps"], picture=chart, notes="Say the number slowly.")
    assert holds(box, "pptx_slides", path="out/deck.pptx", min=3, max=3, titles=["review", "north", "next"], pictures=3, notes=3)
    assert not holds(box, "pptx_slides", path="out/deck.pptx", min=4)
    assert not holds(box, "pptx_slides", path="out/deck.pptx", titles=["next", "north"])
    _deck(out, ["Q1 review"])
    assert not holds(box, "pptx_slides", path="out/deck.pptx", pictures=1)
    assert not holds(box, "pptx_slides", path="out/deck.pptx", notes=1)
    box.env.workspace.write_text("out/fake.pptx", "Q1 review North Next steps")
    assert not holds(box, "pptx_slides", path="out/fake.pptx", min=0)


ICS = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:1@test
DTSTART;TZID=Europe/London:20250506T100000
DTEND;TZID=Europe/London:20250506T110000
SUMMARY:Budget review
LOCATION:Room Birch
END:VEVENT
BEGIN:VEVENT
UID:2@test
DTSTART;VALUE=DATE:20250526
SUMMARY:Bank holiday
END:VEVENT
END:VCALENDAR
"""


def test_ics_events_match_summary_wall_clock_times_and_counts(box: ToolBox) -> None:
    box.env.workspace.write_text("out/cal.ics", ICS)
    assert holds(
        box, "ics_events", path="out/cal.ics", summary="budget", start="2025-05-06T10:00", end="2025-05-06T11:00", location="birch"
    )
    assert holds(box, "ics_events", path="out/cal.ics", summary="holiday", start="2025-05-26")
    assert holds(box, "ics_events", path="out/cal.ics", min=2, max=2)
    assert not holds(box, "ics_events", path="out/cal.ics", summary="budget", start="2025-05-05T10:00")
    assert not holds(box, "ics_events", path="out/cal.ics", min=3)
    assert holds(box, "ics_events", path="out/cal.ics", summary="budget", start="2025-05-06T09:00", tz="UTC")  # 10:00 BST
    assert not holds(box, "ics_events", path="out/cal.ics", summary="budget", start="2025-05-06T10:00", tz="UTC")
    with pytest.raises(ValueError, match="IANA"):
        parse_checker_args("ics_events", {"path": "a.ics", "tz": "Mars/Olympus"})
    box.env.workspace.write_text("out/bad.ics", "Budget review 2025-05-06 10:00")
    assert not holds(box, "ics_events", path="out/bad.ics", summary="budget")
    assert holds(box, "ics_events", path="out/bad.ics", min=0, max=0)


def test_image_file_wants_a_png_or_jpeg_that_opens(box: ToolBox) -> None:
    target = box.env.workspace.resolve("out/chart.png")
    target.parent.mkdir(parents=True)
    Image.new("RGB", (640, 400), "white").save(target)
    assert holds(box, "image_file", path="out/chart.png", min_width=600, min_height=400)
    assert not holds(box, "image_file", path="out/chart.png", min_width=800)
    box.env.workspace.write_text("out/fake.png", "<svg>a chart</svg>")
    assert not holds(box, "image_file", path="out/fake.png")


def test_validate_names_a_checker_with_bad_arguments() -> None:
    task, _ = read_task(REPO / "pbench_data", "aif_work_workflow_10_supplier_quotes")
    assert task is not None and checker_problems(task, "t.yaml") == []
    broken = task.model_copy(deep=True)
    item = broken.rubric[0].model_copy(
        update={"check": PREDICATE.validate_python({"checker": {"name": "table_value", "args": {"path": "x.csv"}}})}
    )
    broken.rubric[0] = item
    problems = checker_problems(broken, "t.yaml")
    assert [(p.field, p.reason.split(":")[0]) for p in problems] == [("rubric[0].check", "table_value")]
    assert isinstance(problems[0], Problem)
