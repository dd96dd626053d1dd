"""Evidence clipped for the user simulator or the judge is said in the prompt, recorded with the decision, and counted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from proactive_bench.store import Grade, IntentEvent, Store
from proactive_bench.stub_server import Reply, StubServer, prompt_text
from proactive_bench.trace import CLIPPED_MARK, FILE_CHARS, clip, clipped_note, collecting_clips, was_clipped

from conftest import MINI, run_cli
from test_llm_user import FakeUserModel

WRITER = f"{Path(__file__).parent / 'long_writer_agent.py'}:LongWriter"


class Recording(FakeUserModel):
    def __init__(self) -> None:
        super().__init__()
        self.prompts: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        self.prompts.append(prompt_text(body))
        return super().__call__(body)


def test_clip_records_what_it_dropped_only_inside_a_collector() -> None:
    assert clip("x" * 10, 4).endswith("[... 6 more characters not shown]")
    with collecting_clips() as dropped:
        clip("x" * 10, 4)
        clip("short", 10)
    assert dropped == [6]
    assert was_clipped("ok" + clipped_note(dropped)) and not was_clipped("ok" + clipped_note([]))


def test_a_long_deliverable_is_judged_on_clipped_evidence_and_counted(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    fake = Recording()
    with StubServer(fake) as server:
        result = run_cli(
            "episode", "--json", "--data", str(MINI), "--persona", "mini", "--model", WRITER, "--sessions", "a1", "--db", str(db),
            "--user", "llm", "--user-model", "openai:stub-user", "--judge-model", "openai:stub-judge", "--base-url", server.base_url,
        )
    out = json.loads(result.stdout)
    judged = [p for p in fake.prompts if "grading an AI assistant" in p]
    assert judged and all("more characters not shown" in p for p in judged)  # the prompt says what was cut
    store = Store(db)
    (session_run,) = store.session_runs(out["run_id"])
    grades = {g.item_id: g for g in store.rows(Grade, session_run.id)}
    assert was_clipped(grades["c3"].rationale) and grades["c3"].score == 1
    events = store.rows(IntentEvent, session_run.id)
    assert events and all(CLIPPED_MARK in e.evidence for e in events)  # every label of that turn saw the clipped file
    assert out["clipped"] == {"intents": len(events), "items": 1}
    summary = json.loads(run_cli("results", out["run_id"], "--db", str(db), "--format", "json").stdout)
    assert summary["main"][0]["clipped"] == {"intents": len(events), "items": 1}
    assert len("Batch summary: mean 4.2 mg/L\n" + "filler line for a long report\n" * (FILE_CHARS // 20)) > FILE_CHARS
