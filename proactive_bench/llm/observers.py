"""Whether anything observes a LangChain run: the check that lets a model call or a session graph skip LangChain's callback
machinery when no handler would receive its events.

Light on purpose (LangChain's core only): the session graph asks it for every session, and a run whose agent and user
call no model (scripted baselines) loads no model client for it.
"""

from __future__ import annotations

from langchain_core.callbacks import Callbacks
from langchain_core.globals import get_debug
from langchain_core.tracers.context import _configure_hooks, _tracing_v2_is_enabled
from langchain_core.utils.env import env_var_is_set


def unobserved(callbacks: Callbacks = None) -> bool:
    """Whether a LangChain run given ``callbacks`` (a list of handlers or a manager) would have no callback handler: none in
    them, and none from anywhere else ``CallbackManager.configure`` draws on (LangChain's debug flag, tracing by the
    environment or a tracing context, configure hooks such as ``collect_runs``), checked without building the manager."""
    if has_handlers(callbacks) or get_debug():
        return False
    if _tracing_v2_is_enabled() or env_var_is_set("LANGCHAIN_TRACING") or env_var_is_set("LANGCHAIN_HANDLER"):
        return False
    return not any(
        var.get() is not None or (env_var is not None and handler_class is not None and env_var_is_set(env_var))
        for var, _inheritable, handler_class, env_var in _configure_hooks
    )


def has_handlers(callbacks: Callbacks) -> bool:
    """Whether ``callbacks`` (a list of handlers or a manager) brings a handler to a call."""
    if callbacks is None:
        return False
    return bool(callbacks if isinstance(callbacks, list) else callbacks.handlers)
