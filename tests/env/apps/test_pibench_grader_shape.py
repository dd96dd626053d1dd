"""A π-Bench-style grader, ``score(tools_history) -> dict[str, int]``, reads our tool records unchanged."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from proactive_bench.env.apps.base import AppStore
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace
from proactive_bench.importers.pibench.scripts import run_script, turn_histories

SEED = """
gmail_account:
  - {id: 1, name: Dana Reyes, email: dana@example.org, password: dana-pw}
  - {id: 2, name: Omar Haddad, email: omar@example.org, password: omar-pw}
"""


def score(tools_history: list[dict[str, Any]]) -> dict[str, int]:
    """Checks in the way π-Bench task scripts write them: find calls by tool name, read call and result."""

    def calls(suffix: str) -> list[dict[str, Any]]:
        return [t for t in tools_history if t["tool_name"].endswith("gmail__" + suffix)]

    created = [c for c in calls("create_draft") if "draft_id" in (c["result"].get("response") or {})]
    draft_id = created[-1]["result"]["response"]["draft_id"] if created else None
    updated = [c for c in calls("update_draft") if c["call"].get("draft_id") == draft_id]
    sent = [c for c in calls("send_email_from_draft") if c["call"].get("draft_id") == draft_id]
    return {
        "draft addressed to Omar": int(any("omar@example.org" in c["call"].get("recipient_email_addresses", []) for c in created)),
        "draft updated with the final figure": int(any("42 vials" in c["call"].get("body", "") for c in updated)),
        "subject set on update": int(any(c["call"].get("subject") == "Cefazolin allocation" for c in updated)),
        "the updated draft was sent": int(any("sent" in str(c["result"].get("response", {}).get("message", "")) for c in sent)),
    }


def _workflow(tmp_path: Path) -> ToolBox:
    apps = AppStore(tmp_path / "apps.sqlite")
    (tmp_path / "seed").mkdir()
    (tmp_path / "seed" / "gmail.yaml").write_text(SEED)
    apps.seed_from(tmp_path / "seed")
    box = ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory(), apps), resolve_tool_names(["gmail"]))
    box.turn = 1
    token = box.call("gmail__login", {"username": "dana@example.org", "password": "dana-pw"}).result["response"]["access_token"]
    draft = box.call(
        "gmail__create_draft", {"recipient_email_addresses": ["omar@example.org"], "body": "About 40 vials.", "access_token": token}
    )
    draft_id = draft.result["response"]["draft_id"]
    box.call(
        "gmail__update_draft",
        {"draft_id": draft_id, "email_addresses": ["omar@example.org"], "subject": "Cefazolin allocation", "body": "We hold 42 vials."},
    )
    box.call("gmail__send_email_from_draft", {"draft_id": draft_id})
    assert all(r.ok for r in box.records), [r.result for r in box.records if not r.ok]
    return box


def test_grader_gives_full_marks_on_our_records(tmp_path: Path) -> None:
    box = _workflow(tmp_path)
    history = [record.as_pibench() for record in box.records]
    assert score(history) == dict.fromkeys(score([]), 1)
    assert set(score([]).values()) == {0}  # the grader can fail: nothing done, nothing passes
    inbox = box.env.require_apps().rows("gmail_email")
    assert [(e["sender_email"], e["recipient_emails"], e["body"]) for e in inbox] == [
        ("dana@example.org", ["omar@example.org"], "We hold 42 vials.")
    ]


def test_the_same_grader_as_a_script_file_passes_through_the_pibench_host(tmp_path: Path) -> None:
    box = _workflow(tmp_path)
    script = tmp_path / "task_gmail.py"
    script.write_text("from typing import Any\n\n\n" + inspect.getsource(score))
    histories = turn_histories(box.records, [1], tools=[])
    assert {entry["tool_name"] for entry in histories[0]} >= {
        "mcp_appworld_gmail__create_draft",
        "mcp_appworld_gmail__send_email_from_draft",
    }
    (scores,) = run_script(script, histories, box.env.workspace.root)
    assert scores == dict.fromkeys(score([]), 1)
