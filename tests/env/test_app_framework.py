"""The app framework: login with access tokens, seeding errors, snapshot and restore."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field
from sqlmodel import Field as Column, select

from proactive_bench.env.apps import base
from proactive_bench.env.apps.base import (
    AppLogin,
    AppModel,
    AppSpec,
    AppStore,
    SeedError,
    app_tables,
    register_app,
)
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import (
    ToolBox,
    ToolEnv,
    register_tool,
    resolve_tool_names,
)
from proactive_bench.env.workspace import Workspace
from tests.helpers.cli import run_python
from tests.helpers.paths import DATA


class FwtestAccount(AppModel, table=True):
    __tablename__ = "fwtest_account"
    username: str = Column(primary_key=True)
    password: str


class EchoArgs(BaseModel):
    text: str = Field(description="What to echo.")


@register_tool("fwtest__echo", group="fwtest")
def _echo(env: ToolEnv, args: EchoArgs) -> str:
    """Echo a text once logged in."""
    env.require_apps().require_login("fwtest")
    return args.text


def _find(db, username: str) -> FwtestAccount | None:
    return db.get(FwtestAccount, username)


register_app(AppSpec("fwtest", "a test app", (FwtestAccount,), find_account=_find))


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    apps = AppStore(tmp_path / "apps.sqlite")
    (tmp_path / "seed").mkdir()
    (tmp_path / "seed" / "fwtest.yaml").write_text("fwtest_account:\n  - {username: me, password: pw}\n")
    apps.seed_from(tmp_path / "seed")
    return ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory(), apps), resolve_tool_names(["fwtest"]))


def test_login_returns_a_token_that_calls_may_pass(box: ToolBox) -> None:
    assert box.call("fwtest__echo", {"text": "hi"}).result == {"error": "not logged in to fwtest; call fwtest__login first"}
    assert box.call("fwtest__login", {"username": "me", "password": "nope"}).result == {"error": "fwtest: wrong username or password"}
    token = box.call("fwtest__login", {"username": "me", "password": "pw"}).result["response"]["access_token"]
    assert box.call("fwtest__echo", {"text": "hi"}).result == {"response": "hi"}
    record = box.call("fwtest__echo", {"text": "hi", "access_token": token})
    assert record.ok and record.call["access_token"] == token  # graders see the token that was passed
    assert "invalid or expired access_token" in box.call("fwtest__echo", {"text": "x", "access_token": "forged"}).result["error"]
    second = box.call("fwtest__login", {"username": "me", "password": "pw"}).result["response"]["access_token"]
    assert second != token and not box.call("fwtest__echo", {"text": "x", "access_token": token}).ok
    assert box.call("fwtest__logout", {}).ok and not box.call("fwtest__echo", {"text": "x"}).ok


def test_app_tools_advertise_the_optional_token() -> None:
    (spec,) = [s for s in resolve_tool_names(["fwtest"]) if s.name == "fwtest__echo"]
    schema = spec.json_schema()
    assert "access_token" in schema["properties"] and schema["required"] == ["text"]


def test_a_login_app_s_tool_gets_its_token_argument_when_first_read() -> None:
    """Registering a login app's tools makes no model; reading one makes its ``access_token`` variant, once (the same spec
    again after). A tool registered again under its name is read as registered until its group takes tokens again."""
    code = (
        "from proactive_bench.env import REGISTRY, catalog, toolbox\n"
        "catalog.load_all()\n"
        "assert toolbox._with_token.cache_info().currsize == 0, toolbox._with_token.cache_info()\n"
        "spec = REGISTRY['gmail__send_email']\n"
        "assert 'access_token' in spec.args_model.model_fields and REGISTRY['gmail__send_email'] is spec\n"
        "assert 'access_token' not in REGISTRY['gmail__login'].args_model.model_fields\n"
        "REGISTRY['gmail__send_email'] = REGISTRY.registered['gmail__send_email']\n"
        "assert 'access_token' not in REGISTRY['gmail__send_email'].args_model.model_fields\n"
        "toolbox.take_tokens('gmail')\n"
        "assert REGISTRY['gmail__send_email'] is spec\n"
    )
    run_python(code)


def test_restoring_no_rows_into_a_new_store_makes_no_database_nor_loads_an_app() -> None:
    """A resumed run whose sessions touched no app restores an empty snapshot: the store stays unmade (it is empty either
    way); rows restored into a new store are there."""
    code = (
        "import sys\nfrom proactive_bench.env import AppStore\n"
        "store = AppStore()\nstore.restore({'gmail_email': []})\n"
        "assert store.snapshot() == {} and 'proactive_bench.env.apps.gmail' not in sys.modules\n"
        "store.restore({'app_login': [{'app': 'gmail', 'account': 'me', 'access_token': 't-1'}]})\n"
        "assert store.snapshot() == {'app_login': [{'app': 'gmail', 'account': 'me', 'access_token': 't-1'}]}, store.snapshot()\n"
        "assert store.require_login('gmail') == 'me' and 'proactive_bench.env.apps.gmail' in sys.modules\n"
    )
    run_python(code)


def test_state_survives_a_new_toolbox_and_restores(box: ToolBox, tmp_path: Path) -> None:
    box.call("fwtest__login", {"username": "me", "password": "pw"})
    snap = box.env.require_apps().snapshot()
    again = AppStore(tmp_path / "apps.sqlite")
    assert again.snapshot() == snap and again.require_login("fwtest") == "me"
    again.restore({"fwtest_account": snap["fwtest_account"]})
    assert "app_login" not in again.snapshot()


def test_bad_seed_rows_name_file_table_row_and_field(tmp_path: Path) -> None:
    seed = tmp_path / "seed"
    seed.mkdir()
    (seed / "fwtest.yaml").write_text("fwtest_account:\n  - {username: me}\n")
    with pytest.raises(SeedError, match=r"fwtest.yaml: fwtest_account\[0\]\.password: Field required"):
        AppStore().seed_from(seed)
    (seed / "fwtest.yaml").write_text("fwtest_nothing: []\n")
    with pytest.raises(SeedError, match="fwtest_nothing: unknown table"):
        AppStore().seed_from(seed)


def test_a_seed_row_the_database_refuses_is_named_and_nothing_of_its_seeding_is_kept(tmp_path: Path) -> None:
    """A table's rows go in together; when one does not fit (here a row already there), the error names it."""
    apps, later = AppStore(), tmp_path / "later"
    later.mkdir()
    (tmp_path / "first.yaml").write_text("fwtest_account:\n  - {username: me, password: pw}\n")
    apps.seed_from(tmp_path)
    (later / "fwtest.yaml").write_text("fwtest_account:\n  - {username: you, password: a}\n  - {username: me, password: b}\n")
    with pytest.raises(SeedError, match=r"^fwtest.yaml: fwtest_account\[1\]: UNIQUE constraint failed: fwtest_account.username$"):
        apps.seed_from(later)
    assert apps.snapshot()["fwtest_account"] == [{"username": "me", "password": "pw"}]


