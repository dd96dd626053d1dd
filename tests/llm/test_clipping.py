"""Evidence clipped for the user simulator or the judge is said in the prompt, recorded with the decision, and counted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proactive_bench.data_model.clipped import was_clipped
from proactive_bench.data_model.evidence import Message
from proactive_bench.data_model.trace import (
    CLIPPED_MARK,
    DEFAULT_LIMITS,
    FILE_CHARS,
    MESSAGE_CHARS,
    clip,
    clipped_note,
    collecting_clips,
    evidence_limits,
    render_dialogue,
)
from proactive_bench.store import Grade, IntentEvent, Store
from proactive_bench.testing.stub_server import Reply, StubServer, prompt_text
from tests.helpers.cli import run_cli, stub_server_args
from tests.helpers.paths import HELPERS, MINI
from tests.helpers.stub_models import FakeUserModel

WRITER = f"{HELPERS / 'long_writer_agent.py'}:LongWriter"


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


def test_limits_grow_with_a_known_large_window_and_never_shrink() -> None:
    assert evidence_limits(None) == DEFAULT_LIMITS and evidence_limits(2_048) == DEFAULT_LIMITS and evidence_limits(8_000) == DEFAULT_LIMITS
    big = evidence_limits(128_000)
    assert big.file == 128_000 * 3 // 2 and big.file > 10 * FILE_CHARS  # half the window, at 3 characters a token
    assert big.message / DEFAULT_LIMITS.message == big.file / DEFAULT_LIMITS.file == big.tool_field / DEFAULT_LIMITS.tool_field
    long = [Message(role="agent", content="x" * (MESSAGE_CHARS * 2), turn=1)]
    with collecting_clips(128_000) as wide:
        shown = render_dialogue(long)
    with collecting_clips(None) as narrow:
        render_dialogue(long)
    assert wide == [] and "not shown" not in shown and narrow == [MESSAGE_CHARS]
    assert "not shown" in render_dialogue(long)  # the defaults again outside the block


def _writer_episode(tmp_path: Path, *extra: str, models: dict[str, Any] | None = None) -> tuple[Path, Recording, dict[str, Any]]:
    db = tmp_path / "r.db"
    fake = Recording()
    with StubServer(fake, models=models) as server:
        result = run_cli(
            "episode",
            "--json",
            "--data",
            str(MINI),
            "--persona",
            "mini",
            "--model",
            WRITER,
            "--sessions",
            "a1",
            "--db",
            str(db),
            *stub_server_args(server.base_url),
            *extra,
        )
    assert result.exit_code == 0, result.output
    return db, fake, json.loads(result.stdout)


@pytest.mark.parametrize("told", ["option", "probe"])
def test_a_model_with_a_large_window_sees_the_long_deliverable_whole(tmp_path: Path, told: str) -> None:
    if told == "option":
        _, fake, out = _writer_episode(tmp_path, "--context-tokens", "128000")
    else:  # the run's probe reads the window from GET /models before the first judgment
        _, fake, out = _writer_episode(tmp_path, models={"data": [{"id": m, "max_model_len": 128000} for m in ("stub-user", "stub-judge")]})
    judged = [p for p in fake.prompts if "grading an AI assistant" in p]
    assert judged and not any("not shown" in p or "clipped to fit" in p for p in judged)
    assert any("filler line for a long report\n" * (FILE_CHARS // 20) in p for p in judged)
    assert out["clipped"] == {"intents": 0, "items": 0}


def test_a_long_deliverable_is_judged_on_clipped_evidence_and_counted(tmp_path: Path) -> None:
    db, fake, out = _writer_episode(tmp_path)
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
