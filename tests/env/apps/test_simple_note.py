"""The simple_note app: private notes with tags and pins, search, content editing."""

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
  - {id: 1, now: "2026-04-24T18:00:00"}
simple_note_user:
  - {id: 1, name: Sam McCoy, email: stmcco@gmail.com, phone_number: "5550100", password: Ozz21Q4, created_at: "2025-01-05T08:00:00"}
  - {id: 2, name: Lee Park, email: lee@corp.com, password: leepw}
simple_note_note:
  - {id: 1, owner_id: 1, title: Camping draft, content: "Meet-up at North Parking Lot", tags: [camping, trip], pinned: false,
     created_at: "2026-04-20T10:00:00", updated_at: "2026-04-22T10:00:00"}
  - {id: 2, owner_id: 1, title: Budget, content: "Quarterly numbers", tags: [work], pinned: true,
     created_at: "2026-04-21T10:00:00", updated_at: "2026-04-21T10:00:00"}
  - {id: 3, owner_id: 1, title: Alpha ideas, content: "camping gear list", tags: [], created_at: "2026-04-23T10:00:00",
     updated_at: "2026-04-23T10:00:00"}
  - {id: 4, owner_id: 2, title: Lee secret, content: "camping with friends", tags: [camping]}
"""


def make_box(apps: AppStore, tmp_path: Path) -> ToolBox:
    return ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory(), apps), resolve_tool_names(["simple_note"]))


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    apps = AppStore(tmp_path / "apps.sqlite")
    (tmp_path / "seed").mkdir()
    (tmp_path / "seed" / "simple_note.yaml").write_text(SEED)
    apps.seed_from(tmp_path / "seed")
    return make_box(apps, tmp_path)


def ok(box: ToolBox, tool: str, /, **args: Any) -> Any:
    record = box.call(f"simple_note__{tool}", args)
    assert record.ok, record.result
    return record.result["response"]


def err(box: ToolBox, tool: str, /, **args: Any) -> str:
    record = box.call(f"simple_note__{tool}", args)
    assert not record.ok, record.result
    return str(record.result["error"])


def login(box: ToolBox, username: str = "stmcco@gmail.com", password: str = "Ozz21Q4") -> None:
    ok(box, "login", username=username, password=password)


def test_login_by_email_or_phone(box: ToolBox) -> None:
    assert err(box, "search_notes") == "not logged in to simple_note; call simple_note__login first"
    assert err(box, "login", username="stmcco@gmail.com", password="nope") == "simple_note: wrong username or password"
    login(box, "5550100")
    assert ok(box, "show_account") == {
        "name": "Sam McCoy",
        "email": "stmcco@gmail.com",
        "phone_number": "5550100",
        "created_at": "2025-01-05T08:00:00",
        "note_count": 3,
    }
    ok(box, "logout")
    assert "not logged in" in err(box, "show_note", note_id=1)
    login(box, "STMCCO@gmail.com")
    assert ok(box, "show_account")["email"] == "stmcco@gmail.com"


def test_profiles(box: ToolBox) -> None:
    login(box)
    assert ok(box, "show_profile") == {"name": "Sam McCoy", "email": "stmcco@gmail.com", "created_at": "2025-01-05T08:00:00"}
    assert ok(box, "show_profile", email="lee@corp.com") == {"name": "Lee Park", "email": "lee@corp.com", "created_at": None}
    assert err(box, "show_profile", email="ghost@corp.com") == "no Simple Note user with email ghost@corp.com"
    assert err(box, "show_profile", email="5550100") == "email must be an email address, got '5550100'"


def test_note_rewrite_flow_with_pibench_arguments(box: ToolBox) -> None:
    login(box)
    found = ok(box, "search_notes", query="camping")
    assert [n["note_id"] for n in found] == [3, 1]  # Lee's note is private; newest update first
    assert ok(box, "delete_note", note_id=1) == {"message": "deleted note 1 ('Camping draft')"}
    created = ok(box, "create_note", title="Weekend Camping Departure Memo - Qingyuan Reservoir", content="Meet-up and Travel")
    note_id = created["note_id"]
    assert created == {"note_id": note_id, "message": "created note 'Weekend Camping Departure Memo - Qingyuan Reservoir'"}
    assert ok(box, "add_content_to_note", note_id=note_id, added_content="Must-Bring Items", append_or_prepend="append") == {
        "message": f"appended content to note {note_id}"
    }
    ok(box, "add_content_to_note", note_id=note_id, added_content="# Memo", append_or_prepend="prepend")
    assert ok(box, "show_note", note_id=note_id)["content"] == "# Memo\nMeet-up and Travel\nMust-Bring Items"
    assert ok(box, "update_note", note_id=note_id, content="Final text") == {"message": f"updated note {note_id}"}
    note = ok(box, "show_note", note_id=note_id)
    assert (note["title"], note["content"], note["tags"], note["pinned"]) == (
        "Weekend Camping Departure Memo - Qingyuan Reservoir",
        "Final text",
        [],
        False,
    )
    assert note["created_at"] == note["updated_at"] == "2026-04-24T18:00:00"
    assert err(box, "show_note", note_id=1) == "no note with id 1"


def test_search_filters_sorting_and_pages(box: ToolBox) -> None:
    login(box)

    def ids(**f: Any) -> Any:
        return [n["note_id"] for n in ok(box, "search_notes", **f)]

    assert ids() == [2, 3, 1]  # pinned first, then most recently updated
    assert ids(sort_by="title") == [2, 3, 1] and ids(sort_by="title", pinned=False) == [3, 1]
    assert ids(sort_by="created_at", pinned=False) == [3, 1]
    assert ids(tags=["Camping"]) == [1] and ids(tags=["camping", "work"]) == []
    assert ids(query="quarterly numbers") == [2] and ids(query="numbers camping") == []
    assert ids(pinned=True) == [2]
    assert ids(page_index=1, page_limit=2) == [1]
    assert "sort_by" in err(box, "search_notes", sort_by="size")
    assert "page_limit" in err(box, "search_notes", page_limit=0)


def test_updates_validate_and_touch_timestamps(box: ToolBox) -> None:
    login(box)
    ok(box, "update_note", note_id=3, tags=[" #ideas", "Ideas", "gear", ""], pinned=True)
    note = ok(box, "show_note", note_id=3)
    assert (note["tags"], note["pinned"], note["updated_at"]) == (["ideas", "gear"], True, "2026-04-24T18:00:00")
    assert note["created_at"] == "2026-04-23T10:00:00" and note["content"] == "camping gear list"
    assert err(box, "update_note", note_id=3) == "nothing to update: pass at least one of title, content, tags, pinned"
    assert "title" in err(box, "update_note", note_id=3, title="  ")
    assert "append_or_prepend" in err(box, "add_content_to_note", note_id=3, added_content="x", append_or_prepend="middle")
    assert "title" in err(box, "create_note", title="", content="x")
    assert err(box, "update_note", note_id=4, content="hijack") == "no note with id 4"
    assert err(box, "delete_note", note_id=4) == "no note with id 4"
    login(box, "lee@corp.com", "leepw")
    assert ok(box, "show_note", note_id=4)["content"] == "camping with friends"


def test_state_persists_across_sessions_and_restores(box: ToolBox, tmp_path: Path) -> None:
    login(box)
    note_id = ok(box, "create_note", title="Keep me", content="persisted", tags=["x"], pinned=True)["note_id"]
    snapshot = box.env.require_apps().snapshot()
    second = make_box(AppStore(tmp_path / "apps.sqlite"), tmp_path)
    assert ok(second, "show_note", note_id=note_id)["tags"] == ["x"]
    ok(second, "delete_note", note_id=note_id)
    ok(second, "update_note", note_id=2, title="Changed")
    second.env.require_apps().restore(snapshot)
    assert second.env.require_apps().snapshot() == snapshot
    assert ok(second, "show_note", note_id=note_id)["title"] == "Keep me"
    assert ok(second, "show_note", note_id=2)["title"] == "Budget"
