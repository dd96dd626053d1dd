"""Tool registry and the recording wrapper every agent tool call goes through.

A tool is a function ``fn(env, args) -> response`` registered with
:func:`register_tool`; its second parameter's annotation (a pydantic model)
is the argument schema. :class:`ToolBox` validates arguments, runs the tool,
turns failures into error results and records
``{tool_name, call, result, ok}`` so the scaffold cannot forge evidence.

A tool that calls a model (a colleague's reply, an embedding search) is an
``async def``: :meth:`ToolBox.acall` awaits it on the run's event loop, so
its HTTP never blocks the loop. :meth:`ToolBox.call`, for synchronous
scaffolds, runs such a tool to its end when it never has to wait (rules
colleagues, BM25 search); one that would wait on the network fails with an
error saying to use ``acall``.
"""

from __future__ import annotations

import functools
import inspect
import json
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator, MutableMapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, Field, ValidationError, create_model

from proactive_bench.env import catalog
from proactive_bench.env.memory import Memory
from proactive_bench.env.tool_args import argument_problems
from proactive_bench.env.workspace import PathEscapeError, Workspace
from proactive_bench.logs import get_logger

if TYPE_CHECKING:
    from proactive_bench.env.apps.base import AppStore
    from proactive_bench.env.apps.chat import Colleagues

log = get_logger(__name__)

RESULT_TEXT_LIMIT = 20_000


class ToolError(Exception):
    """A failure the tool reports to the agent as an error result."""


TOOL_FAILURES = (ToolError, PathEscapeError, OSError, ValueError)
"""What a tool may raise for the agent to see as an error result; anything else is a bug and propagates."""


class HistorySearch(Protocol):
    """An index over a user's dialogue history: the ``k`` passages best matching ``query``, as (source, text) (plain or awaitable)."""

    def search(self, query: str, k: int) -> list[tuple[str, str]] | Awaitable[list[tuple[str, str]]]: ...


class Clock(Protocol):
    """Simulated time that moves as the agent works: each tool call and each agent step advances it.

    ``tick`` returns the notices (timed announcements) that fell due, delivered once each.
    """

    def tick(self, kind: Literal["call", "step"]) -> list[str]: ...


@dataclass
class ToolEnv:
    """What tools act on during one episode run."""

    workspace: Workspace
    memory: Memory
    apps: AppStore | None = None
    web_root: Path | None = None
    """The episode's local web corpus (``episodes/<persona>/web``)."""
    skills_root: Path | None = None
    """The episode's skills (``episodes/<persona>/skills``)."""
    history: HistorySearch | None = None
    """The dialogue history ``search_history`` searches (odyssey tasks under a retrieval memory setting)."""
    colleagues: Colleagues | None = None
    """The simulated colleagues the ``chat`` app's messages go to (trainee scenarios)."""
    clock: Clock | None = None
    """Simulated time that advances with tool calls and agent steps (trainee scenarios); None: it stands still."""

    def require_apps(self) -> AppStore:
        if self.apps is None:
            raise ToolError("no app environment in this run")
        return self.apps


class NoArgs(BaseModel):  # the arguments of a tool that takes none (no docstring: it would enter the schema)
    pass


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    args_model: type[BaseModel]
    func: Callable[[ToolEnv, Any], Any]
    group: str

    def json_schema(self) -> dict[str, Any]:
        return self.args_model.model_json_schema()

    @property
    def waits(self) -> bool:
        """Whether the tool is a coroutine function (it may wait on a model server)."""
        return inspect.iscoroutinefunction(self.func)


