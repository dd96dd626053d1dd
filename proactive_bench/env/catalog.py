"""Where each built-in tool and app is registered: a tool's module is imported when the tool is first looked up.

Importing every tool and app module cost each command that touched a tool name
the office libraries (openpyxl, python-docx, icalendar) and every app's SQLModel
tables. Instead :data:`~proactive_bench.env.toolbox.REGISTRY` looks a built-in
name up here and imports its module then: a run loads the tools its sessions
offer, a predicate the tools it evaluates. Listing every tool (iterating the
registry) and anything that needs every app table (an ``AppStore``,
``app_tables``) import them all. A new tool or app module is added below;
``tests/env/test_catalog.py`` checks the tables against what the modules register.

This module imports nothing from pbench (the registry imports it).
"""

from __future__ import annotations

import functools
import importlib
import sys

GROUP_MODULES: dict[str, tuple[str, ...]] = {
    "workspace": ("general_tools", "file_search"),
    "memory": ("general_tools",),
    "documents": ("docx_tools",),
    "spreadsheets": ("xlsx_tools",),
    "pdf": ("pdf_tools",),
    "history": ("history",),
    "messaging": ("messaging",),
    "shell": ("shell",),
    "skills": ("skills",),
    "web": ("web",),
    "images": ("image_tools",),
    "amazon": ("apps.amazon",),
    "calendar": ("apps.calendar",),
    "chat": ("apps.chat",),
    "clock": ("apps.clock",),
    "file_system": ("apps.file_system",),
    "gmail": ("apps.gmail",),
    "phone": ("apps.phone",),
    "simple_note": ("apps.simple_note",),
    "splitwise": ("apps.splitwise",),
    "spotify": ("apps.spotify",),
    "todoist": ("apps.todoist",),
}
"""Each built-in tool group and the modules (relative to ``proactive_bench.env``) that register its tools."""
TOOL_GROUPS: dict[str, str] = {
    "read_file": "workspace",
    "write_file": "workspace",
    "edit_file": "workspace",
    "list_dir": "workspace",
    "glob": "workspace",
    "grep": "workspace",
    "memory_write": "memory",
    "memory_read": "memory",
    "docx_create": "documents",
    "docx_edit": "documents",
    "docx_read": "documents",
    "xlsx_read": "spreadsheets",
    "xlsx_write": "spreadsheets",
    "xlsx_append_rows": "spreadsheets",
    "pdf_create": "pdf",
    "pdf_extract_text": "pdf",
    "search_history": "history",
    "send_message": "messaging",
    "schedule_task": "messaging",
    "shell_exec": "shell",
    "list_skills": "skills",
    "read_skill": "skills",
    "web_search": "web",
    "web_fetch": "web",
    "view_image": "images",
}
"""The group of each built-in tool outside the apps; an app's tools are ``<app>__<verb>``, in the app's group."""
TABLE_MODULES = tuple(
    sorted({module for modules in GROUP_MODULES.values() for module in modules if module.startswith("apps.")} | {"messaging"})
)
"""The modules that define app tables (every app, and ``messaging``'s scheduled tasks): an ``AppStore`` holds them all."""


def group_of(tool: str) -> str | None:
    """The built-in group a tool name belongs to, or None when no built-in module registers it."""
    app, separator, _verb = tool.partition("__")
    group = app if separator else TOOL_GROUPS.get(tool)
    return group if group in GROUP_MODULES else None


def load_group(group: str) -> None:
    """Import the modules registering a built-in group's tools (nothing for a group no built-in module has)."""
    for module in GROUP_MODULES.get(group, ()):
        _load(f"proactive_bench.env.{module}")


def module_rank(group: str, module: str) -> int:
    """Where ``module`` (a full module name) stands among a built-in group's modules.

    A module the group does not list (``apps.base``, which makes each app's login tools, or a plug-in's) ranks
    with the first, so those tools keep their registration place.
    """
    return _ranks(group).get(module, 0)


@functools.cache
def _ranks(group: str) -> dict[str, int]:
    """A built-in group's modules (full names) by their place in :data:`GROUP_MODULES`."""
    ranks: dict[str, int] = {}
    for rank, name in enumerate(GROUP_MODULES.get(group, ())):
        ranks.setdefault(f"proactive_bench.env.{name}", rank)
    return ranks


def load_tool(tool: str) -> None:
    """Import the module registering a built-in tool (nothing for another name)."""
    if (group := group_of(tool)) is not None:
        load_group(group)


def load_all() -> None:
    """Import every built-in tool and app module."""
    for group in GROUP_MODULES:
        load_group(group)


def load_app_tables() -> None:
    """Import every module that defines app tables."""
    for module in _TABLE_MODULE_NAMES:
        _load(module)


_TABLE_MODULE_NAMES = tuple(f"proactive_bench.env.{module}" for module in TABLE_MODULES)


def table_module(table: str) -> str | None:
    """The module that defines app table ``table``, by its name (an app's tables are ``<app>_...``, the scheduled
    tasks ``general_...``); None for a name no app's prefix starts (``app_login``, ``app_clock``: the app base's own)."""
    modules = {"general": "messaging", **{group: names[0] for group, names in GROUP_MODULES.items() if names[0].startswith("apps.")}}
    owners = [prefix for prefix in modules if table.startswith(f"{prefix}_")]
    return f"proactive_bench.env.{modules[max(owners, key=len)]}" if owners else None


def load_table_module(table: str) -> None:
    """Import the module :func:`table_module` names for ``table`` (nothing when it names none)."""
    if (module := table_module(table)) is not None:
        _load(module)


def _load(module: str) -> None:
    """Import a module unless it is imported already (``import_module`` takes the import lock even then: every session
    looks its tools up)."""
    if module not in sys.modules:
        importlib.import_module(module)
