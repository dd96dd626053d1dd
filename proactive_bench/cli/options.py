"""Options that ``pbench episode`` and ``pbench sweep`` share, declared once as option groups (see ``option_groups.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field as dataclass_field, make_dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

import typer
from pydantic.fields import FieldInfo

import proactive_bench.store as store_package  # its engine (SQLAlchemy) loads when a suite's settings name a database, not for --help
from proactive_bench.cli.common import warn
from proactive_bench.episode import DEFAULT_MAX_TURNS
from proactive_bench.llm import ROLES, CallRole, MaxTokens, parse_max_tokens
from proactive_bench.suites import (
    DEFAULT_SUITE,
    SUITES,
    is_swept,
    option_name,
    suite_settings_model,
)

RoleUrlOpt = Annotated[str | None, typer.Option(help="This role's OpenAI-compatible endpoint (default: --base-url).")]
RoleKeyOpt = Annotated[str | None, typer.Option(help="Name of the environment variable (or ./.env entry) holding this role's API key.")]
MaxTokensOpt = Annotated[
    list[str] | None,
    typer.Option(
        help=f"ROLE=N: answer cap of one role's calls, repeatable; roles {', '.join(ROLES)} (defaults {MaxTokens().model_dump()})."
    ),
]
CallTimeoutOpt = Annotated[float | None, typer.Option(min=0.1, help="Seconds one model call may take (default 120).")]


@dataclass(frozen=True)
class CallLimits:
    """``--max-tokens ROLE=N`` (repeatable) and ``--call-timeout``."""

    max_tokens: MaxTokensOpt = None
    call_timeout: CallTimeoutOpt = None

    def caps(self) -> dict[str, int]:
        """The answer caps given, per role; a ValueError naming --max-tokens for a bad one."""
        return parse_max_tokens(self.max_tokens or [])

    def settings(self) -> dict[str, Any]:
        """The run settings given (``max_tokens``, ``call_timeout``); a ValueError naming --max-tokens for a bad cap."""
        return _given(max_tokens=self.caps(), call_timeout=self.call_timeout)


@dataclass(frozen=True)
class RoleEndpoints:
    """``--ROLE-base-url`` and ``--ROLE-key-env`` for the agent, the user and the judge."""

    agent_base_url: RoleUrlOpt = None
    user_base_url: RoleUrlOpt = None
    judge_base_url: RoleUrlOpt = None
    agent_key_env: RoleKeyOpt = None
    user_key_env: RoleKeyOpt = None
    judge_key_env: RoleKeyOpt = None

    def base_urls(self) -> dict[CallRole, str]:
        """The endpoints given, per role."""
        return _per_role({"agent": self.agent_base_url, "user": self.user_base_url, "judge": self.judge_base_url})

    def key_envs(self) -> dict[CallRole, str]:
        """The key variables given, per role."""
        return _per_role({"agent": self.agent_key_env, "user": self.user_key_env, "judge": self.judge_key_env})

    def settings(self) -> dict[str, Any]:
        """The run settings given (``role_base_urls``, ``role_key_envs``)."""
        return _given(role_base_urls=self.base_urls(), role_key_envs=self.key_envs())


@dataclass(frozen=True)
class AgentLimits:
    """``--max-turns``, ``--agent-option``, ``--no-probe`` and ``--context-tokens``: how long the agent runs and what it is told."""

    max_turns: Annotated[
        int | None, typer.Option(min=1, help=f"Agent turns before a session is truncated (default {DEFAULT_MAX_TURNS}).")
    ] = None
    agent_option: Annotated[
        list[str] | None, typer.Option(help="KEY=VALUE for the agent, repeatable (react: max_steps, max_tool_calls, max_retries).")
    ] = None
    no_probe: Annotated[
        bool, typer.Option("--no-probe", help="Do not probe the model servers' capabilities before the first decision.")
    ] = False
    context_tokens: Annotated[
        int | None, typer.Option(min=256, help="The models' context window in tokens (default: from the probe or the server's errors).")
    ] = None

    def settings(self) -> dict[str, Any]:
        """The run settings given (``max_turns``, ``agent_options``, ``probe``, ``context_tokens``); ValueError naming --agent-option for a bad pair."""
        given: dict[str, Any] = _given(max_turns=self.max_turns, context_tokens=self.context_tokens)
        if self.agent_option:
            given["agent_options"] = parse_options(self.agent_option)
        return given | ({"probe": False} if self.no_probe else {})


@dataclass(frozen=True)
class ExternalAgentOptions:
    """``--agent-env NAME`` (repeatable) and ``--turn-timeout``: the settings of an agent outside pbench's process
    (``cmd:``, ``http:``, ``a2a:``); refused with an agent inside it (a sweep's such arms ignore them)."""

    agent_env: Annotated[
        list[str] | None,
        typer.Option(
            metavar="NAME",
            help="Pass this variable of pbench's environment to an external agent's process, repeatable (it gets no other but PATH, HOME, locale and its session's).",
        ),
    ] = None
    turn_timeout: Annotated[
        float | None,
        typer.Option(min=0.1, help="Seconds one turn of an external agent may take; past it the session ends as error (default 300)."),
    ] = None
    agent_lifetime: Annotated[
        Literal["session", "episode"] | None,
        typer.Option(
            help="A cmd: agent's process per session (default), or one kept across the run's sessions (episode: its start paid once; not under an ablation)."
        ),
    ] = None

    def settings(self) -> dict[str, Any]:
        """The run settings given (``agent_env``, ``turn_timeout``, ``agent_lifetime``)."""
        return _given(agent_env=self.agent_env, turn_timeout=self.turn_timeout, agent_lifetime=self.agent_lifetime)


def parse_options(pairs: list[str]) -> dict[str, str]:
    """``["max_steps=8"]`` as ``{"max_steps": "8"}``."""
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--agent-option: expected KEY=VALUE, got {pair!r}")
        options[key.strip()] = value.strip()
    return options


@dataclass(frozen=True)
class ExecutorChoice:
    """``--executor`` and ``--ray-address``: where a sweep's runs execute."""

    executor: Annotated[
        str | None,
        typer.Option(help="Where runs execute: local (this machine's processes, the default) or ray (a Ray cluster, one task per run)."),
    ] = None
    ray_address: Annotated[
        str | None,
        typer.Option(help="With --executor ray: the cluster, auto or HOST:PORT or ray://HOST:PORT (default: start a local one)."),
    ] = None

    def sweep_fields(self) -> dict[str, str]:
        """The sweep settings given (a sweep config's ``executor`` and ``ray_address`` keys)."""
        return _given(executor=self.executor, ray_address=self.ray_address)


@dataclass(frozen=True)
class SuiteOptions:
    """``--suite`` and ``--task``; :data:`SuiteChoice` adds one option per suite setting, generated from the suites' settings models."""

    suite: Annotated[
        str,
        typer.Option(
            help="The kind of episode: personas (persona episodes, --persona; the default, pibench before 0.2), odyssey (history-grounded office tasks), agentif (everyday tasks), trainee (workplace scenarios) or a plug-in's; the suites of tasks run --task."
        ),
    ] = DEFAULT_SUITE
    task: Annotated[
        str | None,
        typer.Option(
            help="A suite of tasks: comma-separated task ids (default: every task under --data); trainee: scenarios s<seed>-n<tasks>, e.g. s7-n3 (default: s1-n2..s50-n6)."
        ),
    ] = None
    tasks: Annotated[str | None, typer.Option("--tasks", hidden=True, help="Deprecated spelling of --task.")] = None

    @property
    def suite_name(self) -> str:
        """The suite chosen, by its current name (``pibench``, the 0.1 name of ``personas``, warns)."""
        if self.suite == "pibench":
            warn(f"--suite pibench is now --suite {DEFAULT_SUITE} (--protocol pibench and pbench import pibench keep the word)")
        return DEFAULT_SUITE if self.suite == "pibench" else self.suite

    @property
    def task_ids(self) -> str | None:
        """``--task`` (or its deprecated spelling ``--tasks``, which warns)."""
        if self.tasks is not None:
            warn("--tasks is now --task")
            if self.task is not None:
                raise ValueError("give --task once (--tasks is its deprecated spelling)")
        return self.task if self.task is not None else self.tasks

    def suite_values(self) -> dict[str, Any]:
        """The suite settings given, by field name: a swept one's comma-separated items as a list."""
        owners = suite_fields()
        return {
            name: split_list(value) if is_swept(owners[name]) else value for name in owners if (value := getattr(self, name)) is not None
        }

    def sweep_fields(self, db: str) -> dict[str, Any]:
        """The sweep settings these options give (only those given; what a suite derives once is cached in ``db``)."""
        suite = self.suite_name
        fields: dict[str, Any] = {"suite": suite} if suite != DEFAULT_SUITE else {}
        if values := self.suite_values():
            fields["suite_settings"] = values
            fields["summaries_db"] = store_package.locate(db).shareable
        if tasks := self.task_ids:
            fields["personas"] = split_list(tasks)
        return fields


def suite_fields() -> dict[str, FieldInfo]:
    """Every setting of every registered suite (built-ins and installed plug-ins), by name; the first suite declaring a name gives its field."""
    found: dict[str, FieldInfo] = {}
    for name in SUITES.names():
        for field, info in suite_settings_model(name).model_fields.items():
            found.setdefault(field, info)
    return found


def _suite_option(name: str, info: FieldInfo) -> Any:
    """The option of one suite setting: ``--name``, its description as help (a swept one: comma-separated)."""
    listed = " Comma-separated values: a sweep runs each (an episode too, under a suite of tasks)." if is_swept(info) else ""
    return Annotated[str | None, typer.Option(option_name(name), help=(info.description or name) + listed)]


if TYPE_CHECKING:
    SuiteChoice: TypeAlias = SuiteOptions  # its generated fields are typer's business; the methods are SuiteOptions'
else:
    SuiteChoice = make_dataclass(
        "SuiteChoice",
        [(name, _suite_option(name, info), dataclass_field(default=None)) for name, info in suite_fields().items()],
        bases=(SuiteOptions,),
        frozen=True,
    )
"""``--suite``, ``--task`` and every suite's settings (``--memory``, ``--days``, a plug-in suite's): one option per field of the
suites' settings models, generated when the command is built, so a suite adds its options by declaring its settings."""


def split_list(value: str | None) -> list[str]:
    """A comma-separated option's items, blanks dropped."""
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def _given(**values: Any) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value}


def _per_role(values: dict[CallRole, str | None]) -> dict[CallRole, str]:
    return {role: value for role, value in values.items() if value}
