"""The phone app: clock, contacts, text messages between phones, alarms and persistence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proactive_bench.env.apps.base import AppStore
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace

SEED = """
app_clock:
  - {id: 1, now: "2026-03-04T07:15:00"}
phone_account:
  - {id: 1, name: Ana Lima, phone_number: "+1 555-010-1000", password: ana-pass, email: ana@example.com}
  - {id: 2, name: Ben Cole, phone_number: "5550102000", password: ben-pass}
phone_contact:
  - {id: 1, account_id: 1, first_name: Ben, last_name: Cole, phone_number: "555-010-2000",
     relationships: [friend, coworker], birthday: 1990-05-17}
  - {id: 2, account_id: 1, first_name: Maria, last_name: Lima, phone_number: "555-010-3000",
     email: maria@example.com, relationships: [mother], home_address: 12 Oak Street}
  - {id: 3, account_id: 2, first_name: Zed, last_name: Roe, phone_number: "555-010-4000"}
phone_text_message:
  - {id: 1, sender_phone_number: "5550102000", receiver_phone_number: "+1 555-010-1000",
     message: Running late, sent_at: 2026-03-03 18:00:00}
  - {id: 2, sender_phone_number: "+1 555-010-1000", receiver_phone_number: "555-010-3000",
     message: "Dinner on Sunday?", sent_at: 2026-03-03 19:00:00}
  - {id: 3, sender_phone_number: "5550102000", receiver_phone_number: "555-010-4000",
     message: Not for Ana, sent_at: 2026-03-03 20:00:00}
