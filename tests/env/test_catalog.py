"""The tool catalog: which module registers each built-in tool, loaded by name, checked against the real registrations."""

from __future__ import annotations

import json

from proactive_bench.env import REGISTRY, app_table, app_tables, catalog, resolve_tool_names
from tests.helpers.cli import run_python
from tests.helpers.paths import REPO

HEAVY = ("openpyxl", "docx", "icalendar", "fpdf", "proactive_bench.env.apps.amazon", "proactive_bench.env.apps.spotify")


def loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running ``code``."""
    out = run_python(f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))")
    return set(json.loads(out.strip().splitlines()[-1]))


def registering_module(name: str) -> str:
    """The module whose import registered a tool (an app's login tools are made by ``apps.base`` for the app)."""
    spec = REGISTRY[name]
    module = spec.func.__module__.replace("proactive_bench.env.", "", 1)
    return f"apps.{spec.group}" if module == "apps.base" else module


def test_the_catalog_names_the_module_and_group_of_every_built_in_tool() -> None:
    catalog.load_all()
    built_in = {
        name for name in REGISTRY if (REPO / "proactive_bench" / "env" / f"{registering_module(name).replace('.', '/')}.py").is_file()
    }
    for name in built_in:
        group = REGISTRY[name].group
        assert catalog.group_of(name) == group, f"{name}: the catalog says group {catalog.group_of(name)}, it registers {group}"
        assert registering_module(name) in catalog.GROUP_MODULES[group], f"{name}: registered by {registering_module(name)}"
    assert set(catalog.TOOL_GROUPS) <= built_in, f"listed but registered by nobody: {sorted(set(catalog.TOOL_GROUPS) - built_in)}"
    groups = {REGISTRY[name].group for name in built_in}
    assert groups == set(catalog.GROUP_MODULES), f"groups no module registers: {sorted(set(catalog.GROUP_MODULES) - groups)}"


def test_looking_a_tool_up_imports_only_its_module() -> None:
    loaded = loaded_after("from proactive_bench.env import REGISTRY\nassert REGISTRY['read_file'].group == 'workspace'")
    assert "proactive_bench.env.general_tools" in loaded
    assert not {m for m in loaded for heavy in HEAVY if m == heavy or m.startswith(heavy + ".")}
    grouped = loaded_after("from proactive_bench.env import resolve_tool_names\nassert resolve_tool_names(['spreadsheets'])")
    assert "openpyxl" in grouped and "proactive_bench.env.docx_tools" not in grouped


def test_an_unknown_name_is_still_unknown_and_a_plug_in_s_tool_is_found() -> None:
    assert "no_such_tool" not in REGISTRY and "gmail__no_such_verb" not in REGISTRY
    code = (
        "from pydantic import BaseModel\nfrom proactive_bench.env import REGISTRY, register_tool, resolve_tool_names\n"
        "class A(BaseModel):\n    pass\n"
        "@register_tool('plugged', group='plugin_group')\ndef plugged(env, args: A):\n    '''A plug-in tool.'''\n"
        "assert [s.name for s in resolve_tool_names(['plugin_group'])] == ['plugged'] and 'plugged' in REGISTRY"
    )
    loaded = loaded_after(code)
    assert "proactive_bench.env.apps.gmail" not in loaded


def test_every_app_table_exists_whichever_tools_were_looked_up() -> None:
    """An app database, made at the store's first use, holds every app's tables; an untouched store loads no app (its
    snapshot is empty, as its database would be: a run whose sessions touch no app pays for none)."""
    code = (
        "from proactive_bench.env import AppStore\nstore = AppStore()\nassert store.snapshot() == {}\n"
        "print(json.dumps(sorted(sys.modules)))\n"
        "with store.db() as db:\n"
        "    print(json.dumps(sorted(row[0] for row in db.connection().exec_driver_sql('SELECT name FROM sqlite_master'))))"
    )
    out = run_python(f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))")
    untouched, tables, loaded = (set(json.loads(line)) for line in out.splitlines()[-3:])
    table_modules = {f"proactive_bench.env.{m}" for m in catalog.TABLE_MODULES}
    assert not untouched & table_modules, sorted(untouched & table_modules)
    assert {"gmail_email", "general_scheduled_task", "todoist_task", "amazon_order", "spotify_song"} <= tables
    assert table_modules <= loaded
    assert {"gmail_email", "general_scheduled_task", "todoist_task"} <= set(app_tables())
    assert [spec.name for spec in resolve_tool_names(["clock"])] == ["clock__now", "clock__wait_until"]


def test_the_catalog_names_the_module_of_every_app_table_and_one_table_loads_only_its_app() -> None:
    for name, model in app_tables().items():
        if not model.__module__.startswith("proactive_bench."):
            continue  # a test's own app
        expected = None if model.__module__ == "proactive_bench.env.apps.base" else model.__module__
        assert catalog.table_module(name) == expected, f"{name}: defined in {model.__module__}"
        assert app_table(name) is model
    assert app_table("no_such_table") is None and catalog.table_module("no_such_table") is None
    loaded = loaded_after("from proactive_bench.env import app_table\nassert app_table('gmail_email') is not None")
    assert "proactive_bench.env.apps.gmail" in loaded and "proactive_bench.env.apps.amazon" not in loaded


def test_app_tables_names_a_table_model_declared_after_an_earlier_call_and_hands_out_copies() -> None:
    """``app_tables`` keeps its mapping between calls: a table declared later (a plug-in's) is in the next one."""
    code = (
        "from sqlmodel import Field\n"
        "from proactive_bench.env import app_tables\n"
        "from proactive_bench.env.apps.base import AppModel\n"
        "app_tables().clear()\n"
        "assert 'gmail_email' in app_tables()\n"
        "class LateNote(AppModel, table=True):\n"
        "    __tablename__ = 'late_note'\n"
        "    id: int = Field(primary_key=True)\n"
        "later = app_tables()\n"
        "assert later['late_note'] is LateNote and 'gmail_email' in later, sorted(later)\n"
    )
    loaded_after(code)


def test_a_group_lists_its_tools_in_the_catalog_s_order_whichever_module_was_imported_first() -> None:
    """An agent's prompt lists a group's tools in this order: a module imported out of turn must not reorder them."""
    before = [spec.name for spec in REGISTRY.group("workspace")]
    assert before[:2] == ["read_file", "write_file"] and before.index("glob") > before.index("list_dir")
    moved = {name: REGISTRY.registered.pop(name) for name in ("read_file", "write_file", "edit_file", "list_dir")}
    try:
        REGISTRY.registered.update(moved)  # as if file_search's tools had been registered first
        assert [spec.name for spec in REGISTRY.group("workspace")] == before
    finally:
        REGISTRY.registered.update(moved)
