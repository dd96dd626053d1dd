"""Suites: the kinds of task pbench runs, each loaded as pbench episodes (see ``base``).

``base`` holds the :class:`Suite` protocol and the ``SUITES`` registry,
``personas`` the default suite (persona episodes; ``pibench`` is its 0.1 name), ``odyssey/`` the
OdysseyBench-style suite (history-grounded office workflows), ``agentif/``
the AgentIF-OneDay-style suite (everyday tasks with bonus/penalty rubrics),
registered by name; ``task_files`` reads the task folders both use;
``generation_rounds`` runs the generator-verifier rounds of ``pbench generate`` (``generation_limits``: how many). The
AgentIF scoring names are exported here for the layers above (reporting,
validation, review). Each name loads on first use (``proactive_bench/exports.py``): reading ``SUITES`` or a
settings model loads ``base`` only, and a built-in suite loads when ``SUITES`` is first asked for it. See README.md here.
"""

import importlib
import warnings
from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "base": (
            "DEFAULT_SUITE",
            "SUITES",
            "SWEPT",
            "NoSettings",
            "Suite",
            "SuiteContext",
            "is_swept",
            "option_name",
            "settings_grid",
            "settings_model",
            "settings_owners",
            "suite_settings_model",
            "suite_settings_problem",
        ),
        "generation_limits": ("AGENTIF_MAX_ROUNDS", "ODYSSEY_MAX_ROUNDS"),
        "personas": ("PersonasSuite",),
        "agentif.scoring": ("ItemOutcome", "TaskScore", "score_task"),
        "agentif.task": ("AgentIFTask",),
    },
    renamed={
        "GenerationOutcome": "generation_rounds:Outcome",
        "AGENTIF_CATEGORIES": "agentif.kinds:CATEGORIES",
        "AGENTIF_DOMAINS": "agentif.kinds:DOMAINS",
        "AGENTIF_ITEM_CATEGORIES": "agentif.kinds:ITEM_CATEGORIES",
        "read_agentif_task": "agentif.loading:read_task",
    },
)

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use)
    from proactive_bench.suites.agentif.kinds import (
        CATEGORIES as AGENTIF_CATEGORIES,
        DOMAINS as AGENTIF_DOMAINS,
        ITEM_CATEGORIES as AGENTIF_ITEM_CATEGORIES,
    )
    from proactive_bench.suites.agentif.loading import read_task as read_agentif_task
    from proactive_bench.suites.agentif.scoring import ItemOutcome, TaskScore, score_task
    from proactive_bench.suites.agentif.task import AgentIFTask
    from proactive_bench.suites.base import (
        DEFAULT_SUITE,
        SUITES,
        SWEPT,
        NoSettings,
        Suite,
        SuiteContext,
        is_swept,
        option_name,
        settings_grid,
        settings_model,
        settings_owners,
        suite_settings_model,
        suite_settings_problem,
    )
    from proactive_bench.suites.generation_limits import AGENTIF_MAX_ROUNDS, ODYSSEY_MAX_ROUNDS
    from proactive_bench.suites.generation_rounds import Outcome as GenerationOutcome
    from proactive_bench.suites.personas import PersonasSuite

__all__ = [
    "AGENTIF_CATEGORIES",
    "AGENTIF_DOMAINS",
    "AGENTIF_ITEM_CATEGORIES",
    "AGENTIF_MAX_ROUNDS",
    "DEFAULT_SUITE",
    "ODYSSEY_MAX_ROUNDS",
    "SUITES",
    "SWEPT",
    "AgentIFTask",
    "GenerationOutcome",
    "ItemOutcome",
    "NoSettings",
    "PersonasSuite",
    "Suite",
    "SuiteContext",
    "TaskScore",
    "is_swept",
    "option_name",
    "read_agentif_task",
    "score_task",
    "settings_grid",
    "settings_model",
    "settings_owners",
    "suite_settings_model",
    "suite_settings_problem",
]

_RENAMED = {"PibenchSuite": "PersonasSuite", "SuiteSettings": "SuiteContext"}
"""Names of pbench 0.1 that were renamed in 0.2 (removed in 0.3): each still resolves, with a DeprecationWarning
(``SuiteSettings`` to a subclass of ``SuiteContext`` that still takes its settings as keywords: ``deprecated.py``)."""


def __getattr__(name: str) -> Any:
    if name in _RENAMED:
        warnings.warn(
            f"proactive_bench.suites.{name} is deprecated and goes in pbench 0.3: use {_RENAMED[name]}", DeprecationWarning, stacklevel=2
        )
        if name == "SuiteSettings":
            return importlib.import_module("proactive_bench.suites.deprecated").SuiteSettings
        return _EXPORTS.load(_RENAMED[name])
    return _EXPORTS.load(name)
