"""The results database's schema version: Alembic migrations (``migrations/versions/``) run on open, in one transaction.

A database at this pbench's head revision (:data:`HEAD`) is opened as it is (one read of
Alembic's version table, without loading Alembic: ``pbench runs`` pays for no migration machinery). An older one — new, written before migrations
existed (no version table), or at an earlier revision — is upgraded; the
writers that open it at the same moment wait for that (SQLite: ``BEGIN
IMMEDIATE``; PostgreSQL: a transaction-scoped advisory lock). A database at a
revision this pbench does not know was written by a newer pbench and is
refused with :class:`StoreSchemaError`.

A new SQLite file (no table yet) is made at :data:`HEAD` from :data:`HEAD_SCHEMA`, the statements the migrations leave
in its ``sqlite_master``, under the same lock and without loading Alembic: every first run on a new file, and most
test processes, paid ~0.15 s of CPU for Alembic and its revisions. ``python -m proactive_bench.store.migration``
writes that file anew after a new revision (tests/store checks that it makes the migrations' schema).
"""

from __future__ import annotations

import json
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, inspect, text

from proactive_bench.logs import get_logger
from proactive_bench.store.revision import HEAD, VERSION_TABLE

if TYPE_CHECKING:
    from alembic.script import ScriptDirectory

log = get_logger(__name__)

MIGRATIONS = Path(__file__).parent / "migrations"
"""The Alembic script folder; its ``versions/`` hold one module per revision."""
HEAD_SCHEMA = MIGRATIONS / "head.sqlite.json"
"""A SQLite database at :data:`HEAD` as the migrations make it: ``revision`` and the ``statements`` of its
``sqlite_master``, in order (SQLite's own tables and automatic indexes come with them)."""
_ADVISORY_KEY = 0x7062656E6368  # "pbench": the PostgreSQL lock that serializes migrations of one database


class StoreSchemaError(RuntimeError):
    """A results database this pbench cannot bring to its schema: written by a newer pbench, or by another one."""


@cache
def scripts() -> ScriptDirectory:
    """The migration scripts shipped with this pbench (Alembic loads here: only to migrate, or to check a revision it does not know)."""
    from alembic.script import ScriptDirectory  # Alembic and Mako would cost every open otherwise

    return ScriptDirectory.from_config(_config())


def _config() -> Any:
    from alembic.config import Config  # loaded with the scripts, to migrate

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def head_revision() -> str:
    """The schema revision this pbench writes."""
    return HEAD


def revision_of(engine: Engine) -> str | None:
    """The schema revision a database is at (None: no version table)."""
    with engine.connect() as db:
        return _current(db)


def _current(db: Connection) -> str | None:
    """The revision in the version table (None: none), read as Alembic keeps it."""
    if not inspect(db).has_table(VERSION_TABLE):
        return None
    rows = db.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars().all()  # a constant table name
    if len(rows) > 1:
        raise StoreSchemaError(f"{VERSION_TABLE} holds {len(rows)} revisions ({', '.join(rows)}); pbench's migrations have one head")
    return rows[0] if rows else None


def migrate(engine: Engine, name: str, to: str | None = None) -> None:
    """Bring the database to :func:`head_revision` (or the revision ``to``), whole or not at all; StoreSchemaError when that cannot be done."""
    head = to or head_revision()
    if revision_of(engine) == head:
        return
    with engine.connect() as db:
        _begin_exclusive(db)
        try:
            current = _current(db)  # again: another writer may have migrated meanwhile
            _refuse_unknown(current, name)
            if current == head:  # another writer migrated it meanwhile
                db.rollback()
                return
            if current is None and _is_empty_sqlite(db) and (statements := _head_schema(head)) is not None:
                _create(db, statements, head)
            else:
                _upgrade(db, head)
            db.commit()
        except StoreSchemaError as exc:
            db.rollback()
            raise StoreSchemaError(f"{name}: {exc}") from None
        except BaseException:
            db.rollback()
            raise
    log.info("results_database_migrated", db=name, from_revision=current, to_revision=head)


