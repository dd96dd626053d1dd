"""pbench: measure whether AI assistants are proactive.

The names listed in ``__all__`` are pbench's public API, kept stable: what a
script runs (:func:`run_episode`, :func:`run_sweep`, :func:`load_results`) and
what a plug-in implements (the agent, user, judge and suite protocols, the
tools an agent calls, the registries a plug-in joins). Import them from here::

    import proactive_bench as pb
    result = pb.run_episode(persona="pharmacist", model="scripted:reference")
    print(result.proc, result.comp)

Everything else (the subpackages and their modules) may move between
versions; a public name that moves keeps working for one minor version
through a shim that warns. Each name is imported when first used, so
``import proactive_bench`` costs next to nothing. CHANGELOG.md lists the changes.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from proactive_bench.api import RunEventHook, RunRefused, SessionHook, SweepResult, load_results, run_episode, run_sweep
    from proactive_bench.campaign import SweepConfig
    from proactive_bench.data_model import Evidence, IntentLabel, IntentStatus, Message, Stage
    from proactive_bench.dataset import ChecklistItem, DatasetError, HiddenIntent, LoadedEpisode, Persona, Problem, ReferenceStep, Session
    from proactive_bench.env import Memory, ToolBox, ToolEnv, ToolError, ToolRecord, ToolSpec, Workspace, register_tool
    from proactive_bench.episode import LaunchError, RunSettings, RunSpec
    from proactive_bench.llm import ChatSettings, LLMCallRecord, ModelSpecError, make_chat_model
    from proactive_bench.registry import PluginError, Registry
    from proactive_bench.scaffolds import (
        AGENT_KINDS,
        SCAFFOLDS,
        AgentTurn,
        Scaffold,
        ScaffoldFactory,
        ScaffoldLoadError,
        ScaffoldOptions,
        SessionContext,
        as_langchain_tools,
    )
    from proactive_bench.scoring import JUDGES, EpisodeResult, Judge, JudgeFactory, JudgeSettings, RubricJudge, RubricVerdict, SessionResult
    from proactive_bench.suites import SUITES, SWEPT, NoSettings, Suite, SuiteContext
    from proactive_bench.user import (
        USERS,
        StageVerdict,
        UserBackendError,
        UserDecision,
        UserFactory,
        UserOptions,
        UserSimulator,
        UserView,
        combine_stages,
    )

_HOMES: dict[str, tuple[str, ...]] = {
    # entry points and what they return
    "proactive_bench.api": ("RunEventHook", "RunRefused", "SessionHook", "SweepResult", "load_results", "run_episode", "run_sweep"),
    "proactive_bench.campaign": ("SweepConfig",),
    "proactive_bench.episode": ("LaunchError", "RunSettings", "RunSpec"),
    "proactive_bench.scoring": (
        "EpisodeResult",
        "SessionResult",
        # the judge protocol: JUDGES holds factories with RubricJudge's signature, building a Judge
        "JUDGES",
        "Judge",
        "JudgeFactory",
        "JudgeSettings",
        "RubricJudge",
        "RubricVerdict",
    ),
    # the agent protocol, and what an agent gets and calls
    "proactive_bench.scaffolds": (
        "AGENT_KINDS",
        "SCAFFOLDS",
        "AgentTurn",
        "Scaffold",
        "ScaffoldFactory",
        "ScaffoldLoadError",
        "ScaffoldOptions",
        "SessionContext",
        "as_langchain_tools",
    ),
    "proactive_bench.env": ("Memory", "ToolBox", "ToolEnv", "ToolError", "ToolRecord", "ToolSpec", "Workspace", "register_tool"),
    "proactive_bench.llm": ("ChatSettings", "LLMCallRecord", "ModelSpecError", "make_chat_model"),
    # the user protocol, with every type its methods take and give
    "proactive_bench.user": (
        "USERS",
        "StageVerdict",
        "UserBackendError",
        "UserDecision",
        "UserFactory",
        "UserOptions",
        "UserSimulator",
        "UserView",
        "combine_stages",
    ),
    "proactive_bench.data_model": ("Evidence", "IntentLabel", "IntentStatus", "Message", "Stage"),
    "proactive_bench.dataset": (
        "ChecklistItem",
        "DatasetError",
        "HiddenIntent",
        "LoadedEpisode",
        "Persona",
        "Problem",
        "ReferenceStep",
        "Session",
    ),
    # the suite protocol, and the base of a suite's settings model
    "proactive_bench.suites": ("SUITES", "SWEPT", "NoSettings", "Suite", "SuiteContext"),
    # every registry above is one of these
    "proactive_bench.registry": ("PluginError", "Registry"),
}

_HOME: dict[str, str] = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "AGENT_KINDS",
    "AgentTurn",
    "ChatSettings",
    "ChecklistItem",
    "DatasetError",
    "EpisodeResult",
    "Evidence",
    "HiddenIntent",
    "IntentLabel",
    "IntentStatus",
    "JUDGES",
    "Judge",
    "JudgeFactory",
    "JudgeSettings",
    "LLMCallRecord",
    "LaunchError",
    "LoadedEpisode",
    "Memory",
    "Message",
    "ModelSpecError",
    "NoSettings",
    "Persona",
    "PluginError",
    "Problem",
    "ReferenceStep",
    "Registry",
    "RubricJudge",
    "RubricVerdict",
    "RunEventHook",
    "RunRefused",
    "RunSettings",
    "RunSpec",
    "SCAFFOLDS",
    "SUITES",
    "SWEPT",
    "Scaffold",
    "ScaffoldFactory",
    "ScaffoldLoadError",
    "ScaffoldOptions",
    "Session",
    "SessionContext",
    "SessionHook",
    "SessionResult",
    "Stage",
    "StageVerdict",
    "Suite",
    "SuiteContext",
    "SweepConfig",
    "SweepResult",
    "ToolBox",
    "ToolEnv",
    "ToolError",
    "ToolRecord",
    "ToolSpec",
    "USERS",
    "UserBackendError",
    "UserDecision",
    "UserFactory",
    "UserOptions",
    "UserSimulator",
    "UserView",
    "Workspace",
    "as_langchain_tools",
    "combine_stages",
    "load_results",
    "make_chat_model",
    "register_tool",
    "run_episode",
    "run_sweep",
]
"""The public names (the keys of ``_HOME``; tests/test_public_api.py checks both and the TYPE_CHECKING imports agree)."""

_DEPRECATED = {"SuiteSettings": "proactive_bench.suites"}
"""Public names of 0.1 renamed in 0.2 (removed in 0.3): each resolves through its subpackage, which warns at every use."""

DISTRIBUTION = "pbench"
"""The installed distribution whose metadata gives ``__version__``."""


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562), and ``__version__``."""
    if name == "__version__":
        return _version()
    if name in _DEPRECATED:
        return getattr(importlib.import_module(_DEPRECATED[name]), name)
    if name not in _HOME:
        raise AttributeError(f"module 'proactive_bench' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME[name]), name)
    globals()[name] = value  # the next use is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__, "__version__"])


def _version() -> str:
    """The installed distribution's version; ``0+unknown`` when pbench runs from a checkout that was never installed."""
    from importlib.metadata import PackageNotFoundError, version  # only when asked: keeps the import cheap

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"
