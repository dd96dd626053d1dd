"""The CLI in-process or in a child process, and a YAML edit for the broken copies the validation tests make."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from proactive_bench.cli import app

PBENCH = [sys.executable, "-c", "from proactive_bench.cli import app; app()"]
"""``pbench`` as a child process's command line (the interpreter running the tests)."""


def edit_yaml(path: Path, change: Any) -> None:
    """Load a YAML file, let ``change`` modify the data in place, write it back."""
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def run_cli(*args: str, stdin: str | None = None) -> Any:
    """``pbench ARGS`` in this process (``stdin``: the text piped in); the click result (exit code, stdout, output)."""
    return CliRunner().invoke(app, list(args), input=stdin)


def run_episode_json(*args: str) -> dict[str, Any]:
    """``pbench episode --json ARGS``, which must succeed; its JSON."""
    result = run_cli("episode", "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)