def test_seed_files_may_split_an_app_and_clashing_ids_are_named(tmp_path: Path) -> None:
    seed = tmp_path / "seed"
    seed.mkdir()
    (seed / "a_mail.yaml").write_text(
        "gmail_thread: [{id: 7, subject: Levels}]\n"
        "gmail_email: [{id: 70, thread_id: 7, sender_email: lab@example.org, sender_name: Lab,"
        " recipient_emails: [me@example.org], subject: Levels, body: hi, sent_at: 2025-03-12 20:41:00}]\n"
    )
    (seed / "b_accounts.yaml").write_text("gmail_account: [{id: 1, name: Me, email: me@example.org, password: pw}]\n")
    apps = AppStore()
    apps.seed_from(seed)
    assert [row["thread_id"] for row in apps.rows("gmail_email")] == [7]
    (seed / "c_clash.yaml").write_text("gmail_thread: [{id: 8, subject: Other}, {id: 7, subject: Clash}]\n")
    with pytest.raises(
        SeedError, match=r"c_clash.yaml: gmail_thread\[1\]: primary key \(7,\) is already used by a_mail.yaml: gmail_thread\[0\]"
    ):
        AppStore().seed_from(seed)


def test_a_seeded_store_holds_what_seeding_makes_and_follows_its_seed_files(tmp_path: Path) -> None:
    """``AppStore.seeded`` copies in a database seeded once per seed content: the same rows, change count and later
    changes as ``seed_from`` on a new store; an edited seed file is seeded anew, a broken one raises every time."""
    seed = tmp_path / "seed"
    seed.mkdir()
    (seed / "fwtest.yaml").write_text("fwtest_account:\n  - {username: me, password: pw}\n")
    seeded_apart = AppStore()
    seeded_apart.seed_from(seed)
    first, second = AppStore.seeded(seed), AppStore.seeded(seed)
    for store in (first, second):
        assert store.snapshot() == seeded_apart.snapshot() and store.changes() == seeded_apart.changes() > 0
    first.login("fwtest", "me")
    assert "app_login" in first.snapshot() and "app_login" not in second.snapshot()  # each store its own copy
    (seed / "fwtest.yaml").write_text("fwtest_account:\n  - {username: you, password: pw}\n")
    assert [row["username"] for row in AppStore.seeded(seed).rows("fwtest_account")] == ["you"]
    (seed / "fwtest.yaml").write_text("fwtest_account:\n  - {username: me}\n")
    for _ in range(2):
        with pytest.raises(SeedError, match=r"fwtest.yaml: fwtest_account\[0\]\.password: Field required"):
            AppStore.seeded(seed)
    assert AppStore.seeded(tmp_path / "missing").snapshot() == {}


def test_set_clock_moves_the_simulated_time(tmp_path: Path) -> None:
    apps = AppStore()
    apps.set_clock(datetime(2025, 3, 12, 21, 0, tzinfo=UTC))
    assert apps.rows("app_clock") == [{"id": 1, "now": "2025-03-12T21:00:00"}]


