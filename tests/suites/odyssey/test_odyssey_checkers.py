"""The odyssey suite's named checkers, each on a passing and a failing state, and the cheapest agents that must fail them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from docx import Document
from openpyxl import Workbook
from pydantic import TypeAdapter

from proactive_bench.data_model.evidence import Evidence
from proactive_bench.dataset.loading import GraderResolver
from proactive_bench.dataset.predicates import Predicate, evaluate
from proactive_bench.env.apps.base import AppStore
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace
from proactive_bench.suites.odyssey.checkers import CheckerError, parse_checker_args

PREDICATE = TypeAdapter(Predicate)
MAIL_SEED = """
gmail_account:
  - {id: 1, name: Mara Lindqvist, email: mara@vet.example, password: pw}
gmail_thread:
  - {id: 1, subject: March order}
gmail_email:
  - {id: 1, thread_id: 1, sender_email: mara@vet.example, recipient_emails: [orders@boreal.example], subject: Glove order, body: "36 boxes please", sent_at: "2025-03-02T10:00:00"}
"""


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    apps = AppStore()
    (tmp_path / "seed").mkdir()
    (tmp_path / "seed" / "mail.yaml").write_text(MAIL_SEED)
    apps.seed_from(tmp_path / "seed")
    return ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory(), apps), resolve_tool_names(["workspace", "gmail"]))


def holds(box: ToolBox, name: str, args: dict[str, Any], start: dict | None = None) -> bool:
    env = box.env
    evidence = Evidence([], box.records, env.workspace, env.memory, GraderResolver(Path(".")), env.apps, start)
    return evaluate(PREDICATE.validate_python({"checker": {"name": name, "args": args}}), evidence)


def write(box: ToolBox, path: str, text: str) -> None:
    box.env.workspace.write_text(path, text)


def docx(box: ToolBox, path: str, *paragraphs: str, table: list[list[str]] | None = None) -> None:
    document = Document()
    for text in paragraphs:
        document.add_paragraph(text)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                grid.cell(r, c).text = value
    target = box.env.workspace.resolve(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    document.save(str(target))


def xlsx(box: ToolBox, path: str, cells: dict[str, Any], sheet: str = "Sheet1") -> None:
    book = Workbook()
    book.active.title = sheet
    for coordinate, value in cells.items():
        book.active[coordinate] = value
    book.save(box.env.workspace.resolve(path))


# ---- files ----------------------------------------------------------------------------------


def test_file_exists_wants_a_regular_file_at_that_path(box: ToolBox) -> None:
    assert not holds(box, "file_exists", {"path": "shared/memo.docx"})
    write(box, "shared/memo_draft.docx", "x")
    assert not holds(box, "file_exists", {"path": "shared/memo.docx"})  # a near name is not the file
    box.env.workspace.resolve("shared/memo.docx").mkdir(parents=True)
    assert not holds(box, "file_exists", {"path": "shared/memo.docx"})  # a folder is not a file
    box.env.workspace.resolve("shared/memo.docx").rmdir()
    docx(box, "shared/memo.docx", "Hello")
    assert holds(box, "file_exists", {"path": "shared/memo.docx"})


def test_file_contains_reads_docx_text_not_bytes_and_honours_modes(box: ToolBox) -> None:
    docx(box, "memo.docx", "To: Priya Raman", table=[["vendor", "price"], ["Brightsmile", "412.50"]])
    assert holds(box, "file_contains", {"path": "memo.docx", "text": "Priya Raman"})
    assert holds(box, "file_contains", {"path": "memo.docx", "text": "Brightsmile | 412.50"})  # tables as read_file shows them
    assert not holds(box, "file_contains", {"path": "memo.docx", "text": "priya raman"})  # exact is case-sensitive
    assert holds(box, "file_contains", {"path": "memo.docx", "text": "priya raman", "mode": "icase"})
    assert holds(box, "file_contains", {"path": "memo.docx", "text": r"412\.5\d", "mode": "regex"})
    assert not holds(box, "file_contains", {"path": "memo.docx", "text": "Dr. Okafor"})
    assert holds(box, "file_contains", {"path": "memo.docx", "text": "Dr. Okafor", "absent": True})
    assert not holds(box, "file_contains", {"path": "memo.docx", "text": "Priya", "absent": True})
    assert not holds(box, "file_contains", {"path": "missing.docx", "text": "x", "absent": True})  # absent needs the file


def test_file_contains_on_another_file_does_not_count(box: ToolBox) -> None:
    write(box, "notes.txt", "Priya Raman")
    docx(box, "memo.docx", "To: the owner")
    assert not holds(box, "file_contains", {"path": "memo.docx", "text": "Priya Raman"})


# ---- spreadsheets -------------------------------------------------------------------------------


def test_xlsx_cell_wants_the_value_in_that_cell_not_anywhere(box: ToolBox) -> None:
    xlsx(box, "budget.xlsx", {"A1": "Total", "B4": 1250, "C4": 980})
    assert holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "B4", "value": 1250})
    assert holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "b4", "value": 1250.0000001})
    assert not holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "C4", "value": 1250})  # right number, wrong place
    assert not holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "B4", "value": 1251})
    assert holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "A1", "value": " Total "})
    assert not holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "A1", "value": "Totals"})
    assert not holds(box, "xlsx_cell", {"path": "budget.xlsx", "sheet": "Q2", "cell": "B4", "value": 1250})  # no such sheet


def test_xlsx_cell_text_that_looks_like_the_number_is_not_the_number(box: ToolBox) -> None:
    xlsx(box, "budget.xlsx", {"B4": "1250 (or so)"})
    assert not holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "B4", "value": 1250})


def test_xlsx_cell_evaluates_a_formula_written_without_a_cached_value(box: ToolBox) -> None:
    xlsx(
        box,
        "budget.xlsx",
        {"B2": 100, "B3": 250.5, "B4": 49.5, "B5": "=SUM(B2:B4)", "B6": "=AVERAGE(B2:B4)", "B7": "=B5*2-B2", "B8": "=1/0"},
    )
    assert holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "B5", "value": 400})
    assert holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "B6", "value": 400 / 3, "tolerance": 1e-9})
    assert holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "B7", "value": 700})
    assert not holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "B5", "value": 401})
    assert not holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "B8", "value": 0})  # #DIV/0! is a wrong value
    assert holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "B5", "formula": "= sum(b2:b4)"})
    assert not holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "B5", "formula": "=SUM(B2:B3)"})


def test_xlsx_cell_formula_check_refuses_a_typed_in_number(box: ToolBox) -> None:
    xlsx(box, "budget.xlsx", {"B2": 100, "B3": 300, "B5": 400})
    assert holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "B5", "value": 400})
    assert not holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "B5", "formula": "=SUM(B2:B3)"})


def test_xlsx_cell_a_formula_it_cannot_evaluate_is_a_grader_error_not_a_verdict(box: ToolBox) -> None:
    xlsx(box, "budget.xlsx", {"B5": "=NOSUCHFUNCTION(B2)"})
    with pytest.raises(CheckerError, match="B5"):
        holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "B5", "value": 1})


def test_xlsx_cell_on_a_file_that_is_not_a_workbook_fails(box: ToolBox) -> None:
    write(box, "budget.xlsx", "B4,1250")
    assert not holds(box, "xlsx_cell", {"path": "budget.xlsx", "cell": "B4", "value": 1250})


def test_xlsx_range_compares_the_line_in_order(box: ToolBox) -> None:
    xlsx(box, "plan.xlsx", {"A2": "Mon", "A3": "Tue", "A4": "Wed", "B3": 1, "C3": 2, "D3": "=B3+C3"})
    assert holds(box, "xlsx_range", {"path": "plan.xlsx", "range": "A2:A4", "values": ["Mon", "Tue", "Wed"]})
    assert not holds(box, "xlsx_range", {"path": "plan.xlsx", "range": "A2:A4", "values": ["Tue", "Mon", "Wed"]})
    assert holds(box, "xlsx_range", {"path": "plan.xlsx", "range": "B3:D3", "values": [1, 2, 3]})
    assert not holds(box, "xlsx_range", {"path": "plan.xlsx", "range": "B3:D3", "values": [1, 2, 4]})


@pytest.mark.parametrize(
    ("name", "args", "reason"),
    [
        ("xlsx_range", {"path": "a.xlsx", "range": "A1:B2", "values": [1, 2, 3, 4]}, "one column or one row"),
        ("xlsx_range", {"path": "a.xlsx", "range": "A1:A3", "values": [1, 2]}, "3 cells"),
        ("xlsx_cell", {"path": "a.xlsx", "cell": "B4"}, "exactly one of 'value' or 'formula'"),
        ("xlsx_cell", {"path": "a.xlsx", "cell": "4B", "value": 1}, "cell coordinate"),
        ("file_contains", {"path": "../etc/passwd", "text": "root"}, "climbs out"),
        ("file_contains", {"path": "a.txt", "text": "(", "mode": "regex"}, "invalid regular expression"),
        ("calendar_event", {"title": "x", "start": "tomorrow"}, "ISO date-time"),
        ("answer_matches", {"expected": "about ten", "mode": "number"}, "numeric"),
        ("email_sent", {"to": "a@b.example", "bogus": 1}, "unknown argument"),
        ("no_such_checker", {}, "unknown checker"),
    ],
)
def test_bad_checker_arguments_are_one_line_errors(name: str, args: dict, reason: str) -> None:
    with pytest.raises(ValueError, match=reason) as caught:
        parse_checker_args(name, args)
    assert "\n" not in str(caught.value)


# ---- answers ----------------------------------------------------------------------------------


def test_answer_matches_the_whole_answer_not_a_mention(box: ToolBox) -> None:
    write(box, "answer.txt", "  Thursday 14:00\n")
    assert holds(box, "answer_matches", {"expected": "Thursday 14:00"})
    assert holds(box, "answer_matches", {"expected": "thursday 14:00", "mode": "icase"})
    assert not holds(box, "answer_matches", {"expected": "thursday 14:00"})
    write(box, "answer.txt", "Tuesday 10:00 or Thursday 14:00")  # hedging over every option
    assert not holds(box, "answer_matches", {"expected": "Thursday 14:00"})


def test_answer_matches_numbers_within_tolerance(box: ToolBox) -> None:
    write(box, "out/total.txt", "$1,249.99")
    assert holds(box, "answer_matches", {"path": "out/total.txt", "expected": 1250, "mode": "number", "tolerance": 0.01})
    assert not holds(box, "answer_matches", {"path": "out/total.txt", "expected": 1250, "mode": "number"})
    write(box, "out/total.txt", "1249.99 1250 1250.01")
    assert not holds(box, "answer_matches", {"path": "out/total.txt", "expected": 1250, "mode": "number", "tolerance": 0.01})
    assert not holds(box, "answer_matches", {"path": "missing.txt", "expected": 1250, "mode": "number"})


# ---- e-mail -----------------------------------------------------------------------------------


def send(box: ToolBox, **fields: Any) -> None:
    assert box.call("gmail__login", {"username": "mara@vet.example", "password": "pw"}).ok
    assert box.call("gmail__send_email", fields).ok, box.records[-1].result


def test_email_sent_ignores_seeded_mail(box: ToolBox) -> None:
    start = box.env.apps.snapshot()
    assert not holds(box, "email_sent", {"to": "orders@boreal.example", "body_contains": "36 boxes"}, start)


def test_email_sent_matches_a_sent_message_on_every_given_field(box: ToolBox) -> None:
    start = box.env.apps.snapshot()
    send(
        box,
        email_addresses=["Orders@Boreal.example"],
        cc_email_addresses=["vet2@vet.example"],
        subject="Glove reorder",
        body="Please send 36 boxes, size M.",
    )
    assert holds(
        box,
        "email_sent",
        {"to": "orders@boreal.example", "subject_contains": "reorder", "body_contains": ["36 boxes", "size m"], "cc": "vet2@vet.example"},
        start,
    )
    assert not holds(box, "email_sent", {"to": "sales@boreal.example"}, start)  # another recipient
    assert not holds(box, "email_sent", {"to": "orders@boreal.example", "body_contains": ["40 boxes"]}, start)
    assert not holds(box, "email_sent", {"to": "orders@boreal.example", "subject_contains": "invoice"}, start)
    assert not holds(box, "email_sent", {"to": "orders@boreal.example", "cc": "owner@vet.example"}, start)
    assert not holds(box, "email_sent", {"to": "orders@boreal.example", "attachment": "order.pdf"}, start)


def test_email_sent_needs_the_recipient_as_an_address_not_in_the_body(box: ToolBox) -> None:
    start = box.env.apps.snapshot()
    send(box, email_addresses=["mara@vet.example"], subject="note", body="to orders@boreal.example: 36 boxes")
    assert not holds(box, "email_sent", {"to": "orders@boreal.example", "body_contains": "36 boxes"}, start)


# ---- calendar ---------------------------------------------------------------------------------


def calendar(box: ToolBox, *events: dict[str, Any]) -> None:
    seed = box.env.workspace.root.parent / "calendar_seed"
    seed.mkdir(exist_ok=True)
    rows = "\n".join(
        f"  - {{id: {n}, title: {e['title']!r}, start: '{e['start']}', end: '{e['end']}', location: {e.get('location', '')!r}, attendees: {e.get('attendees', [])}}}"
        for n, e in enumerate(events, start=1)
    )
    (seed / "calendar.yaml").write_text(f"calendar_event:\n{rows}\n")
    box.env.apps.seed_from(seed)


STANDUP = {
    "title": "Vendor review with Priya",
    "start": "2025-03-18T10:00",
    "end": "2025-03-18T10:45",
    "location": "Room 2",
    "attendees": ["priya@larkspur.example"],
}


def test_calendar_event_matches_title_times_location_and_attendees(box: ToolBox) -> None:
    calendar(box, STANDUP)
    assert holds(
        box,
        "calendar_event",
        {
            "title": "vendor review",
            "start": "2025-03-18T10:00",
            "end": "2025-03-18T10:45",
            "location": "room 2",
            "attendees": ["Priya@larkspur.example"],
        },
    )
    assert not holds(box, "calendar_event", {"title": "vendor review", "start": "2025-03-18T11:00"})
    assert not holds(box, "calendar_event", {"title": "vendor review", "end": "2025-03-18T11:00"})
    assert not holds(box, "calendar_event", {"title": "budget review"})
    assert not holds(box, "calendar_event", {"title": "vendor review", "location": "Room 3"})
    assert not holds(box, "calendar_event", {"title": "vendor review", "attendees": ["tom@larkspur.example"]})


def test_calendar_event_fields_must_hold_in_one_event(box: ToolBox) -> None:
    calendar(
        box,
        {**STANDUP, "start": "2025-03-18T09:00", "end": "2025-03-18T09:30"},
        {"title": "Lunch", "start": "2025-03-18T10:00", "end": "2025-03-18T10:45"},
    )
    assert not holds(box, "calendar_event", {"title": "vendor review", "start": "2025-03-18T10:00"})


def test_calendar_no_overlap(box: ToolBox) -> None:
    calendar(
        box,
        STANDUP,
        {"title": "Lunch", "start": "2025-03-18T10:45", "end": "2025-03-18T11:30"},
        {"title": "Call", "start": "2025-03-19T10:00", "end": "2025-03-19T11:00"},
    )
    assert holds(box, "calendar_no_overlap", {})  # back to back is no overlap
    assert holds(box, "calendar_no_overlap", {"on": "2025-03-18"})


def test_calendar_overlap_fails_and_on_limits_the_day(box: ToolBox) -> None:
    calendar(box, STANDUP, {"title": "Dentist", "start": "2025-03-18T10:30", "end": "2025-03-18T11:00"})
    assert not holds(box, "calendar_no_overlap", {})
    assert not holds(box, "calendar_no_overlap", {"on": "2025-03-18"})
    assert holds(box, "calendar_no_overlap", {"on": "2025-03-19"})
