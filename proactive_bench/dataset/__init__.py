"""The dataset format and everything read from a dataset root.

``schema`` holds the pydantic models (persona, episode, session, intent,
checklist), ``predicates`` the predicate language and the ``PREDICATE_CHECKS``
registry through which an importer contributes a check, ``loading`` reads a
root, ``ablation`` picks the sessions a run keeps, ``taxonomy`` the category
codes, ``timed_events`` the app rows that appear when a session starts.
See README.md here.
"""

from proactive_bench.dataset.ablation import (
    ABLATIONS,
    Ablation,
    ablated_sessions,
    dependency_units,
    depends_on_map,
    left_out_dependencies,
)
from proactive_bench.dataset.loading import (
    DEFAULT_DATA_ROOT,
    Dataset,
    DatasetError,
    GraderError,
    GraderResolver,
    LoadedEpisode,
    Problem,
    load_dataset,
    load_dataset_partly,
    load_episode,
)
from proactive_bench.dataset.predicates import (
    PREDICATE_CHECKS,
    AppRows,
    AppRowsAdded,
    FileExists,
    FileMatches,
    FileNear,
    LineCount,
    PibenchScript,
    PibenchScriptArgs,
    PredicateCheck,
    PythonCheck,
    ToolCount,
    compile_pattern,
    evaluate,
    walk,
)
from proactive_bench.dataset.schema import (
    ID_PATTERN,
    ChecklistItem,
    Episode,
    HiddenIntent,
    Persona,
    ReferenceStep,
    RubricEvidence,
    Scope,
    Session,
    SessionEntry,
    Trigger,
)
from proactive_bench.dataset.taxonomy import CATEGORY_CODES
from proactive_bench.dataset.timed_events import start_session, unknown_timed_folders

__all__ = [
    "ABLATIONS",
    "CATEGORY_CODES",
    "DEFAULT_DATA_ROOT",
    "ID_PATTERN",
    "PREDICATE_CHECKS",
    "Ablation",
    "AppRows",
    "AppRowsAdded",
    "ChecklistItem",
    "Dataset",
    "DatasetError",
    "Episode",
    "FileExists",
    "FileMatches",
    "FileNear",
    "GraderError",
    "GraderResolver",
    "HiddenIntent",
    "LineCount",
    "LoadedEpisode",
    "Persona",
    "PibenchScript",
    "PibenchScriptArgs",
    "PredicateCheck",
    "Problem",
    "PythonCheck",
    "ReferenceStep",
    "RubricEvidence",
    "Scope",
    "Session",
    "SessionEntry",
    "ToolCount",
    "Trigger",
    "ablated_sessions",
    "compile_pattern",
    "dependency_units",
    "depends_on_map",
    "left_out_dependencies",
    "evaluate",
    "load_dataset",
    "load_dataset_partly",
    "load_episode",
    "start_session",
    "unknown_timed_folders",
    "walk",
]
