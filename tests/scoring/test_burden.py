"""User burden: counted per session from the turns, stored, and shown by `pbench results`."""

from __future__ import annotations

import json
from pathlib import Path

from proactive_bench.data_model.labels import IntentLabel, Leak, Stage
from proactive_bench.data_model.messages import Message
from proactive_bench.data_model.status import IntentStatus
from proactive_bench.scoring.burden import SNAPSHOT_KIND, session_burden
from proactive_bench.store import Store
from tests.helpers.cli import run_cli, run_episode_json
from tests.helpers.paths import MINI


def label(intent_id: str, status: IntentStatus, turn: int, evidence: str) -> IntentLabel:
    stage = Stage.VOLUNTEER if status == IntentStatus.PROVIDED else Stage.QUESTION
    return IntentLabel(intent_id, status, stage, evidence, "test", turn=turn)


def test_counts_questions_words_user_turns_and_untargeted_questions() -> None:
    transcript = [
        Message("user", "Summarise the batch.", 0),
        Message("agent", "Sure. Which units should I use? Anything else?", 1),
        Message("user", "mg/L please.", 1),
        Message("agent", "Done. Should I add a chart? Should it be blue?", 2),
        Message("user", "I need the mean too.", 2),
        Message("agent", "Added the mean.", 3),
    ]
    labels = [
        label("units", IntentStatus.INFERRED, 1, "targeted question: Which units should I use?"),
        label("mean", IntentStatus.PROVIDED, 2, "volunteered"),
    ]
    burden = session_burden(transcript, labels, [Leak(2, ["mean"])])
    assert (burden.questions, burden.question_words, burden.user_turns, burden.untargeted) == (4, 16, 2, 3)
    assert burden.untargeted_share == 0.75 and burden.leaks == [{"turn": 2, "intents": ["mean"]}]


def test_two_intents_credited_to_one_question_count_that_question_once() -> None:
    transcript = [Message("agent", "Which units and which average should I use? Is it urgent?", 1)]
    labels = [
        label("a", IntentStatus.INFERRED, 1, "targeted question: Which units and which average should I use?"),
        label("b", IntentStatus.INFERRED, 1, "targeted question: Which units and which average should I use?"),
    ]
    assert session_burden(transcript, labels).untargeted == 1


def test_burden_is_stored_per_session_and_shown_in_results(tmp_path: Path) -> None:
    db = tmp_path / "b.db"
    asker = run_episode_json("--persona", "mini", "--model", "scripted:asker", "--data", str(MINI), "--db", str(db))
    vague = run_episode_json("--persona", "mini", "--model", "scripted:vague", "--data", str(MINI), "--db", str(db))
    store = Store(db)
    stored = [store.snapshot(sr.id, SNAPSHOT_KIND) for sr in store.session_runs(asker["run_id"])]
    assert [(b["questions"], b["untargeted"], b["user_turns"]) for b in stored] == [(2, 0, 2), (1, 0, 1), (1, 0, 1)]
    for out, questions, share in ((asker, 4 / 3, 0.0), (vague, None, 1.0)):
        result = run_cli("results", out["run_id"], "--db", str(db), "--format", "json")
        assert result.exit_code == 0, result.output
        (row,) = json.loads(result.stdout)["burden"]
        assert row["untargeted_share"] == share and row["leaks"] == 0
        if questions is not None:
            assert abs(row["questions"] - questions) < 1e-9
    table = run_cli("results", vague["run_id"], "--db", str(db))
    assert "User burden per session" in table.stdout and "100%" in table.stdout


def test_the_report_plots_proc_against_burden(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    out = run_episode_json("--persona", "mini", "--model", "scripted:asker", "--data", str(MINI), "--db", str(db))
    result = run_cli("report", out["run_id"], "--db", str(db), "--out", str(tmp_path / "r.html"))
    assert result.exit_code == 0, result.output
    html = (tmp_path / "r.html").read_text()
    assert "Proc vs user burden" in html and "questions asked per session" in html
