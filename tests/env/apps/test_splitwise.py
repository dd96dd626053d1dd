"""The simulated Splitwise app: groups, expenses, balances computed from debts, state across sessions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proactive_bench.env.toolbox import ToolBox
from tests.helpers.app_calls import app_box, err, ok, seed_database

ME = "la-mcco@gmail.com"
SEED = """
splitwise_user:
  - {id: 1, name: Laura Mccoy, email: la-mcco@gmail.com, password: "T8H2[32"}
  - {id: 2, name: Chris Mccoy, email: chris.mcco@gmail.com}
  - {id: 3, name: Jonathan Ball, email: jo.ball@gmail.com}
  - {id: 4, name: Leslie Ball, email: les_ball@gmail.com, password: pw4}
  - {id: 5, name: Bradley Ball, email: bradley_ball@gmail.com}
splitwise_group:
  - {id: 1, name: Roommates, created_by: 1, created_at: 2026-01-10T08:00:00}
  - {id: 2, name: Ball family, created_by: 4, created_at: 2026-01-12T08:00:00}
splitwise_group_member:
  - {id: 1, group_id: 1, user_id: 1}
  - {id: 2, group_id: 1, user_id: 2}
  - {id: 3, group_id: 1, user_id: 3}
  - {id: 4, group_id: 2, user_id: 4}
  - {id: 5, group_id: 2, user_id: 5}
splitwise_expense:
  - {id: 1, group_id: 1, payer_id: 1, paid_amount: 90, description: Groceries, created_by: 1,
     created_at: 2026-02-01T10:00:00}
  - {id: 2, group_id: 1, payer_id: 2, paid_amount: 40, description: Internet, created_by: 2,
     created_at: 2026-02-03T10:00:00}
  - {id: 3, group_id: 2, payer_id: 4, paid_amount: 50, description: Dinner, created_by: 4,
     created_at: 2026-02-04T10:00:00}
splitwise_debt:
  - {id: 1, expense_id: 1, debtor_id: 1, amount: 30}
  - {id: 2, expense_id: 1, debtor_id: 2, amount: 30}
  - {id: 3, expense_id: 1, debtor_id: 3, amount: 30}
  - {id: 4, expense_id: 2, debtor_id: 1, amount: 20}
  - {id: 5, expense_id: 2, debtor_id: 2, amount: 20}
  - {id: 6, expense_id: 3, debtor_id: 5, amount: 50}
"""


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeded database, built once; each test works on a copy."""
    return seed_database(tmp_path_factory.mktemp("splitwise_seed"), "splitwise", SEED)


def make_box(tmp_path: Path) -> ToolBox:
    return app_box(tmp_path, "splitwise")


@pytest.fixture
def fresh(seeded: Path, tmp_path: Path) -> ToolBox:
    """A session on a freshly seeded database, not logged in."""
    return app_box(tmp_path, "splitwise", seeded)


@pytest.fixture
def box(fresh: ToolBox) -> ToolBox:
    ok(fresh, "splitwise__login", username=ME, password="T8H2[32")
    return fresh


def balances(rows: list[dict[str, Any]]) -> dict[str, float]:
    return {row["email"]: row["balance"] for row in rows}


def test_login(fresh: ToolBox) -> None:
    box = fresh
    assert err(box, "splitwise__show_groups") == "not logged in to splitwise; call splitwise__login first"
    assert err(box, "splitwise__login", username=ME, password="nope") == "splitwise: wrong username or password"
    assert "wrong username" in err(box, "splitwise__login", username="chris.mcco@gmail.com", password="")
    token = ok(box, "splitwise__login", username=ME, password="T8H2[32")["access_token"]
    assert [g["group_id"] for g in ok(box, "splitwise__show_groups", access_token=token)] == [1]


def test_search_users_filters_and_pages(box: ToolBox) -> None:
    assert ok(box, "splitwise__search_users", query="ball") == [
        {"name": "Jonathan Ball", "email": "jo.ball@gmail.com"},
        {"name": "Leslie Ball", "email": "les_ball@gmail.com"},
        {"name": "Bradley Ball", "email": "bradley_ball@gmail.com"},
    ]
    assert [u["email"] for u in ok(box, "splitwise__search_users", page_index=1, page_limit=2)] == [
        "jo.ball@gmail.com",
        "les_ball@gmail.com",
    ]
    assert ok(box, "splitwise__search_users", query="nobody") == []