class ToolRegistry(MutableMapping[str, ToolSpec]):
    """The registered tools by name; a built-in tool's module is imported when its name is first looked up.

    ``registry[name]``, ``name in registry`` and ``get`` import only the module :mod:`~proactive_bench.env.catalog`
    names for ``name``; iterating (every name, ``values()``, ``len``) imports every built-in tool first. Tools a
    plug-in registers (:func:`register_tool`) are there from their registration on. A tool of a login app is read with
    its optional ``access_token`` argument (:func:`take_tokens`), a model made when the tool is first read.
    """

    def __init__(self) -> None:
        self.registered: dict[str, ToolSpec] = {}
        """The tools registered so far, with no module imported to find more (as registered: no ``access_token``)."""
        self.tokened: set[str] = set()
        """The registered tools read with an optional ``access_token`` (see :func:`take_tokens`)."""

    def __getitem__(self, name: str) -> ToolSpec:
        if name not in self.registered:
            catalog.load_tool(name)
        return self._as_read(name, self.registered[name])

    def __contains__(self, name: object) -> bool:
        if isinstance(name, str) and name not in self.registered:
            catalog.load_tool(name)
        return name in self.registered

    def __setitem__(self, name: str, spec: ToolSpec) -> None:
        self.registered[name] = spec
        self.tokened.discard(name)

    def __delitem__(self, name: str) -> None:
        del self.registered[name]
        self.tokened.discard(name)

    def __iter__(self) -> Iterator[str]:
        catalog.load_all()
        return iter(self.registered)

    def __len__(self) -> int:
        catalog.load_all()
        return len(self.registered)

    def group(self, group: str) -> list[ToolSpec]:
        """The tools of a group (its built-in modules imported first), in the catalog's module order, then registration order.

        The order is what an agent's prompt lists, so it must not depend on which module some other import loaded
        first (a test or plug-in importing ``file_search`` before ``general_tools``): a group's built-in modules come
        in :data:`~proactive_bench.env.catalog.GROUP_MODULES` order (:func:`~proactive_bench.env.catalog.module_rank`).
        """
        catalog.load_group(group)
        members = [self._as_read(name, spec) for name, spec in self.registered.items() if spec.group == group]
        return sorted(members, key=lambda spec: catalog.module_rank(group, spec.func.__module__))

    def take_token(self, name: str) -> None:
        """Read the registered tool ``name`` with an optional ``access_token`` when its group takes tokens (not its login)."""
        spec = self.registered[name]
        if spec.group in TOKEN_GROUPS and name != f"{spec.group}__login" and "access_token" not in spec.args_model.model_fields:
            self.tokened.add(name)

    def _as_read(self, name: str, spec: ToolSpec) -> ToolSpec:
        return _with_token(spec) if name in self.tokened else spec


REGISTRY = ToolRegistry()
"""Every registered tool by name; built-in ones are imported on first use (:mod:`proactive_bench.env.catalog`)."""
DEFAULT_GROUPS = ("workspace", "memory")
TOKEN_GROUPS: set[str] = set()
"""Groups (apps that require login) whose tools, except ``<group>__login``, take an optional ``access_token``."""


