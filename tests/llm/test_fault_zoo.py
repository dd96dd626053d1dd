"""Issue 16: a full pharmacist session on servers with real-world quirks (react agent, LLM user and judge, real HTTP on loopback).

Each quirk of :mod:`proactive_bench.testing.stub_zoo` must leave every intent terminal
(or the session recorded as ``error`` where nothing could be done), use the
structured-output method that server supports, record every retried
attempt, and print no traceback.
"""

from __future__ import annotations

import json
from collections import Counter
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest

from proactive_bench.store import LLMCall, Store
from proactive_bench.testing.stub_server import StubServer, prompt_text
from proactive_bench.testing.stub_zoo import plausible_model, prompt_tokens, with_quirk
from tests.helpers.admitted import admit_unchanged
from tests.helpers.cli import run_cli
from tests.helpers.paths import DATA

SESSION = "1"
pytestmark = pytest.mark.usefixtures("admitted_pharmacist")  # the zoo is about servers, not the data's checks at the door


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """The transport's backoff shortened (its bounds, not its waits, are under test)."""
    monkeypatch.setattr("proactive_bench.llm.transport.FIRST_BACKOFF_S", 0.001)


SENT: list[dict[str, Any]] = []
"""The requests of the last :func:`run_on`."""


def run_on(
    quirk: str,
    tmp_path: Path,
    *extra: str,
    model: str = "openai:zoo-agent",
    sessions: str = SESSION,
    server: StubServer | None = None,
    **quirk_options: Any,
) -> tuple[Any, dict[str, Any], list[LLMCall]]:
    """A pharmacist episode on a zoo server (``server``, else a new one with ``quirk``); the requests it got are left in SENT."""
    db = tmp_path / "zoo.db"
    with nullcontext(server) if server else StubServer(with_quirk(plausible_model, quirk, retry_after="0", **quirk_options)) as stub:
        before = len(stub.requests)
        result = run_cli(
            "episode",
            "--json",
            "--data",
            str(DATA),
            "--persona",
            "pharmacist",
            "--model",
            model,
            "--sessions",
            sessions,
            "--user",
            "llm",
            "--user-model",
            "openai:zoo-user",
            "--judge-model",
            "openai:zoo-judge",
            "--base-url",
            stub.base_url,
            "--db",
            str(db),
            *extra,
        )
        SENT[:] = stub.requests[before:]
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    out = json.loads(result.stdout)
    store = Store(db)
    calls = [row for srun in store.session_runs(out["run_id"]) for row in store.rows(LLMCall, srun.id)]
    return result, out, calls


def assert_every_intent_terminal(out: dict[str, Any]) -> None:
    for session in out["sessions"]:
        assert session["status"] == "completed", session
        assert session["completed"] + session["inferred"] + session["provided"] == session["intents"], session


def methods_that_worked(calls: list[LLMCall], role: str) -> set[str]:
    return {c.method for c in calls if c.role == role and c.ok and c.purpose != "reply"}


@pytest.mark.parametrize(
    ("quirk", "method"),
    [
        ("none", "json_schema"),
        ("reject-format-500", "function_calling"),
        ("reject-format-400", "function_calling"),
        ("reject-format-422", "function_calling"),
        ("ignore-format", "function_calling"),
        ("tool-calls-as-text", "function_calling"),
    ],
)
def test_structured_output_settles_on_the_method_the_server_supports(quirk: str, method: str, tmp_path: Path) -> None:
    _, out, calls = run_on(quirk, tmp_path)
    assert_every_intent_terminal(out)
    assert methods_that_worked(calls, "user") == methods_that_worked(calls, "judge") == {method}
    # json_schema is abandoned on the first decision (of each of the user's two concurrent stages, of the judge's
    # first concurrent items), not tried again on every decision
    refused = Counter(c.role for c in calls if not c.ok and c.method == "json_schema")
    assert refused["user"] <= 4 and refused["judge"] <= 2 * 4
    assert sum(1 for c in calls if c.role == "user" and c.ok) > 2 * refused["user"]
    agent = [c for c in calls if c.role == "agent"]
    assert agent and all(c.ok for c in agent)


def test_tool_calls_written_as_text_are_run_by_the_agent(tmp_path: Path) -> None:
    _, out, calls = run_on("tool-calls-as-text", tmp_path)
    db = Store(tmp_path / "zoo.db")
    from proactive_bench.store import ToolCallRow

    tools = [row.tool_name for srun in db.session_runs(out["run_id"]) for row in db.rows(ToolCallRow, srun.id)]
    assert "list_dir" in tools


@pytest.mark.parametrize("quirk", ["rate-limit", "drop-connection", "non-json-body", "truncated-body"])
def test_intermittent_transport_faults_are_retried_and_every_retry_recorded(quirk: str, tmp_path: Path) -> None:
    _, out, calls = run_on(quirk, tmp_path)
    assert_every_intent_terminal(out)
    retries = [c for c in calls if not c.ok]
    assert retries and all((c.error or "").startswith("transport retry") for c in retries)
    assert {c.role for c in retries} >= {"agent", "user"}
    assert methods_that_worked(calls, "user") == {"json_schema"}


def test_the_acceptance_run_uses_function_calling_on_a_500_rejecting_server(tmp_path: Path) -> None:
    """The issue's command: scripted reference agent, LLM user and judge, a server refusing response_format with 500."""
    _, out, calls = run_on("reject-format-500", tmp_path, model="scripted:reference", sessions="1-3")
    assert len(out["sessions"]) == 3
    assert_every_intent_terminal(out)
    assert methods_that_worked(calls, "user") == methods_that_worked(calls, "judge") == {"function_calling"}
    assert [c.method for c in calls if not c.ok] == ["json_schema"] * len([c for c in calls if not c.ok])


