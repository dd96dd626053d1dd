"""Whether anything observes a LangChain run: the check that lets a model call or a session graph skip LangChain's callback
machinery when no handler would receive its events.

Light on purpose: the session graph asks it for every session, and a run whose agent and user call no model (scripted
baselines) loads no model client for it, nor LangChain's tracers and LangSmith while neither is loaded and no
environment variable of theirs is set (nothing in the process or its environment can then have turned an observer on).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langchain_core.callbacks import Callbacks

_TRACING_MODULES = ("langchain_core.tracers.context", "langsmith")
"""Where the rest of what could turn an observer on from inside the process lives: LangChain's tracing context variable and
configure hooks (``collect_runs``...), LangSmith's tracing context, current run tree and global switch; none of it is set
while they are not loaded."""

_ENV_PREFIXES = ("LANGCHAIN_", "LANGSMITH_")
"""The environment variables LangChain and LangSmith read to trace (``LANGSMITH_TRACING``, ``LANGCHAIN_TRACING_V2``,
``LANGCHAIN_HANDLER``...) are all named so; while none is set, the environment turns no observer on."""


def unobserved(callbacks: Callbacks = None) -> bool:
    """Whether a LangChain run given ``callbacks`` (a list of handlers or a manager) would have no callback handler: none in
    them, and none from anywhere else ``CallbackManager.configure`` draws on (LangChain's debug flag, tracing by the
    environment or a tracing context, configure hooks such as ``collect_runs``), checked without building the manager, nor
    loading LangChain's tracers and LangSmith (~0.3 s of CPU) while neither is loaded nor named by the environment."""
    if has_handlers(callbacks) or _debug():
        return False
    if not any(name in sys.modules for name in _TRACING_MODULES) and not any(name.startswith(_ENV_PREFIXES) for name in os.environ):
        return True
    from langchain_core.tracers.context import _configure_hooks, _tracing_v2_is_enabled
    from langchain_core.utils.env import env_var_is_set

    if _tracing_v2_is_enabled() or env_var_is_set("LANGCHAIN_TRACING") or env_var_is_set("LANGCHAIN_HANDLER"):
        return False
    return not any(
        var.get() is not None or (env_var is not None and handler_class is not None and env_var_is_set(env_var))
        for var, _inheritable, handler_class, env_var in _configure_hooks
    )


def _debug() -> bool:
    """LangChain's debug flag (``set_debug``): off while its module is not loaded."""
    flags = sys.modules.get("langchain_core.globals")
    return flags is not None and bool(flags.get_debug())


def has_handlers(callbacks: Callbacks) -> bool:
    """Whether ``callbacks`` (a list of handlers or a manager) brings a handler to a call."""
    if callbacks is None:
        return False
    return bool(callbacks if isinstance(callbacks, list) else callbacks.handlers)
