"""Run settings: the core settings every run takes, whatever its suite, declared once, and one run's (:class:`RunSpec`).

:class:`RunSettings` holds the participants' settings (judge, user, models'
endpoints and limits), the evaluation rules, the suite and the suite's own
settings (``suite_settings``, declared and checked by the suite's
``settings_model``). :class:`~proactive_bench.episode.RunSpec` (one run) and
:class:`~proactive_bench.campaign.SweepConfig` (a grid of runs) extend it, so a
sweep's run gets these fields by name-free copy (:meth:`RunSettings.core`).

This module loads no agent, model client, runner or suite: ``pbench runs`` and
``pbench results`` read each stored run's settings with :func:`run_spec`, which
takes them as checked when the run was stored (the suite's settings model and
the agent registry are consulted only for settings made now and for runs stored
before 0.2).
"""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import (
    BaseModel,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

import proactive_bench.scaffolds as scaffolds
from proactive_bench.dataset import Ablation
from proactive_bench.llm import UNCAPPED, CallRole, MaxTokens, is_openai_model
from proactive_bench.registry import PluginError
from proactive_bench.scaffolds import DEFAULT_AGENT, EXTERNAL_KINDS, is_external, starts_process
from proactive_bench.scoring import DEFAULT_JUDGE, default_user, protocol_problem
from proactive_bench.store import RunLike
from proactive_bench.suites import (
    DEFAULT_SUITE,
    SUITES,
    SuiteContext,
    is_swept,
    option_name,
    suite_settings_model,
    suite_settings_problem,
)

DEFAULT_MAX_TURNS = 30
"""Agent turns before a session is truncated, unless the run says otherwise."""
STORED = {"stored": True}
"""The validation context of settings read back from a run's row (:func:`run_spec`): checked when the run was stored."""


class RunSettings(BaseModel):
    """The settings of any run: its participants, rules and suite (the fields ``pbench episode`` and ``pbench sweep`` share)."""

    judge: str = Field(
        default=DEFAULT_JUDGE, description="The judge of rubric items (--judge), a name in scoring.JUDGES; it runs on judge_model."
    )
    user: str = Field(
        default="rules",
        description="A user backend registered in user.USERS (--user; none named: llm under the pibench protocol, else rules); checked "
        "when the run's participants are built, so stored runs load without the plugin.",
    )
    user_model: str | None = Field(default=None, description="The chat model of an LLM user (--user-model).")
    judge_model: str | None = Field(
        default=None, description="The chat model grading rubric items (--judge-model); None: they stay ungraded."
    )
    base_url: str | None = Field(default=None, description="The OpenAI-compatible endpoint of every model (--base-url).")
    max_turns: int = Field(default=DEFAULT_MAX_TURNS, ge=1, description="Agent turns before a session is truncated.")
    agent_options: dict[str, str] = Field(
        default_factory=dict, description="KEY=VALUE settings of the agent (--agent-option; react: max_steps, max_tool_calls, max_retries)."
    )
    agent_env: list[str] = Field(
        default_factory=list,
        description="Names of pbench's environment variables an external agent's process gets (--agent-env, repeatable); the values are never stored.",
    )
    turn_timeout: float | None = Field(
        default=None, gt=0, description="Seconds one turn of an external agent may take (--turn-timeout); None: 300."
    )
    agent_lifetime: Literal["session", "episode"] = Field(
        default="session",
        description="How long a cmd: agent's process lives (--agent-lifetime): a session (a new process each), or the run's sessions (one process, started once).",
    )
    max_tokens: MaxTokens = Field(default_factory=MaxTokens, description="Answer caps per role (runs stored without caps run uncapped).")
    call_timeout: float | None = Field(default=None, gt=0, description="Seconds one model call may take; None: the default.")
    probe: bool = Field(default=True, description="Probe each OpenAI-compatible server's capabilities once before the first decision.")
    context_tokens: int | None = Field(
        default=None, gt=0, description="The models' context window (--context-tokens); None: from the probe or the servers' errors."
    )
    role_base_urls: dict[CallRole, str] = Field(
        default_factory=dict, description="Per role (agent, user, judge), an endpoint other than base_url."
    )
    role_key_envs: dict[CallRole, str] = Field(
        default_factory=dict, description="Per role, the environment variable holding its API key (the key itself is never stored)."
    )
    protocol: Literal["pbench", "pibench"] = Field(default="pbench", description="Evaluation rules (docs/metrics.md).")
    suite: str = Field(
        default=DEFAULT_SUITE,
        description="The kind of episode (suites.SUITES): personas (the default; pibench is its 0.1 name), or a suite of tasks.",
    )
    suite_settings: dict[str, Any] = Field(
        default_factory=dict,
        description="The suite's own settings, as its settings_model declares them (a sweep: a list of values for a swept one).",
    )
    summaries_db: str | None = Field(
        default=None,
        description="The results database whose call cache keeps what a suite derives once (odyssey's history summaries and embeddings); set by pbench.",
    )

    @model_validator(mode="before")
    @classmethod
    def _protocol_user(cls, data: Any) -> Any:
        """No user named (``user`` absent or None): the protocol's (``default_user``: the LLM user under ``pibench``)."""
        if isinstance(data, dict) and data.get("user") is None:
            return {**data, "user": default_user(str(data.get("protocol") or "pbench"))}
        return data

    @model_validator(mode="before")
    @classmethod
    def _suite_settings_by_name(cls, data: Any, info: ValidationInfo) -> Any:
        """A suite's settings given as top-level keys (settings stored before 0.2, sweep files, ``run_episode(memory=...)``) go to ``suite_settings``.

        Which keys are the suite's its ``settings_model`` says, consulted only when a key set is not a field here: settings
        stored since 0.2 hold them in ``suite_settings`` already, so reading them loads no suite (a run stored before 0.2
        with a suite setting set loads its suite's module to be read).
        """
        if not isinstance(data, dict) or (is_stored(info) and "suite_settings" in data):
            return data
        unknown = {k: v for k, v in data.items() if k not in cls.model_fields and v not in (None, [])}
        keys = _model_fields(data.get("suite", DEFAULT_SUITE)) if unknown else frozenset()
        moved = {k: v for k, v in unknown.items() if k in keys}
        if not moved:
            return data
        kept = {k: v for k, v in data.items() if k not in moved}
        return kept | {"suite_settings": {**kept.get("suite_settings", {}), **moved}}

    @field_validator("suite")
    @classmethod
    def _suite_name(cls, suite: str) -> str:
        return SUITES.canonical(suite)  # pibench, the 0.1 name of personas

    @model_validator(mode="after")
    def _rules(self, info: ValidationInfo) -> RunSettings:
        if self.user == "llm" and not self.user_model:
            if default_user(self.protocol) == "llm":
                raise ValueError(f"--protocol {self.protocol} plays π-Bench's LLM user: give --user-model MODEL (e.g. openai:gpt-4o-mini)")
            raise ValueError("--user llm needs --user-model (e.g. openai:gpt-4o-mini)")
        if problem := protocol_problem(self.protocol, self.user, self.judge_model, None if is_stored(info) else self.max_turns):
            raise ValueError(problem)
        if self.turn_timeout is not None and "turn_timeout" in self.agent_options:
            raise ValueError("give --turn-timeout or --agent-option turn_timeout=..., not both")
        if "lifetime" in self.agent_options:
            raise ValueError("--agent-option lifetime: give --agent-lifetime session|episode")
        if is_stored(info):  # coerced when the run was stored
            return self
        try:
            model = suite_settings_model(self.suite)
        except PluginError:  # a stored run of a plugin suite no longer installed still loads; running it says why not
            return self
        self.suite_settings = {k: _coerced(model, k, v) for k, v in self.suite_settings.items()}
        return self

    def external_problem(self, agents: list[str]) -> str | None:
        """Why ``--turn-timeout``, ``--agent-env`` or ``--agent-lifetime``, when given, cannot apply to ``agents`` (a run's,
        a sweep's arms'): the first needs an agent outside pbench's process, the others a ``cmd:`` agent (the one process
        pbench starts). A sweep's other arms ignore them."""
        named = ", ".join(agents)
        if self.turn_timeout is not None and not any(map(is_external, agents)):
            kinds = ", ".join(f"{kind}:" for kind in EXTERNAL_KINDS)
            return f"--turn-timeout applies to agents outside pbench's process ({kinds}); {named} runs inside it"
        if self.agent_env and not any(map(starts_process, agents)):
            return f"--agent-env applies to cmd: agents, the processes pbench starts; {named} gets no environment from pbench"
        if self.agent_lifetime != "session" and not any(map(starts_process, agents)):
            return f"--agent-lifetime applies to cmd: agents, the processes pbench starts; {named} is not started by pbench"
        return None

    def lifetime_problem(self, ablations: list[str]) -> str | None:
        """Why ``--agent-lifetime episode`` cannot apply to runs under ``ablations`` (a run's, a sweep's): every one ablated.
        A process kept across sessions could carry what it saw in one session into the next, and an ablation plays
        sessions without the history of others; such runs get a process per session (a sweep's ``none`` runs keep theirs)."""
        if self.agent_lifetime == "episode" and ablations and "none" not in ablations:
            return (
                f"--agent-lifetime episode cannot serve --ablation {','.join(ablations)}: a process kept across sessions could carry"
                " one session's history into the next; use --agent-lifetime session"
            )
        return None

    def core(self) -> dict[str, Any]:
        """The values of the core settings (the fields declared here), to build another settings model from."""
        return {name: getattr(self, name) for name in RunSettings.model_fields}

    def core_for(self, agent: str, ablation: Ablation = "none") -> dict[str, Any]:
        """The core settings of a run of ``agent`` (a sweep's arm) under ``ablation``, less the external agents' settings
        that do not apply to it: an agent process kept across sessions never serves an ablated run (:meth:`lifetime_problem`)."""
        return (
            self.core()
            | ({} if is_external(agent) else {"turn_timeout": None})
            | ({} if starts_process(agent) else {"agent_env": []})
            | ({} if starts_process(agent) and ablation == "none" else {"agent_lifetime": "session"})
        )

    def suite_context(self, values: dict[str, Any]) -> SuiteContext:
        """What the suite's ``load`` gets for a run with these suite ``values``."""
        return SuiteContext.of(values, base_url=self.base_url, summaries_db=self.summaries_db)


class RunSpec(RunSettings):
    """The settings of one episode run: the core settings, the agent, the episode and what pbench fixes as it starts
    (stored as the run's ``config``; runs stored by earlier versions load too)."""

    persona: str = Field(description="The episode: a persona id (personas suite) or a task id (the suites that run tasks; see ``task``).")
    agent: str = Field(
        default=DEFAULT_AGENT,
        description="The agent under test (--agent): a registered name, scripted:NAME, path/file.py:Class, package.module:attr or a prefix of AGENT_KINDS.",
    )
    model: str | None = Field(
        default=None, description="The chat model the agent runs on (--model); None for an agent that calls none (scripted baselines)."
    )
    data_root: str
    sessions: list[str] = Field(default_factory=list, description="Session ids to run, in order; empty: all.")
    ablation: Ablation = "none"
    repeat: int = 0
    sweep_id: str | None = None
    replay_of: str | None = Field(default=None, description="A run whose recorded model answers serve this one.")
    answers_from: str | None = Field(
        default=None,
        description="A run whose recorded model answers serve this one's calls where they match (model settings and messages); the other calls go to the model.",
    )
    structured_methods: dict[str, list[str]] | None = Field(
        default=None, description="Per role (user, judge), the structured-output methods to start with (set when the run starts)."
    )
    model_contexts: dict[str, int] = Field(
        default_factory=dict, description="Per role, the context window the probe found (set when the run starts)."
    )
    memory_tokens: int | None = Field(
        default=None, description="Tokens of the memory context the session opened with (set when the run starts; odyssey)."
    )
    depends_on: dict[str, list[str]] | None = Field(
        default=None,
        description="Per session, the sessions it depends on (set when the run starts: reports read it without the dataset; None: stored before 0.2).",
    )
    categories: dict[str, str] | None = Field(
        default=None, description="Per session, its task category (set when the run starts, with depends_on)."
    )

    @model_validator(mode="before")
    @classmethod
    def _legacy_names(cls, data: Any) -> Any:
        """Runs stored before ``agent`` existed named the agent in ``model`` (``scripted:reference``, ``openai:X`` for react)."""
        if isinstance(data, dict) and "agent" not in data and isinstance(data.get("model"), str):
            agent, model = scaffolds.split_agent_model(data["model"])  # the agent registry loads for such a run only
            data = {**data, "agent": agent, "model": model}
        return data

    @model_validator(mode="after")
    def _agent_has_model(self) -> RunSpec:
        if self.agent == DEFAULT_AGENT and not self.model:
            raise ValueError(f"the {DEFAULT_AGENT} agent runs on a chat model: give --model (e.g. openai:gpt-4o-mini)")
        return self

    @model_validator(mode="after")
    def _external_options_fit(self) -> RunSpec:
        """``--agent-env``, ``--turn-timeout`` and ``--agent-lifetime`` are refused for an agent they do not apply to, and
        ``--agent-lifetime episode`` under an ablation (a sweep's such arms drop them: :meth:`RunSettings.core_for`)."""
        if problem := self.external_problem([self.agent]) or self.lifetime_problem([self.ablation]):
            raise ValueError(problem)
        return self

    def agent_extra(self) -> dict[str, str]:
        """What the agent's factory gets as ``ScaffoldOptions.extra``: ``--agent-option``, and for an external agent
        ``--agent-env`` (joined to ``env``), ``--turn-timeout`` and ``--agent-lifetime`` (``lifetime``)."""
        extra = dict(self.agent_options)
        if not is_external(self.agent):
            return extra
        if self.agent_env and starts_process(self.agent):
            extra["env"] = ",".join(filter(None, [extra.get("env", ""), *self.agent_env]))
        if self.turn_timeout is not None:
            extra["turn_timeout"] = str(self.turn_timeout)
        if self.agent_lifetime != "session":
            extra["lifetime"] = self.agent_lifetime
        return extra

    @property
    def task(self) -> str:
        """The episode's name in its suite's words: the task id of a suite that runs tasks, the persona id of the personas suite."""
        return self.persona

    @property
    def label(self) -> str:
        """What reports compare runs by (the run row's ``model`` column): the chat model of the react agent, the agent's name
        when it runs on no chat model, else ``AGENT/MODEL``."""
        if self.agent == DEFAULT_AGENT and self.model:
            return self.model
        return f"{self.agent}/{self.model}" if self.model else self.agent

    @model_validator(mode="after")
    def _suite_settings_fit(self, info: ValidationInfo) -> RunSpec:
        if not is_stored(info) and self.suite in SUITES and (problem := suite_settings_problem(self.suite, self.suite_settings)):
            raise ValueError(problem)
        return self

    @property
    def settings(self) -> SuiteContext:
        """What the run's suite loads its episode with: its suite settings and the endpoint and database pbench gives them."""
        return self.suite_context(self.suite_settings)

    @property
    def user_backend(self) -> str:
        return f"{self.user}:{self.user_model}" if self.user != "rules" and self.user_model else self.user

    def role_models(self) -> dict[CallRole, str]:
        """The model of each role that calls one."""
        models: dict[CallRole, str | None] = {
            "agent": self.model,
            "user": self.user_model if self.user != "rules" else None,
            "judge": self.judge_model,
        }
        return {role: model for role, model in models.items() if model}

    def base_url_for(self, role: CallRole) -> str | None:
        return self.role_base_urls.get(role) or self.base_url

    def api_key_for(self, role: CallRole) -> str | None:
        """The role's key from its named environment variable (None: the provider's usual variable)."""
        name = self.role_key_envs.get(role)
        if name is None:
            return None
        key = os.environ.get(name)
        if not key:
            raise LaunchError(f"the {role}'s API key is read from ${name}, which is not set (in the environment or ./.env)")
        return key

    def structured_models(self) -> dict[CallRole, tuple[str, str]]:
        """``{role: (model, base URL)}`` of the user and judge models on an OpenAI-compatible server given by URL."""
        found: dict[CallRole, tuple[str, str]] = {}
        for role, model in self.role_models().items():
            url = self.base_url_for(role)
            if role != "agent" and url and is_openai_model(model):
                found[role] = (model, url)
        return found

    def endpoints(self) -> dict[str, list[str]]:
        """``{base_url: roles}`` of the OpenAI-compatible servers this run calls (those given by URL)."""
        used: dict[str, list[str]] = {}
        for role, model in self.role_models().items():
            url = self.base_url_for(role)
            if url and is_openai_model(model):
                used.setdefault(url, []).append(role)
        return used


class LaunchError(ValueError):
    """Settings that cannot produce a run; the message says which and why."""


def run_spec(run: RunLike) -> RunSpec:
    """The settings stored with ``run`` (checked when it was stored: no suite or agent loads to read them)."""
    return RunSpec.model_validate(
        {"max_tokens": UNCAPPED, **run.config}, context=STORED
    )  # a run stored before caps existed replays uncapped


def is_stored(info: ValidationInfo) -> bool:
    """Whether the settings being validated are read back from a run's row (:data:`STORED`)."""
    return isinstance(info.context, dict) and bool(info.context.get("stored"))


def _model_fields(suite: Any) -> frozenset[str]:
    """The settings the suite named ``suite`` declares (none for an unknown one, which the suite field refuses)."""
    try:
        return frozenset(suite_settings_model(str(suite)).model_fields)
    except PluginError:
        return frozenset()


def _coerced(model: type[BaseModel], key: str, value: Any) -> Any:
    """One suite setting (or each of a swept one's values) as its field's type ("5" -> 5); a ValueError naming the option."""
    field = model.model_fields.get(key)
    if field is None:  # not the suite's: refused, with the suites it belongs to, when the settings are checked
        return value
    adapter: TypeAdapter[Any] = TypeAdapter(Any if field.annotation is None else field.annotation)
    try:
        if isinstance(value, list) and is_swept(field):
            return [adapter.validate_python(v) for v in value]
        return adapter.validate_python(value)
    except ValidationError as exc:
        raise ValueError(f"{option_name(key)}: {exc.errors()[0]['msg']}, got {value!r}") from None