def test_a_seed_row_pointing_at_a_missing_row_is_named(tmp_path: Path) -> None:
    seed = tmp_path / "seed"
    seed.mkdir()
    (seed / "shop.yaml").write_text(
        "amazon_account: [{id: 1, email: a@example.org, password: pw, name: A}]\n"
        "amazon_cart_item: [{id: 5, account_id: 1, product_id: 42, quantity: 1}]\n"
    )
    with pytest.raises(SeedError, match=r"shop.yaml: amazon_cart_item\[0\]: refers to a row of amazon_product that no seed file holds"):
        AppStore().seed_from(seed)


def test_in_memory_state_snapshots_follow_every_change(tmp_path: Path) -> None:
    apps = AppStore()
    (tmp_path / "seed").mkdir()
    (tmp_path / "seed" / "fwtest.yaml").write_text("fwtest_account:\n  - {username: me, password: pw}\n")
    apps.seed_from(tmp_path / "seed")
    box = ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory(), apps), resolve_tool_names(["fwtest"]))
    before = apps.snapshot()
    assert apps.snapshot() is before  # nothing changed: the same snapshot
    box.call("fwtest__login", {"username": "me", "password": "pw"})
    after = apps.snapshot()
    assert "app_login" not in before and after["app_login"][0]["account"] == "me"
    apps.restore({"fwtest_account": after["fwtest_account"]})
    assert "app_login" not in apps.snapshot()


def test_in_memory_rows_are_read_again_after_every_change_and_are_the_callers_own(tmp_path: Path) -> None:
    apps = AppStore()
    (tmp_path / "seed").mkdir()
    (tmp_path / "seed" / "fwtest.yaml").write_text("fwtest_account:\n  - {username: me, password: pw}\n")
    apps.seed_from(tmp_path / "seed")
    first = apps.rows("fwtest_account")
    first[0]["password"] = "changed by a grader"
    first.append({"username": "ghost"})
    assert apps.rows("fwtest_account") == [{"username": "me", "password": "pw"}]  # a caller's change is not kept
    assert apps.rows("app_login") == []
    apps.login("fwtest", "me")
    assert [r["account"] for r in apps.rows("app_login")] == ["me"]  # the write is seen, though the empty table was read
    apps.snapshot()  # the snapshot's rows serve while nothing changes
    served = apps.rows("fwtest_account")
    served[0]["password"] = "changed again"
    assert apps.snapshot()["fwtest_account"] == [{"username": "me", "password": "pw"}]
    apps.logout("fwtest")
    assert apps.rows("app_login") == []
    with pytest.raises(KeyError):
        apps.rows("no_such_table")


def test_a_snapshot_dumps_again_only_the_tables_whose_values_changed_and_hands_out_its_own_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    apps = AppStore.seeded(DATA / "episodes" / "pharmacist" / "apps")

    def through_orm() -> dict[str, list[dict[str, Any]]]:
        with apps.db() as db:
            dumps = {name: [row.model_dump(mode="json") for row in db.exec(select(model)).all()] for name, model in app_tables().items()}
        return {name: rows for name, rows in dumps.items() if rows}

    dumped: list[str] = []

    def counted(model: Any) -> Any:
        dumped.append(model.__tablename__)
        return select(model)

    first = apps.snapshot()
    assert first == through_orm() and len(first) > 10
    first["todoist_task"][0]["title"] = "changed by a caller"
    first["app_clock"].clear()
    monkeypatch.setattr(base, "select", counted)
    apps.set_clock(datetime(2026, 3, 9, 9, 0))
    second = apps.snapshot()
    assert dumped == ["app_clock"] and second["app_clock"] == [{"id": 1, "now": "2026-03-09T09:00:00"}]
    monkeypatch.undo()
    assert second == through_orm() and second["todoist_task"][0]["title"] != "changed by a caller"
    with apps.db() as db:  # a write the ORM does not see: the values differ, so the table is dumped again
        db.connection().exec_driver_sql("UPDATE todoist_task SET title = 'raw' WHERE id = (SELECT min(id) FROM todoist_task)")
    third = apps.snapshot()
    assert third == through_orm() != second and [t["title"] for t in third["todoist_task"]].count("raw") == 1
    assert apps.rows("todoist_task") == third["todoist_task"] and apps.rows("todoist_task") is not third["todoist_task"]


def test_in_memory_databases_share_compiled_statements_but_never_rows() -> None:
    first, second = AppStore(), AppStore()
    assert first.engine.dialect is second.engine.dialect  # one dialect: a statement compiled for one serves the other
    first.login("fwtest", "me")
    with second.db() as db:
        assert db.get(AppLogin, "fwtest") is None  # the same compiled SELECT, on the other database's own connection
    second.login("fwtest", "you")
    for apps, account in ((first, "me"), (second, "you")):
        with apps.db() as db:
            login = db.get(AppLogin, "fwtest")
            assert login is not None and login.account == account
        assert [r["account"] for r in apps.rows("app_login")] == [account]
