"""The pytest plugin, run as a user runs it: pytest in a subprocess on a test file with the ``pbench`` marker
(``pytester``), the agent's model a stub server on 127.0.0.1 whose requests are counted."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from proactive_bench.testing.stub_server import Reply, StubServer, text_reply
from tests.helpers.paths import MINI, REPO
from tests.helpers.stub_models import FakeUserModel, agent_model

pytest_plugins = ["pytester"]

PLUGIN = "proactive_bench.pytest_plugin.plugin"


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytester whose runs load the plugin by its module (autoload off: the same whether or not pbench's entry point is installed)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """pytest in a subprocess, as a user runs it (an agent file edited between runs is read again)."""
    return pytester.runpytest_subprocess("-p", PLUGIN, "-p", "no:cacheprovider", *args, timeout=300)


@pytest.fixture
def stub() -> Iterator[StubServer]:
    """The agent's model (a react agent that writes the summary), the LLM user's and the judge's, on one server."""
    user_and_judge = FakeUserModel()

    def respond(body: dict[str, Any]) -> Reply:
        return user_and_judge(body) if body["model"].startswith("stub-") else agent_model(body)

    with StubServer(respond) as server:
        yield server


def chat_requests(server: StubServer) -> int:
    return len(server.requests)


def test_thresholds_pass_and_fail_as_the_marker_says(inner: pytest.Pytester) -> None:
    inner.makepyfile(
        test_agent=f"""
        import pytest

        MINI = {str(MINI)!r}

        @pytest.mark.pbench(persona="mini", data=MINI, sessions="1-2", agent="scripted:asker", min_proc=0.5, min_comp=0.0)
        def test_asker_meets_its_marks(pbench_episode):
            assert pbench_episode.proc >= 0.5

        @pytest.mark.pbench("mini", data=MINI, sessions="1-2", agent="scripted:passive", min_proc=0.5)
        def test_passive_misses_proc():
            pass

        @pytest.mark.pbench("mini", data=MINI, sessions="1-2", agent="scripted:passive", min_proc=0.0)
        def test_passive_at_zero(pbench_episode):
            assert pbench_episode.proc == 0.0
        """
    )
    result = run(inner)
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    failure = out[out.index("test_passive_misses_proc") :]
    assert re.search(r"Proc 0\.000 < min_proc 0\.5", failure)
    assert "intents the user had to provide (not completed or inferred):" in failure
    run_id = re.search(r"run ([0-9a-f]+): pbench results \1 --db \.pbench/pytest\.db", failure)
    assert run_id is not None, failure
    stored = stored_provided(run_id.group(1), inner.path / ".pbench" / "pytest.db")
    assert stored["proc"] == 0.0
    for session_id, provided in stored["sessions"]:  # every provided intent of the stored run is named in the failure, under its session
        assert provided
        assert f"  {session_id}: {', '.join(provided)}\n" in failure
    assert "Traceback" not in failure and "def test_passive_misses_proc" not in failure


def summary(result: pytest.RunResult) -> tuple[int, int]:
    """The plugin's summary line: (answers from the models, answers served from the record)."""
    found = re.search(
        r"pbench: 1 episode\(s\) in \.pbench/pytest\.db: (\d+) answer\(s\) from the models, (\d+) served from the record",
        result.stdout.str(),
    )
    assert found is not None, result.stdout.str()
    return int(found.group(1)), int(found.group(2))


def stored_provided(run_id: str, db: Path) -> dict[str, Any]:
    """A stored run's Proc and each session's provided intents, read by ``load_results`` in a child process (read here,
    pbench's modules would be dropped with pytester's snapshot of ``sys.modules`` and loaded twice by later tests)."""
    probe = (
        f"import json, proactive_bench as pb; (r,) = pb.load_results({run_id!r}, db={str(db)!r}); "
        "print(json.dumps({'proc': r.proc, 'sessions': [[s.session_id, list(s.provided_intents)] for s in r.sessions]}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(REPO)}
    )
    return json.loads(out.stdout)


