"""The π-Bench release's user under ``--protocol pibench``: first unmet intent, targeting by its judge alone, the turn cap.

The LLM user runs against a stub model server on loopback (the user's model and the judge); the rules user,
offline, is run in process on copies of the mini dataset.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import yaml

from proactive_bench.data_model import IntentStatus, Stage
from proactive_bench.dataset import load_episode
from proactive_bench.episode.launch import RunSpec, start_run
from proactive_bench.episode.runner import CallLedger, EpisodeRun, Participants, run_episode
from proactive_bench.review import stored_run_result
from proactive_bench.scaffolds.protocol import AgentTurn, SessionContext
from proactive_bench.scoring import protocol_problem
from proactive_bench.store import IntentEvent, MessageRow, Store
from proactive_bench.testing.stub_server import Reply, StubServer, prompt_text, text_reply
from proactive_bench.user.rules import RulesUser
from tests.helpers.cli import edit_yaml, run_cli, stub_server_args
from tests.helpers.paths import MINI
from tests.helpers.stub_models import FakeUserModel, agent_model

A1 = "episodes/mini/sessions/a1.yaml"
A3 = "episodes/mini/sessions/a3.yaml"
THREE_IN_ONE = "Should I report the values in mg/L, include the mean, and say how many samples there are?"
COUNT_INTENT = {
    "id": "count",
    "text": "The summary gives the number of samples.",
    "reveal": "Say how many samples there are.",
    "question": "How many samples should the summary mention?",
    "ask": ["how many samples"],
    "evidence": {"file_matches": {"path": "out/summary.md", "pattern": "samples"}},
}


def three_intents(root: Path) -> Path:
    """The mini dataset with a third intent in a1, so that one question can cover three."""
    edit_yaml(root / A1, lambda d: d["intents"].append(COUNT_INTENT))
    return root


def episode(root: Path, model: str, protocol: str, server: StubServer, db: Path, *extra: str) -> dict[str, Any]:
    pibench = ["--protocol", "pibench"] if protocol == "pibench" else []
    result = run_cli(
        "episode",
        "--json",
        "--data",
        str(root),
        "--persona",
        "mini",
        "--model",
        model,
        "--db",
        str(db),
        *stub_server_args(server.base_url),
        *pibench,
        *extra,
    )
    assert result.output.strip(), result.output
    return json.loads(result.stdout)


def events(db: Path, run_id: str) -> list[IntentEvent]:
    store = Store(db)
    return [e for sr in store.session_runs(run_id) for e in store.rows(IntentEvent, sr.id)]


def user_messages(db: Path, run_id: str) -> list[str]:
    store = Store(db)
    return [m.content for sr in store.session_runs(run_id) for m in store.rows(MessageRow, sr.id) if m.role == "user" and m.turn > 0]


# --------------------------------------------------------------------------- the LLM user


def test_the_first_unmet_intent_is_revealed_in_order_as_written(tmp_path: Path) -> None:
    """The stub ranks open intents in reverse: pbench's user volunteers the last first, the release's user the first."""
    with StubServer(FakeUserModel()) as server:
        pi = episode(MINI, "scripted:passive", "pibench", server, tmp_path / "p.db", "--sessions", "a1")
        default = episode(MINI, "scripted:passive", "pbench", server, tmp_path / "d.db", "--sessions", "a1")
        requests = [prompt_text(b) for b in server.requests]
    assert [e.intent_id for e in events(tmp_path / "p.db", pi["run_id"])] == ["units", "mean"]
    assert [e.intent_id for e in events(tmp_path / "d.db", default["run_id"])] == ["mean", "units"]
    assert all(e.status == IntentStatus.PROVIDED and e.stage == Stage.VOLUNTEER for e in events(tmp_path / "p.db", pi["run_id"]))
    # the intents' texts as written, never a paraphrase: no reply is asked of the model under pibench
    assert user_messages(tmp_path / "p.db", pi["run_id"]) == ["Values are reported in mg/L.", "The summary states the mean value."]
    assert sum("role-playing the user" in p for p in requests) == 2  # the default protocol's two replies only
    targeting = [p for p in requests if "asks a question that targets" in p and "Questions that may count" not in p]
    assert targeting and all("## Conversation so far" not in p for p in targeting)  # the latest message alone, no pre-screen


class ThreeInOne(FakeUserModel):
    """A gullible user model (every open requirement targeted by the first question) and a react agent that asks
    one question covering three requirements, then says it is done."""

    def __init__(self) -> None:
        super().__init__(gullible=True)

    def __call__(self, body: dict[str, Any]) -> Reply:
        if body["model"].startswith("stub-"):
            return super().__call__(body)
        last = body["messages"][-1]
        return text_reply(THREE_IN_ONE if last["role"] == "user" and "summarise" in str(last["content"]) else "Done.")


def test_a_question_covering_three_intents_is_inferred_by_the_judge_alone(mini_copy: Path, tmp_path: Path) -> None:
    root = three_intents(mini_copy)
    with StubServer(ThreeInOne()) as server:
        pi = episode(root, "openai:agent", "pibench", server, tmp_path / "p.db", "--sessions", "a1")
        default = episode(root, "openai:agent", "pbench", server, tmp_path / "d.db", "--sessions", "a1")
    (session,) = pi["sessions"]
    assert (session["inferred"], session["provided"], session["proc"], session["turns"]) == (3, 0, 1.0, 2)
    labels = events(tmp_path / "p.db", pi["run_id"])
    assert {e.intent_id for e in labels} == {"units", "mean", "count"} and all(THREE_IN_ONE in e.evidence for e in labels)
    (answer,) = user_messages(tmp_path / "p.db", pi["run_id"])
    assert answer.splitlines() == ["Values are reported in mg/L.", "The summary states the mean value.", COUNT_INTENT["text"]]
    (session,) = default["sessions"]
    assert (session["inferred"], session["provided"]) == (0, 3)  # pbench's cap: one question claimed by three targets none


def test_a_menu_question_gets_what_the_release_s_user_gives_it(tmp_path: Path) -> None:
    """The adversary check: the laundry list earns every intent its judge finds targeted under pibench (the paper's
    behaviour, docs/pibench-protocol.md), nothing under the default protocol's screen."""
    with StubServer(FakeUserModel(gullible=True)) as server:
        pi = episode(MINI, "scripted:shotgun", "pibench", server, tmp_path / "p.db", "--sessions", "a1")
        default = episode(MINI, "scripted:shotgun", "pbench", server, tmp_path / "d.db", "--sessions", "a1")
    assert (pi["sessions"][0]["inferred"], pi["sessions"][0]["proc"]) == (2, 1.0)
    assert (default["sessions"][0]["inferred"], default["sessions"][0]["proc"]) == (0, 0.0)


