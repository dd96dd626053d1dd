"""The CLI in-process or in a child process, and a YAML edit for the broken copies the validation tests make."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from proactive_bench.cli import app
from tests.helpers.paths import REPO

PBENCH = [sys.executable, "-c", "from proactive_bench.cli import app; app()"]
"""``pbench`` as a child process's command line (the interpreter running the tests)."""


STUB_USER_MODEL = "openai:stub-user"
STUB_JUDGE_MODEL = "openai:stub-judge"


def stub_server_args(base_url: str) -> list[str]:
    """The CLI arguments of a run against the stub model server at ``base_url``: the LLM user and the judge on its stub
    models (:data:`STUB_USER_MODEL`, :data:`STUB_JUDGE_MODEL`), every model call to that server."""
    return ["--user", "llm", "--user-model", STUB_USER_MODEL, "--judge-model", STUB_JUDGE_MODEL, "--base-url", base_url]


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


def run_python(code: str) -> str:
    """``python -c CODE`` in a fresh interpreter (the one running the tests) at the repository, which must exit 0 (its
    stderr is the failure's message); its stdout. A fresh process sees what an import loads, not what earlier tests did."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        stdin=subprocess.DEVNULL,  # not the test process's: an xdist worker's stdin is its channel to the controller
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


LOADED = """
import atexit, json, os, sys
def _write(path=os.environ.pop("PBENCH_MODULES_OUT")):
    with open(path, "w") as out:
        json.dump(sorted(sys.modules), out)
atexit.register(_write)
sys.argv[0] = "pbench"
from proactive_bench.cli import app
app()
"""
"""``pbench ARGS`` in a child process that writes, as it exits, the modules it imported (a JSON list) to the file named by
``PBENCH_MODULES_OUT``: a file, not stderr, where a list over 64 kB was once cut at the pipe's size in a CI run (the
child still exited 0: an exception in an exit handler does not change the code; likely a full pipe whose shared open file
another process had made non-blocking)."""


def loaded_run(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """``pbench ARGS`` in a fresh process (``env``: its environment, default this one's): the finished process (text
    output captured) and the modules it had imported when it exited (empty if it died before writing them)."""
    with tempfile.TemporaryDirectory(prefix="pbench-modules-") as folder:
        out = Path(folder) / "modules.json"
        child_env = {**(os.environ if env is None else env), "PBENCH_MODULES_OUT": str(out)}
        done = subprocess.run(
            [sys.executable, "-c", LOADED, *args],
            stdin=subprocess.DEVNULL,  # not the test process's: an xdist worker's stdin is its channel to the controller
            capture_output=True,
            text=True,
            cwd=REPO,
            env=child_env,
            timeout=timeout,
        )
        return done, set(json.loads(out.read_text())) if out.exists() else set()


def modules_loaded(*args: str, code: int = 0, env: dict[str, str] | None = None) -> set[str]:
    """The modules a fresh ``pbench args`` process (``env``: its environment, default this one's) has imported when it exits
    (it must exit with ``code``)."""
    done, loaded = loaded_run(*args, env=env)
    assert done.returncode == code, done.stderr
    return loaded
