"""Reference solutions go only to pbench's own baselines (issue 34, item 5).

A session's reference (``SessionContext.reference``: intents, ask cues, questions,
reveals, the steps) reaches an agent only when pbench granted its ``--model`` name
(the catalog's scripted baselines; tests/conftest.py's test oracles). An agent from a
file, a module or an entry point that claims it is refused at load; one that gets
round the claim gets nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proactive_bench.scaffolds import ADVERSARY_MODES, ORACLES, SCAFFOLDS, grants_reference
from proactive_bench.scaffolds.scripted import ScriptedAgent
from tests.helpers.cli import run_cli, run_episode_json
from tests.helpers.paths import DATA, MINI

AGENTS = '''
from pathlib import Path

from proactive_bench.scaffolds import AgentTurn
from proactive_bench.scaffolds.scripted import ScriptedAgent

LOG = Path(__file__).with_suffix(".log")


class Asker:
    """Asks each intent's own question, read from the session's reference when it has one."""

    def start_session(self, ctx):
        self.ctx = ctx

    def respond(self, message):
        if self.ctx.reference is None:
            return AgentTurn("Done.")
        return AgentTurn(" ".join(i.question for i in self.ctx.reference.intents))

    def end_session(self):
        pass


class Claimer(Asker):
    uses_reference_solution = True


class Dodger(Asker):
    """Declares nothing a loader can see: answers the claim only when asked at run time, and logs what it was given."""

    def __getattr__(self, name):
        if name == "uses_reference_solution":
            return True
        raise AttributeError(name)

    def start_session(self, ctx):
        with LOG.open("a") as log:
            log.write(f"{ctx.session_id} {ctx.reference is not None}\\n")
        super().start_session(ctx)


class Borrower(ScriptedAgent):
    """pbench's own reference replayer, loaded from a file."""

    def __init__(self):
        super().__init__("reference")
'''


def _agents(tmp_path: Path) -> Path:
    path = tmp_path / "agents.py"
    path.write_text(AGENTS)
    return path


def test_a_file_agent_claiming_the_reference_is_refused_in_one_line(tmp_path: Path) -> None:
    spec = f"{_agents(tmp_path)}:Claimer"
    for command in (
        ("episode", "--data", str(MINI), "--persona", "mini"),
        ("episode", "--suite", "trainee", "--task", "s3-n3"),  # through the sweep's checks
        ("sweep", "--data", str(MINI)),
    ):
        result = run_cli(*command, "--agent", spec, "--db", str(tmp_path / "r.db"))
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert lines == [
            f"error: scaffold '{spec}' declares uses_reference_solution: reference solutions go only to pbench's own scripted "
            "baselines; remove the attribute (an agent under test finds out what the user wants by working and asking)"
        ], result.output
        assert "Traceback" not in result.output
    assert not (tmp_path / "r.db").exists()  # refused before any row is written


def test_an_agent_pbench_did_not_grant_sees_no_reference(tmp_path: Path) -> None:
    """Whatever its attribute answers at run time, a file agent's context carries no reference: it cannot ask each intent's question."""
    agents = _agents(tmp_path)
    out = run_episode_json("--data", str(MINI), "--persona", "mini", "--model", f"{agents}:Dodger", "--db", str(tmp_path / "r.db"))
    assert agents.with_suffix(".log").read_text().split("\n")[:-1] == [f"{s['session_id']} False" for s in out["sessions"]]
    assert out["proc"] == 0.0 and sum(s["inferred"] for s in out["sessions"]) == 0


def test_pbench_own_replayer_loaded_from_a_file_gets_no_reference(tmp_path: Path) -> None:
    result = run_cli(
        "episode",
        "--json",
        "--data",
        str(MINI),
        "--persona",
        "mini",
        "--model",
        f"{_agents(tmp_path)}:Borrower",
        "--db",
        str(tmp_path / "r.db"),
    )
    assert result.exit_code == 1, result.output  # every session errored
    out = json.loads(result.stdout)
    assert out["proc"] == 0.0 and {s["status"] for s in out["sessions"]} == {"error"}
    assert "scripted baselines need the session's reference solution in the context" in out["sessions"][0]["error"]


def test_the_grant_is_pbench_s_not_an_attribute() -> None:
    scripted = {n for n in SCAFFOLDS.names() if n.startswith("scripted:")}
    assert (
        set(ORACLES)
        == scripted
        >= {f"scripted:{m}" for m in ("reference", "passive", "asker", "surface", "guess", "canvass", *ADVERSARY_MODES)}
    )
    assert all(grants_reference(n) for n in ORACLES) and not grants_reference("react")
    assert not hasattr(ScriptedAgent, "uses_reference_solution")


@pytest.mark.usefixtures("admitted_pharmacist")  # the subject is the grant, not the data's checks
def test_scripted_reference_still_scores_full_marks_on_the_pharmacist(tmp_path: Path) -> None:
    out = run_episode_json(
        "--data", str(DATA), "--persona", "pharmacist", "--model", "scripted:reference", "--user", "rules", "--db", str(tmp_path / "r.db")
    )
    assert (out["proc"], out["comp"]) == (1.0, 1.0)
