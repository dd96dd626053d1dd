"""The options ``episode`` and ``sweep`` share are declared once and reach both commands whole (names, defaults, help, checks)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.main import get_command
from typer.testing import CliRunner

from proactive_bench.cli import app
from proactive_bench.cli.option_groups import with_option_groups
from proactive_bench.cli.options import AgentLimits, CallLimits, ExternalAgentOptions, RoleEndpoints, SuiteChoice
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI

SHARED = [
    f.name for group in (AgentLimits, ExternalAgentOptions, CallLimits, RoleEndpoints, SuiteChoice) for f in dataclasses.fields(group)
]


def _params(command: str) -> dict[str, Any]:
    """The command's parameters as typer builds them, by name."""
    group: Any = get_command(app)
    return {p.name: p for p in group.commands[command].params if p.name}


def _described(param: Any) -> tuple[Any, ...]:
    return (param.opts, param.default, param.help, param.multiple, param.min, param.type_descriptor.annotation)


def test_episode_and_sweep_offer_the_same_shared_options() -> None:
    episode, sweep = _params("episode"), _params("sweep")
    assert {"agent_limits", "external", "limits", "endpoints", "choice"}.isdisjoint(
        episode.keys() | sweep.keys()
    )  # the groups themselves are no options
    for name in SHARED:
        assert _described(episode[name]) == _described(sweep[name]), name
    assert episode["agent_base_url"].opts == ["--agent-base-url"] and episode["max_tokens"].multiple
    assert episode["call_timeout"].min == 0.1
    assert episode["agent_env"].multiple and episode["turn_timeout"].min == 0.1
    play = _params("play")
    for name in ("agent_env", "turn_timeout"):  # play takes the external agents' group too
        assert _described(play[name]) == _described(episode[name]), name


def test_the_groups_keep_the_commands_order_of_options() -> None:
    episode, sweep = list(_params("episode")), list(_params("sweep"))
    assert episode[episode.index("max_turns") : episode.index("data")] == SHARED
    assert sweep[sweep.index("prices") + 1 : sweep.index("db")] == SHARED


def test_a_command_receives_each_group_built_from_its_flags() -> None:
    seen: dict[str, Any] = {}

    @with_option_groups
    def command(*, name: Annotated[str | None, typer.Option()] = None, limits: CallLimits, endpoints: RoleEndpoints) -> None:
        seen.update(name=name, limits=limits, endpoints=endpoints)

    probe_app = typer.Typer()
    probe_app.command()(command)
    probe_app.command("other")(lambda: None)  # two commands: the first is called by name
    result = CliRunner().invoke(
        probe_app,
        [
            "command",
            "--name",
            "x",
            "--max-tokens",
            "judge=64",
            "--max-tokens",
            "agent=128",
            "--judge-base-url",
            "http://127.0.0.1:9/v1",
            "--user-key-env",
            "USER_KEY",
        ],
    )
    assert result.exit_code == 0, result.output
    assert seen["name"] == "x"
    assert seen["limits"] == CallLimits(max_tokens=["judge=64", "agent=128"], call_timeout=None)
    assert seen["limits"].caps() == {"judge": 64, "agent": 128}
    assert seen["endpoints"].base_urls() == {"judge": "http://127.0.0.1:9/v1"} and seen["endpoints"].key_envs() == {"user": "USER_KEY"}


def test_a_bad_shared_option_fails_alike_in_both_commands(tmp_path: Path) -> None:
    for command in (["episode", "--persona", "mini", "--model", "scripted:reference"], ["sweep", "--models", "scripted:reference"]):
        result = run_cli(*command, "--data", str(MINI), "--db", str(tmp_path / f"{command[0]}.db"), "--max-tokens", "nobody=5")
        assert result.exit_code == 2 and "--max-tokens" in result.output, (command, result.output)
        result = run_cli(*command, "--data", str(MINI), "--call-timeout", "0")
        assert result.exit_code == 2, (command, result.output)
