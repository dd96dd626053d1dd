"""The spreadsheets tools: xlsx_read, xlsx_write, xlsx_append_rows (openpyxl); formulas stay formulas."""

from __future__ import annotations

import io
import zipfile
from datetime import datetime
from pathlib import Path

import openpyxl
import pytest
from openpyxl.styles import Font

import proactive_bench.env.xlsx_tools as xlsx_tools
from proactive_bench.env.apps.base import DEFAULT_NOW
from proactive_bench.env.toolbox import ToolBox
from tests.helpers.app_calls import err, ok
from tests.helpers.office_calls import assert_jailed, assert_refuses_bad_files, office_box, office_box_at


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    return office_box(tmp_path, "spreadsheets")


def book(box: ToolBox, path: str, data_only: bool = False) -> openpyxl.Workbook:
    return openpyxl.load_workbook(box.env.workspace.root / path, data_only=data_only)


def test_write_creates_a_workbook_and_formulas_stay_formulas(box: ToolBox) -> None:
    ok(
        box,
        "xlsx_write",
        path="budget/q1.xlsx",
        cells={"A1": "Item", "B1": "Cost", "A2": "Chairs", "B2": 1200, "B3": 350.5, "b4": "=SUM(B2:B3)", "C1": True, "D1": "1200"},
    )
    written = book(box, "budget/q1.xlsx")
    assert written.sheetnames == ["Sheet1"]
    sheet = written["Sheet1"]
    assert sheet["B2"].value == 1200 and sheet["B3"].value == 350.5 and sheet["C1"].value is True
    assert sheet["D1"].value == "1200"  # a string stays a string: no guessing
    assert sheet["B4"].value == "=SUM(B2:B3)" and sheet["B4"].data_type == "f"
    ok(box, "xlsx_write", path="budget/q1.xlsx", cells={"B2": 1250, "D1": None})
    again = book(box, "budget/q1.xlsx")["Sheet1"]
    assert again["B2"].value == 1250 and again["B4"].value == "=SUM(B2:B3)" and again["A2"].value == "Chairs" and again["D1"].value is None


def test_read_gives_coordinates_values_and_formulas(box: ToolBox) -> None:
    ok(box, "xlsx_write", path="a.xlsx", cells={"A1": "n", "B1": 3, "B2": 4, "B3": "=B1+B2"})
    workbook = book(box, "a.xlsx")
    workbook["Sheet1"]["A3"] = datetime(2025, 3, 14, 9, 30)  # a date typed in elsewhere
    workbook.save(box.env.workspace.root / "a.xlsx")
    read = ok(box, "xlsx_read", path="a.xlsx")
    assert read["sheet"] == "Sheet1" and read["sheets"] == ["Sheet1"]
    assert read["cells"] == [
        {"cell": "A1", "value": "n"},
        {"cell": "B1", "value": 3},
        {"cell": "B2", "value": 4},
        {"cell": "A3", "value": "2025-03-14T09:30:00"},
        {"cell": "B3", "value": None, "formula": "=B1+B2"},  # openpyxl stores no result
    ]
    assert [c["cell"] for c in ok(box, "xlsx_read", path="a.xlsx", range="B2:A1")["cells"]] == ["A1", "B1", "B2"]
    assert ok(box, "xlsx_read", path="a.xlsx", range="$B$3")["cells"] == [{"cell": "B3", "value": None, "formula": "=B1+B2"}]


