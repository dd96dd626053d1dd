"""Deprecated since pbench 0.2, removed in 0.3: the agent protocol moved to :mod:`proactive_bench` (public names).

Agent files written for pbench 0.1 import ``from proactive_bench.scaffold import AgentTurn, SessionContext``;
each name still resolves here, with a DeprecationWarning naming where to import it from now.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

MOVED: dict[str, str] = {
    "AgentTurn": "proactive_bench",
    "ReferenceStep": "proactive_bench",
    "Scaffold": "proactive_bench",
    "ScaffoldFactory": "proactive_bench",
    "ScaffoldLoadError": "proactive_bench",
    "ScaffoldOptions": "proactive_bench",
    "SessionContext": "proactive_bench",
    "call_respond": "proactive_bench.scaffolds",
    "load_scaffold": "proactive_bench.scaffolds",
}
"""Every name this module held in pbench 0.1, and the module it is imported from now."""

__all__ = list(MOVED)


def __getattr__(name: str) -> Any:
    if name not in MOVED:
        raise AttributeError(f"module 'proactive_bench.scaffold' has no attribute {name!r}")
    new = MOVED[name]
    warnings.warn(
        f"proactive_bench.scaffold is deprecated and goes in pbench 0.3: use 'from {new} import {name}'",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(new), name)
