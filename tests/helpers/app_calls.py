"""Helpers for app tests: a seeded app database, a toolbox on a copy of it, calls that must succeed or fail."""

import shutil
from pathlib import Path
from typing import Any

from proactive_bench.env.apps.base import AppStore
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace


def ok(box: ToolBox, tool: str, /, **args: Any) -> Any:
    """Call `tool` and return its response; fail the test if the call was refused."""
    record = box.call(tool, args)
    assert record.ok, record.result
    return record.result["response"]


def err(box: ToolBox, tool: str, /, **args: Any) -> str:
    """Call `tool` expecting a refusal and return the error text."""
    record = box.call(tool, args)
    assert not record.ok, record.result
    return str(record.result["error"])


def seed_database(folder: Path, app: str, seed: str) -> Path:
    """An app database seeded from ``seed`` (the app's YAML), to be built once and copied per test."""
    (folder / f"{app}.yaml").write_text(seed)
    apps = AppStore(folder / "apps.sqlite")
    apps.seed_from(folder)
    apps.engine.dispose()
    return folder / "apps.sqlite"


def app_box(folder: Path, app: str, database: Path | None = None) -> ToolBox:
    """The app's tools on ``folder/apps.sqlite``, made a fresh copy of ``database`` when one is given."""
    if database is not None:
        shutil.copy(database, folder / "apps.sqlite")
    return ToolBox(ToolEnv(Workspace(folder / "ws"), Memory(), AppStore(folder / "apps.sqlite")), resolve_tool_names([app]))