def test_the_pibench_protocol_keeps_the_release_s_turn_cap(tmp_path: Path) -> None:
    common = ["--data", str(MINI), "--persona", "mini", "--model", "scripted:passive", "--db", str(tmp_path / "r.db"), "--user", "llm"]
    models = ["--user-model", "openai:u", "--judge-model", "openai:j", "--protocol", "pibench"]
    out = run_cli("episode", *common, *models, "--max-turns", "10")
    assert out.exit_code == 2 and "plays at most 30 agent turns a session" in out.output
    assert protocol_problem("pibench", "llm", "openai:j", 30) is None and protocol_problem("pbench", "rules", None, 10) is None


# --------------------------------------------------------------------------- the rules user, offline


class Asker:
    """An agent that asks one question at its first turn, then answers "ok"."""

    def __init__(self, question: str) -> None:
        self.question, self.turn = question, 0

    def start_session(self, ctx: SessionContext) -> None:
        self.turn = 0

    def respond(self, message: str) -> AgentTurn:
        self.turn += 1
        return AgentTurn(self.question if self.turn == 1 else "ok")

    def end_session(self) -> None: ...


def play(root: Path, tmp_path: Path, agent: object, protocol: str, sessions: list[str], name: str) -> Any:
    """Run ``sessions`` in process with the rules user; the protocol's settings are stored only (no model is called)."""
    loaded = load_episode(root, "mini")
    store = Store(tmp_path / f"{name}.db")
    needs = {"user": "llm", "user_model": "openai:unused", "judge_model": "openai:unused"} if protocol == "pibench" else {}
    spec = RunSpec(persona="mini", model="test", data_root=str(root), protocol=protocol, **needs)  # type: ignore[arg-type]
    run = start_run(store, loaded, spec, tmp_path / name)
    user = RulesUser(pibench=protocol == "pibench")
    wiring = EpisodeRun(store, run, loaded, Participants(agent, user), CallLedger(run.id))  # type: ignore[arg-type]
    return asyncio.run(run_episode(wiring, [s for s in loaded.sessions if s.id in sessions]))


def test_the_rules_user_follows_the_release_offline(mini_copy: Path, tmp_path: Path) -> None:
    """Any question matching a cue targets its intent: no cap, so one question earns three; the default caps it."""
    root = three_intents(mini_copy)
    pi = play(root, tmp_path, Asker(THREE_IN_ONE), "pibench", ["a1"], "p")
    default = play(root, tmp_path, Asker(THREE_IN_ONE), "pbench", ["a1"], "d")
    assert (pi.sessions[0].counts.inferred, pi.sessions[0].counts.provided) == (3, 0)
    assert (default.sessions[0].counts.inferred, default.sessions[0].counts.provided) == (0, 3)


def test_the_rules_user_credits_a_generic_framed_question_that_names_the_intent(mini_copy: Path, tmp_path: Path) -> None:
    """pbench's screen sets "Anything else, e.g. the mean?"-style open frames and menus aside; the release's user does not."""
    menu = "Anything else, like the mean, a forecast, a purchase order, a reminder, a budget or your template?"
    pi = play(MINI, tmp_path, Asker(menu), "pibench", ["a1"], "p")
    default = play(MINI, tmp_path, Asker(menu), "pbench", ["a1"], "d")
    assert pi.sessions[0].counts.inferred == 1 and default.sessions[0].counts.inferred == 0