phone_alarm:
  - {id: 1, account_id: 1, time: "06:30", label: Gym, repeat_days: [monday, wednesday]}
  - {id: 2, account_id: 2, time: "05:00", label: Ben's alarm}
"""


def _box(apps: AppStore, tmp_path: Path) -> ToolBox:
    return ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory(), apps), resolve_tool_names(["phone"]))


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    apps = AppStore(tmp_path / "apps.sqlite")
    (tmp_path / "seed").mkdir()
    (tmp_path / "seed" / "phone.yaml").write_text(SEED)
    apps.seed_from(tmp_path / "seed")
    return _box(apps, tmp_path)


def ok(box: ToolBox, tool: str, **args: Any) -> Any:
    record = box.call(f"phone__{tool}", args)
    assert record.ok, record.result
    return record.result["response"]


def error(box: ToolBox, tool: str, **args: Any) -> str:
    record = box.call(f"phone__{tool}", args)
    assert not record.ok, record.result
    return record.result["error"]


def login(box: ToolBox, number: str = "+15550101000", password: str = "ana-pass") -> None:
    ok(box, "login", username=number, password=password)


def test_login_by_phone_number_and_the_clock(box: ToolBox) -> None:
    assert "not logged in to phone" in error(box, "show_alarms")
    assert error(box, "login", username="+15550101000", password="wrong") == "phone: wrong username or password"
    assert ok(box, "get_current_date_and_time") == {
        "date": "2026-03-04",
        "time": "07:15:00",
        "day_of_week": "Wednesday",
        "datetime": "2026-03-04T07:15:00",
    }
    token = ok(box, "login", username="(555) 010-2000", password="ben-pass")["access_token"]
    assert [a["alarm_id"] for a in ok(box, "show_alarms", access_token=token)] == [2]
    ok(box, "logout")
    assert "not logged in" in error(box, "search_contacts")


def test_contacts_add_search_update_and_validation(box: ToolBox) -> None:
    login(box)
    assert [c["first_name"] for c in ok(box, "search_contacts")] == ["Ben", "Maria"]
    assert [c["contact_id"] for c in ok(box, "search_contacts", relationship="Mother")] == [2]
    assert ok(box, "search_contacts", query="oak street")[0]["email"] == "maria@example.com"
    assert ok(box, "search_contacts", query="cole")[0]["birthday"] == "1990-05-17"
    added = ok(
        box,
        "add_contact",
        first_name="Dr",
        last_name="Shah",
        phone_number="555 010 5000",
        email="Shah@Clinic.org",
        relationships=["Doctor", " doctor "],
        birthday="1970-01-02",
    )
    assert added == {"contact_id": 4, "message": "contact Dr Shah added"}
    assert ok(box, "search_contacts", relationship="doctor") == [
        {
            "contact_id": 4,
            "first_name": "Dr",
            "last_name": "Shah",
            "phone_number": "555 010 5000",
            "email": "shah@clinic.org",
            "relationships": ["doctor"],
            "birthday": "1970-01-02",
            "home_address": None,
        }
    ]
    assert "already has phone number" in error(box, "add_contact", first_name="B", last_name="C", phone_number="5550102000")
    assert "invalid phone number" in error(box, "add_contact", first_name="X", last_name="Y", phone_number="call me")
    assert "invalid email" in error(box, "add_contact", first_name="X", last_name="Y", phone_number="5550109999", email="x")
    assert "future" in error(box, "add_contact", first_name="X", last_name="Y", phone_number="5550109999", birthday="2030-01-01")
    assert "invalid arguments" in error(box, "add_contact", first_name="X", last_name="Y", phone_number="5550109999", birthday="May 1")
    assert ok(box, "update_contact", contact_id=1, home_address="9 Elm Road", relationships=["best friend"]) == {
        "message": "contact 1 updated"
    }
    ben = ok(box, "search_contacts", query="elm")[0]
    assert (ben["contact_id"], ben["relationships"], ben["last_name"]) == (1, ["best friend"], "Cole")
    assert "nothing to update" in error(box, "update_contact", contact_id=1)
    assert error(box, "update_contact", contact_id=3, first_name="Mine") == "contact 3 is not on your phone"
    assert error(box, "update_contact", contact_id=99, first_name="X") == "no contact with id 99"
    assert "already has phone number" in error(box, "update_contact", contact_id=2, phone_number="555-010-2000")
    ok(box, "update_contact", contact_id=1, phone_number="(555) 010-2000")  # its own number again is fine
    assert ok(box, "search_contacts", query="elm")[0]["phone_number"] == "(555) 010-2000"
    page = ok(box, "search_contacts", page_index=1, page_limit=2)
    assert [c["first_name"] for c in page] == ["Maria"]


def test_text_messages_reach_the_other_phone_and_resolve_names(box: ToolBox) -> None:
    login(box)
    assert [m["text_message_id"] for m in ok(box, "search_text_messages")] == [2, 1]
    assert error(box, "show_text_message", text_message_id=3) == "no text message with id 3"
    first = ok(box, "show_text_message", text_message_id=1)
    assert (first["direction"], first["sender_name"], first["receiver_name"]) == ("received", "Ben Cole", "Ana Lima")
    assert "must not be empty" in error(box, "send_text_message", phone_number="5550102000", message=" ")
    assert "invalid phone number" in error(box, "send_text_message", phone_number="abc", message="hi")
    assert "own number" in error(box, "send_text_message", phone_number="+1 (555) 010-1000", message="hi")
    sent = ok(box, "send_text_message", phone_number="555-010-2000", message="On my way")
    assert sent == {"text_message_id": 4, "message": "text message sent to 555-010-2000"}
    window = ok(box, "show_text_message_window", phone_number="5550102000")
    assert [(m["text_message_id"], m["direction"]) for m in window] == [(4, "sent"), (1, "received")]
    assert [m["text_message_id"] for m in ok(box, "search_text_messages", query="maria")] == [2]
    assert [m["text_message_id"] for m in ok(box, "search_text_messages", query="way", phone_number="555 010 2000")] == [4]
    assert [m["text_message_id"] for m in ok(box, "search_text_messages", page_index=1, page_limit=2)] == [1]
    login(box, "5550102000", "ben-pass")
    window = ok(box, "show_text_message_window", phone_number="+15550101000")
    assert [(m["text_message_id"], m["direction"], m["message"]) for m in window][0] == (4, "received", "On my way")
    assert window[0]["sender_name"] == "Ana Lima"


def test_alarms_create_update_delete_and_permissions(box: ToolBox) -> None:
    login(box)
    assert "invalid time" in error(box, "create_alarm", time="25:00")
    assert "invalid day" in error(box, "create_alarm", time="07:00", repeat_days=["someday"])
    created = ok(box, "create_alarm", time="7:05", label="Pills", repeat_days=["Fri", "monday", "mon"])
    assert created == {"alarm_id": 3, "message": "alarm set for 07:05"}
    assert ok(box, "show_alarm", alarm_id=3) == {
        "alarm_id": 3,
        "time": "07:05",
        "label": "Pills",
        "repeat_days": ["monday", "friday"],
        "enabled": True,
    }
    assert [a["alarm_id"] for a in ok(box, "show_alarms")] == [1, 3]
    assert ok(box, "update_alarm", alarm_id=1, time="08:00", enabled=False) == {"message": "alarm 1 updated"}
    gym = ok(box, "show_alarm", alarm_id=1)
    assert (gym["time"], gym["enabled"], gym["label"], gym["repeat_days"]) == ("08:00", False, "Gym", ["monday", "wednesday"])
    assert [a["alarm_id"] for a in ok(box, "show_alarms")] == [3, 1]
    assert [a["alarm_id"] for a in ok(box, "show_alarms", page_index=1, page_limit=1)] == [1]
    assert "nothing to update" in error(box, "update_alarm", alarm_id=1)
    assert "invalid time" in error(box, "update_alarm", alarm_id=1, time="8am")
    assert error(box, "show_alarm", alarm_id=2) == "alarm 2 is not on your phone"
    assert error(box, "delete_alarm", alarm_id=2) == "alarm 2 is not on your phone"
    assert ok(box, "delete_alarm", alarm_id=3) == {"message": "alarm 3 deleted"}
    assert error(box, "show_alarm", alarm_id=3) == "no alarm with id 3"
    assert ok(box, "create_alarm", time="09:00")["alarm_id"] == 4  # ids are not reused


def test_state_persists_across_sessions_and_restores(box: ToolBox, tmp_path: Path) -> None:
    login(box)
    ok(box, "create_alarm", time="10:00", label="Call pharmacy")
    ok(box, "send_text_message", phone_number="5550103000", message="See you Sunday")
    box.env.require_apps().engine.dispose()
    again = _box(AppStore(tmp_path / "apps.sqlite"), tmp_path)
    assert [a["label"] for a in ok(again, "show_alarms")] == ["Gym", "Call pharmacy"]
    assert ok(again, "show_text_message_window", phone_number="555-010-3000")[0]["message"] == "See you Sunday"
    apps = again.env.require_apps()
    snap = apps.snapshot()
    ok(again, "delete_alarm", alarm_id=1)
    ok(again, "add_contact", first_name="New", last_name="Person", phone_number="5550106000")
    apps.restore(snap)
    assert apps.snapshot() == snap
    assert [a["alarm_id"] for a in ok(again, "show_alarms")] == [1, 3]
    assert [c["first_name"] for c in ok(again, "search_contacts")] == ["Ben", "Maria"]