def test_create_group_and_add_members(box: ToolBox) -> None:
    assert "no Splitwise user with email 'ghost@x.com'" in err(
        box, "splitwise__create_group", name="Trip", member_emails=["jo.ball@gmail.com", "ghost@x.com"]
    )
    created = ok(box, "splitwise__create_group", name="Trip", member_emails=["Jo.Ball@gmail.com", "jo.ball@gmail.com", ME])
    assert created == {"group_id": 3, "message": "Created group 'Trip' with 2 members."}
    added = ok(box, "splitwise__add_member_to_group", group_id=3, user_email="les_ball@gmail.com")
    assert added == {"message": "Added Leslie Ball (les_ball@gmail.com) to 'Trip'."}
    group = ok(box, "splitwise__show_group", group_id=3)
    assert [m["email"] for m in group["members"]] == [ME, "jo.ball@gmail.com", "les_ball@gmail.com"]
    assert group["expense_count"] == 0 and group["created_by"] == ME and group["created_at"] == "2026-03-02T09:00:00"
    assert "already a member" in err(box, "splitwise__add_member_to_group", group_id=3, user_email="les_ball@gmail.com")
    assert "no Splitwise user" in err(box, "splitwise__add_member_to_group", group_id=3, user_email="who@x.com")
    assert err(box, "splitwise__add_member_to_group", group_id=2, user_email=ME) == "no group with id 2 among your groups"
    assert err(box, "splitwise__show_group", group_id=2) == "no group with id 2 among your groups"
    assert [g["group_id"] for g in ok(box, "splitwise__show_groups")] == [3, 1]
    assert [g["name"] for g in ok(box, "splitwise__show_groups", query="room")] == ["Roommates"]
    assert [g["group_id"] for g in ok(box, "splitwise__show_groups", page_index=1, page_limit=1)] == [1]
    assert "member_emails" in err(box, "splitwise__create_group", name="No list")


def test_record_expense_validates_and_updates_balances(box: ToolBox) -> None:
    base = {"group_id": 1, "paid_amount": 100.0, "payer_email": ME}
    assert "bradley_ball@gmail.com is not a member of group 1" in err(
        box, "splitwise__record_expense", **base, debtor_emails=["bradley_ball@gmail.com"], debt_amounts=[10.0]
    )
    assert "has 2 entries but debt_amounts has 1" in err(
        box, "splitwise__record_expense", **base, debtor_emails=["jo.ball@gmail.com", ME], debt_amounts=[10.0]
    )
    assert "greater than 0" in err(box, "splitwise__record_expense", **base, debtor_emails=[ME], debt_amounts=[-5.0])
    assert "more than the paid amount 100.0" in err(
        box, "splitwise__record_expense", **base, debtor_emails=[ME, "jo.ball@gmail.com"], debt_amounts=[60.0, 50.0]
    )
    assert "twice" in err(box, "splitwise__record_expense", **base, debtor_emails=[ME, ME], debt_amounts=[1.0, 1.0])
    assert "paid_amount" in err(box, "splitwise__record_expense", **(base | {"paid_amount": 0}), debtor_emails=[ME], debt_amounts=[1.0])
    recorded = ok(
        box,
        "splitwise__record_expense",
        **base,
        description="Cabin deposit",
        debtor_emails=[ME, "chris.mcco@gmail.com", "jo.ball@gmail.com"],
        debt_amounts=[33.33, 33.33, 33.34],
    )
    assert recorded == {"expense_id": 4, "message": "Recorded 100.00 paid by Laura Mccoy in 'Roommates'."}
    expenses = ok(box, "splitwise__show_group_expenses", group_id=1)
    assert [e["expense_id"] for e in expenses] == [4, 2, 1]
    assert expenses[0]["debts"] == [
        {"email": ME, "amount": 33.33},
        {"email": "chris.mcco@gmail.com", "amount": 33.33},
        {"email": "jo.ball@gmail.com", "amount": 33.34},
    ]
    assert [e["expense_id"] for e in ok(box, "splitwise__show_group_expenses", group_id=1, page_index=1, page_limit=2)] == [1]
    assert balances(ok(box, "splitwise__show_group_balance", group_id=1)) == {
        ME: 106.67,
        "chris.mcco@gmail.com": -43.33,
        "jo.ball@gmail.com": -63.34,
    }
    assert ok(box, "splitwise__show_group", group_id=1)["expense_count"] == 3