def register_tool(name: str, group: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator that registers ``fn(env, args: ArgsModel)`` as a tool; its docstring is the description.

    Args:
        name: The tool's name, unique (an app's tools are ``<app>__<verb>``).
        group: The tool group a session's ``tools`` list may name (an app's tools: the app's name).

    Returns:
        The decorator; it returns ``fn`` unchanged. It raises TypeError when ``fn``'s second parameter is not
        annotated with a pydantic model, ValueError when the name is taken.
    """

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        params = list(inspect.signature(fn, eval_str=True).parameters.values())
        args_model = params[1].annotation
        if not (isinstance(args_model, type) and issubclass(args_model, BaseModel)):
            raise TypeError(f"tool {name}: second parameter must be annotated with a pydantic model")
        if name in REGISTRY.registered:
            raise ValueError(f"tool {name} registered twice")
        description = inspect.cleandoc(fn.__doc__ or name)
        REGISTRY[name] = ToolSpec(name, description, args_model, fn, group)
        REGISTRY.take_token(name)
        return fn

    return decorate


def take_tokens(group: str) -> None:
    """Every tool of ``group`` but ``<group>__login``, registered or to come, takes an optional ``access_token`` (login apps)."""
    TOKEN_GROUPS.add(group)
    for name in list(REGISTRY.registered):
        REGISTRY.take_token(name)


@functools.cache
def _with_token(tool: ToolSpec) -> ToolSpec:
    """The tool with an optional ``access_token`` argument, as π-Bench-style agents pass it: made once, when first read
    (a pydantic model per tool, for every login app's tools at import, cost a run 80 ms of CPU)."""
    model = create_model(
        tool.args_model.__name__,
        __base__=tool.args_model,
        access_token=(str | None, Field(default=None, description=f"Token from {tool.group}__login (optional).")),
    )
    return replace(tool, args_model=model)


def resolve_tool_names(names: list[str]) -> list[ToolSpec]:
    """Expand tool and group names (empty: the default groups) into specs.

    Raises KeyError naming the first unknown entry.
    """
    wanted = names or list(DEFAULT_GROUPS)
    specs: dict[str, ToolSpec] = {}
    for name in wanted:
        if name in REGISTRY:
            specs[name] = REGISTRY[name]
            continue
        group = REGISTRY.group(name)
        if not group:
            raise KeyError(name)
        specs.update((spec.name, spec) for spec in group)
    return list(specs.values())


@dataclass
class ToolRecord:
    """One recorded call, in the shape π-Bench graders read."""

    tool_name: str
    call: dict[str, Any]
    result: dict[str, Any]
    ok: bool
    turn: int = 0
    seq: int = 0

    def as_pibench(self) -> dict[str, Any]:
        return {"tool_name": self.tool_name, "call": self.call, "result": self.result, "ok": self.ok}


@dataclass
class ToolBox:
    """The tools of one session, bound to the episode's environment."""

    env: ToolEnv
    specs: list[ToolSpec]
    records: list[ToolRecord] = field(default_factory=list)
    turn: int = 0
    steps: int = 0
    """The agent's steps so far: one per decision, whatever kind of agent (see :meth:`begin_step`)."""
    on_record: Callable[[ToolRecord, int], None] | None = None
    """Told of each call as it is recorded, with the time it started (``time.time_ns()``): the run's trace."""
    max_calls_per_turn: int | None = None
    """The most tool calls one turn may make (None: no limit). A call past it is refused: not run, not recorded."""
    on_call_limit: Callable[[], object] | None = None
    """Told once per turn, at the first call past :attr:`max_calls_per_turn` (from the thread that made it)."""
    _pending_notices: list[str] = field(default_factory=list)
    _step_open: bool = False
    _calls_in_step: int = 0
    _call_started: int = 0
    _calls_in_turn: tuple[int, int] = (0, 0)
    """The turn the calls were counted in, and how many it has made."""

    def spec(self, name: str) -> ToolSpec | None:
        return next((s for s in self.specs if s.name == name), None)

    def call(self, name: str, args: dict[str, Any] | None = None) -> ToolRecord:
        """Run a tool by name; failures come back as ``ok=False`` records, never exceptions.

        With a clock, the call advances simulated time and the notices that fell due ride on its result (``notices``).
        An ``async`` tool that has to wait (on a model server) fails here: await :meth:`acall` instead.
        """
        refused = self._past_call_limit(name, args)
        if refused is not None:
            return refused
        self._enter_call()
        checked = self._check(name, dict(args or {}))
        if isinstance(checked, ToolRecord):
            return self._tick(checked)
        spec, call, parsed = checked

        def run() -> Any:
            response = spec.func(self.env, parsed)
            return _finish_without_waiting(spec, response) if spec.waits else response

        return self._tick(self._outcome(name, call, run))

    async def acall(self, name: str, args: dict[str, Any] | None = None) -> ToolRecord:
        """:meth:`call` for async scaffolds: an ``async`` tool is awaited on the running event loop."""
        refused = self._past_call_limit(name, args)
        if refused is not None:
            return refused
        self._enter_call()
        checked = self._check(name, dict(args or {}))
        if isinstance(checked, ToolRecord):
            return self._tick(checked)
        spec, call, parsed = checked
        if not spec.waits:
            return self._tick(self._outcome(name, call, lambda: spec.func(self.env, parsed)))
        try:
            response = await spec.func(self.env, parsed)
        except TOOL_FAILURES as exc:
            return self._tick(self._record(name, call, {"error": str(exc)}, ok=False))
        return self._tick(self._record(name, call, {"response": response}, ok=True))

    def begin_step(self) -> None:
        """The agent starts a new step (a model response): with a clock, simulated time advances (its notices wait for the next call).

        A step is one agent decision: a model call that answers with tool calls or with the reply (the ``react``
        scaffold declares each here), or, for an agent that declares none, each tool call it makes and its reply
        (a scripted action): :attr:`steps` counts both, and :meth:`end_turn` counts a reply no step covers. Every
        step, declared or not, advances the clock by its step rate: not declaring steps saves no simulated time.
        """
        self._count_step()
        self._step_open, self._calls_in_step = True, 0

    def end_turn(self) -> None:
        """The agent has replied: the reply is a step of its own unless a declared step with no tool call yet produced it."""
        if not (self._step_open and self._calls_in_step == 0):
            self._count_step()
        self._step_open, self._calls_in_step = False, 0

    @property
    def call_limit_reached(self) -> bool:
        """Whether this turn has tried a call past :attr:`max_calls_per_turn` (that call and any after it were refused)."""
        turn, made = self._calls_in_turn
        return self.max_calls_per_turn is not None and turn == self.turn and made > self.max_calls_per_turn

    def _past_call_limit(self, name: str, args: dict[str, Any] | None) -> ToolRecord | None:
        """None while this turn's calls are within :attr:`max_calls_per_turn`; past it, the refusal (unrecorded: an agent
        calling in a loop adds nothing to the session's evidence), and :attr:`on_call_limit` told at the first one."""
        if self.max_calls_per_turn is None:
            return None
        counted_turn, made = self._calls_in_turn
        made = made + 1 if counted_turn == self.turn else 1
        self._calls_in_turn = (self.turn, made)
        if made <= self.max_calls_per_turn:
            return None
        if made == self.max_calls_per_turn + 1 and self.on_call_limit is not None:
            self.on_call_limit()
        error = f"this turn's {self.max_calls_per_turn} tool calls are spent: the call was not run"
        return ToolRecord(name, dict(args or {}), {"error": error}, ok=False, turn=self.turn, seq=len(self.records))

    def _enter_call(self) -> None:
        """A call inside a declared step is part of it; any other is a decision of its own, and costs one in simulated time."""
        if self.on_record is not None:
            self._call_started = time.time_ns()
        if self._step_open:
            self._calls_in_step += 1
        else:
            self._count_step()

    def _count_step(self) -> None:
        self.steps += 1
        if self.env.clock is not None:
            self._pending_notices += self.env.clock.tick("step")

    def _tick(self, record: ToolRecord) -> ToolRecord:
        """With a clock, advance simulated time by one call; the notices that fell due ride on the result."""
        if self.env.clock is not None:
            notices, self._pending_notices = [*self._pending_notices, *self.env.clock.tick("call")], []
            if notices:
                record.result["notices"] = notices
        return record

    def _check(self, name: str, call: dict[str, Any]) -> ToolRecord | tuple[ToolSpec, dict[str, Any], BaseModel]:
        """The tool and its validated arguments (access token checked), or the failed call's record."""
        spec = self.spec(name)
        if spec is None:
            return self._record(name, call, {"error": f"unknown tool {name!r}"}, ok=False)
        try:
            parsed = spec.args_model.model_validate(call, extra="forbid")  # every tool: an unknown key is an error, never dropped
        except ValidationError as exc:
            return self._record(name, call, {"error": f"invalid arguments: {argument_problems(spec.args_model, exc)}"}, ok=False)
        try:
            token = getattr(parsed, "access_token", None)
            if token is not None:
                self.env.require_apps().check_token(spec.group, token)
        except ToolError as exc:
            return self._record(name, call, {"error": str(exc)}, ok=False)
        return spec, call, parsed

    def _outcome(self, name: str, call: dict[str, Any], run: Callable[[], Any]) -> ToolRecord:
        """Run a synchronous tool body and record its response or its failure."""
        try:
            response = run()
        except TOOL_FAILURES as exc:
            return self._record(name, call, {"error": str(exc)}, ok=False)
        except RecursionError:  # a library walk (os.walk, shutil) over a folder tree nested thousands deep
            return self._record(name, call, {"error": "folder tree nested too deep"}, ok=False)
        return self._record(name, call, {"response": response}, ok=True)

    def _record(self, name: str, call: dict[str, Any], result: dict[str, Any], ok: bool) -> ToolRecord:
        record = ToolRecord(name, call, result, ok, turn=self.turn, seq=len(self.records))
        self.records.append(record)
        log.debug("tool_call", tool=name, ok=ok, turn=self.turn)
        if self.on_record is not None:
            self.on_record(record, self._call_started)
        return record


def _finish_without_waiting(spec: ToolSpec, coroutine: Coroutine[Any, Any, Any]) -> Any:
    """An async tool's result when it completes without waiting; ToolError when it would have to wait."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise ToolError(f"{spec.name} waits on a model server: an async scaffold must call it with `await tools.acall(...)`")


def render_result(record: ToolRecord) -> str:
    """A tool result as text for a model, capped in length."""
    payload = record.result.get("response") if record.ok else {"error": record.result.get("error")}
    text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, default=str)
    if len(text) > RESULT_TEXT_LIMIT:
        text = text[:RESULT_TEXT_LIMIT] + f"\n[... truncated {len(text) - RESULT_TEXT_LIMIT} characters]"
    notices = record.result.get("notices") or []
    return text + "".join(f"\n[notice] {notice}" for notice in notices)
