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

import importlib
import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.fields import FieldInfo

from proactive_bench.registry import Registry

if TYPE_CHECKING:  # annotations only: reading the registry and the settings models loads no dataset code
    from proactive_bench.dataset import LoadedEpisode, Problem

DEFAULT_SUITE = "personas"
"""The default suite, persona episodes (``pibench`` before 0.2, still accepted: ``SUITES`` keeps it as an alias)."""


SettingsT = TypeVar("SettingsT", bound=BaseModel)


@dataclass(frozen=True)
class SuiteContext:
    """What a suite's ``load`` gets: the run's suite settings, by the names of the suite's ``settings_model`` (checked when
    the run was made), and what pbench sets for them (``base_url``, ``summaries_db``). pbench knows no suite's settings by
    name: a suite reads its own with :meth:`parsed` (typed, defaults filled in) or :meth:`value`."""

    items: tuple[tuple[str, Any], ...] = ()
    """The settings given, as sorted ``(name, value)`` pairs (hashable: a sweep loads an episode once per distinct context)."""
    base_url: str | None = None
    """The run's OpenAI-compatible endpoint, for models a suite calls as it loads (odyssey's summaries, trainee's colleagues)."""
    summaries_db: str | None = None
    """The results database whose call cache keeps what a suite derives once (odyssey's summaries and embeddings)."""

    def value(self, name: str, default: Any = None) -> Any:
        """A setting by name (``default`` when unset)."""
        return dict(self.items).get(name, default)

    def values(self) -> dict[str, Any]:
        """The settings given, by name: the inverse of :meth:`of`."""
        return dict(self.items)

    def parsed(self, model: type[SettingsT]) -> SettingsT:
        """The settings as the suite's settings ``model`` (its defaults for those not given); a one-line ValueError naming
        the option for settings it refuses (pbench checks them as a run is made: this is for a suite loaded from Python)."""
        try:
            return model.model_validate(self.values())
        except ValidationError as exc:
            raise ValueError(first_error(exc)) from None

    @classmethod
    def of(cls, values: Mapping[str, Any], *, base_url: str | None = None, summaries_db: str | None = None) -> SuiteContext:
        """The context of one run from a suite's ``values`` (those set: None is unset) and what pbench sets for them."""
        return cls(tuple(sorted((k, v) for k, v in values.items() if v is not None)), base_url, summaries_db)


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


BUILTIN_SETTINGS = {
    DEFAULT_SUITE: "proactive_bench.suites.base:NoSettings",
    "odyssey": "proactive_bench.suites.odyssey.settings:OdysseySettings",
    "agentif": "proactive_bench.suites.base:NoSettings",
    "trainee": "proactive_bench.suites.trainee.settings:TraineeOptions",
}
"""Each built-in suite's settings model, in a module that loads nothing else of the suite (the CLI's options need only
these); ``tests/suites/test_suite_settings.py`` checks each is the loaded suite's ``settings_model``."""


def suite_settings_model(name: str) -> type[BaseModel]:
    """The settings model of the suite named ``name``: a built-in's without loading the suite, a plugin's from its suite.

    Raises PluginError for a name no suite has.
    """
    name = SUITES.canonical(name)
    if name in BUILTIN_SETTINGS:
        module, _, attribute = BUILTIN_SETTINGS[name].partition(":")
        model: type[BaseModel] = getattr(importlib.import_module(module), attribute)
        return model
    return settings_model(SUITES.get(name))


def suite_settings_problem(suite_name: str, values: Mapping[str, Any]) -> str | None:
    """Why these settings do not fit the suite (one line naming the option), or None.

    A setting the suite does not declare is refused naming the suites that do; the rest are checked by the
    suite's settings model (its field types and validators).
    """
    model = suite_settings_model(suite_name)
    given = {k: v for k, v in values.items() if v is not None}
    if foreign := [k for k in given if k not in model.model_fields]:
        owners = settings_owners()
        first = foreign[0]
        where = f"the {' and '.join(owners[first])} suite{'s' if len(owners[first]) > 1 else ''} only" if first in owners else "no suite"
        return f"{option_name(first)} applies to {where}, not {SUITES.canonical(suite_name)}"
    try:
        model.model_validate(given)
    except ValidationError as exc:
        return first_error(exc)
    return None


def first_error(exc: ValidationError) -> str:
    """A settings model's first complaint as one line naming the option (``--top-k: Input should be ...``)."""
    error = exc.errors()[0]
    where = f"{option_name(str(error['loc'][0]))}: " if error["loc"] else ""
    return where + error["msg"].removeprefix("Value error, ")


def settings_owners() -> dict[str, list[str]]:
    """Each suite setting's name, and the suites whose settings model declares it (plugin suites loaded, built-ins' models only)."""
    owners: dict[str, list[str]] = {}
    for name in SUITES.names():
        for field in suite_settings_model(name).model_fields:
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

    def load(self, root: Path, name: str, settings: SuiteContext) -> LoadedEpisode:
        """One episode ready to run.

        Args:
            root: The dataset root.
            name: The episode's name, one of :meth:`names`.
            settings: The run's suite settings (accepted by the suite's ``settings_model``) and what pbench sets for them.

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

        A suite may also define ``load_some(root, names)``, the same for the named episodes only (in their order):
        ``pbench validate`` then checks its episodes in shares over the cores.
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
