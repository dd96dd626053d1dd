"""One persistence boundary: only ``proactive_bench/store/`` touches database engines, sessions and SQLAlchemy.

Walks every module of the package with ``ast``. Outside ``store/``, a module
may not import ``sqlalchemy``, ``sqlmodel.Session``, ``create_engine`` (or
anything else from ``sqlmodel``), nor read the ``.engine`` of anything.

Exemption: the simulated apps (``env/apps/*``) and ``env/messaging.py`` keep
their own app-state ORM code, because the simulated apps' own databases are
part of the world under test: they may import ``sqlmodel`` and ``sqlalchemy``
for their table classes and for queries on the session handed to them. They
may not make an engine (``create_engine``, pools, connection events) or open a
session themselves (``Session(...)``), nor touch a Store's engine: that is
:mod:`proactive_bench.store.app_state`'s.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "proactive_bench"
EXEMPT_APP_STATE = ("env/apps/", "env/messaging.py")
ENGINE_MAKING = {"create_engine", "StaticPool", "event", "Engine", "sessionmaker"}
ENGINE_MODULES = ("sqlalchemy.pool", "sqlalchemy.engine", "sqlalchemy.event")


def violations(source: str, relative: str) -> list[str]:
    """What one module (``relative``: its path under the package) does against the boundary."""
    if relative.startswith("store/"):
        return []
    exempt = relative.startswith(EXEMPT_APP_STATE)
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        where = f"{relative}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                if root in ("sqlalchemy", "sqlmodel") and (not exempt or alias.name.startswith(ENGINE_MODULES)):
                    found.append(f"{where}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            root = node.module.split(".")[0]
            if root not in ("sqlalchemy", "sqlmodel"):
                continue
            names = {alias.name for alias in node.names}
            if not exempt:
                found.append(f"{where}: from {node.module} import {', '.join(sorted(names))}")
            elif node.module.startswith(ENGINE_MODULES) or names & ENGINE_MAKING:
                found.append(f"{where}: from {node.module} import {', '.join(sorted(names & ENGINE_MAKING) or names)}")
        elif isinstance(node, ast.Attribute) and node.attr == "engine":
            owner = ast.unparse(node.value)
            if not exempt or "store" in owner.lower():
                found.append(f"{where}: {owner}.engine")
        elif exempt and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("Session", "create_engine"):
            found.append(f"{where}: {node.func.id}(...)")
    return found


def package_violations(package: Path) -> list[str]:
    return [
        problem
        for path in sorted(package.rglob("*.py"))
        for problem in violations(path.read_text(encoding="utf-8"), path.relative_to(package).as_posix())
    ]


def test_only_the_store_touches_engines_sessions_and_sqlalchemy() -> None:
    assert package_violations(PACKAGE) == []


@pytest.mark.parametrize(
    ("relative", "source"),
    [
        ("review/audits.py", "from sqlmodel import Session, col, select\n"),
        ("campaign/workers.py", "def f(store):\n    store.engine.dispose()\n"),
        ("cli.py", "from sqlalchemy.exc import DBAPIError\n"),
        ("llm/cache.py", "import sqlalchemy\n"),
        ("llm/probe.py", "from sqlmodel import Field, SQLModel\n"),
        ("env/apps/base.py", "from sqlmodel import Session, create_engine\n"),
        ("env/apps/base.py", "from sqlalchemy.pool import StaticPool\n"),
        ("env/apps/base.py", "from sqlalchemy import JSON, event\n"),
        ("env/apps/gmail.py", "from sqlmodel import Session\ndef f(engine):\n    return Session(engine)\n"),
        ("env/messaging.py", "def f(env):\n    return env.store.engine\n"),
    ],
)
def test_the_check_catches_each_kind_of_crossing(relative: str, source: str) -> None:
    assert violations(source, relative)


@pytest.mark.parametrize(
    ("relative", "source"),
    [
        ("store/sessions.py", "from sqlmodel import Session, create_engine\nimport sqlalchemy\n"),
        (
            "env/apps/gmail.py",
            "from sqlalchemy import func\nfrom sqlmodel import Field, Session, select\ndef f(db: Session):\n    return db.exec(select(1))\n",
        ),
        ("env/messaging.py", "from sqlmodel import Field as Column\nfrom sqlmodel import select\n"),
        ("env/apps/base.py", "def f(self):\n    return app_transaction(self.engine)\n"),
    ],
)
def test_the_store_and_the_apps_own_table_code_pass(relative: str, source: str) -> None:
    assert violations(source, relative) == []
