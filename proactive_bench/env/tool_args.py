"""A tool call's arguments checked against the tool's argument model: every tool the same way, unknown keys refused.

:meth:`~proactive_bench.env.toolbox.ToolBox.call` validates every call with ``extra="forbid"``: a key the model does not
name is an error at any depth (the call's own keys, a block's, a replacement's), naming the key and the keys that
object takes, so an argument the agent misspelt is never silently dropped. The argument schema an agent is shown (in
process or over MCP) is the model's own, unchanged.
"""

from __future__ import annotations

from types import NoneType, UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, Tag, ValidationError


def argument_problems(model: type[BaseModel], exc: ValidationError) -> str:
    """``exc`` (``model`` validating a call with ``extra="forbid"``) as one line: each problem with where it is."""
    return "; ".join(_problem(model, dict(e)) for e in exc.errors())


def _problem(model: type[BaseModel], error: dict[str, Any]) -> str:
    loc: tuple[int | str, ...] = tuple(error["loc"])
    if error["type"] != "extra_forbidden":
        return f"{'.'.join(map(str, loc)) or 'args'}: {error['msg']}"
    *parent, key = loc
    where = f"{'.'.join(map(str, parent))}: " if parent else ""
    return f"{where}unknown argument {key!r}; known: {', '.join(keys_at(model, tuple(parent))) or 'none'}"


def keys_at(kind: Any, loc: tuple[int | str, ...]) -> list[str]:
    """The keys the object at ``loc`` (a validation error's location) of a value of type ``kind`` takes, as a caller writes them."""
    kind = _bare(kind)
    if get_origin(kind) in (Union, UnionType):
        members = get_args(kind)
        named = [m for m in members if loc and loc[0] in _member_names(m)]
        if named:  # a tagged (or smart) union's member, named in the location
            return keys_at(named[0], loc[1:])
        return next((keys for m in members if m is not NoneType and (keys := keys_at(m, loc))), [])
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        fields = {field.alias or name: field for name, field in kind.model_fields.items()}
        if not loc:
            return list(fields)
        field = fields.get(str(loc[0]))
        return keys_at(field.annotation, loc[1:]) if field is not None else []
    items = get_args(kind)
    if loc and items:  # a list's, tuple's or set's item (by index), a dict's value (by key)
        return keys_at(items[-1] if get_origin(kind) is dict else items[0], loc[1:])
    return []


def _bare(kind: Any) -> Any:
    while get_origin(kind) is Annotated:
        kind = get_args(kind)[0]
    return kind


def _member_names(member: Any) -> set[object]:
    """How a validation error's location names a union member: its ``Tag``, or its class name."""
    tags = {meta.tag for meta in getattr(member, "__metadata__", ()) if isinstance(meta, Tag)}
    return tags | {getattr(_bare(member), "__name__", None)}
