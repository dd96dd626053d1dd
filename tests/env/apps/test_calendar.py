"""The calendar app: events without login, seeded vs agent-made rows, ICS export and import, errors, the jail."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from icalendar import Calendar

from proactive_bench.env.apps.base import AppStore, SeedError
from proactive_bench.env.toolbox import ToolBox
from tests.helpers.app_calls import app_box, err, ok, seed_database

SEED = """
app_clock:
  - {id: 1, now: "2025-03-14T09:00:00"}
calendar_event:
  - {id: 1, title: Dentist, start: "2025-03-17T08:30", end: "2025-03-17T09:15", location: Main St 4}
  - {id: 2, title: Budget review, start: "2025-03-18T14:00", end: "2025-03-18T15:00",
     attendees: [Priya.Raman@larkspur.example], description: Q1 numbers}
  - {id: 3, title: Offsite, start: "2025-03-20T09:00", end: "2025-03-21T17:00"}
"""


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return seed_database(tmp_path_factory.mktemp("calendar_seed"), "calendar", SEED)


@pytest.fixture
def box(tmp_path: Path, seeded: Path) -> ToolBox:
    return app_box(tmp_path, "calendar", seeded)


def rows(box: ToolBox) -> dict[int, dict]:
    assert box.env.apps is not None
    return {row["id"]: row for row in box.env.apps.rows("calendar_event")}


def test_seeded_rows_are_marked_as_seed_and_new_ones_as_the_agents(box: ToolBox) -> None:
    made = ok(
        box,
        "calendar__create_event",
        title="Vendor call",
        start="2025-03-18T14:30",
        end="2025-03-18T15:00",
        attendees=["Sam@Vendor.example", "sam@vendor.example"],
        location=" Room 2 ",
    )
    ok(box, "calendar__update_event", event_id=1, location="Main St 6")
    table = rows(box)
    assert table[2]["attendees"] == ["priya.raman@larkspur.example"]  # seeds compare like the tools' addresses
    assert not table[2]["created_by_agent"] and not table[2]["updated_by_agent"]
    assert not table[1]["created_by_agent"] and table[1]["updated_by_agent"] and table[1]["location"] == "Main St 6"
    new = table[made["event_id"]]
    assert new["created_by_agent"] and new["attendees"] == ["sam@vendor.example"] and new["location"] == "Room 2"
    assert new["start"] == "2025-03-18T14:30:00" and new["end"] == "2025-03-18T15:00:00"
    assert [o["event_id"] for o in made["overlaps"]] == [2]  # the agent is told of the clash


def test_list_filters_by_days_overlapping_and_words_in_start_order(box: ToolBox) -> None:
    def titles(**a: Any) -> Any:
        return [e["title"] for e in ok(box, "calendar__list_events", **a)]

    assert titles() == ["Dentist", "Budget review", "Offsite"]
    assert titles(start_date="2025-03-18", end_date="2025-03-18") == ["Budget review"]
    assert titles(start_date="2025-03-21") == ["Offsite"]  # a two-day event is on its second day too
    assert titles(end_date="2025-03-17") == ["Dentist"]
    assert titles(query="q1") == ["Budget review"] and titles(query="main st") == ["Dentist"]
    assert "before start_date" in err(box, "calendar__list_events", start_date="2025-03-19", end_date="2025-03-18")


def test_update_and_delete(box: ToolBox) -> None:
    ok(box, "calendar__update_event", event_id=2, start="2025-03-18T16:00", end="2025-03-18T17:00", attendees=[])
    assert rows(box)[2]["start"] == "2025-03-18T16:00:00" and rows(box)[2]["attendees"] == []
    assert "not after start" in err(box, "calendar__update_event", event_id=2, end="2025-03-18T15:59")
    assert "nothing to update" in err(box, "calendar__update_event", event_id=2)
    ok(box, "calendar__delete_event", event_id=3)
    assert "no event with id 3" in err(box, "calendar__delete_event", event_id=3)
    assert "no event with id 99" in err(box, "calendar__update_event", event_id=99, title="x")
    again = ok(box, "calendar__create_event", title="Later", start="2025-04-01T10:00", end="2025-04-01T11:00")
    assert again["event_id"] == 4  # a deleted id is never reused


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"start": "2025-03-18T10:00", "end": "2025-03-18T10:00"}, "not after start"),
        ({"start": "2025-03-18T10:00", "end": "2025-03-18T09:00"}, "not after start"),
        ({"start": "tomorrow", "end": "2025-03-18T09:00"}, "start"),
        ({"start": "2025-03-18T10:00+02:00", "end": "2025-03-18T11:00"}, "start"),
        ({"start": "2025-03-18T10:00", "end": "2025-03-18T11:00", "attendees": ["not an address"]}, "invalid email address"),
        ({"start": "2025-03-18T10:00", "end": "2025-03-18T11:00", "title": "  "}, "title"),
    ],
)
def test_bad_event_arguments_are_clear_errors(box: ToolBox, args: dict, needle: str) -> None:
    before = rows(box)
    assert needle in err(box, "calendar__create_event", **{"title": "Call", **args})
    assert rows(box) == before


def test_export_then_import_gives_the_same_events(box: ToolBox, tmp_path: Path, seeded: Path) -> None:
    ok(
        box,
        "calendar__create_event",
        title="Vendor call",
        start="2025-03-19T11:00",
        end="2025-03-19T11:30",
        attendees=["sam@vendor.example"],
        description="Line one\nline two, with a comma; and semicolon",
    )
    exported = ok(box, "calendar__export_ics", path="out/week.ics")
    assert exported["event_ids"] == [1, 2, 4, 3]
    parsed = Calendar.from_ical((box.env.workspace.root / "out/week.ics").read_bytes())
    assert [str(e["SUMMARY"]) for e in parsed.walk("VEVENT")] == ["Dentist", "Budget review", "Vendor call", "Offsite"]

    def shape(es: Any) -> Any:
        return sorted((e["title"], e["start"], e["end"], e["location"], e["description"], e["attendees"]) for e in es)

    original = shape(ok(box, "calendar__list_events"))

    fresh = app_box(tmp_path / "fresh", "calendar")  # an empty calendar on another workspace
    (fresh.env.workspace.root / "in").mkdir(parents=True)
    (fresh.env.workspace.root / "in/week.ics").write_bytes((box.env.workspace.root / "out/week.ics").read_bytes())
    result = ok(fresh, "calendar__import_ics", path="in/week.ics")
    assert len(result["added_event_ids"]) == 4 and result["replaced_event_ids"] == []
    assert shape(ok(fresh, "calendar__list_events")) == original
    assert all(row["created_by_agent"] for row in fresh.env.apps.rows("calendar_event"))  # type: ignore[union-attr]

    # importing the same file again replaces the events it names instead of doubling them, here and in the source calendar
    again = ok(fresh, "calendar__import_ics", path="in/week.ics")
    assert again["added_event_ids"] == [] and len(again["replaced_event_ids"]) == 4
    assert shape(ok(fresh, "calendar__list_events")) == original
    back = ok(box, "calendar__import_ics", path="out/week.ics")
    assert back["added_event_ids"] == [] and sorted(back["replaced_event_ids"]) == [1, 2, 3, 4]
    assert shape(ok(box, "calendar__list_events")) == original


def test_export_filters_days(box: ToolBox) -> None:
    assert ok(box, "calendar__export_ics", path="d.ics", start_date="2025-03-18", end_date="2025-03-18")["event_ids"] == [2]


ICS_HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"


def vevent(*lines: str) -> str:
    return "BEGIN:VEVENT\r\n" + "".join(f"{line}\r\n" for line in lines) + "END:VEVENT\r\n"


def test_import_reads_zones_as_written_dates_durations_and_mailto(box: ToolBox) -> None:
    body = (
        ICS_HEAD
        + vevent(
            "UID:a1",
            "SUMMARY:Board meeting",
            "DTSTART;TZID=America/Phoenix:20250324T100000",
            "DURATION:PT90M",
            "ATTENDEE;CN=Priya:mailto:PRIYA@larkspur.example",
            "ATTENDEE:mailto:dana@larkspur.example",
        )
        + vevent("UID:a2", "SUMMARY:Holiday", "DTSTART;VALUE=DATE:20250325", "DTEND;VALUE=DATE:20250326")
        + "END:VCALENDAR\r\n"
    )
    box.env.workspace.write_text("in.ics", body)
    ok(box, "calendar__import_ics", path="in.ics")
    board, holiday = ok(box, "calendar__list_events", start_date="2025-03-24")
    assert (board["start"], board["end"]) == ("2025-03-24T10:00", "2025-03-24T11:30")
    assert board["attendees"] == ["priya@larkspur.example", "dana@larkspur.example"]
    assert (holiday["start"], holiday["end"]) == ("2025-03-25T00:00", "2025-03-26T00:00")


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("this is not a calendar", "not a valid iCalendar file"),
        (ICS_HEAD + "END:VCALENDAR\r\n", "no events"),
        (ICS_HEAD + vevent("SUMMARY:No start", "DTEND:20250101T100000") + "END:VCALENDAR\r\n", "DTSTART"),
        (ICS_HEAD + vevent("SUMMARY:Open", "DTSTART:20250101T100000") + "END:VCALENDAR\r\n", "neither DTEND nor DURATION"),
        (ICS_HEAD + vevent("SUMMARY:Back", "DTSTART:20250101T100000", "DTEND:20250101T090000") + "END:VCALENDAR\r\n", "not after start"),
        (
            ICS_HEAD
            + vevent("SUMMARY:Weekly", "DTSTART:20250101T100000", "DTEND:20250101T110000", "RRULE:FREQ=WEEKLY")
            + "END:VCALENDAR\r\n",
            "RRULE",
        ),
        (ICS_HEAD + vevent("DTSTART:20250101T100000", "DTEND:20250101T110000") + "END:VCALENDAR\r\n", "SUMMARY"),
    ],
)
def test_bad_ics_files_are_clear_errors_and_import_nothing(box: ToolBox, content: str, needle: str) -> None:
    good = vevent("SUMMARY:Fine", "DTSTART:20250101T100000", "DTEND:20250101T110000")
    box.env.workspace.write_text(
        "bad.ics", content.replace("END:VCALENDAR", good + "END:VCALENDAR", 1) if "BEGIN:VEVENT" in content else content
    )
    before = rows(box)
    message = err(box, "calendar__import_ics", path="bad.ics")
    assert needle in message and "bad.ics" in message
    assert rows(box) == before  # all or nothing: the good event beside the bad one is not added


def test_ics_paths_go_through_the_jail(box: ToolBox, tmp_path: Path) -> None:
    outside = tmp_path / "outside.ics"
    outside.write_text(ICS_HEAD + vevent("SUMMARY:Secret", "DTSTART:20250101T100000", "DTEND:20250101T110000") + "END:VCALENDAR\r\n")
    root = box.env.workspace.root
    os.symlink(outside, root / "link.ics")
    assert "absolute" in err(box, "calendar__import_ics", path=str(outside))
    assert "'..'" in err(box, "calendar__import_ics", path="../outside.ics")
    assert "leaves the workspace" in err(box, "calendar__import_ics", path="link.ics")
    assert "no such file" in err(box, "calendar__import_ics", path="missing.ics")
    assert "must end in .ics" in err(box, "calendar__import_ics", path="notes.txt")
    assert "leaves the workspace" in err(box, "calendar__export_ics", path="link.ics")
    assert "'..'" in err(box, "calendar__export_ics", path="../x.ics")
    with open(root / "huge.ics", "wb") as handle:
        handle.truncate(6 * 2**20)
    assert "larger than" in err(box, "calendar__import_ics", path="huge.ics")
    assert "Secret" not in str(rows(box)) and outside.read_text().count("Secret") == 1


def test_a_seed_ending_before_it_starts_is_refused_naming_the_row(tmp_path: Path) -> None:
    (tmp_path / "calendar.yaml").write_text("calendar_event:\n  - {title: Bad, start: '2025-03-17T10:00', end: '2025-03-17T09:00'}\n")
    with pytest.raises(SeedError, match=r"calendar.yaml: calendar_event\[0\].*not after start"):
        AppStore().seed_from(tmp_path)


def test_state_survives_snapshot_and_restore_with_its_flags(box: ToolBox) -> None:
    ok(box, "calendar__create_event", title="New", start="2025-03-19T10:00", end="2025-03-19T11:00")
    ok(box, "calendar__update_event", event_id=1, title="Dentist (moved)")
    assert box.env.apps is not None
    snapshot = box.env.apps.snapshot()
    other = AppStore()
    other.restore(snapshot)
    assert other.rows("calendar_event") == box.env.apps.rows("calendar_event")
    flags = {row["title"]: (row["created_by_agent"], row["updated_by_agent"]) for row in other.rows("calendar_event")}
    assert flags == {"Dentist (moved)": (False, True), "Budget review": (False, False), "Offsite": (False, False), "New": (True, False)}
