"""The predicate language shared by intent evidence and rule checklist items.

A predicate is written in YAML as a mapping with exactly one key naming its
kind, e.g. ``{file_matches: {path: reports/*.md, pattern: "dose"}}``. Regular
expressions are searched case-insensitively in multi-line mode. Predicates are
evaluated against an :class:`~proactive_bench.data_model.evidence.Evidence` object.
"""

from __future__ import annotations

import fnmatch
import functools
import json
import re
from collections.abc import Callable
from re import _parser  # type: ignore[attr-defined]  # the stdlib's regex parser: typeshed has no stub for the private module
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)

from proactive_bench.env import REGISTRY
from proactive_bench.registry import Registry

if TYPE_CHECKING:
    from proactive_bench.data_model import Evidence
    from proactive_bench.env import AppStore

REGEX_FLAGS = re.IGNORECASE | re.MULTILINE
"""The flags every predicate pattern is compiled with (:func:`compile_pattern`)."""


@functools.lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """Compile a predicate pattern with the language's flags (once: ``validate`` evaluates each many times, more than ``re``'s cache holds)."""
    return re.compile(pattern, REGEX_FLAGS)


@functools.lru_cache(maxsize=4096)
def _searcher(pattern: str) -> Callable[[str], re.Match[str] | None]:
    """``compile_pattern(pattern).search``, or its ``match`` where both find the same: see :func:`_holds_from_start`."""
    regex = compile_pattern(pattern)
    return regex.match if _holds_from_start(regex) else regex.search


def _holds_from_start(regex: re.Pattern[str]) -> bool:
    """Whether the pattern matches somewhere only if it matches at the text's start: it is nothing but greedy
    ``(?=.*...)`` lookaheads with ``.`` matching newlines (``(?s)``), the "all of these anywhere" idiom.

    Such a lookahead at a position takes the last place at or after it where its rest matches (the same place, so
    the same groups, from every earlier position), so a later position satisfies a subset of what the start does.
    A search tries every position, each try reading to the text's end (quadratic: seconds on a few kilobytes);
    a match tries the start only and returns the same match.
    """
    if not regex.flags & re.DOTALL:
        return False
    items = list(_parser.parse(regex.pattern, regex.flags))
    return bool(items) and all(op is _parser.ASSERT and arg[0] == 1 and _greedy_any(arg[1]) for op, arg in items)  # arg: (direction, body)