def test_a_model_that_never_stops_is_capped_per_role_and_the_cut_recorded(tmp_path: Path) -> None:
    _, out, calls = run_on("never-stops", tmp_path, "--max-tokens", "agent=300", "--max-tokens", "judge=200")
    assert_every_intent_terminal(out)
    caps = Counter((prompt_role(body), body.get("max_tokens"), body.get("max_completion_tokens")) for body in SENT if not is_probe(body))
    assert {(role, cap or completion_cap) for role, cap, completion_cap in caps} == {
        ("agent", 300),
        ("user_judgement", 2048),
        ("user_reply", 512),
        ("judge", 200),
    }
    assert all((cap is None) != (completion_cap is None) for _, cap, completion_cap in caps)  # one field, never both
    cut = [c for c in calls if c.ok and c.error == "cut at the max_tokens cap"]
    assert {(c.role, c.purpose) for c in cut} >= {("agent", "react_step"), ("user", "reply")}
    assert methods_that_worked(calls, "judge") == {"function_calling"}  # the probe saw JSON answers run on: tool calls end
    assert max(c.completion_tokens or 0 for c in calls) <= 2048


def is_probe(body: dict[str, Any]) -> bool:
    text = prompt_text(body)
    return any(
        marker in text
        for marker in ("capital of France", "single word: ready", "weather in Paris", "What colour is this square", "Count from 1 to 100")
    )


def prompt_role(body: dict[str, Any]) -> str:
    text = prompt_text(body)
    if "grading an AI assistant" in text:
        return "judge"
    if "role-playing the user" in text:
        return "user_reply"
    return "user_judgement" if "Open requirements" in text else "agent"


def test_caps_and_call_timeout_flags_are_checked_and_stored(tmp_path: Path) -> None:
    bad = run_cli(
        "episode",
        "--persona",
        "pharmacist",
        "--data",
        str(DATA),
        "--model",
        "scripted:reference",
        "--db",
        str(tmp_path / "r.db"),
        "--max-tokens",
        "critic=5",
    )
    assert bad.exit_code == 2 and "expected ROLE=N with ROLE one of agent, user_reply, user_judgement, judge" in bad.output
    assert "Traceback" not in bad.output
    good = run_cli(
        "episode",
        "--json",
        "--persona",
        "pharmacist",
        "--data",
        str(DATA),
        "--model",
        "scripted:reference",
        "--sessions",
        "1",
        "--db",
        str(tmp_path / "r.db"),
        "--max-tokens",
        "judge=64",
        "--call-timeout",
        "9",
    )
    assert good.exit_code == 0, good.output
    from proactive_bench.episode.launch import run_spec

    spec = run_spec(Store(tmp_path / "r.db").run(json.loads(good.stdout)["run_id"]))
    assert (spec.max_tokens.judge, spec.max_tokens.agent, spec.call_timeout) == (64, 4096, 9.0)


def test_a_run_probes_each_server_once_starts_with_what_works_and_later_runs_reuse_it(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Probed first, the 500-rejecting server never sees json_schema during decisions; the next run on the database does not probe."""
    with StubServer(with_quirk(plausible_model, "reject-format-500")) as server:
        _, out, calls = run_on("", tmp_path, server=server)
        assert_every_intent_terminal(out)
        assert (
            len([b for b in SENT if is_probe(b)]) == 2 * 7
        )  # seven capabilities (vision and max_completion_tokens among them), once for each model name on the server
        assert not [c for c in calls if not c.ok] and methods_that_worked(calls, "user") == {"function_calling"}
        _, again, _ = run_on("", tmp_path, server=server)
        assert again["run_id"] != out["run_id"] and not [b for b in SENT if is_probe(b)]
    from proactive_bench.episode.launch import run_spec

    methods = run_spec(Store(tmp_path / "zoo.db").run(out["run_id"])).structured_methods  # type: ignore[arg-type]
    assert methods == {"user": ["function_calling", "prompt"], "judge": ["function_calling", "prompt"]}
    admit_unchanged(tmp_path / "fresh", DATA, ["pharmacist"], tmp_path_factory)
    _, _, calls = run_on("reject-format-500", tmp_path / "fresh", "--no-probe")
    assert not [b for b in SENT if is_probe(b)] and any(c.method == "json_schema" and not c.ok for c in calls)


def test_prompts_over_a_small_context_are_trimmed_and_asked_again(tmp_path: Path) -> None:
    """A server with a 2,000-token window (the zoo agent's prompts reach about 2,700): the context-length error teaches
    the agent the window, it is asked again with its history trimmed oldest-first, and trims before every later call.
    (Clipping the user's and judge's evidence: tests/llm/test_structured.py.)"""
    _, out, calls = run_on("small-context", tmp_path, context_tokens=2000)
    assert_every_intent_terminal(out)
    refused = [c for c in calls if not c.ok]
    assert [(c.role, (c.error or "").split(":")[0]) for c in refused] == [("agent", "context length")]  # learnt once
    assert [c for c in calls if c.ok and "history trimmed to fit 2000 tokens" in (c.error or "")]
    later = SENT[SENT.index(next(b for b in SENT if prompt_tokens(b) > 2000)) + 1 :]
    assert later and all(prompt_tokens(b) <= 2000 for b in later)
    assert any("removed to fit the model's context window" in prompt_text(b) for b in later)


def test_a_known_context_window_trims_before_any_error(tmp_path: Path) -> None:
    _, out, calls = run_on("small-context", tmp_path, "--context-tokens", "2000", context_tokens=2000)
    assert_every_intent_terminal(out)
    assert not [c for c in calls if not c.ok] and [c for c in calls if "history trimmed" in (c.error or "")]
