"""Test double of a π-Bench grader script (written for pbench's tests, not π-Bench's).

Scores per criterion from the tool history (app tool names carry π-Bench's
``mcp_appworld_`` prefix) and, like π-Bench's file-reading scripts, finds the
workspace through ``config/nanobot.yaml`` in its working folder.
"""

from pathlib import Path
from typing import Any

import yaml


def _name(item: dict[str, Any]) -> str:
    return str(item.get("tool_name") or "").removeprefix("mcp_appworld_")


def _workspace() -> Path | None:
    config = Path("config") / "nanobot.yaml"
    if not config.is_file():
        return None
    return Path(yaml.safe_load(config.read_text(encoding="utf-8"))["nanobot"]["workspace_dir"])


def score(tools_history: list[dict[str, Any]]) -> dict[str, int]:
    print("grader debug output that must not break the result")
    created = [item for item in tools_history if _name(item) == "todoist__create_task" and "response" in (item.get("result") or {})]
    titles = {(item.get("call") or {}).get("title") for item in created}
    prefixed = bool(created) and all(str(item["tool_name"]).startswith("mcp_appworld_") for item in created)
    workspace = _workspace()
    return {
        "task created with MCP tool name": int(prefixed),
        "Morning stretching created": int("Morning stretching" in titles),
        "friday_plan.md written": int(workspace is not None and (workspace / "friday_plan.md").is_file()),
    }