def require_head(engine: Engine, name: str) -> None:
    """A database opened read-only is read as it is: StoreSchemaError unless it is at :func:`head_revision`."""
    current = revision_of(engine)
    if current != head_revision():
        was = "no schema revision (an empty or pre-migration database)" if current is None else f"schema revision {current}"
        raise StoreSchemaError(
            f"{name}: {was}, this pbench reads {head_revision()} only when opening read-only; "
            "`pbench db upgrade` brings it there (a newer one needs a newer pbench)"
        )


def _refuse_unknown(current: str | None, name: str) -> None:
    if current is None:
        return
    known = {script.revision for script in scripts().walk_revisions()}
    if current not in known:
        raise StoreSchemaError(
            f"schema revision {current} was written by a newer pbench (this one knows up to {head_revision()}); upgrade pbench to open it"
        )


def _begin_exclusive(db: Connection) -> None:
    """Open the migration's transaction, taking the lock that makes other openers wait for it."""
    if db.dialect.name == "sqlite":
        db.exec_driver_sql("BEGIN IMMEDIATE")  # DDL too runs inside it (the driver would not begin before DDL)
    else:
        db.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _ADVISORY_KEY})


def _upgrade(db: Connection, head: str) -> None:
    def steps(revision: Any, _context: Any) -> Any:
        return scripts()._upgrade_revs(head, revision)  # what alembic's own `upgrade` command runs

    from alembic.runtime.environment import EnvironmentContext  # loaded to migrate only

    with EnvironmentContext(_config(), scripts(), fn=steps, destination_rev=head) as environment:
        environment.configure(connection=db, transactional_ddl=True)
        environment.run_migrations()


def _is_empty_sqlite(db: Connection) -> bool:
    """Whether the database is a SQLite file without any table, index or view (new, not one written before migrations)."""
    return db.dialect.name == "sqlite" and db.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar_one() == 0


def _head_schema(head: str) -> list[str] | None:
    """The statements of :data:`HEAD_SCHEMA` when it is at revision ``head``, else None (then Alembic makes the database)."""
    schema = json.loads(HEAD_SCHEMA.read_text())
    return list(schema["statements"]) if schema["revision"] == head else None


def _create(db: Connection, statements: list[str], head: str) -> None:
    """Make an empty SQLite database the schema at ``head``, in the open transaction, as Alembic's upgrade leaves it."""
    for statement in statements:
        db.exec_driver_sql(statement)
    db.execute(text(f"INSERT INTO {VERSION_TABLE} (version_num) VALUES (:head)"), {"head": head})  # a constant table name


def _sqlite_schema(db: Connection) -> list[str]:
    """A SQLite database's schema as the statements that make it, in ``sqlite_master``'s order (SQLite's own objects left out)."""
    rows = db.exec_driver_sql("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND substr(name, 1, 7) != 'sqlite_' ORDER BY rowid")
    return list(rows.scalars())


def write_head_schema() -> None:
    """Write :data:`HEAD_SCHEMA` from a new SQLite database that Alembic's migrations bring to :data:`HEAD`."""
    from sqlalchemy import create_engine

    with tempfile.TemporaryDirectory(prefix="pbench-schema-") as folder:
        engine = create_engine(f"sqlite:///{Path(folder) / 'head.db'}")
        with engine.connect() as db:
            _begin_exclusive(db)
            _upgrade(db, HEAD)
            db.commit()
            statements = _sqlite_schema(db)
        engine.dispose()
    HEAD_SCHEMA.write_text(json.dumps({"revision": HEAD, "statements": statements}, indent=1) + "\n")


if __name__ == "__main__":
    write_head_schema()
    print(f"wrote {HEAD_SCHEMA} at revision {HEAD}", file=sys.stderr)