def test_people_and_person_balances(box: ToolBox) -> None:
    assert ok(box, "splitwise__show_people_balance") == [
        {"name": "Jonathan Ball", "email": "jo.ball@gmail.com", "balance": 30.0},
        {"name": "Chris Mccoy", "email": "chris.mcco@gmail.com", "balance": 10.0},
    ]
    trip = ok(box, "splitwise__create_group", name="Trip", member_emails=["chris.mcco@gmail.com"])["group_id"]
    ok(
        box,
        "splitwise__record_expense",
        group_id=trip,
        paid_amount=25.5,
        payer_email="chris.mcco@gmail.com",
        debtor_emails=[ME],
        debt_amounts=[25.5],
    )
    assert ok(box, "splitwise__show_person_balance", user_email="chris.mcco@gmail.com") == {
        "name": "Chris Mccoy",
        "email": "chris.mcco@gmail.com",
        "balance": -15.5,
        "groups": [{"group_id": 1, "group_name": "Roommates", "balance": 10.0}, {"group_id": trip, "group_name": "Trip", "balance": -25.5}],
    }
    assert balances(ok(box, "splitwise__show_people_balance")) == {"jo.ball@gmail.com": 30.0, "chris.mcco@gmail.com": -15.5}
    assert ok(box, "splitwise__show_person_balance", user_email="les_ball@gmail.com")["balance"] == 0.0
    assert "no Splitwise user" in err(box, "splitwise__show_person_balance", user_email="ghost@x.com")


def test_update_and_delete_expense_permissions(box: ToolBox) -> None:
    assert "only the payer or the person who recorded expense 2" in err(box, "splitwise__delete_expense", expense_id=2)
    assert err(box, "splitwise__update_expense", expense_id=3, description="x") == "no expense with id 3 in your groups"
    assert "together" in err(box, "splitwise__update_expense", expense_id=1, debtor_emails=[ME])
    assert "existing debts add up to more" in err(box, "splitwise__update_expense", expense_id=1, paid_amount=50.0)
    updated = ok(
        box,
        "splitwise__update_expense",
        expense_id=1,
        description="Big groceries",
        paid_amount=120.0,
        debtor_emails=["chris.mcco@gmail.com", "jo.ball@gmail.com"],
        debt_amounts=[60.0, 60.0],
    )
    assert updated == {"message": "Updated expense 1."}
    expense = ok(box, "splitwise__show_group_expenses", group_id=1)[1]
    assert (expense["description"], expense["paid_amount"], len(expense["debts"])) == ("Big groceries", 120.0, 2)
    assert balances(ok(box, "splitwise__show_people_balance")) == {"jo.ball@gmail.com": 60.0, "chris.mcco@gmail.com": 40.0}
    assert ok(box, "splitwise__delete_expense", expense_id=1) == {"message": "Deleted expense 1."}
    assert balances(ok(box, "splitwise__show_group_balance", group_id=1)) == {
        ME: -20.0,
        "chris.mcco@gmail.com": 20.0,
        "jo.ball@gmail.com": 0.0,
    }
    assert err(box, "splitwise__delete_expense", expense_id=1) == "no expense with id 1 in your groups"


def test_state_persists_across_sessions_and_restores(box: ToolBox, tmp_path: Path) -> None:
    snap = box.env.require_apps().snapshot()
    group_id = ok(box, "splitwise__create_group", name="Trip", member_emails=["les_ball@gmail.com"])["group_id"]
    ok(
        box,
        "splitwise__record_expense",
        group_id=group_id,
        paid_amount=30.0,
        payer_email=ME,
        debtor_emails=["les_ball@gmail.com"],
        debt_amounts=[30.0],
        description="Parking and tolls",
    )
    again = make_box(tmp_path)  # a later session of the same episode
    assert ok(again, "splitwise__show_group_expenses", group_id=group_id)[0]["description"] == "Parking and tolls"
    assert ok(again, "splitwise__show_person_balance", user_email="les_ball@gmail.com")["balance"] == 30.0
    again.env.require_apps().restore(snap)
    assert [g["group_id"] for g in ok(again, "splitwise__show_groups")] == [1]
    assert ok(again, "splitwise__show_person_balance", user_email="les_ball@gmail.com")["balance"] == 0.0
