"""The suite extension point: what a task is, how it loads as a pbench episode, and the run settings it takes (its ``settings_model``).

A :class:`Suite` turns the tasks of one kind under a dataset root into
:class:`~proactive_bench.dataset.LoadedEpisode` objects the engine runs
unchanged (session graph, runner, store, checkpoints, sweeps, replay).
``personas`` (persona episodes under ``episodes/``) is the default; ``odyssey``
(history-grounded office tasks under ``odyssey/``) and ``agentif``
(AgentIF-OneDay-style everyday tasks under ``agentif/``) are contributed by
their subpackages the way a plugin is, declared by name here.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.fields import FieldInfo

from proactive_bench.registry import Registry

if TYPE_CHECKING:  # annotations only: reading the registry and the settings models loads no dataset code
    from proactive_bench.dataset import LoadedEpisode, Problem

DEFAULT_SUITE = "personas"
"""The default suite, persona episodes (``pibench`` before 0.2, still accepted: ``SUITES`` keeps it as an alias)."""


@dataclass(frozen=True)
class SuiteSettings:
    """What a suite's ``load`` gets: the run's suite settings (the built-in suites' as fields, a plug-in suite's in ``extra``)
    and what pbench sets for them (``base_url``, ``summaries_db``); the personas suite takes none. Each suite declares
    and checks its settings in its ``settings_model``; this is the form they reach ``load`` in."""

    memory: str | None = None
    top_k: int | None = None
    summary_model: str | None = None
    """The chat model that summarises histories for ``rag:summary-*`` (odyssey)."""
    summaries_db: str | None = None
    """The results database whose call cache keeps those summaries (and the history's embeddings)."""
    base_url: str | None = None
    """The summary model's OpenAI-compatible endpoint (and the LLM colleagues', trainee)."""
    days: int | None = None
    """Trainee: working days per scenario (1 or 2; day 2 opens with feedback on day 1)."""
    hints: str | None = None
    """Trainee: the guidance each objective carries (none, data, method, both)."""
    npc: str | None = None
    """Trainee: the colleagues' backend (rules or llm)."""
    npc_model: str | None = None
    """Trainee, with --npc llm: the chat model that plays the colleagues."""
    clock: str | None = None
    """Trainee: simulated minutes per tool call and per agent step, ``CALL,STEP`` (default ``2,1``)."""
    embedding_model: str | None = None
    """Odyssey, with ``rag:*``: the embeddings model that ranks the history (None: BM25); its vectors are cached in ``summaries_db``."""
    extra: tuple[tuple[str, Any], ...] = ()
    """The settings of a plug-in suite's ``settings_model`` (fields the built-in suites do not have), as ``(name, value)`` pairs."""

    def value(self, name: str, default: Any = None) -> Any:
        """A setting by name: a built-in field, or one of ``extra`` (``default`` when unset)."""
        found = dict(self.extra).get(name, getattr(self, name, None) if name in BUILT_IN_FIELDS else None)
        return default if found is None else found

    def values(self) -> dict[str, Any]:
        """The suite settings set (built-in fields and ``extra``), by name: the inverse of :meth:`of`."""
        return {k: getattr(self, k) for k in sorted(BUILT_IN_FIELDS) if getattr(self, k) is not None} | dict(self.extra)

    @classmethod
    def of(cls, values: Mapping[str, Any], **context: Any) -> SuiteSettings:
        """The settings of one run from a suite's validated ``values`` (``context``: ``base_url``, ``summaries_db``, set by pbench)."""
        given = {k: v for k, v in values.items() if v is not None}
        built_in = {k: v for k, v in given.items() if k in BUILT_IN_FIELDS}
        return cls(**built_in, **context, extra=tuple(sorted((k, v) for k, v in given.items() if k not in BUILT_IN_FIELDS)))


BUILT_IN_FIELDS = frozenset(f.name for f in fields(SuiteSettings)) - {"extra", "base_url", "summaries_db"}
"""The suite settings of the built-in suites (odyssey's memory, trainee's days, ...), named fields of :class:`SuiteSettings`."""


class NoSettings(BaseModel):
    """The settings model of a suite that takes no settings of its own, and the base of every suite's ``settings_model``.

    A suite's settings model declares each setting once: its type, default (None: unset), description
    (the CLI option's help) and checks (field and model validators, one-line messages). A field marked
    ``json_schema_extra=SWEPT`` takes a list in a sweep (each value one arm of the grid) and in the CLI
    a comma-separated list; ``pbench episode`` and ``pbench sweep`` offer every field as ``--field-name``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)


SWEPT: dict[str, Any] = {"swept": True}
"""``Field(json_schema_extra=SWEPT)``: a setting a sweep takes several values of (the CLI: comma-separated)."""


def is_swept(field: FieldInfo) -> bool:
    """Whether a settings field is swept (:data:`SWEPT`)."""
    return isinstance(field.json_schema_extra, dict) and bool(field.json_schema_extra.get("swept"))


def settings_model(suite: Suite) -> type[BaseModel]:
    """The suite's settings model (:class:`NoSettings` for a suite that declares none, as suites written for 0.1)."""
    return getattr(suite, "settings_model", NoSettings)


def suite_settings_problem(suite_name: str, values: Mapping[str, Any]) -> str | None:
    """Why these settings do not fit the suite (one line naming the option), or None.

    A setting the suite does not declare is refused naming the suites that do; the rest are checked by the
    suite's settings model (its field types and validators).
    """
    suite = SUITES.get(suite_name)
    model = settings_model(suite)
    given = {k: v for k, v in values.items() if v is not None}
    if foreign := [k for k in given if k not in model.model_fields]:
        owners = settings_owners()
        first = foreign[0]
        where = f"the {' and '.join(owners[first])} suite{'s' if len(owners[first]) > 1 else ''} only" if first in owners else "no suite"
        return f"{option_name(first)} applies to {where}, not {SUITES.canonical(suite_name)}"
    try:
        model.model_validate(given)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = f"{option_name(str(error['loc'][0]))}: " if error["loc"] else ""
        return where + error["msg"].removeprefix("Value error, ")
    return None


def settings_owners() -> dict[str, list[str]]:
    """Each suite setting's name, and the suites whose settings model declares it (every registered suite loaded)."""
    owners: dict[str, list[str]] = {}
    for name in SUITES.names():
        for field in settings_model(SUITES.get(name)).model_fields:
            owners.setdefault(field, []).append(name)
    return owners


def option_name(field: str) -> str:
    """A setting's command-line option: ``top_k`` is ``--top-k``."""
    return "--" + field.replace("_", "-")


def settings_grid(suite: Suite, values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The suite settings of each arm of a sweep: the suite's own ``grid`` if it has one, else every combination of the swept fields' lists."""
    own = getattr(suite, "grid", None)
    if own is not None:
        return list(own(values))
    model = settings_model(suite)
    swept = {
        k: (v if isinstance(v, list) else [v]) for k, v in values.items() if k in model.model_fields and is_swept(model.model_fields[k])
    }
    fixed = {k: v for k, v in values.items() if k not in swept}
    return [fixed | dict(zip(swept, combo, strict=True)) for combo in itertools.product(*swept.values())] if swept else [fixed]


class Suite(Protocol):
    """A kind of task: where its tasks live, how one loads as an episode, which run settings it accepts."""

    @property
    def name(self) -> str:
        """The suite's name (``--suite``); read-only, so a frozen dataclass or a class attribute fits."""
        ...

    @property
    def folder(self) -> str:
        """The folder of the dataset root its tasks live in (``episodes``, ``odyssey``)."""
        ...

    @property
    def settings_model(self) -> type[BaseModel]:
        """The settings the suite takes (a :class:`NoSettings` subclass): declared once, offered as options by
        ``pbench episode`` and ``pbench sweep``, checked by its validators, stored with each run. A suite may also
        define ``grid(values) -> list[dict]``, how a sweep's lists of values become arms (default: every combination)."""
        ...

    def names(self, root: Path) -> list[str]:
        """The episodes of the suite in a dataset.

        Args:
            root: The dataset root (its :attr:`folder` holds the suite's tasks).

        Returns:
            The episode names (persona ids, task ids) under ``root``, sorted; empty when there are none.
        """
        ...

    def load(self, root: Path, name: str, settings: SuiteSettings) -> LoadedEpisode:
        """One episode ready to run.

        Args:
            root: The dataset root.
            name: The episode's name, one of :meth:`names`.
            settings: The run's suite settings (already accepted by :meth:`settings_problem`).

        Returns:
            The loaded episode: its sessions, hidden intents, checklists and seed state.

        Raises:
            DatasetError: The episode does not load; every problem is listed.
        """
        ...

    def load_all(self, root: Path) -> tuple[dict[str, LoadedEpisode], list[Problem]]:
        """Every episode of the suite in a dataset, for ``pbench validate``.

        Args:
            root: The dataset root.

        Returns:
            The episodes that load, by name, and every problem found in those that do not (and in those that do).
        """
        ...

    def problems(self, root: Path, name: str) -> list[Problem]:
        """The checks of ``pbench validate`` for one episode (the pibench suite's deeper lint is validation.lint).

        Args:
            root: The dataset root.
            name: The episode's name.

        Returns:
            Every problem found, each naming its file, field and reason; empty for a valid episode.
        """
        ...

    def group(self, root: Path, name: str) -> str | None:
        """The group an episode is reported under.

        Args:
            root: The dataset root.
            name: The episode's name.

        Returns:
            The group (odyssey: ``1-app``..``3-app``), or None when the suite does not group its episodes.
        """
        ...

    @property
    def formats(self) -> dict[str, type[BaseModel]]:
        """The file formats of the suite's tasks, ``{what the file is: model}``, for ``pbench schema``."""
        ...


SUITES: Registry[Suite] = Registry(
    "suites",
    builtins={
        DEFAULT_SUITE: "proactive_bench.suites.personas:SUITE",
        "odyssey": "proactive_bench.suites.odyssey:SUITE",
        "agentif": "proactive_bench.suites.agentif:SUITE",
        "trainee": "proactive_bench.suites.trainee:SUITE",
    },
)
"""Every suite by name: ``personas`` built in (alias ``pibench``), ``odyssey``, ``agentif`` and ``trainee`` from their subpackages, plugins from ``pbench.suites`` entry points.

Each built-in loads when first asked for (``pbench runs`` reads stored runs without loading any suite)."""
SUITES.alias("pibench", DEFAULT_SUITE)  # the personas suite's 0.1 name; --protocol pibench and pbench import pibench keep the word