def _greedy_any(body: Any) -> bool:
    """Whether a lookahead's body starts with a greedy ``.*`` (any number of any character)."""
    first = list(body)[:1]
    if not first or first[0][0] is not _parser.MAX_REPEAT:
        return False
    low, high, repeated = first[0][1]
    return low == 0 and high == _parser.MAXREPEAT and list(repeated) == [(_parser.ANY, None)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def check_regex(value: str) -> str:
    """Validate a predicate pattern, raising ValueError with the reason."""
    try:
        compile_pattern(value)
    except re.error as exc:
        raise ValueError(f"invalid regular expression {value!r}: {exc}") from exc
    return value


def _check_regex_values(value: dict[str, str]) -> dict[str, str]:
    _check_regex_list(list(value.values()))
    return value


def check_relative_path(value: str) -> str:
    """Validate a path or glob that must stay inside its folder (the workspace), raising ValueError with the reason."""
    if not value.strip():
        raise ValueError("a path must not be empty")
    if "\x00" in value:
        raise ValueError("a path must not contain a NUL character")
    if value.startswith(("/", "\\")):
        raise ValueError(f"{value!r} is an absolute path; paths are relative to the workspace")
    if ".." in re.split(r"[/\\]", value):
        raise ValueError(f"{value!r} climbs out of the workspace with '..'")
    return value


RelativePath = Annotated[str, AfterValidator(check_relative_path)]
"""A workspace-relative path or glob, checked when the dataset loads."""

RegexMap = Annotated[dict[str, str], AfterValidator(_check_regex_values)]
"""Field name -> regex, every regex checked when the dataset loads."""


def _check_regex_list(value: list[str]) -> list[str]:
    for pattern in value:
        check_regex(pattern)
    return value


RegexList = Annotated[list[str], AfterValidator(_check_regex_list)]
"""Regexes, each checked when the dataset loads."""


class FileMatchArgs(_Strict):
    path: RelativePath = Field(description="Workspace-relative path or glob.")
    pattern: str = Field(description="Regex searched in the file's text.")

    _regex = field_validator("pattern")(check_regex)


class ToolCalledArgs(_Strict):
    name: str = Field(description="Tool name, e.g. write_file or gmail__send_email.")
    args: RegexMap = Field(
        default_factory=dict,
        description="Argument name -> regex searched in the argument's value (JSON-encoded if not a string).",
    )
    ok: bool | None = Field(default=True, description="Required success flag; null accepts either.")


class AppRowsArgs(_Strict):
    table: str = Field(description="App table, e.g. gmail_email or amazon_cart_item.")
    where: RegexMap = Field(default_factory=dict, description="Column -> regex searched in the value (JSON-encoded if not a string).")
    min: int = Field(default=1, ge=0, description="At least this many rows must match.")
    max: int | None = Field(default=None, ge=0, description="At most this many rows may match.")


class ToolCountArgs(_Strict):
    name: str | None = Field(default=None, description="Tool name or glob (todoist__*); give name or group.")
    group: str | None = Field(default=None, description="Tool group, e.g. todoist or workspace; give name or group.")
    args: RegexMap = Field(default_factory=dict, description="Argument name -> regex, as in tool_called.")
    ok: bool | None = Field(default=True, description="Count only calls with this success flag; null counts all.")
    min: int = Field(default=0, ge=0, description="At least this many calls this session.")
    max: int | None = Field(default=None, ge=0, description="At most this many calls this session.")

    @model_validator(mode="after")
    def _name_or_group(self) -> ToolCountArgs:
        if (self.name is None) == (self.group is None):
            raise ValueError("tool_count takes exactly one of 'name' or 'group'")
        _check_bounds(self.min, self.max)
        return self


class AppRowsAddedArgs(_Strict):
    table: str = Field(description="App table, e.g. todoist_task.")
    where: RegexMap = Field(default_factory=dict, description="Column -> regex, as in app_rows.")
    min: int = Field(default=1, ge=0, description="The table gained at least this many matching rows this session.")
    max: int | None = Field(default=None, ge=0, description="... and at most this many.")

    @model_validator(mode="after")
    def _bounds(self) -> AppRowsAddedArgs:
        _check_bounds(self.min, self.max)
        return self


class NearArgs(_Strict):
    path: RelativePath = Field(description="Workspace-relative path or glob.")
    patterns: RegexList = Field(min_length=2, description="Regexes that must all occur close together.")
    within: int | None = Field(default=None, ge=0, description="Characters allowed between the matches; null: on the same line.")


class LineCountArgs(_Strict):
    path: RelativePath = Field(description="Workspace-relative path or glob; every matching file must be in bounds.")
    pattern: str | None = Field(default=None, description="Count only lines matching this regex (e.g. '^- ' for list items).")
    min: int = Field(default=0, ge=0)
    max: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _checked(self) -> LineCountArgs:
        if self.pattern is not None:
            check_regex(self.pattern)
        _check_bounds(self.min, self.max)
        return self


def _check_bounds(low: int, high: int | None) -> None:
    if high is not None and high < low:
        raise ValueError(f"max {high} is below min {low}")


class ResponseMatches(_Strict):
    """The latest agent reply (questions removed) matches a regex."""

    response_matches: str
    _regex = field_validator("response_matches")(check_regex)


class SaidMatches(_Strict):
    """Some agent reply in the session (questions removed) matches a regex."""

    said_matches: str
    _regex = field_validator("said_matches")(check_regex)


class FileExists(_Strict):
    """A workspace file exists at the path (a glob matches at least one file)."""

    file_exists: RelativePath


class FileMatches(_Strict):
    """Some workspace file at the path or glob contains text matching the regex."""

    file_matches: FileMatchArgs


class ToolCalled(_Strict):
    """The session's tool records hold a call of the tool whose arguments match."""

    tool_called: ToolCalledArgs


class MemoryMatches(_Strict):
    """Some entry of the agent's memory matches a regex."""

    memory_matches: str
    _regex = field_validator("memory_matches")(check_regex)


class AppRows(_Strict):
    """The app state holds between ``min`` and ``max`` rows of a table matching ``where``."""

    app_rows: AppRowsArgs


class ToolCount(_Strict):
    """The number of this session's calls of a tool (by name or glob) or tool group is within bounds."""

    tool_count: ToolCountArgs


class AppRowsAdded(_Strict):
    """The number of rows of a table matching ``where`` grew by ``min``..``max`` since the session started."""

    app_rows_added: AppRowsAddedArgs


class FileNear(_Strict):
    """Some workspace file has all the patterns on one line (or within ``within`` characters of each other)."""

    file_near: NearArgs


class LineCount(_Strict):
    """Every file at the path has between ``min`` and ``max`` lines (matching ``pattern``, if given); no file: false."""

    line_count: LineCountArgs


class PythonCheck(_Strict):
    """A Python function ``graders.<module>:<function>`` taking the evidence and returning a bool."""

    python: str = Field(pattern=r"^graders(\.[A-Za-z_][A-Za-z0-9_]*)+:[A-Za-z_][A-Za-z0-9_]*$")


class PibenchScriptArgs(_Strict):
    path: RelativePath = Field(description="The π-Bench grader script, relative to the dataset's graders/ folder.")
    criterion: str | None = Field(default=None, description="The key of the script's result to read; null: every key must be 1.")
    tools: tuple[str, ...] = Field(
        default=(), description="Tools whose calls the script sees (π-Bench objectives.tools); empty: every tool."
    )


class PibenchScript(_Strict):
    """A π-Bench grader script's ``score(tools_history)`` gives 1 for the criterion (see proactive_bench/pibench)."""

    pibench_script: PibenchScriptArgs


class CheckerArgs(_Strict):
    name: str = Field(description="A named checker of the odyssey suite (file_exists, xlsx_cell, email_sent, ...).")
    args: dict[str, Any] = Field(default_factory=dict, description="The checker's arguments (suites/odyssey/checkers.py).")


class CheckerPredicate(_Strict):
    """A named checker of an OdysseyBench-style task, run by the odyssey suite (proactive_bench/suites/odyssey)."""

    checker: CheckerArgs


class AllOf(_Strict):
    all: list[Predicate] = Field(min_length=1)


class AnyOf(_Strict):
    any: list[Predicate] = Field(min_length=1)


class NotOf(_Strict):
    not_: Predicate = Field(alias="not")

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


_KINDS: dict[str, type[BaseModel]] = {
    "response_matches": ResponseMatches,
    "said_matches": SaidMatches,
    "file_exists": FileExists,
    "file_matches": FileMatches,
    "tool_called": ToolCalled,
    "memory_matches": MemoryMatches,
    "app_rows": AppRows,
    "tool_count": ToolCount,
    "app_rows_added": AppRowsAdded,
    "file_near": FileNear,
    "line_count": LineCount,
    "python": PythonCheck,
    "pibench_script": PibenchScript,
    "checker": CheckerPredicate,
    "all": AllOf,
    "any": AnyOf,
    "not": NotOf,
}


def _kind_of(value: Any) -> str | None:
    if isinstance(value, BaseModel):
        for kind, cls in _KINDS.items():
            if type(value) is cls:
                return kind
        return None
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        return key if key in _KINDS else None
    return None


Predicate = Annotated[
    (
        Annotated[ResponseMatches, Tag("response_matches")]
        | Annotated[SaidMatches, Tag("said_matches")]
        | Annotated[FileExists, Tag("file_exists")]
        | Annotated[FileMatches, Tag("file_matches")]
        | Annotated[ToolCalled, Tag("tool_called")]
        | Annotated[MemoryMatches, Tag("memory_matches")]
        | Annotated[AppRows, Tag("app_rows")]
        | Annotated[ToolCount, Tag("tool_count")]
        | Annotated[AppRowsAdded, Tag("app_rows_added")]
        | Annotated[FileNear, Tag("file_near")]
        | Annotated[LineCount, Tag("line_count")]
        | Annotated[PythonCheck, Tag("python")]
        | Annotated[PibenchScript, Tag("pibench_script")]
        | Annotated[CheckerPredicate, Tag("checker")]
        | Annotated[AllOf, Tag("all")]
        | Annotated[AnyOf, Tag("any")]
        | Annotated[NotOf, Tag("not")]
    ),
    Discriminator(
        _kind_of,
        custom_error_type="predicate_kind",
        custom_error_message="a predicate is a mapping with exactly one key, one of: " + ", ".join(_KINDS),
    ),
]

for _model in (AllOf, AnyOf, NotOf):
    _model.model_rebuild()


PythonResolver = Callable[[str], Callable[["Evidence"], Any]]

PredicateCheck = Callable[[Any, "Evidence"], bool]
PREDICATE_CHECKS: Registry[PredicateCheck] = Registry(
    "predicate_checks",
    builtins={
        "pibench_script": "proactive_bench.importers.pibench.scripts:script_check",
        "checker": "proactive_bench.suites.odyssey.checkers:checker_check",
    },
)
"""How a predicate kind whose schema is part of the dataset format but whose check lives outside the core is
evaluated, ``check(args, evidence) -> bool`` by kind: ``pibench_script`` is contributed by the π-Bench importer,
``checker`` by the odyssey suite."""


def evaluate(predicate: BaseModel, evidence: Evidence) -> bool:
    """Evaluate a predicate on evidence. Errors from Python graders propagate."""
    match predicate:
        case ResponseMatches(response_matches=pattern):
            return bool(_searcher(pattern)(evidence.latest_statement))
        case SaidMatches(said_matches=pattern):
            search = _searcher(pattern)
            return any(search(text) for text in evidence.statements)
        case FileExists(file_exists=path):
            return bool(_files(evidence, path))
        case FileMatches(file_matches=args):
            search = _searcher(args.pattern)
            return any(search(_text(evidence, p)) for p in _files(evidence, args.path))
        case ToolCalled(tool_called=args):
            return any(_tool_matches(args, record) for record in evidence.tool_records)
        case MemoryMatches(memory_matches=pattern):
            search = _searcher(pattern)
            return any(search(f"{key}: {value}") for key, value in evidence.memory.items())
        case AppRows(app_rows=args):
            if evidence.apps is None:
                return False
            count = sum(_fields_match(args.where, row) for row in _rows(evidence, evidence.apps, args.table))
            return args.min <= count and (args.max is None or count <= args.max)
        case ToolCount(tool_count=args):
            return _in_bounds(sum(_counted_call(args, record) for record in evidence.tool_records), args.min, args.max)
        case AppRowsAdded(app_rows_added=args):
            if evidence.apps is None or evidence.apps_at_start is None:
                return False
            now = sum(_fields_match(args.where, row) for row in _rows(evidence, evidence.apps, args.table))
            before = sum(_fields_match(args.where, row) for row in evidence.apps_at_start.get(args.table, []))
            return _in_bounds(now - before, args.min, args.max)
        case FileNear(file_near=args):
            return any(near(_text(evidence, p), args.patterns, args.within) for p in _files(evidence, args.path))
        case LineCount(line_count=args):
            files = _files(evidence, args.path)
            return bool(files) and all(_in_bounds(_lines(_text(evidence, p), args.pattern), args.min, args.max) for p in files)
        case PythonCheck(python=ref):
            return bool(evidence.resolve_python(ref)(evidence))
        case PibenchScript(pibench_script=args):
            return bool(PREDICATE_CHECKS.get("pibench_script")(args, evidence))
        case CheckerPredicate(checker=args):
            return bool(PREDICATE_CHECKS.get("checker")(args, evidence))
        case AllOf(all=items):
            return all(evaluate(item, evidence) for item in items)
        case AnyOf(any=items):
            return any(evaluate(item, evidence) for item in items)
        case NotOf(not_=item):
            return not evaluate(item, evidence)
    raise TypeError(f"not a predicate: {predicate!r}")


_SCAN = "predicates:workspace_scan"


def _files(evidence: Evidence, pattern: str) -> list[str]:
    """The workspace files a glob matches, the workspace walked once per evidence (its ``memo``), not once per leaf."""
    scan = evidence.memo.get(_SCAN)
    if scan is None:
        scan = evidence.memo[_SCAN] = evidence.workspace.scan()
    return evidence.workspace.glob_files(pattern, scan)


def _text(evidence: Evidence, path: str) -> str:
    """A workspace file's text, read once per evidence (its ``memo``): a check's leaves often read the same file."""
    key = ("predicates:text", path)
    if key not in evidence.memo:
        evidence.memo[key] = evidence.workspace.read_text(path)
    text: str = evidence.memo[key]
    return text


def _rows(evidence: Evidence, apps: AppStore, table: str) -> list[dict[str, Any]]:
    """An app table's rows (``apps``: the evidence's), read once per evidence (its ``memo``): several checks count
    rows of the same table."""
    key = ("predicates:rows", table)
    if key not in evidence.memo:
        evidence.memo[key] = apps.rows(table)
    rows: list[dict[str, Any]] = evidence.memo[key]
    return rows


def _in_bounds(count: int, low: int, high: int | None) -> bool:
    return low <= count and (high is None or count <= high)


def _counted_call(args: ToolCountArgs, record: Any) -> bool:
    if args.ok is not None and record.ok != args.ok:
        return False
    if args.name is not None and not fnmatch.fnmatchcase(record.tool_name, args.name):
        return False
    if args.group is not None:
        spec = REGISTRY.get(record.tool_name)
        if spec is None or spec.group != args.group:
            return False
    return _fields_match(args.args, record.call)


def near(text: str, patterns: list[str], within: int | None) -> bool:
    """Whether every pattern matches inside one line (``within`` None) or one stretch of text where
    consecutive matches are at most ``within`` characters apart."""
    if within is None:
        return any(all(compile_pattern(p).search(line) for p in patterns) for line in text.splitlines())
    spans = sorted((m.start(), m.end(), n) for n, p in enumerate(patterns) for m in compile_pattern(p).finditer(text))
    for first, (_start, reach, n) in enumerate(spans):
        seen = {n}
        for start, end, other in spans[first + 1 :]:
            if len(seen) == len(patterns) or start - reach > within:
                break
            seen.add(other)
            reach = max(reach, end)
        if len(seen) == len(patterns):
            return True
    return False


def _lines(text: str, pattern: str | None) -> int:
    lines = text.splitlines()
    if pattern is None:
        return len(lines)
    search = _searcher(pattern)
    return sum(bool(search(line)) for line in lines)


def _tool_matches(args: ToolCalledArgs, record: Any) -> bool:
    if record.tool_name != args.name or (args.ok is not None and record.ok != args.ok):
        return False
    return _fields_match(args.args, record.call)


_field_json = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode
"""A non-string field value as the text its pattern is searched in: ``json.dumps(value, ensure_ascii=False, sort_keys=True)``
with one encoder made once (``dumps`` made one per call: half the cost of encoding an app row's number)."""


def _fields_match(patterns: dict[str, str], values: dict[str, Any]) -> bool:
    """Every named field is present and its value (JSON-encoded if not a string) matches its regex."""
    for name, pattern in patterns.items():
        if name not in values:
            return False
        value = values[name]
        text = value if isinstance(value, str) else _field_json(value)
        if not _searcher(pattern)(text):
            return False
    return True


def walk(predicate: BaseModel):
    """Yield a predicate and all its sub-predicates."""
    yield predicate
    match predicate:
        case AllOf(all=items) | AnyOf(any=items):
            for item in items:
                yield from walk(item)
        case NotOf(not_=item):
            yield from walk(item)
