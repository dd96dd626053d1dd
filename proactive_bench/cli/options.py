"""Options that ``pbench episode`` and ``pbench sweep`` share, declared once as option groups (see ``option_groups.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import typer

from proactive_bench.llm import ROLES, CallRole, MaxTokens, parse_max_tokens
from proactive_bench.store import locate

RoleUrlOpt = Annotated[str | None, typer.Option(help="This role's OpenAI-compatible endpoint (default: --base-url).")]
RoleKeyOpt = Annotated[str | None, typer.Option(help="Name of the environment variable (or ./.env entry) holding this role's API key.")]
MaxTokensOpt = Annotated[list[str] | None, typer.Option(help=f"ROLE=N: answer cap of one role's calls, repeatable; roles {', '.join(ROLES)} (defaults {MaxTokens().model_dump()}).")]
CallTimeoutOpt = Annotated[float | None, typer.Option(min=0.1, help="Seconds one model call may take (default 120).")]


@dataclass(frozen=True)
class CallLimits:
    """``--max-tokens ROLE=N`` (repeatable) and ``--call-timeout``."""

    max_tokens: MaxTokensOpt = None
    call_timeout: CallTimeoutOpt = None

    def caps(self) -> dict[str, int]:
        """The answer caps given, per role; a ValueError naming --max-tokens for a bad one."""
        return parse_max_tokens(self.max_tokens or [])


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


@dataclass(frozen=True)
class ExecutorChoice:
    """``--executor`` and ``--ray-address``: where a sweep's runs execute."""

    executor: Annotated[str | None, typer.Option(help="Where runs execute: local (this machine's processes, the default) or ray (a Ray cluster, one task per run).")] = None
    ray_address: Annotated[str | None, typer.Option(help="With --executor ray: the cluster, auto or HOST:PORT or ray://HOST:PORT (default: start a local one).")] = None

    def sweep_fields(self) -> dict[str, str]:
        """The sweep settings given (a sweep config's ``executor`` and ``ray_address`` keys)."""
        return _given(executor=self.executor, ray_address=self.ray_address)


@dataclass(frozen=True)
class SuiteChoice:
    """``--suite``, ``--tasks``, ``--memory`` and ``--top-k``: which kind of episode runs, and with how much history."""

    suite: Annotated[str, typer.Option(help="The kind of episode: pibench (persona episodes, --persona), odyssey (history-grounded office tasks) or trainee (workplace scenarios).")] = "pibench"
    tasks: Annotated[str | None, typer.Option(help="Odyssey: comma-separated task ids (default: every task under --data). Trainee: scenarios s<seed>-n<tasks>, e.g. s7-n3 (default: s1-n2..s20-n6).")] = None
    memory: Annotated[str | None, typer.Option(help="Odyssey: comma-separated memory settings: long-context (default), none, rag:raw-session|raw-utterance|summary-session|summary-chunk.")] = None
    top_k: Annotated[str | None, typer.Option(help="Odyssey, with rag:* memory: comma-separated documents retrieved into the context (default 5).")] = None
    summary_model: Annotated[str | None, typer.Option(help="Odyssey, with rag:summary-*: the chat model that summarises each history once (cached in --db).")] = None
    embedding_model: Annotated[str | None, typer.Option(help="Odyssey, with rag:*: the embeddings model (openai:NAME on --base-url) that ranks the history instead of BM25 (vectors cached in --db).")] = None
    days: Annotated[int | None, typer.Option(help="Trainee: working days per scenario, 1 or 2 (day 2: feedback on day 1, new seeds).")] = None
    hints: Annotated[str | None, typer.Option(help="Trainee: comma-separated hint settings: none, data, method, both (default none).")] = None
    npc: Annotated[str | None, typer.Option(help="Trainee: the colleagues' backend, rules (default) or llm.")] = None
    npc_model: Annotated[str | None, typer.Option(help="Trainee, with --npc llm: the chat model that plays the colleagues.")] = None
    clock: Annotated[str | None, typer.Option(help="Trainee: simulated minutes per tool call and per agent step, CALL,STEP (default 2,1).")] = None

    def sweep_fields(self, db: str) -> dict[str, Any]:
        """The sweep settings these options give (only those given; summaries cached in ``db``); ValueError naming --top-k for a bad value."""
        fields: dict[str, Any] = {"suite": self.suite} if self.suite != "pibench" else {}
        if self.summary_model:
            fields["summary_model"] = self.summary_model
        if self.embedding_model:
            fields["embedding_model"] = self.embedding_model
        if self.summary_model or self.embedding_model:
            fields["summaries_db"] = locate(db).shareable
        if self.tasks:
            fields["personas"] = split_list(self.tasks)
        if self.memory:
            fields["memory"] = split_list(self.memory)
        if self.top_k:
            try:
                fields["top_k"] = [int(k) for k in split_list(self.top_k)]
            except ValueError:
                raise ValueError(f"--top-k: expected whole numbers, comma-separated, got {self.top_k!r}") from None
        if self.hints:
            fields["hints"] = split_list(self.hints)
        fields |= {k: v for k, v in (("days", self.days), ("npc", self.npc), ("npc_model", self.npc_model), ("clock", self.clock)) if v is not None}
        return fields

    @property
    def suite_specific(self) -> bool:
        """Whether any option of a suite other than pibench is given."""
        return any(v is not None for v in (self.tasks, self.memory, self.top_k, self.summary_model, self.embedding_model, self.days, self.hints, self.npc, self.npc_model, self.clock))


def split_list(value: str | None) -> list[str]:
    """A comma-separated option's items, blanks dropped."""
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def _given(**values: str | None) -> dict[str, str]:
    return {name: value for name, value in values.items() if value}


def _per_role(values: dict[CallRole, str | None]) -> dict[CallRole, str]:
    return {role: value for role, value in values.items() if value}
