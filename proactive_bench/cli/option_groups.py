"""Options taken as groups: a command parameter typed with a dataclass of typer options stands for all of them.

Typer reads a command's options from its signature, one parameter each. A
command takes a group of options as one parameter typed with a dataclass;
:func:`with_option_groups` shows typer the group's fields in its place (each an
``Annotated`` typer option with its default) and hands the command the
dataclass built from them. The groups ``episode`` and ``sweep`` share are in
``options.py``; ``runs`` and ``sweeps`` share ``runs.Listing``.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, get_type_hints

Command = TypeVar("Command", bound=Callable[..., Any])


def with_option_groups(command: Command) -> Command:
    """``command`` as typer sees it: each dataclass-typed parameter replaced, in place, by the fields of its dataclass."""
    signature = inspect.signature(command, eval_str=True)
    groups: dict[str, Any] = {name: p.annotation for name, p in signature.parameters.items() if dataclasses.is_dataclass(p.annotation)}
    parameters: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        if parameter.name not in groups:
            parameters.append(parameter)
            continue
        hints = get_type_hints(groups[parameter.name], include_extras=True)
        parameters += [
            inspect.Parameter(field.name, parameter.kind, default=field.default, annotation=hints[field.name])
            for field in dataclasses.fields(groups[parameter.name])
        ]

    @functools.wraps(command)
    def grouped(**options: Any) -> Any:
        for name, group in groups.items():
            options[name] = group(**{field.name: options.pop(field.name) for field in dataclasses.fields(group)})
        return command(**options)

    grouped.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]  # typer reads __signature__; functions do not declare it
    grouped.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": signature.return_annotation}
    return grouped  # type: ignore[return-value]  # functools.wraps keeps the wrapped command's signature, which mypy cannot follow
