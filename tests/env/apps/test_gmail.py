"""The gmail app: accounts, drafts, sending and replying, thread flags, labels, search and persistence."""

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
  - {id: 1, now: "2026-03-02T09:00:00"}
gmail_account:
  - {id: 1, name: Ana Lima, email: ana@example.com, password: ana-pass}
  - {id: 2, name: Ben Cole, email: ben@example.com, password: ben-pass}
  - {id: 3, name: Cy Dorn, email: cy@example.com, password: cy-pass}
gmail_thread:
  - {id: 1, subject: Lunch on Friday}
  - {id: 2, subject: Invoice 42}
  - {id: 3, subject: Ben and Cy only}
gmail_email:
  - {id: 1, thread_id: 1, sender_email: ben@example.com, sender_name: Ben Cole,
     recipient_emails: [ana@example.com], subject: Lunch on Friday, body: "Shall we try the new ramen place?",
     sent_at: 2026-03-01 10:00:00}
  - {id: 2, thread_id: 1, sender_email: ana@example.com, sender_name: Ana Lima,
     recipient_emails: [ben@example.com], subject: "Re: Lunch on Friday", body: Yes please,
     sent_at: 2026-03-01 11:00:00}
  - {id: 3, thread_id: 2, sender_email: billing@acme.test, sender_name: Acme Billing,
     recipient_emails: [ana@example.com], cc_emails: [cy@example.com], subject: Invoice 42,
     body: "Your invoice is attached.", attachment_file_paths: [invoice.pdf], sent_at: 2026-03-01 12:00:00}
  - {id: 4, thread_id: 3, sender_email: ben@example.com, recipient_emails: [cy@example.com],
     subject: Ben and Cy only, body: secret, sent_at: 2026-03-01 13:00:00}
gmail_thread_state:
  - {thread_id: 1, account_id: 1, read: true, starred: true, labels: [Friends]}