def test_read_shows_the_cached_result_of_a_formula_computed_elsewhere(box: ToolBox) -> None:
    ok(box, "xlsx_write", path="a.xlsx", cells={"B1": 3, "B2": 4, "B3": "=SUM(B1:B2)"})
    path = box.env.workspace.root / "a.xlsx"
    source = zipfile.ZipFile(io.BytesIO(path.read_bytes()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:  # what Excel would store: the formula and its last result
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":
                assert b"<f>SUM(B1:B2)</f><v></v>" in data
                data = data.replace(b"<f>SUM(B1:B2)</f><v></v>", b"<f>SUM(B1:B2)</f><v>7</v>")
            target.writestr(item, data)
    path.write_bytes(out.getvalue())
    assert ok(box, "xlsx_read", path="a.xlsx", range="B3")["cells"] == [{"cell": "B3", "value": 7, "formula": "=SUM(B1:B2)"}]


def test_sheets_are_chosen_by_name_and_created_for_writing(box: ToolBox) -> None:
    ok(box, "xlsx_write", path="a.xlsx", cells={"A1": "first"})
    ok(box, "xlsx_write", path="a.xlsx", sheet="Totals", cells={"A1": "=Sheet1!A1"})
    assert book(box, "a.xlsx").sheetnames == ["Sheet1", "Totals"]
    assert ok(box, "xlsx_read", path="a.xlsx", sheet="totals")["cells"] == [{"cell": "A1", "value": None, "formula": "=Sheet1!A1"}]
    assert ok(box, "xlsx_read", path="a.xlsx")["cells"] == [{"cell": "A1", "value": "first"}]  # default: the first sheet
    message = err(box, "xlsx_read", path="a.xlsx", sheet="Summary")
    assert "no sheet 'Summary'" in message and "'Sheet1', 'Totals'" in message
    ok(box, "xlsx_write", path="new.xlsx", sheet="Plan", cells={"A1": 1})
    assert book(box, "new.xlsx").sheetnames == ["Plan"]
    assert "invalid sheet name" in err(box, "xlsx_write", path="a.xlsx", sheet="a/b", cells={"A1": 1})


def test_append_goes_after_the_last_row_holding_a_value(box: ToolBox) -> None:
    result = ok(box, "xlsx_append_rows", path="log.xlsx", rows=[["Date", "Amount"], ["2025-03-01", 40]])
    assert (result["first_row"], result["last_row"]) == (1, 2)
    workbook = book(box, "log.xlsx")
    workbook["Sheet1"]["A9"].font = Font(bold=True)  # formatted but empty: not a used row
    workbook.save(box.env.workspace.root / "log.xlsx")
    result = ok(box, "xlsx_append_rows", path="log.xlsx", rows=[["2025-03-02", 60], ["Total", "=SUM(B2:B3)"]])
    assert (result["first_row"], result["last_row"]) == (3, 4)
    sheet = book(box, "log.xlsx")["Sheet1"]
    assert [[c.value for c in row] for row in sheet["A1:B4"]] == [
        ["Date", "Amount"],
        ["2025-03-01", 40],
        ["2025-03-02", 60],
        ["Total", "=SUM(B2:B3)"],
    ]
    ok(box, "xlsx_append_rows", path="log.xlsx", sheet="Other", rows=[[1]])
    assert book(box, "log.xlsx")["Other"]["A1"].value == 1


@pytest.mark.parametrize("reference", ["A0", "1A", "XFE1", "A1048577", "A1:B2", "", "B 4", "ZZZZ9"])
def test_malformed_cell_references_are_clear_errors(box: ToolBox, reference: str) -> None:
    assert "invalid cell reference" in err(box, "xlsx_write", path="a.xlsx", cells={"A1": 1, reference: 2})
    assert not (box.env.workspace.root / "a.xlsx").exists()  # nothing written


@pytest.mark.parametrize("reference", ["A1:B2:C3", "A1:", "A:A", "nonsense"])
def test_malformed_ranges_are_clear_errors(box: ToolBox, reference: str) -> None:
    ok(box, "xlsx_write", path="a.xlsx", cells={"A1": 1})
    message = err(box, "xlsx_read", path="a.xlsx", range=reference)
    assert "invalid range" in message or "invalid cell reference" in message


def test_merged_cells_and_control_characters_are_refused(box: ToolBox) -> None:
    workbook = openpyxl.Workbook()
    workbook.active.merge_cells("A1:B1")
    workbook.save(box.env.workspace.root / "m.xlsx")
    assert "merged range" in err(box, "xlsx_write", path="m.xlsx", cells={"B1": "x"})
    assert "control characters" in err(box, "xlsx_write", path="m.xlsx", cells={"C1": "a\x01b"})


def test_a_large_sheet_is_cut_and_says_so(box: ToolBox, monkeypatch: pytest.MonkeyPatch) -> None:
    ok(box, "xlsx_append_rows", path="big.xlsx", rows=[[n, n * 2] for n in range(10)])
    monkeypatch.setattr(xlsx_tools, "MAX_CELLS", 5)
    read = ok(box, "xlsx_read", path="big.xlsx")
    assert len(read["cells"]) == 5 and "smaller range" in read["truncated"]


def test_far_apart_cells_neither_hang_reading_nor_appending(box: ToolBox) -> None:
    ok(box, "xlsx_write", path="far.xlsx", cells={"A1": "top", "XFD1048576": "corner"})
    read = ok(box, "xlsx_read", path="far.xlsx")
    assert read["cells"] == [{"cell": "A1", "value": "top"}] and "stopped after scanning" in read["truncated"]
    assert ok(box, "xlsx_read", path="far.xlsx", range="XFD1048576")["cells"] == [{"cell": "XFD1048576", "value": "corner"}]
    assert "the sheet would pass its last row" in err(box, "xlsx_append_rows", path="far.xlsx", rows=[["x"]])
    assert ok(box, "xlsx_write", path="far.xlsx", cells={"XFD1048576": None})
    assert ok(box, "xlsx_append_rows", path="far.xlsx", rows=[["next"]])["first_row"] == 2


def test_paths_are_jailed_and_bad_files_refused(box: ToolBox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "secret.xlsx"
    workbook = openpyxl.Workbook()
    workbook.active["A1"] = "Secret salary"
    workbook.save(outside)
    assert_jailed(box, "xlsx_read", "path", outside)
    assert_jailed(box, "xlsx_write", "path", outside, cells={"A1": "changed"})
    assert_jailed(box, "xlsx_append_rows", "path", outside, rows=[["changed"]])
    assert_refuses_bad_files(box, monkeypatch, "xlsx_read", "path", ".xlsx")
    assert_refuses_bad_files(box, monkeypatch, "xlsx_write", "path", ".xlsx", creates=True, cells={"A1": 1})
    assert_refuses_bad_files(box, monkeypatch, "xlsx_append_rows", "path", ".xlsx", creates=True, rows=[[1]])


def _core(path: Path) -> bytes:
    with zipfile.ZipFile(path) as archive:
        return archive.read("docProps/core.xml")


def test_a_workbook_is_dated_with_the_simulated_time_so_the_same_cells_give_the_same_bytes(tmp_path: Path) -> None:
    """openpyxl dates a workbook, its zip entries and its modified time with the machine's clock at each save: the same
    session played twice wrote different bytes, and a directory listing showed sizes that changed with the time of day.
    A new workbook is created and modified at the world's time; an edit keeps when it was created."""
    made = []
    for n in range(2):
        box = office_box_at(tmp_path / f"ws{n}", "spreadsheets", datetime(2026, 3, 4, 10, 30))
        ok(box, "xlsx_write", path="t.xlsx", cells={"A1": "dose", "B1": 5})
        made.append((tmp_path / f"ws{n}" / "t.xlsx").read_bytes())
        box.env.require_apps().set_clock(datetime(2026, 3, 5, 9, 0))
        ok(box, "xlsx_append_rows", path="t.xlsx", rows=[["dose", 6]])
    assert made[0] == made[1]
    core = _core(tmp_path / "ws0" / "t.xlsx")
    assert b">2026-03-04T10:30:00Z</dcterms:created>" in core and b">2026-03-05T09:00:00Z</dcterms:modified>" in core
    with zipfile.ZipFile(tmp_path / "ws0" / "t.xlsx") as archive:
        assert {info.date_time for info in archive.infolist()} == {(2026, 3, 5, 9, 0, 0)}
    assert (tmp_path / "ws0" / "t.xlsx").read_bytes() == (tmp_path / "ws1" / "t.xlsx").read_bytes()


def test_a_workbook_made_without_apps_is_dated_with_the_apps_default_time(box: ToolBox) -> None:
    ok(box, "xlsx_write", path="t.xlsx", cells={"A1": 1})
    stamp = DEFAULT_NOW.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    core = _core(box.env.workspace.root / "t.xlsx")
    assert core.count(b">" + stamp + b"</dcterms:") == 2
