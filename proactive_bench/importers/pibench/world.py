"""The release's world beyond its task files: app accounts, web pages, and what the import cannot reproduce.

π-Bench's app tasks run on AppWorld (``appworld serve apis``): its database is
AppWorld's own download, not part of the release, and one database serves every
persona. What the release does hold is the login each task hands the agent in
its request (``My Simple Note login info: Email: ... Password: ...``). The import
seeds exactly those accounts (``episodes/<p>/apps/accounts.yaml``), so the agent
logs in as in π-Bench; the records behind them (notes, mails, contacts, songs,
products) are AppWorld's and cannot be reproduced: every app task is flagged.

π-Bench's agent browses the live web. A release may carry an offline corpus in
pbench's format (``data/<p>/web/``, pages plus an optional ``index.yaml`` of
URLs); the import copies it and offers the ``web`` tools. A task whose request,
hidden intents or criteria name a URL the corpus does not serve is flagged.

A flag (a :class:`Gap`) goes into the session's ``gaps`` field, so every result
of that session shows it; the import report lists each with the tasks it affects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proactive_bench.importers.pibench.reader import PiTask

LOGIN_HEADER = re.compile(
    r"\bmy\s+(?P<app>[a-z][a-z _-]{0,30}?)\s+log-?\s?in\s+(?:info(?:rmation)?|details|credentials)\s*:", re.IGNORECASE
)
EMAIL = re.compile(r"\be-?mail(?:\s+address)?\s*:\s*(?P<value>[^\s,;]+@[^\s,;]+[^\s,;.])", re.IGNORECASE)
PHONE = re.compile(r"\bphone(?:\s+number)?\s*:\s*(?P<value>\+?\d[\d ().-]{4,}\d)", re.IGNORECASE)
PASSWORD = re.compile(r"\bpassword\s*:\s*(?P<value>\S+)", re.IGNORECASE)
URL = re.compile(r"https?://[^\s\"'<>()\]]+[^\s\"'<>()\].,;:]")
LOGIN_SPAN = 300
"""How far after a login header its email, phone and password are looked for (they follow it in every release task)."""

ACCOUNT_TABLES: dict[str, str] = {
    "amazon": "amazon_account",
    "file_system": "file_system_account",
    "gmail": "gmail_account",
    "phone": "phone_account",
    "simple_note": "simple_note_user",
    "splitwise": "splitwise_user",
    "spotify": "spotify_user",
    "todoist": "todoist_user",
}
"""The account table of every pbench app an AppWorld login can name."""
NAME_ONLY_TABLES = frozenset({"file_system_account"})
"""Tables whose account has no name column."""


@dataclass(frozen=True)
class Login:
    """One login a task states: the app, the user name (an email, or a phone number) and the password."""

    app: str
    username: str
    password: str


@dataclass
class Gap:
    """Something of π-Bench's world the import cannot reproduce, and the tasks it affects."""

    kind: str
    reason: str
    tasks: list[str] = field(default_factory=list)

    def flag(self) -> str:
        """The line a session's ``gaps`` field holds."""
        return f"{self.kind}: {self.reason}"


def stated_logins(task: PiTask, app_names: frozenset[str]) -> tuple[list[Login], list[str]]:
    """The logins the task's request states, and why a stated login could not be read (one line each)."""
    text = task.initial_input
    headers = list(LOGIN_HEADER.finditer(text))
    logins: list[Login] = []
    unread: list[str] = []
    for n, header in enumerate(headers):
        end = headers[n + 1].start() if n + 1 < len(headers) else min(len(text), header.end() + LOGIN_SPAN)
        span = text[header.end() : end]
        written = header.group("app").strip()
        app = _app_name(written, app_names)
        user = (PHONE if app == "phone" else EMAIL).search(span)
        password = PASSWORD.search(span)
        if app is None:
            unread.append(f"a {written} login, and pbench has no {written} app")
        elif user is None or password is None:
            unread.append(f"a {written} login without {'a phone number' if app == 'phone' else 'an email'} and a password after it")
        else:
            username = re.sub(r"\D", "", user.group("value")) if app == "phone" else user.group("value")
            logins.append(Login(app, username, password.group("value")))
    return logins, unread


def _app_name(written: str, app_names: frozenset[str]) -> str | None:
    """The pbench app a login header names (``Simple Note`` -> ``simple_note``), if any."""
    key = re.sub(r"[\s_-]+", "", written).lower()
    return next((app for app in sorted(app_names) if app.replace("_", "") == key), None)


def account_rows(logins: list[Login], person: str) -> dict[str, list[dict[str, Any]]]:
    """Seed rows (table -> rows) for the accounts, one per app and user name, ids from 1 in order of appearance."""
    rows: dict[str, list[dict[str, Any]]] = {}
    for login in logins:
        table = ACCOUNT_TABLES[login.app]
        if table in NAME_ONLY_TABLES:
            rows.setdefault(table, []).append({"username": login.username, "password": login.password})
            continue
        row: dict[str, Any] = {"id": len(rows.get(table, [])) + 1, "name": person, "password": login.password}
        row["phone_number" if login.app == "phone" else "email"] = login.username
        rows.setdefault(table, []).append(row)
    return rows


def task_urls(task: PiTask) -> list[str]:
    """The URLs the task's request, hidden intents and criteria name (pages to read, or answers found on the web), once each."""
    text = "\n".join([task.initial_input, *task.hidden_intents, *(criterion for criterion, _ in task.criteria)])
    return list(dict.fromkeys(match.group(0) for match in URL.finditer(text)))


def corpus_urls(web_dir: Path, index: dict[str, Any]) -> set[str]:
    """The URLs an offline corpus serves: its index's, and ``https://<path>`` for every page (as ``web_fetch`` names them)."""
    pages = {f"https://{p.relative_to(web_dir).as_posix()}" for p in web_dir.rglob("*") if p.is_file() and p.name != "index.yaml"}
    return {_plain_url(url) for url in (*index, *pages)}


def served(url: str, corpus: set[str]) -> bool:
    return _plain_url(url) in corpus


def _plain_url(url: str) -> str:
    """A URL compared without its scheme and trailing slash."""
    return re.sub(r"^https?://", "", str(url)).rstrip("/")
