"""``pbench`` starts with only what the command needs: ``--help`` imports no command, ``runs`` no other command.

The commands are imported lazily (``cli/lazy.py``); ``--help`` lists them from
their help text read from the source, which must stay what typer shows once the
command is loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import MINI, REPO, run_cli

from proactive_bench.cli import PbenchCommands

LOADED = """
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))
sys.argv[0] = "pbench"
from proactive_bench.cli import app
app()
"""


def modules_loaded(*args: str) -> set[str]:
    """The modules a fresh ``pbench args`` process has imported when it exits (it must exit 0)."""
    done = subprocess.run([sys.executable, "-c", LOADED, *args], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def test_the_help_listing_shows_each_command_s_own_help() -> None:
    group = PbenchCommands(name="pbench")
    for source in PbenchCommands.SOURCES:
        listed = source.help()
        assert listed, f"{source.name}: no help text in {source.module}"
        assert group.commands[source.name].help == listed, source.name
    assert list(group.commands) == [source.name for source in PbenchCommands.SOURCES]


def test_a_command_of_the_lazy_table_is_a_cli_module_and_exists() -> None:
    for source in PbenchCommands.SOURCES:
        assert source.module.startswith("proactive_bench.cli."), f"{source.name}: commands live in cli/, not {source.module}"
    with pytest.raises(LookupError, match="defines no nothing"):
        type(PbenchCommands.SOURCES[0])("x", "proactive_bench.cli.runs", "nothing").help()


def test_help_imports_no_command_module() -> None:
    loaded = modules_loaded("--help")
    commands = {source.module for source in PbenchCommands.SOURCES}
    assert not loaded & commands, sorted(loaded & commands)
    assert not {m for m in loaded if m.split(".")[0] in ("sqlalchemy", "langchain_core", "openai")}


def test_listing_runs_imports_no_other_command_and_no_report_figures(tmp_path: Path) -> None:
    db = tmp_path / "pbench.db"
    recorded = run_cli("episode", "--data", str(MINI), "--persona", "mini", "--model", "scripted:asker", "--db", str(db))
    assert recorded.exit_code in (0, 1), recorded.output
    loaded = modules_loaded("runs", "--db", str(db))
    assert "proactive_bench.cli.runs" in loaded
    unneeded = ("proactive_bench.reporting.html", "proactive_bench.cli.run", "proactive_bench.cli.sweep", "proactive_bench.cli.episodes")
    assert not {m for m in loaded for other in unneeded if m == other or m.startswith(other + ".")}