gmail_draft:
  - {id: 1, account_id: 1, recipient_emails: [ben@example.com], subject: Notes, body: Draft notes}
  - {id: 2, account_id: 2, recipient_emails: [ana@example.com], subject: Ben's draft, body: not yours}
"""


def _box(apps: AppStore, tmp_path: Path) -> ToolBox:
    workspace = Workspace(tmp_path / "ws")
    (workspace.root / "report.txt").write_text("quarterly numbers")
    return ToolBox(ToolEnv(workspace, Memory(), apps), resolve_tool_names(["gmail"]))


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    apps = AppStore(tmp_path / "apps.sqlite")
    (tmp_path / "seed").mkdir()
    (tmp_path / "seed" / "gmail.yaml").write_text(SEED)
    apps.seed_from(tmp_path / "seed")
    return _box(apps, tmp_path)


def ok(box: ToolBox, tool: str, **args: Any) -> Any:
    record = box.call(f"gmail__{tool}", args)
    assert record.ok, record.result
    return record.result["response"]


def error(box: ToolBox, tool: str, **args: Any) -> str:
    record = box.call(f"gmail__{tool}", args)
    assert not record.ok, record.result
    return record.result["error"]


def login(box: ToolBox, email: str = "ana@example.com", password: str = "ana-pass") -> None:
    ok(box, "login", username=email, password=password)


def test_login_is_required_and_checks_the_password(box: ToolBox) -> None:
    assert "not logged in to gmail" in error(box, "show_inbox_threads")
    assert error(box, "login", username="ana@example.com", password="nope") == "gmail: wrong username or password"
    token = ok(box, "login", username="ANA@example.com", password="ana-pass")["access_token"]
    assert [t["email_thread_id"] for t in ok(box, "show_inbox_threads", access_token=token)] == [2, 1]
    ok(box, "logout")
    assert "not logged in" in error(box, "show_drafts")


def test_signup_validates_and_creates_a_login(box: ToolBox) -> None:
    assert "invalid email address" in error(box, "signup", name="Dee", email="dee.example.com", password="secret1")
    assert "at least 6" in error(box, "signup", name="Dee", email="dee@example.com", password="123")
    assert "already exists" in error(box, "signup", name="Ana", email="Ana@Example.com", password="secret1")
    created = ok(box, "signup", name="Dee Park", email="dee@example.com", password="secret1")
    assert created == {"account_id": 4, "message": "account dee@example.com created"}
    login(box, "dee@example.com", "secret1")
    assert ok(box, "show_inbox_threads") == []


def test_inbox_outbox_and_visibility_follow_sender_and_recipients(box: ToolBox) -> None:
    login(box)
    inbox = ok(box, "show_inbox_threads")
    assert [(t["email_thread_id"], t["read"], t["starred"]) for t in inbox] == [(2, False, False), (1, True, True)]
    assert inbox[1]["email_count"] == 2 and inbox[1]["labels"] == ["Friends"]
    assert [t["email_thread_id"] for t in ok(box, "show_inbox_threads", only_unread=True)] == [2]
    assert [t["email_thread_id"] for t in ok(box, "show_outbox_threads")] == [1]
    assert [t["subject"] for t in ok(box, "show_inbox_threads", query="ramen")] == ["Lunch on Friday"]
    assert ok(box, "show_inbox_threads", query="acme billing")[0]["email_thread_id"] == 2
    assert error(box, "show_thread", email_thread_id=3) == "no email thread with id 3"
    assert error(box, "show_email", email_id=4) == "no email with id 4"
    assert error(box, "show_email", email_id=99) == "no email with id 99"
    email = ok(box, "show_email", email_id=3)
    assert email["sender_name"] == "Acme Billing" and email["attachment_file_paths"] == ["invoice.pdf"]
    thread = ok(box, "show_thread", email_thread_id=1)
    assert [e["email_id"] for e in thread["emails"]] == [1, 2] and thread["subject"] == "Lunch on Friday"


def test_send_email_reaches_another_accounts_inbox_unread(box: ToolBox, tmp_path: Path) -> None:
    login(box)
    assert "at least one" in error(box, "send_email", email_addresses=[], subject="x", body="y")
    assert "invalid email address" in error(box, "send_email", email_addresses=["ben"], subject="x", body="y")
    sent = ok(box, "send_email", email_addresses=["Ben@Example.com"], subject="Agenda", body="Items", cc_email_addresses=["cy@example.com"])
    assert sent == {"message": "email sent", "email_id": 5, "email_thread_id": 4}
    assert ok(box, "show_outbox_threads")[0]["email_thread_id"] == 4
    assert all(t["email_thread_id"] != 4 for t in ok(box, "show_inbox_threads"))
    login(box, "ben@example.com", "ben-pass")
    top = ok(box, "show_inbox_threads")[0]
    assert (top["email_thread_id"], top["read"], top["latest_sender_email"]) == (4, False, "ana@example.com")
    assert ok(box, "show_email", email_id=5)["recipient_emails"] == ["ben@example.com"]
    login(box, "cy@example.com", "cy-pass")
    assert ok(box, "show_email", email_id=5)["cc_emails"] == ["cy@example.com"]


def test_reply_stays_in_thread_and_reopens_it_for_the_recipient(box: ToolBox) -> None:
    login(box, "ben@example.com", "ben-pass")
    ok(box, "mark_thread_read", email_thread_id=1)
    ok(box, "mark_thread_archived", email_thread_id=1)
    assert all(t["email_thread_id"] != 1 for t in ok(box, "show_inbox_threads"))
    login(box)
    assert "must not be empty" in error(box, "reply_to_email", email_id=1, body="  ")
    reply = ok(box, "reply_to_email", email_id=1, body="See you at noon")
    assert reply == {"message": "email sent", "email_id": 5, "email_thread_id": 1}
    mine = ok(box, "show_email", email_id=5)
    assert (mine["subject"], mine["recipient_emails"]) == ("Re: Lunch on Friday", ["ben@example.com"])
    ok(box, "reply_to_email", email_id=2, body="Also, bring Cy?")  # own email: goes to its recipients
    assert ok(box, "show_email", email_id=6)["recipient_emails"] == ["ben@example.com"]
    assert "no email with id 4" in error(box, "reply_to_email", email_id=4, body="hi")
    login(box, "ben@example.com", "ben-pass")
    thread = ok(box, "show_inbox_threads")[0]
    assert (thread["email_thread_id"], thread["read"], thread["archived"], thread["email_count"]) == (1, False, False, 4)


def test_forward_thread_quotes_emails_and_keeps_attachments(box: ToolBox) -> None:
    login(box)
    assert "no email thread" in error(box, "forward_email_thread", email_thread_id=3, email_addresses=["ben@example.com"])
    sent = ok(box, "forward_email_thread", email_thread_id=2, email_addresses=["ben@example.com"], body="FYI")
    email = ok(box, "show_email", email_id=sent["email_id"])
    assert email["subject"] == "Fwd: Invoice 42" and email["attachment_file_paths"] == ["invoice.pdf"]
    assert email["body"].startswith("FYI\n\n---------- Forwarded message") and "Your invoice is attached." in email["body"]
    assert sent["email_thread_id"] == 4


def test_drafts_create_update_show_send_and_permissions(box: ToolBox) -> None:
    login(box)
    assert "attachment not found" in error(box, "create_draft", recipient_email_addresses=[], body="x", attachment_file_paths=["nope.pdf"])
    created = ok(
        box, "create_draft", recipient_email_addresses=[], subject="Report", body="Attached.", attachment_file_paths=["report.txt"]
    )
    assert created == {"draft_id": 3, "message": "draft created"}
    assert [d["draft_id"] for d in ok(box, "show_drafts")] == [3, 1]
    assert [d["draft_id"] for d in ok(box, "show_drafts", query="notes")] == [1]
    assert "at least one email address" in error(box, "send_email_from_draft", draft_id=3)
    assert ok(box, "update_draft", draft_id=3, email_addresses=["cy@example.com"], body="Attached, v2.") == {"message": "draft 3 updated"}
    draft = ok(box, "show_draft", draft_id=3)
    assert (draft["recipient_emails"], draft["subject"], draft["body"]) == (["cy@example.com"], "Report", "Attached, v2.")
    assert error(box, "show_draft", draft_id=2) == "draft 2 belongs to another account"
    assert error(box, "update_draft", draft_id=2, body="mine now") == "draft 2 belongs to another account"
    assert error(box, "send_email_from_draft", draft_id=2) == "draft 2 belongs to another account"
    assert error(box, "show_draft", draft_id=9) == "no draft with id 9"
    sent = ok(box, "send_email_from_draft", draft_id=3)
    assert sent["email_thread_id"] == 4 and "no draft with id 3" in error(box, "show_draft", draft_id=3)
    assert ok(box, "show_email", email_id=sent["email_id"])["attachment_file_paths"] == ["report.txt"]
    assert ok(box, "create_draft", recipient_email_addresses=["ben@example.com"], body="next")["draft_id"] == 4  # ids not reused


def test_flags_labels_and_category_sizes(box: ToolBox) -> None:
    login(box)
    assert ok(box, "show_category_sizes") == {
        "inbox": 2,
        "outbox": 1,
        "drafts": 1,
        "starred": 1,
        "archived": 0,
        "unread": 1,
        "labels": {"Friends": 1},
    }
    ok(box, "mark_thread_read", email_thread_id=2)
    ok(box, "mark_thread_starred", email_thread_id=2)
    assert ok(box, "mark_thread_unstarred", email_thread_id=1) == {"message": "thread 1 marked unstarred"}
    assert [t["email_thread_id"] for t in ok(box, "show_starred_threads")] == [2]
    ok(box, "mark_thread_unread", email_thread_id=1)
    assert [t["email_thread_id"] for t in ok(box, "show_inbox_threads", only_unread=True)] == [1]
    ok(box, "mark_thread_archived", email_thread_id=2)
    assert [t["email_thread_id"] for t in ok(box, "show_inbox_threads")] == [1]
    ok(box, "mark_thread_unarchived", email_thread_id=2)
    assert len(ok(box, "show_inbox_threads")) == 2
    assert "no email thread with id 3" in error(box, "mark_thread_starred", email_thread_id=3)
    ok(box, "label_thread", email_thread_id=2, label="Bills")
    assert "already has label" in ok(box, "label_thread", email_thread_id=2, label="bills")["message"]
    ok(box, "label_thread", email_thread_id=1, label="Bills")
    assert ok(box, "search_labels") == [{"label": "Bills", "thread_count": 2}, {"label": "Friends", "thread_count": 1}]
    assert ok(box, "search_labels", query="fri") == [{"label": "Friends", "thread_count": 1}]
    assert [t["email_thread_id"] for t in ok(box, "show_inbox_threads", query="bills", page_index=1, page_limit=1)] == [1]
    ok(box, "unlabel_thread", email_thread_id=1, label="friends")
    assert "has no label" in error(box, "unlabel_thread", email_thread_id=1, label="Friends")
    assert "must not be empty" in error(box, "label_thread", email_thread_id=1, label=" ")
    sizes = ok(box, "show_category_sizes")
    assert (sizes["starred"], sizes["unread"], sizes["labels"]) == (1, 1, {"Bills": 2})
    login(box, "cy@example.com", "cy-pass")
    assert ok(box, "search_labels") == []  # flags are per account


def test_search_users_and_pagination(box: ToolBox) -> None:
    login(box)
    users = ok(box, "search_users")
    assert users == [
        {"name": "Acme Billing", "email": "billing@acme.test"},
        {"name": "Ben Cole", "email": "ben@example.com"},
        {"name": "Cy Dorn", "email": "cy@example.com"},
    ]
    assert ok(box, "search_users", query="acme") == [{"name": "Acme Billing", "email": "billing@acme.test"}]
    assert ok(box, "search_users", page_index=1, page_limit=2) == [{"name": "Cy Dorn", "email": "cy@example.com"}]
    for n in range(3):
        ok(box, "send_email", email_addresses=["ben@example.com"], subject=f"Note {n}", body="x")
    page = ok(box, "show_outbox_threads", page_index=1, page_limit=2)
    assert [t["subject"] for t in page] == ["Note 0", "Lunch on Friday"]
    assert "invalid arguments" in error(box, "show_outbox_threads", page_limit=0)


def test_state_persists_across_sessions_and_restores(box: ToolBox, tmp_path: Path) -> None:
    login(box)
    ok(box, "send_email", email_addresses=["ben@example.com"], subject="Persist", body="me")
    ok(box, "label_thread", email_thread_id=2, label="Bills")
    box.env.require_apps().engine.dispose()
    again = _box(AppStore(tmp_path / "apps.sqlite"), tmp_path)
    assert ok(again, "show_outbox_threads")[0]["subject"] == "Persist"  # still logged in, same state
    assert ok(again, "show_inbox_threads", query="bills")[0]["labels"] == ["Bills"]
    apps = again.env.require_apps()
    snap = apps.snapshot()
    ok(again, "mark_thread_starred", email_thread_id=2)
    ok(again, "create_draft", recipient_email_addresses=["cy@example.com"], body="later")
    apps.restore(snap)
    assert apps.snapshot() == snap
    assert [t["email_thread_id"] for t in ok(again, "show_starred_threads")] == [1]
    assert [d["draft_id"] for d in ok(again, "show_drafts")] == [1]