def react_test_file(base_url: str, **marks: Any) -> str:
    extra = "".join(f", {k}={v!r}" for k, v in marks.items())
    return f"""
        import pytest

        @pytest.mark.pbench(persona="mini", data={str(MINI)!r}, model="openai:agent", base_url={base_url!r}{extra})
        def test_react(pbench_episode):
            print("SCORES", pbench_episode.proc, pbench_episode.comp, [(s.session_id, s.turns) for s in pbench_episode.sessions])
        """


def test_a_second_run_makes_no_model_call_and_refresh_makes_them_again(inner: pytest.Pytester, stub: StubServer) -> None:
    inner.makepyfile(
        test_react=react_test_file(
            stub.base_url, user="llm", user_model="openai:stub-user", judge_model="openai:stub-judge", min_proc=0.3, min_comp=0.3
        )
    )
    first = run(inner, "-s")
    first.assert_outcomes(passed=1)
    made = chat_requests(stub)
    assert {body["model"] for body in stub.requests} == {"agent", "stub-user", "stub-judge"}  # every role's calls
    answered = summary(first)
    assert answered[1] == 0 and 0 < answered[0] <= made  # the requests beyond the answers: the user's and judge's server probe

    second = run(inner, "-s")
    second.assert_outcomes(passed=1)
    assert chat_requests(stub) == made, "the unchanged test called the model again"
    assert summary(second) == (0, answered[0])
    scores = [re.search(r"SCORES .*", r.stdout.str()) for r in (first, second)]
    assert scores[0] is not None and scores[1] is not None and scores[0].group(0) == scores[1].group(0)

    refreshed = run(inner, "--pbench-refresh")
    refreshed.assert_outcomes(passed=1)
    assert chat_requests(stub) >= made + answered[0]  # every answer asked again (the probe's results are kept)
    assert summary(refreshed) == (answered[0], 0)
    after_refresh = chat_requests(stub)
    third = run(inner)
    third.assert_outcomes(passed=1)
    assert chat_requests(stub) == after_refresh and summary(third) == (0, answered[0])
    runs = json.loads((inner.path / ".pbench" / "pytest-runs.json").read_text())
    assert list(runs) == ["test_react.py::test_react"]  # one run kept per test: the older ones are deleted


AGENT = '''
import proactive_bench as pb
from langchain_core.messages import HumanMessage, SystemMessage

PROMPT = {prompt!r}


class Agent:
    """Sends its prompt and the user's messages to its model; replies with the model's answer."""

    def __init__(self, options):
        settings = pb.ChatSettings(base_url=options.base_url, api_key=options.api_key, cache=options.cache, transport=options.transport)
        self.model = pb.make_chat_model(options.model, settings)

    def start_session(self, ctx):
        self.messages = [SystemMessage(PROMPT)]

    def end_session(self):
        self.messages = []

    async def respond(self, message):
        self.messages.append(HumanMessage(message))
        answer = await self.model.ainvoke(self.messages)
        self.messages.append(answer)
        return pb.AgentTurn(reply=str(answer.text))
'''


def echo_prompt(body: dict[str, Any]) -> Reply:
    """The model's answer repeats the agent's system prompt: a stale answer shows the old prompt."""
    return text_reply(f"echo: {body['messages'][0]['content']}")


def test_a_changed_agent_is_not_served_the_old_answers(inner: pytest.Pytester) -> None:
    """The recorded answers are keyed by the model's settings and the messages: an agent whose prompt changed misses
    them and calls the model; the record is per test, not a name's stale answer."""
    with StubServer(echo_prompt) as server:
        inner.makepyfile(
            my_agent=AGENT.format(prompt="You are version one."),
            test_mine=f"""
            import pytest

            @pytest.mark.pbench(persona="mini", data={str(MINI)!r}, sessions="1", agent="my_agent.py:Agent", model="openai:m", base_url={server.base_url!r})
            def test_mine(pbench_episode):
                print("REPLIES", [m["content"] for s in pbench_episode.sessions for m in s.transcript if m["role"] == "agent"])
            """,
        )
        run(inner, "-s").assert_outcomes(passed=1)
        made = chat_requests(server)
        unchanged = run(inner, "-s")
        unchanged.assert_outcomes(passed=1)
        assert chat_requests(server) == made
        assert summary(unchanged) == (0, made)  # counted without ledger rows, which this agent does not write
        inner.makepyfile(my_agent=AGENT.format(prompt="You are version two."))
        changed = run(inner, "-s")
        changed.assert_outcomes(passed=1)
        assert chat_requests(server) > made, "the changed agent was served the old answers"
        replies = changed.stdout.str()[changed.stdout.str().index("REPLIES") :].splitlines()[0]
        assert "version two" in replies and "version one" not in replies
        assert summary(changed) == (chat_requests(server) - made, 0)


