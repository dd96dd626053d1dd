"""The built-in scaffolds, and building the agent under test from a ``--model`` spec.

Importing this module registers the built-ins in :data:`~proactive_bench.scaffolds.protocol.SCAFFOLDS`
(``react``, ``scripted:<baseline>``, ``scripted:<adversary>``) and grants the scripted ones the reference
solution (:data:`ORACLES`); a third-party scaffold is an entry point of the ``pbench.scaffolds`` group, a
``package.module:attr`` or a ``path/file.py:attr``, and is refused if it declares ``uses_reference_solution``.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

# the built-ins register on import
import proactive_bench.scaffolds.adversarial
import proactive_bench.scaffolds.react
import proactive_bench.scaffolds.scripted  # noqa: F401 (imported to register its agents; it binds the name `proactive_bench` only)
from proactive_bench.registry import PluginError
from proactive_bench.scaffolds.protocol import (
    SCAFFOLDS,
    Scaffold,
    ScaffoldLoadError,
    ScaffoldOptions,
    grant_reference,
    grants_reference,
)
from proactive_bench.tracebacks import located

REFERENCE_ATTRIBUTE = "uses_reference_solution"
"""An agent's claim to the reference solution: a reason to refuse it, since only pbench's grant gives it."""

ORACLES: tuple[str, ...] = tuple(name for name, _ in SCAFFOLDS.items() if name.startswith("scripted:"))
"""pbench's own scripted baselines, every ``scripted:*`` the built-in modules imported above registered: the only
agents given each session's reference solution (granted at the end of this module, before any plugin can load)."""


def load_scaffold(spec: str, options: ScaffoldOptions) -> Scaffold:
    """Build the agent under test from ``--model``.

    ``spec`` is ``scripted:NAME``, a provider model such as ``openai:gpt-4o``
    (the ``react`` scaffold on that model), ``react:openai:NAME``, a registered
    name (an installed entry point, or one registered in this process),
    ``package.module:attr`` or ``path/file.py:attr``.
    ``attr`` is a class or factory called with the :class:`ScaffoldOptions`
    (or with no arguments if it takes none).

    An agent not built from a factory :func:`grant_reference` marked (pbench's scripted
    baselines) that declares ``uses_reference_solution`` is refused: reference solutions
    go only to pbench's own baselines.
    """
    agent = _build(spec, options)
    if not grants_reference(spec) and inspect.getattr_static(agent, REFERENCE_ATTRIBUTE, False):
        raise ScaffoldLoadError(
            f"scaffold {spec!r} declares {REFERENCE_ATTRIBUTE}: reference solutions go only to pbench's own scripted baselines; "
            "remove the attribute (an agent under test finds out what the user wants by working and asking)"
        )
    return agent


def _build(spec: str, options: ScaffoldOptions) -> Scaffold:
    head = spec.split(":", 1)[0]
    if spec.startswith("scripted:") and spec not in SCAFFOLDS:
        names = ", ".join(sorted(k for k in SCAFFOLDS.names() if k.startswith("scripted:")))
        raise ScaffoldLoadError(f"unknown scripted baseline {spec!r}; known: {names}")
    if spec in SCAFFOLDS:  # first: a granted name always builds from the factory it was granted for
        return _instantiate(_registered(spec), options, spec)
    if head == "react":
        return SCAFFOLDS.get("react")(ScaffoldOptions(**{**options.__dict__, "model": spec.split(":", 1)[1]}))
    if ":" in spec and (spec.split(":", 1)[0].endswith(".py") or "." in head):
        return _instantiate(_import_attr(spec), options, spec)
    # Anything else is a chat model for the default scaffold.
    return SCAFFOLDS.get("react")(options)


def _registered(spec: str) -> Any:
    """The factory registered as ``spec``: a built-in, one registered in this process, or an entry point (loaded now)."""
    try:
        return SCAFFOLDS.get(spec)
    except PluginError as exc:  # the entry point's module failed to import: say where
        where = located(exc.__cause__) if exc.__cause__ is not None else str(exc)
        raise ScaffoldLoadError(f"scaffold {spec!r} (entry point {SCAFFOLDS.plugins[spec].value}) cannot be loaded: {where}") from exc


def _import_attr(spec: str) -> Any:
    target, attr = spec.rsplit(":", 1)
    try:
        if target.endswith(".py"):
            path = Path(target).resolve()
            if not path.is_file():
                raise ScaffoldLoadError(f"scaffold file not found: {target}")
            module_name = f"pbench_user_scaffold_{path.stem}"
            module_spec = importlib.util.spec_from_file_location(module_name, path)
            assert module_spec is not None and module_spec.loader is not None
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[module_name] = module
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    except ScaffoldLoadError:
        raise
    except Exception as exc:  # the user's module: missing, a syntax error, a bug at import
        sys.modules.pop(f"pbench_user_scaffold_{Path(target).stem}", None)
        raise ScaffoldLoadError(f"cannot import scaffold module {target!r}: {located(exc)}") from exc
    try:
        return getattr(module, attr)
    except AttributeError as exc:
        raise ScaffoldLoadError(f"module {target!r} has no attribute {attr!r}") from exc


def _instantiate(factory: Any, options: ScaffoldOptions, spec: str) -> Scaffold:
    try:
        takes_args = bool(inspect.signature(factory).parameters)
    except (TypeError, ValueError):
        takes_args = False
    try:
        agent = factory(options) if takes_args else factory()
    except Exception as exc:  # the user's factory
        raise ScaffoldLoadError(f"building scaffold {spec!r} failed: {located(exc)}") from exc
    missing = [m for m in ("start_session", "respond", "end_session") if not callable(getattr(agent, m, None))]
    if missing:
        raise ScaffoldLoadError(f"scaffold {spec!r} lacks method(s): {', '.join(missing)}")
    return agent


for _name in ORACLES:
    grant_reference(_name)
