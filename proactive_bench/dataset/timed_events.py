"""Timed events: app rows and workspace files that appear when a given session starts, and triggers rendered from rows.

``episodes/<p>/apps/*.yaml`` seeds the apps once, before the first session;
``episodes/<p>/apps/<session id>/*.yaml`` holds rows that appear at the start
of that session (an incoming e-mail, a reminder), so earlier sessions cannot
see them. Likewise ``workspace/`` seeds the workspace once and
``session_files/<session id>/`` holds files placed in it when that session
starts (a trainee scenario's day-2 files). An event session names its trigger row (``trigger.row``) and its
message is rendered from the row when the dataset loads: the text is written once.
"""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

from proactive_bench.dataset.schema import Session
from proactive_bench.env import AppStore, Workspace, app_table
from proactive_bench.yaml_files import YamlFileError, read_yaml_file


def timed_rows_dir(episode_dir: Path, session_id: str) -> Path:
    """The folder of app rows that appear when the session starts."""
    return episode_dir / "apps" / session_id


def timed_files_dir(episode_dir: Path, session_id: str) -> Path:
    """The folder of workspace files that appear when the session starts."""
    return episode_dir / "session_files" / session_id


def start_session(apps: AppStore, workspace: Workspace, episode_dir: Path, session: Session) -> None:
    """What happens when a session starts: the clock moves to ``now:``, its timed rows and files appear.

    Raises :class:`~proactive_bench.env.apps.base.SeedError` for rows that do not fit (``pbench validate`` reports it first),
    :class:`~proactive_bench.env.workspace.WorkspaceSeedError` for files that cannot be placed.
    """
    if session.now is not None:
        apps.set_clock(session.now)
    apps.seed_from(timed_rows_dir(episode_dir, session.id))
    workspace.place(timed_files_dir(episode_dir, session.id))


def unknown_timed_folders(episode_dir: Path, session_ids: list[str]) -> list[str]:
    """Folders under ``apps/`` that are named for no session of the episode."""
    apps = episode_dir / "apps"
    return sorted(p.name for p in apps.iterdir() if p.is_dir() and p.name not in session_ids) if apps.is_dir() else []


def render_trigger(episode_dir: Path, session: Session) -> tuple[str | None, str | None]:
    """The trigger message of a session whose trigger names a row: ``(message, None)`` or ``(None, reason)``."""
    row_ref = session.trigger.row
    assert row_ref is not None
    row = _find_row(timed_rows_dir(episode_dir, session.id), row_ref.table, row_ref.id)
    if isinstance(row, str):
        return None, row
    if not session.trigger.message.strip():
        return "\n".join(f"{key}: {_text(value)}" for key, value in row.items()), None
    fields = {key: _text(value) for key, value in row.items()}
    try:
        names = [name for _, name, _, _ in string.Formatter().parse(session.trigger.message) if name is not None]
    except ValueError as exc:
        return None, f"the message is not a valid template: {exc}"
    missing = [n for n in names if n not in fields]
    if missing:
        return None, f"the row of {row_ref.table} has no column {missing[0]!r}; columns: {', '.join(fields)}"
    try:
        return session.trigger.message.format_map(fields), None
    except (KeyError, ValueError, IndexError) as exc:  # a field nested in a format spec, a bad spec
        return None, f"the message is not a valid template: {exc!r}"


def _find_row(folder: Path, table: str, row_id: int | str) -> dict[str, Any] | str:
    model = app_table(table)
    if model is None:
        return f"unknown app table {table!r}"
    keys = [c.name for c in model.__table__.primary_key.columns]  # type: ignore[attr-defined]  # SQLModel sets __table__ on table classes; its stubs do not declare it
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        try:
            data = read_yaml_file(path) or {}
        except YamlFileError:
            continue  # the seed check reports it
        rows = data.get(table) if isinstance(data, dict) else None
        for row in rows if isinstance(rows, list) else []:
            if isinstance(row, dict) and len(keys) == 1 and str(row.get(keys[0])) == str(row_id):
                return row
    rel = f"apps/{folder.name}/*.yaml"
    return f"no {table} row with {keys[0] if len(keys) == 1 else 'key'} {row_id!r} in {rel} (a trigger row appears when its session starts)"


def _text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)