BAD_MARKERS = [
    ('persona="mini", min_proc=1.5', "min_proc must be a number from 0 to 1, not 1.5"),
    ('persona="mini", agent="scripted:passive", min_prok=0.5', "unknown argument(s) min_prok"),
    ('agent="scripted:passive"', "give persona (e.g. 'pharmacist') or task"),
    ('persona="mini", agent="scripted:passive", db="x.db"', "db is set by the plugin"),
    ('persona="mini", agent="scripted:passive", sessions="9"', "sessions: '9' is not a session id, a position in 1-3"),
    ('persona="mini", agent="nosuch_agent_file.py:Agent"', "nosuch_agent_file.py"),
    ('persona="nosuch", agent="scripted:passive"', "nosuch"),
]


def test_a_marker_that_cannot_run_errors_in_one_line(inner: pytest.Pytester) -> None:
    tests = "".join(
        f"\n@pytest.mark.pbench({marker}, data={str(MINI)!r})\ndef test_bad_{i}():\n    pass\n" for i, (marker, _) in enumerate(BAD_MARKERS)
    )
    inner.makepyfile(test_bad="import pytest\n" + tests + "\ndef test_unmarked(pbench_episode):\n    pass\n")
    result = run(inner, "-p", "no:warnings")
    result.assert_outcomes(errors=len(BAD_MARKERS) + 1)
    out = result.stdout.str()
    parts = re.split(r"_+ ERROR at setup of (\w+) _+", out)
    errors = dict(zip(parts[1::2], parts[2::2], strict=True))
    for i, (_, message) in enumerate(BAD_MARKERS):
        assert message in errors[f"test_bad_{i}"], (i, errors[f"test_bad_{i}"])
    assert "mark the test with @pytest.mark.pbench(" in errors["test_unmarked"]
    assert "Traceback" not in out and "site-packages" not in out and "run_gate(" not in out


def test_pbench_db_puts_the_runs_where_it_says(inner: pytest.Pytester) -> None:
    inner.makepyfile(
        test_db=f"""
        import pytest

        @pytest.mark.pbench(persona="mini", data={str(MINI)!r}, sessions="1", agent="scripted:passive")
        def test_db(pbench_episode):
            pass
        """
    )
    run(inner, "--pbench-db", "elsewhere/runs.db").assert_outcomes(passed=1)
    assert (inner.path / "elsewhere" / "runs.db").is_file() and (inner.path / "elsewhere" / "pytest-runs.json").is_file()
    assert not (inner.path / ".pbench").exists()


def test_the_entry_point_names_the_plugin_module() -> None:
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"]["pytest11"]
    assert declared == {"pbench": PLUGIN}
    installed = [ep for ep in metadata.entry_points(group="pytest11") if ep.name == "pbench"]
    assert all(ep.value == PLUGIN for ep in installed)  # an install made before the plugin existed has none


def test_loading_the_plugin_loads_none_of_pbench() -> None:
    """pytest loads the plugin in every session where pbench is installed: it must cost nothing there."""
    probe = f"import sys, {PLUGIN}; print(sorted(m for m in ('sqlalchemy', 'langchain_core', 'proactive_bench.api', 'proactive_bench.store') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env={"PYTHONPATH": str(REPO)})
    assert out.stdout.strip() == "[]"


def test_the_docs_example_workflow_is_the_shipped_one() -> None:
    shipped = (REPO / "examples" / "ci" / "pbench-gate.yml").read_text()
    assert shipped in (REPO / "docs" / "pytest.md").read_text()
    assert "--pbench-db" in shipped and "actions/cache" in shipped
