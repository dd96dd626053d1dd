"""The simulated-app world: one SQLite database per episode run for every app's state.

An app is a module in this package that defines SQLModel tables on
:class:`AppModel` (table names prefixed with the app name, e.g.
``gmail_email``), registers itself with :func:`register_app`, and registers
its tools with :func:`proactive_bench.env.toolbox.register_tool` under the
app's name as group (tool names ``<app>__<verb>``). State is seeded from
``episodes/<persona>/apps/*.yaml`` (each a mapping of table name to rows),
carried across sessions, and snapshotted and restored as JSON.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import re
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, NaiveDatetime, ValidationError
from sqlalchemy import JSON, Column, ForeignKey, Table, bindparam
from sqlalchemy.dialects import sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import registry
from sqlmodel import Field, Session, SQLModel, col, delete, select

from proactive_bench.env import catalog
from proactive_bench.env.toolbox import (
    NoArgs,
    ToolEnv,
    ToolError,
    register_tool,
    take_tokens,
)
from proactive_bench.store import app_transaction, driver_transaction, open_app_database
from proactive_bench.yaml_files import YamlFileError, read_yaml_file


def foreign_key(target: str, **field: Any) -> Any:
    """A foreign-key field checked at commit, so rows of related tables may be written in any order."""
    return Field(sa_column_args=[ForeignKey(target, deferrable=True, initially="DEFERRED")], **field)


def json_list() -> Any:
    """A list field stored as JSON, empty by default."""
    return Field(default_factory=list, sa_column=Column(JSON, nullable=False))


class AppModel(SQLModel, registry=registry()):
    """Base of every app table; kept apart from the results store's tables.

    A table's generated key is declared ``id: int = Field(default=None, primary_key=True)``: None until the row
    is flushed, then the database's number; typed ``int`` because code reads it from stored rows only.
    """


def dump_row(row: AppModel, *, mode: Literal["json", "python"] = "python", exclude: set[str] | None = None) -> dict[str, Any]:
    """A row's fields as ``model_dump`` gives them, in the order its table declares them. A row the ORM loaded holds its
    attributes in an order that changes from process to process (``model_dump`` follows it), and what an agent reads
    and a snapshot stores must be the same on every run. Anything dumped beyond the declared fields keeps its place after
    them, never dropped."""
    values = row.model_dump(mode=mode, exclude=exclude)
    return {name: values[name] for name in type(row).model_fields if name in values} | values


class AppLogin(AppModel, table=True):
    """Which account is logged in to which app."""

    __tablename__ = "app_login"
    app: str = Field(primary_key=True)
    account: str
    access_token: str


class AppClock(AppModel, table=True):
    """The simulated current time shared by all apps (deterministic timestamps)."""

    __tablename__ = "app_clock"
    id: int = Field(default=1, primary_key=True)
    now: NaiveDatetime = Field(description="Wall-clock time of the simulated world (no zone, like every app timestamp).")


DEFAULT_NOW = datetime(2026, 3, 2, 9, 0, 0)


def _timestamp_processors() -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """How SQLAlchemy writes an app timestamp (every one is ``NaiveDatetime``) to SQLite and reads it back: the column
    type's own processors for SQLite's dialect (text ``YYYY-MM-DD HH:MM:SS.ffffff``)."""
    dialect = sqlite.dialect()
    timestamp = AppModel.metadata.tables["app_clock"].c.now.type.dialect_impl(dialect)
    write, read = timestamp.bind_processor(dialect), timestamp.result_processor(dialect, None)
    assert write is not None and read is not None  # SQLite's DATETIME converts both ways
    return write, read


_WRITE_TIME, _READ_TIME = _timestamp_processors()


def stored_time(moment: datetime) -> str:
    """A naive timestamp as SQLAlchemy stores it in an app database: for statements on the sqlite3 connection itself."""
    stored: str = _WRITE_TIME(moment)
    return stored


def read_time(stored: str) -> datetime:
    """A stored app timestamp read as SQLAlchemy reads it (:func:`stored_time`'s inverse)."""
    moment: datetime = _READ_TIME(stored)
    return moment


_SET_NOW = "UPDATE app_clock SET now = ? WHERE id = 1"
_FIRST_NOW = "INSERT INTO app_clock (id, now) VALUES (1, ?)"


def write_now(connection: sqlite3.Connection, moment: datetime) -> None:
    """Set the simulated time (naive) in a transaction on an app database's sqlite3 connection: the ``app_clock`` row
    written, or made when there is none."""
    stored = stored_time(moment)
    if connection.execute(_SET_NOW, (stored,)).rowcount == 0:
        connection.execute(_FIRST_NOW, (stored,))


EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
"""What the apps accept as an e-mail address: something@domain.tld, no spaces."""
T = TypeVar("T", bound=AppModel)


_NOW = select(col(AppClock.now)).where(col(AppClock.id) == 1)
_LOGIN = select(col(AppLogin.account)).where(col(AppLogin.app) == bindparam("app"))
"""Read in SQL statements on the session's connection: a tool reads the time and its login at each call, and an ORM
object loaded by key (``Session.get``) cost three times the statement."""


def now(db: Session) -> datetime:
    """The simulated wall-clock time (naive): the ``app_clock`` row, else a fixed default. Read on the session's
    connection: objects the session holds unflushed stay so (the clock row is written in SQL statements only)."""
    stored: datetime | None = db.connection().execute(_NOW).scalar()
    return DEFAULT_NOW if stored is None else stored


def env_now(env: ToolEnv) -> datetime:
    """The simulated time (naive) of a tool's world: its apps' clock (:func:`now`), or the fixed default where the run
    has no apps. What a file the agent makes is dated with, so that it carries the world's time, not the machine's."""
    if env.apps is None:
        return DEFAULT_NOW
    with env.apps.db() as db:
        return now(db)


@contextmanager
def logged_in(env: ToolEnv, app: str) -> Iterator[tuple[Session, Any]]:
    """A transaction and the app's logged-in account (ToolError when nobody is logged in or it is gone)."""
    find = APPS[app].find_account
    assert find is not None, f"app {app} has logins but no find_account"
    with env.require_apps().db() as db:  # one transaction: the login and the account, as the tool's work sees them
        login = _logged_in_account(db, app)
        account = find(db, login)
        if account is None:
            raise ToolError(f"the logged-in {app} account {login} no longer exists; log in again")
        yield db, account


def _logged_in_account(db: Session, app: str) -> str:
    """The logged-in account of an app, or a ToolError telling the agent to log in."""
    account: str | None = db.connection().execute(_LOGIN, {"app": app}).scalar()
    if account is None:
        raise ToolError(f"not logged in to {app}; call {app}__login first")
    return account


def get_row(db: Session, model: type[T], row_id: Any, what: str) -> T:
    """A row by primary key, or a ToolError naming what was not found."""
    row = db.get(model, row_id)
    if row is None:
        raise ToolError(f"no {what} with id {row_id}")
    return row


class PageArgs(BaseModel):
    """Pagination shared by list and search tools."""

    page_index: int = Field(default=0, ge=0, description="Page number, from 0.")
    page_limit: int = Field(default=10, ge=1, le=50, description="Items per page.")


def paginate(rows: list[Any], page: PageArgs) -> list[Any]:
    start = page.page_index * page.page_limit
    return rows[start : start + page.page_limit]


def matches_query(query: str | None, *texts: str | None) -> bool:
    """Whether every word of the query occurs (case-insensitively) in the texts."""
    if not query:
        return True
    haystack = " ".join(t for t in texts if t).lower()
    return all(word in haystack for word in query.lower().split())


def email_addresses(values: list[str], what: str, required: bool = False) -> list[str]:
    """Validated, lower-cased, de-duplicated email addresses."""
    out: dict[str, None] = {}  # in first-given order; a dict, not a list searched per address (an agent may give thousands)
    for value in values:
        address = value.strip().lower()
        if not EMAIL_RE.match(address):
            raise ToolError(f"invalid email address in {what}: {value!r}")
        out[address] = None
    if required and not out:
        raise ToolError(f"{what} must contain at least one email address")
    return list(out)


@dataclass(frozen=True)
class AppSpec:
    name: str
    description: str
    tables: tuple[type[AppModel], ...]
    requires_login: bool = True
    find_account: Callable[[Session, str], Any] | None = None
    """``(db, login name) -> account row or None``: the login tool checks the row's ``password``,
    and :func:`logged_in` hands the row to the app's tools."""


APPS: dict[str, AppSpec] = {}


class LoginArgs(BaseModel):
    username: str = Field(description="The account's email address or phone number.")
    password: str = Field(description="The account's password.")


def register_app(spec: AppSpec) -> AppSpec:
    """Register an app; apps that require login get ``<app>__login`` and ``<app>__logout`` tools."""
    if spec.name in APPS:
        raise ValueError(f"app {spec.name} registered twice")
    APPS[spec.name] = spec
    if spec.requires_login:
        take_tokens(spec.name)
        _register_login_tools(spec)
    return spec


def _register_login_tools(spec: AppSpec) -> None:
    def login(env: ToolEnv, args: LoginArgs) -> dict[str, str]:
        apps = env.require_apps()
        with apps.db() as db:
            account = spec.find_account(db, args.username) if spec.find_account is not None else None
            ok = account is not None and account.password is not None and account.password == args.password
        if not ok:
            raise ToolError(f"{spec.name}: wrong username or password")
        token = apps.login(spec.name, args.username)
        return {"access_token": token, "token_type": "Bearer", "message": f"logged in to {spec.name} as {args.username}"}

    def logout(env: ToolEnv, args: NoArgs) -> dict[str, str]:
        if not env.require_apps().logout(spec.name):
            raise ToolError(f"not logged in to {spec.name}")
        return {"message": f"logged out of {spec.name}"}

    login.__doc__ = f"Log in to {spec.name} with the user's account."
    logout.__doc__ = f"Log out of {spec.name}."
    register_tool(f"{spec.name}__login", group=spec.name)(login)
    register_tool(f"{spec.name}__logout", group=spec.name)(logout)


class SeedError(ValueError):
    """App seed data that does not fit the app's tables."""


@dataclass
class AppStore:
    """The state of every app for one episode run: in memory, or in a database file at ``path``.

    Episode runs keep it in memory (it is scratch state: each session end
    snapshots it into the results store, and a resumed run restores it from
    there); a file lets tests and tools reopen the same state. An in-memory
    database is made at its first use, with every app's tables (seeds and
    snapshots name any), whose modules load then: a run whose sessions touch no
    app makes none and loads no app (a third of a scripted mini episode's CPU).
    """

    path: Path | None = None
    _engine: Any = field(default=None, init=False, repr=False)
    _memory: sqlite3.Connection | None = field(default=None, init=False, repr=False)
    _opening: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _snapshot: tuple[int, dict[str, list[dict[str, Any]]]] | None = field(default=None, init=False, repr=False)
    _tables: tuple[int, dict[str, _Dumped]] = field(default=(-1, {}), init=False, repr=False)
    """The tables read while the changed-row count stood at its first element (every table, at a snapshot)."""
    _image: SeededImage | None = field(default=None, init=False, repr=False)
    """The seeded database an in-memory store starts from (:meth:`seeded`), else the empty one."""

    def __post_init__(self) -> None:
        if self.path is not None:
            self._open()  # the file is made (or its new tables added) now

    @property
    def engine(self) -> Any:
        """The app database's engine (the database made now if this is its first use)."""
        return self._open()

    @classmethod
    def seeded(cls, directory: Path) -> AppStore:
        """A new in-memory store holding the rows :meth:`seed_from` loads from ``directory``: seeded once per process and
        seed (its files' names and bytes, and the app tables), then copied in, as the empty database is (every run of an
        episode starts from the same seed). Without seed files it is a new store: its empty database is made at first use.
        SeedError as :meth:`seed_from`."""
        store = cls()
        store._image = _seeded_image(directory)
        return store

    def _open(self) -> Any:
        with self._opening:
            if self._engine is None:
                catalog.load_app_tables()
                opened = open_app_database(AppModel.metadata, self.path, self._image.database if self._image else None)
                self._engine, self._memory = opened.engine, opened.memory
            return self._engine

    def changes(self) -> int | None:
        """In memory, the rows changed since the empty database was made (0 before it is; a seeded image's rows count
        as they did when it was seeded; a statement rolled back counts too); None for a file. While it stands still,
        nothing was written: what was read before still holds."""
        if self.path is not None:
            return None
        seeded = self._image.changes if self._image else 0
        return seeded + (0 if self._memory is None else self._memory.total_changes)

    @contextmanager
    def db(self) -> Iterator[Session]:
        """A transaction: committed when the block ends normally, rolled back on error."""
        with app_transaction(self.engine) as session:
            yield session

    def driver(self) -> AbstractContextManager[sqlite3.Connection]:
        """A transaction on the database's own sqlite3 connection, for a few plain SQL statements run often (the
        clock's): committed when the block ends normally, rolled back on error (:func:`driver_transaction`)."""
        return driver_transaction(self.engine, self._memory)

    # ---- login -----------------------------------------------------------------
    def require_login(self, app: str) -> str:
        """The logged-in account of an app, or a ToolError telling the agent to log in."""
        with self.db() as db:
            return _logged_in_account(db, app)

    def login(self, app: str, account: str) -> str:
        """Log an account in and return its access token (deterministic, like every id here)."""
        with self.db() as db:
            previous = db.get(AppLogin, app)
            serial = int(previous.access_token.rsplit("-", 1)[1]) + 1 if previous else 1
            token = f"{app}-{hashlib.sha256(account.encode()).hexdigest()[:12]}-{serial}"
            db.merge(AppLogin(app=app, account=account, access_token=token))
        return token

    def check_token(self, app: str, token: str) -> None:
        """Accept the token of the current login; anything else is a ToolError."""
        with self.db() as db:
            login = db.get(AppLogin, app)
        if login is None or login.access_token != token:
            raise ToolError(f"invalid or expired access_token for {app}; call {app}__login again")

    def logout(self, app: str) -> bool:
        with self.db() as db:
            login = db.get(AppLogin, app)
            if login is None:
                return False
            db.delete(login)
            return True

    # ---- seed, snapshot, restore -------------------------------------------------
    def seed_from(self, directory: Path) -> None:
        """Load every ``*.yaml`` file (table name to rows); raise SeedError naming file, field and reason.

        Files may split an app's rows (e.g. accounts in one file, each session's mail in another):
        rows are inserted table by table in foreign-key order, whatever file they come from. A table's rows are inserted
        together; when some row does not fit, nothing is kept and the rows are inserted again one at a time (each
        flushed alone), which names the first that does not fit.
        """
        if not directory.is_dir():
            return
        try:
            self._insert_seed(directory, one_by_one=False)
        except IntegrityError:
            self._insert_seed(directory, one_by_one=True)

    def _insert_seed(self, directory: Path, one_by_one: bool) -> None:
        """Insert ``directory``'s seed rows (:meth:`seed_from`): each table's together (IntegrityError when one does not
        fit), or ``one_by_one`` (SeedError naming the first that does not fit)."""
        tables = app_tables()
        pending: dict[str, list[tuple[str, AppModel]]] = {}
        seen: dict[tuple[Any, ...], str] = {}
        for path in sorted(directory.glob("*.yaml")):
            try:
                data = read_yaml_file(path) or {}
            except YamlFileError as exc:
                raise SeedError(f"{path.name}: {exc.where + ': ' if exc.where else ''}{exc.reason}") from None
            if not isinstance(data, dict):
                raise SeedError(f"{path.name}: expected a mapping of table name to rows")
            for table_name, rows in data.items():
                model = tables.get(table_name)
                if model is None:
                    raise SeedError(f"{path.name}: {table_name}: unknown table; known: {', '.join(sorted(tables))}")
                if not isinstance(rows, list | None):
                    raise SeedError(f"{path.name}: {table_name}: expected a list of rows")
                for n, row in enumerate(rows or []):
                    where = f"{path.name}: {table_name}[{n}]"
                    try:
                        record = model.model_validate(row)
                    except ValidationError as exc:
                        problem = exc.errors()[0]
                        field_path = ".".join(str(p) for p in problem["loc"])
                        raise SeedError(f"{where}.{field_path}: {problem['msg']}") from None
                    key = (table_name, *(getattr(record, c.name) for c in model.__table__.primary_key.columns))  # type: ignore[attr-defined]  # SQLModel sets __table__ on table classes; its stubs do not declare it
                    if None not in key and key in seen:
                        raise SeedError(f"{where}: primary key {key[1:]} is already used by {seen[key]}")
                    seen[key] = where
                    pending.setdefault(table_name, []).append((where, record))
        with self.db() as db:
            for table in _sorted_tables():
                rows = pending.get(table.name, [])
                if not one_by_one:
                    if rows:
                        db.add_all(row for _, row in rows)
                        db.flush()
                    continue
                for where, row in rows:
                    db.add(row)
                    try:
                        db.flush()
                    except IntegrityError as exc:
                        raise SeedError(f"{where}: {exc.orig}") from None
            for table_name, rowid, parent, _fk in db.connection().exec_driver_sql("PRAGMA foreign_key_check").fetchall():
                where = seen.get((table_name, rowid), f"{table_name} (row {rowid})")
                raise SeedError(f"{where}: refers to a row of {parent} that no seed file holds")

    def set_clock(self, moment: datetime) -> None:
        """Move the apps' simulated time (a session's start, for instance): the ``app_clock`` row written or made, in SQL
        statements on the sqlite3 connection (:meth:`driver`; a session's set-up cost more than the statements)."""
        with self.driver() as connection:
            write_now(connection, moment.replace(tzinfo=None))

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        """Every table's rows as JSON-ready dicts, keyed by table name.

        In memory, the one connection counts every row changed: while the count
        stands still, the last snapshot is returned again (do not modify it); at
        zero, the database is still the empty one it was made from.
        """
        changes = self.changes()
        if changes is not None and self._snapshot is not None and self._snapshot[0] == changes:
            return self._snapshot[1]
        out: dict[str, list[dict[str, Any]]] = {}
        read: dict[str, _Dumped] = {}
        if changes != 0:  # in memory, no row written since the empty database was copied in: every table is empty
            tables = app_tables()
            names = tuple(sorted(tables))
            with self.db() as db:
                counts = driver_connection(db).execute(_count_rows_sql(names)).fetchone()
                for name, count in zip(names, counts, strict=True):
                    read[name] = self._table_rows(db, name, tables[name]) if count else _NO_ROWS
                    if count:
                        out[name] = read[name].copied()
        if changes is not None:
            self._snapshot, self._tables = (changes, out), (changes, read)
        return out

    def restore(self, snapshot: dict[str, list[dict[str, Any]]]) -> None:
        """Replace all app state with a snapshot's. A snapshot without rows leaves a new in-memory store as it is: its
        database, made at first use, is empty already (a resumed run whose sessions touched no app loads no app)."""
        if self.path is None and self._image is None and self._engine is None and not any(snapshot.values()):
            return
        tables = app_tables()
        with self.db() as db:
            for table in reversed(_sorted_tables()):
                db.exec(delete(tables[table.name]))
            for table in _sorted_tables():
                db.add_all(tables[table.name].model_validate(row) for row in snapshot.get(table.name, []))
                db.flush()

    def rows(self, table_name: str) -> list[dict[str, Any]]:
        """Rows of one table as dicts (for predicates and graders), the caller's own to change.

        In memory, a table's rows are read once while the changed-row count stands still (as for :meth:`snapshot`,
        whose rows serve too): graders and checks read the same tables of an unchanged world over and over.
        """
        model = app_tables().get(table_name)
        if model is None:
            raise KeyError(table_name)
        changes = self.changes()
        snapshotted = changes is not None and self._snapshot is not None and self._snapshot[0] == changes
        if changes is not None and self._tables[0] == changes and (table_name in self._tables[1] or snapshotted):
            return self._tables[1].get(table_name, _NO_ROWS).copied()
        with self.db() as db:
            dumped = self._table_rows(db, table_name, model)
        if changes is not None:
            if self._tables[0] != changes:
                self._tables = (changes, {})
            self._tables[1][table_name] = dumped
        return dumped.copied()

    def _table_rows(self, db: Session, name: str, model: type[AppModel]) -> _Dumped:
        """A table's rows as ``dump_row(row, mode="json")`` dicts (copy them before handing them out). Dumped again only when
        the values SQLite gives for the table differ from those it gave the last time in this process, in this store or
        another (equal values of one model dump to equal rows): a session changes a few tables, and a snapshot reads them
        all, through ORM objects and pydantic at five times the cost of the values; the stores a scenario's modes play on
        hold the same tables mostly. The values are read on the session's own DBAPI connection (SQLAlchemy's result rows
        cost three times the query)."""
        values = driver_connection(db).execute(f'SELECT * FROM "{name}"').fetchall()
        known = _DUMPED.get(name)
        if known is None or known.model is not model or known.values != values:
            known = _Dumped.of([dump_row(row, mode="json") for row in db.exec(select(model)).all()], model, values)
            _DUMPED[name] = known
        return known


def driver_connection(db: Session) -> sqlite3.Connection:
    """The session's own sqlite3 connection, in its transaction: a read of plain values there skips SQLAlchemy's result
    set-up (for the row counts' one row of a column per table, most of the query's cost)."""
    raw = db.connection().connection.driver_connection
    assert isinstance(raw, sqlite3.Connection)
    return raw


@functools.lru_cache(maxsize=8)
def _count_rows_sql(names: tuple[str, ...]) -> str:
    """One query counting the rows of each of these tables, in their order (built once per set of tables)."""
    return "SELECT " + ", ".join(f'(SELECT count(*) FROM "{n}")' for n in names)


@dataclass(frozen=True)
class _Dumped:
    """A table's rows as ``dump_row(row, mode="json")`` gave them, never handed out themselves (:meth:`copied`), with the
    model and the values SQLite gave for them."""

    rows: list[dict[str, Any]]
    model: type[AppModel] | None = None
    values: list[tuple[Any, ...]] = field(default_factory=list)
    nested: frozenset[str] = frozenset()
    """The keys whose value is a mapping or list in some row (a JSON column): the only values a copy copies deeper."""

    @classmethod
    def of(cls, rows: list[dict[str, Any]], model: type[AppModel], values: list[tuple[Any, ...]]) -> _Dumped:
        nested = frozenset(key for row in rows for key, value in row.items() if isinstance(value, dict | list))
        return cls(rows, model, values, nested)

    def copied(self) -> list[dict[str, Any]]:
        """The rows, copied to any depth: the caller's own."""
        if not self.nested:
            return [row.copy() for row in self.rows]
        return [row | {key: copy.deepcopy(row[key]) for key in self.nested if key in row} for row in self.rows]


_NO_ROWS = _Dumped([])
"""An empty table's rows."""
_DUMPED: dict[str, _Dumped] = {}
"""Per table name, its rows as SQLite last gave them in this process and their ``model_dump`` (see
:meth:`AppStore._table_rows`): one entry per table, replaced whole (threads may share it)."""


@dataclass(frozen=True)
class SeededImage:
    """An in-memory app database right after seeding: its serialized bytes and the rows seeding changed."""

    database: bytes
    changes: int


_SEEDED_IMAGES: dict[tuple[tuple[str, ...], tuple[tuple[str, bytes], ...]], SeededImage] = {}
_SEEDED_IMAGES_KEPT = 8
_SEEDING = threading.Lock()


def _seeded_image(directory: Path) -> SeededImage | None:
    """The database :meth:`AppStore.seed_from` makes of ``directory``'s seed files, seeded once per process, app tables
    and seed content (the last few kept; runs in threads of one process seed one at a time); None without seed files
    (the store's empty database is made at its first use)."""
    files = tuple((path.name, path.read_bytes()) for path in sorted(directory.glob("*.yaml"))) if directory.is_dir() else ()
    if not files:
        return None
    catalog.load_app_tables()
    key = (tuple(sorted(AppModel.metadata.tables)), files)
    with _SEEDING:
        if key not in _SEEDED_IMAGES:
            store = AppStore()
            store.seed_from(directory)
            store._open()
            assert store._memory is not None
            image = SeededImage(store._memory.serialize(), store._memory.total_changes)
            if len(_SEEDED_IMAGES) >= _SEEDED_IMAGES_KEPT:
                _SEEDED_IMAGES.pop(next(iter(_SEEDED_IMAGES)))
            _SEEDED_IMAGES[key] = image
        return _SEEDED_IMAGES[key]


def app_table(name: str) -> type[AppModel] | None:
    """One app table model by table name (None: no app has it), importing only its app's module where the name tells
    which (``dataset`` renders a session's trigger row without loading every app)."""
    catalog.load_table_module(name)
    for mapper in AppModel._sa_registry.mappers:
        if mapper.class_.__tablename__ == name:
            return mapper.class_
    return app_tables().get(name)


def _sorted_tables() -> list[Table]:
    """The app tables in foreign-key order (parents first), sorted once per set of tables: ``sorted_tables`` sorts them
    anew at each reading (~1 ms), and seeding reads it at every session start. A table declared again under its name is
    another table (the orders kept hold their tables, so no id is reused)."""
    key = tuple((name, id(table)) for name, table in AppModel.metadata.tables.items())
    order = _TABLE_ORDERS.get(key)
    if order is None:
        order = _TABLE_ORDERS[key] = AppModel.metadata.sorted_tables
    return order


_TABLE_ORDERS: dict[tuple[tuple[str, int], ...], list[Table]] = {}
"""Per set of app tables (as loaded so far: each name with its table's id), the tables in foreign-key order."""


def app_tables() -> dict[str, type[AppModel]]:
    """Every app table model by table name (every app module imported first): a copy of the mapping built when the
    number of tables last changed (a plug-in or test may declare a table model later), not rebuilt on each call."""
    catalog.load_app_tables()
    if _TABLES[0] != (count := len(AppModel.metadata.tables)):
        _TABLES[:] = [count, {mapper.class_.__tablename__: mapper.class_ for mapper in AppModel._sa_registry.mappers}]
    return dict(_TABLES[1])


_TABLES: list[Any] = [-1, {}]
"""The table models :func:`app_tables` found last, with the number of tables (``AppModel.metadata``) then."""