def many_intents(root: Path, n: int) -> Path:
    """a3 with ``n`` annotated intents, so that a passive agent reaches the turn cap."""

    def rewrite(d: dict[str, Any]) -> None:
        d["intents"] = [
            {
                "id": f"r{k:02d}",
                "text": f"Rule {k} applies.",
                "reveal": f"Apply rule {k}.",
                "question": f"Should rule {k} apply?",
                "ask": [f"\\brule {k}\\b"],
                "evidence": {"file_matches": {"path": f"out/r{k}.txt", "pattern": "x"}},
            }
            for k in range(1, n + 1)
        ]
        for item in d["checklist"] + d["reference"]:
            item.pop("intent", None)
            item.pop("requires", None)

    edit_yaml(root / A3, rewrite)
    return root


class Passive:
    def start_session(self, ctx: SessionContext) -> None: ...

    def respond(self, message: str) -> AgentTurn:
        return AgentTurn("ok")

    def end_session(self) -> None: ...


def test_at_the_30_turn_cap_the_last_turn_s_labels_count_under_pibench(mini_copy: Path, tmp_path: Path) -> None:
    """The release's user judges the 30th reply too; pbench's default keeps only that turn's completions."""
    root = many_intents(mini_copy, 32)
    assert len(yaml.safe_load((root / A3).read_text())["intents"]) == 32
    pi = play(root, tmp_path, Passive(), "pibench", ["a3"], "p")
    default = play(root, tmp_path, Passive(), "pbench", ["a3"], "d")
    (p,), (d,) = pi.sessions, default.sessions
    assert (p.status, p.turns, p.counts.provided, p.counts.unresolved) == ("truncated", 30, 30, 2)
    assert (d.status, d.turns, d.counts.provided, d.counts.unresolved) == ("truncated", 30, 29, 3)


# --------------------------------------------------------------------------- errored sessions


class WritesThenCrashes:
    """Writes a summary with the mean (not the units) at its first turn, then its model server goes away."""

    def __init__(self) -> None:
        self.tools: Any = None
        self.turn = 0

    def start_session(self, ctx: SessionContext) -> None:
        self.tools, self.turn = ctx.tools, 0

    def respond(self, message: str) -> AgentTurn:
        self.turn += 1
        if self.turn > 1:
            raise ConnectionError("model server unreachable")
        self.tools.call("write_file", {"path": "out/summary.md", "content": "# Batch summary\n\nThe mean is 4.65.\n"})
        return AgentTurn("Written.")

    def end_session(self) -> None: ...


def test_an_errored_session_is_scored_on_its_partial_trace_under_pibench_and_0_by_default(tmp_path: Path) -> None:
    pi = play(MINI, tmp_path, WritesThenCrashes(), "pibench", ["a1"], "p")
    default = play(MINI, tmp_path, WritesThenCrashes(), "pbench", ["a1"], "d")
    (p,), (d,) = pi.sessions, default.sessions
    assert p.status == d.status == "error" and p.turns == d.turns == 2
    assert (p.counts.completed, p.counts.provided) == (1, 1)  # the mean met at turn 1, the units provided
    # pibench: the partial trace graded as is (the title and the mean pass; the rubric item has no judge here)
    assert {g.item_id: g.status for g in p.grades} == {"c1": "pass", "c2": "pass", "c3": "ungraded"}
    assert (p.proc, p.scored_comp, pi.proc, pi.comp) == (0.5, 1.0, 0.5, 1.0)
    # default: every intent not proactive, Comp 0, nothing graded
    assert d.grades == [] and (d.proc, d.scored_comp, default.proc, default.comp) == (0.0, 0.0, 0.0, 0.0)
    assert pi.failures.error == default.failures.error == 1  # counted beside the figures either way
    for name, result, expected in (("p", pi, 1.0), ("d", default, 0.0)):  # read back, each run scored by its own protocol
        store = Store(tmp_path / f"{name}.db")
        run = store.run(result.run_id)
        assert run is not None and stored_run_result(store, run).comp == expected


def test_with_the_llm_user_failing_the_errored_session_s_trace_is_judged_under_pibench(tmp_path: Path) -> None:
    """The user's model fails after the agent wrote the summary: pibench grades what is there (rules and judge), the
    default scores 0."""
    fake = FakeUserModel(drop_findings=True)

    def respond(body: dict[str, Any]) -> Reply:
        return fake(body) if body["model"].startswith("stub-") else agent_model(body)

    with StubServer(respond) as server:
        pi = episode(MINI, "openai:agent", "pibench", server, tmp_path / "p.db", "--sessions", "a1")
        default = episode(MINI, "openai:agent", "pbench", server, tmp_path / "d.db", "--sessions", "a1")
    (p,), (d,) = pi["sessions"], default["sessions"]
    assert p["status"] == d["status"] == "error" and "no valid answer" in p["error"]
    assert p["comp"] == 1.0 and p["comp_basis"]["graded_items"] == 3 and "rubric" in p["comp_basis"]["graders"]
    assert d["comp"] == 0.0 and d["comp_basis"]["graded_items"] == 0
    assert pi["comp"] == 1.0 and default["comp"] == 0.0
