"""π-Bench grader scripts: ``score(tools_history)`` run the way π-Bench's evaluator runs it.

π-Bench (``src/evaluation/checklist_evaluator.py``) loads a task's
``tools_evaluation_path`` script, calls ``score([])`` once to learn its
checklist keys, and appends one criterion ``[tools] <key>`` of weight 1 per key
to the task's LLM-judged checklist. Every agent turn is scored on its own tool
history: the latest call of each tool named in ``objectives.tools`` (every tool
when none is named), as ``{"tool_name", "call", "result"}`` with the names the
AppWorld MCP server uses (``mcp_appworld_`` prefix). A key passes when it is 1
in any turn. Scripts that check written files find the workspace through
``config/nanobot.yaml`` in their working folder.

π-Bench imports the script into its evaluator (working folder: the checkout,
the agent's workspace at ``~/.nanobot/workspace``). Here a script runs in a
child process, so it cannot disturb the run: its working folder holds such a
config pointing at the run's workspace, ``~/.nanobot/workspace`` (its ``HOME``
is a scratch folder) leads to the same workspace, and it writes no bytecode
(``-B``: a read-only release imports, and the release's tree stays as it was). A missing
script, a crash, a time-out or a result other than 0/1 per key raises
:class:`ScriptError`; grading records that as an error, never as a fail.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from proactive_bench.dataset import GraderResolver

if TYPE_CHECKING:
    from proactive_bench.data_model import Evidence
    from proactive_bench.dataset import PibenchScriptArgs
    from proactive_bench.env import ToolRecord

MCP_PREFIX = "mcp_appworld_"
HOST = Path(__file__).with_name("script_host.py")
TIMEOUT_S = 60.0

Scores = dict[str, int]


class ScriptError(Exception):
    """A π-Bench script that could not be run, or whose result is not 0/1 per criterion."""


def mcp_name(tool_name: str) -> str:
    """A tool's name as π-Bench traces show it: app tools (``<app>__<verb>``) carry the MCP prefix."""
    return MCP_PREFIX + tool_name if "__" in tool_name else tool_name


def turn_histories(records: Sequence[ToolRecord], turns: Sequence[int], tools: Sequence[str]) -> list[list[dict[str, Any]]]:
    """Per turn, the latest call of each allowed tool, in first-call order (π-Bench's ``collect_tool_history``)."""
    histories = []
    for turn in turns:
        latest: dict[str, dict[str, Any]] = {}
        for record in records:
            if record.turn == turn and (not tools or record.tool_name in tools):
                latest[record.tool_name] = {"tool_name": mcp_name(record.tool_name), "call": record.call, "result": record.result}
        histories.append(list(latest.values()))
    return histories


def run_script(script: Path, histories: list[list[dict[str, Any]]], workspace: Path) -> list[Scores]:
    """``score(history)`` for each history, in a child process; raise ScriptError on any failure."""
    with tempfile.TemporaryDirectory(prefix="pbench-pibench-") as tmp:
        config = Path(tmp) / "config" / "nanobot.yaml"
        config.parent.mkdir()
        config.write_text(yaml.safe_dump({"nanobot": {"workspace_dir": str(workspace.resolve())}}), encoding="utf-8")
        (Path(tmp) / ".nanobot").mkdir()
        (Path(tmp) / ".nanobot" / "workspace").symlink_to(workspace.resolve(), target_is_directory=True)
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-B", str(HOST), str(script)],
                input=json.dumps({"histories": histories}, default=str),
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                cwd=tmp,
                env={"PATH": "/usr/bin:/bin", "HOME": tmp},
                timeout=TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise ScriptError(f"{script.name}: no result within {TIMEOUT_S:g} s") from None
    try:
        answer = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        raise ScriptError(f"{script.name}: the script host failed (exit {done.returncode}): {done.stderr.strip()[-500:]}") from None
    if "error" in answer:
        raise ScriptError(f"{script.name}: {answer['error']}")
    return [_scores(script, payload) for payload in answer["results"]]


def _scores(script: Path, payload: Any) -> Scores:
    """A result as criterion -> 0/1, with π-Bench's rules: a dict, values 0, 1 or booleans."""
    if not isinstance(payload, dict):
        raise ScriptError(f"{script.name}: score() returned {type(payload).__name__}, not a dict")
    scores: Scores = {}
    for raw_key, value in payload.items():
        key = str(raw_key).strip()
        if not isinstance(value, (bool, int)) or value not in (0, 1):
            raise ScriptError(f"{script.name}: criterion {key!r} is {value!r}, not 0 or 1")
        scores.setdefault(key, int(value))
    return scores


def discover_criteria(script: Path) -> list[str]:
    """The script's checklist keys: what ``score([])`` returns (as π-Bench learns them)."""
    with tempfile.TemporaryDirectory(prefix="pbench-pibench-ws-") as workspace:
        (scores,) = run_script(script, [[]], Path(workspace))
    if not scores:
        raise ScriptError(f"{script.name}: score([]) returned no criteria")
    return list(scores)


def script_check(args: PibenchScriptArgs, evidence: Evidence) -> bool:
    """Whether the script scores the criterion (every criterion when none is named) 1 in some turn."""
    resolver = evidence.resolve_python
    if not isinstance(resolver, GraderResolver):
        raise ScriptError("π-Bench scripts are found in a dataset's graders/ folder, and this evidence has none")
    script = resolver.file(args.path)
    key = ("pibench_script", str(script), args.tools)
    if key not in evidence.memo:
        turns = sorted({m.turn for m in evidence.transcript if m.role == "agent"} | {r.turn for r in evidence.tool_records})
        try:
            evidence.memo[key] = run_script(
                script, turn_histories(evidence.tool_records, turns or [0], args.tools), evidence.workspace.root
            )
        except ScriptError as exc:
            evidence.memo[key] = exc
    results = evidence.memo[key]
    if isinstance(results, ScriptError):
        raise ScriptError(str(results))
    criteria = [args.criterion] if args.criterion is not None else list(dict.fromkeys(k for r in results for k in r))
    if not criteria:
        raise ScriptError(f"{script.name}: score() returned no criteria")
    for criterion in criteria:
        values = [r[criterion] for r in results if criterion in r]
        if not values:
            known = sorted({k for r in results for k in r})
            raise ScriptError(f"{script.name}: score() returns no criterion {criterion!r} (it returns {known})")
        if 1 not in values:
            return False
    return True
