"""The core run settings: what every run takes, whatever its suite, declared once.

:class:`RunSettings` holds the participants' settings (judge, user, models'
endpoints and limits), the evaluation rules, the suite and the suite's own
settings (``suite_settings``, declared and checked by the suite's
``settings_model``). :class:`~proactive_bench.episode.RunSpec` (one run) and
:class:`~proactive_bench.campaign.SweepConfig` (a grid of runs) extend it, so a
sweep's run gets these fields by name-free copy (:meth:`RunSettings.core`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from proactive_bench.episode.runner import DEFAULT_MAX_TURNS
from proactive_bench.llm import CallRole, MaxTokens
from proactive_bench.registry import PluginError
from proactive_bench.scoring import DEFAULT_JUDGE, protocol_problem
from proactive_bench.suites import (
    BUILT_IN_FIELDS,
    DEFAULT_SUITE,
    SUITES,
    SuiteSettings,
    is_swept,
    option_name,
    settings_model,
)

BUILT_IN_SUITE_KEYS = BUILT_IN_FIELDS
"""The built-in suites' settings, which settings stored before 0.2 held as top-level keys (``memory``, ``days``, ...)."""


class RunSettings(BaseModel):
    """The settings of any run: its participants, rules and suite (the fields ``pbench episode`` and ``pbench sweep`` share)."""

    judge: str = Field(
        default=DEFAULT_JUDGE, description="The judge of rubric items (--judge), a name in scoring.JUDGES; it runs on judge_model."
    )
    user: str = Field(
        default="rules",
        description="A user backend registered in user.USERS (--user); checked when the run's participants are built, so stored runs load without the plugin.",
    )
    user_model: str | None = Field(default=None, description="The chat model of an LLM user (--user-model).")
    judge_model: str | None = Field(
        default=None, description="The chat model grading rubric items (--judge-model); None: they stay ungraded."
    )
    base_url: str | None = Field(default=None, description="The OpenAI-compatible endpoint of every model (--base-url).")
    max_turns: int = Field(default=DEFAULT_MAX_TURNS, ge=1, description="Agent turns before a session is truncated.")
    agent_options: dict[str, str] = Field(
        default_factory=dict, description="KEY=VALUE settings of the agent (--agent-option; react: max_steps, max_retries)."
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
    def _suite_settings_by_name(cls, data: Any) -> Any:
        """A suite's settings given as top-level keys (settings stored before 0.2, sweep files, ``run_episode(memory=...)``) go to ``suite_settings``."""
        if not isinstance(data, dict):
            return data
        keys = BUILT_IN_SUITE_KEYS | _model_fields(data.get("suite", DEFAULT_SUITE))
        moved = {k: v for k, v in data.items() if k in keys and k not in cls.model_fields}
        if not moved:
            return data
        kept = {k: v for k, v in data.items() if k not in moved}
        return kept | {"suite_settings": {**kept.get("suite_settings", {}), **{k: v for k, v in moved.items() if v not in (None, [])}}}

    @field_validator("suite")
    @classmethod
    def _suite_name(cls, suite: str) -> str:
        return SUITES.canonical(suite)  # pibench, the 0.1 name of personas

    @model_validator(mode="after")
    def _rules(self) -> RunSettings:
        if self.user == "llm" and not self.user_model:
            raise ValueError("--user llm needs --user-model (e.g. openai:gpt-4o-mini)")
        if problem := protocol_problem(self.protocol, self.user, self.judge_model):
            raise ValueError(problem)
        try:
            model = settings_model(SUITES.get(self.suite))
        except PluginError:  # a stored run of a plugin suite no longer installed still loads; running it says why not
            return self
        self.suite_settings = {k: _coerced(model, k, v) for k, v in self.suite_settings.items()}
        return self

    def core(self) -> dict[str, Any]:
        """The values of the core settings (the fields declared here), to build another settings model from."""
        return {name: getattr(self, name) for name in RunSettings.model_fields}

    def suite_context(self, values: dict[str, Any]) -> SuiteSettings:
        """What the suite's ``load`` gets for a run with these suite ``values``."""
        return SuiteSettings.of(values, base_url=self.base_url, summaries_db=self.summaries_db)


def _model_fields(suite: Any) -> frozenset[str]:
    """The settings the suite named ``suite`` declares (none for an unknown one, which the suite field refuses)."""
    try:
        return frozenset(settings_model(SUITES.get(str(suite))).model_fields)
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
