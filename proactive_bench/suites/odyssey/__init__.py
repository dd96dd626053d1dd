"""The ``odyssey`` suite: OdysseyBench-style office workflows whose details are spread over a multi-day dialogue history.

| module | owns |
| --- | --- |
| `task.py` | `OdysseyTask`: the task format (pydantic; in `pbench schema`) |
| `checkers.py` | the named checkers (`CHECKERS`), run as the dataset's `checker` predicate kind |
| `loading.py` | reads `odyssey/<task id>/task.yaml` (file, field, reason) and converts a task into a one-session episode |
| `context.py` | the memory context a session opens with (the run's memory setting), its token count and `search_history` index |
| `context_models.py` | a memory context made with models (summaries, embeddings): the model clients load only for it |
| `validity.py` | solvability and leak checks of `pbench validate` (cues in the history, not in the intent) |
| `suite.py` | `OdysseySuite`, registered in `suites.SUITES` as `odyssey` |
| `memory_docs.py` | `HistoryDay`, `MemoryDoc`, `Granularity`; raw documents (sessions, utterances) and rendering |
| `memory_summaries.py` | `Summarizer`: session and chunk summaries, made once per task, model and prompt version (call cache) |
| `memory_coverage.py` | `detail_coverage`: the share of a task's detail cues its memory context holds, with the context's tokens (offline) |
| `distractors.py` | a task's history lengthened deterministically with the authored exchanges of `distractors.yaml`, those close to the task's apps first (plus: extra sessions; neo: longer days), made once per task's arguments |
| `memory_tokens.py` | the token counter of context figures (tiktoken offline, else chars/4) |
| `retrieval.py` | `BM25Retriever` (offline default), `EmbeddingRetriever` (async; its queries on the run's model-call path once bound) |
| `retrieval_embedders.py` | `Embedder`, `OpenAIEmbedder` (`/v1/embeddings` through `llm.EmbeddingClient`: document vectors kept per server and model, queries recorded calls of the run, role `embedder`) |
| `settings.py` | `OdysseySettings` (the suite's `settings_model`) and the memory settings it names (`long-context`, `rag:<granularity>`, `none`); loads nothing else of the suite (the CLI builds its options from it) |
| `memory.py` | `memory_context`: the history given under a memory setting |
| `generation_seed.py` | the input of `pbench generate odyssey`: an atomic task (`SeedTask`), read with one-line errors |
| `generation.py` | the history's generator-verifier rounds (HomerAgents-style, at most 5; the loop is `suites/generation_rounds.py`) and its mechanical checks |
| `generation_neo.py` | HomerAgents-Neo-style generation: a new task and its 5-day history from an environment folder (plan, surf, task, dialogue day by day, the verifier rounds) |
| `generation_files.py` | the generated task file and the report of its rounds (`generation.yaml`) |
"""

from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "generation": (
            "CRITERIA",
            "MAX_ROUNDS",
            "GeneratedHistory",
            "Outcome",
            "Verdict",
            "generate_history",
            "mechanical_problems",
        ),
        "generation_files": (
            "report_path",
            "write_neo_outcome",
            "write_outcome",
        ),
        "generation_neo": ("NeoOutcome", "generate_neo", "load_environment"),
        "generation_seed": (
            "GenerationInputError",
            "SeedTask",
            "load_seed_task",
        ),
        "memory": ("MemoryContext", "build_documents", "memory_context"),
        "memory_coverage": ("Coverage", "detail_coverage"),
        "distractors": ("TARGETS", "lengthen"),
        "settings": ("DEFAULT_TOP_K", "MemorySetting", "MemorySettingError", "OdysseySettings", "parse_memory_setting"),
        "memory_docs": (
            "Granularity",
            "HistoryDay",
            "MemoryDoc",
            "history_days",
            "render_history",
        ),
        "memory_summaries": (
            "Summarizer",
            "SummaryError",
        ),
        "memory_tokens": (
            "count_tokens",
            "default_token_counter",
        ),
        "retrieval": (
            "BM25Retriever",
            "EmbeddingRetriever",
        ),
        "retrieval_embedders": (
            "Embedder",
            "EmbeddingError",
            "OpenAIEmbedder",
        ),
        "suite": (
            "SUITE",
            "OdysseySuite",
        ),
    },
)

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use)
    from proactive_bench.suites.odyssey.distractors import TARGETS, lengthen
    from proactive_bench.suites.odyssey.generation import (
        CRITERIA,
        MAX_ROUNDS,
        GeneratedHistory,
        Outcome,
        Verdict,
        generate_history,
        mechanical_problems,
    )
    from proactive_bench.suites.odyssey.generation_files import report_path, write_neo_outcome, write_outcome
    from proactive_bench.suites.odyssey.generation_neo import NeoOutcome, generate_neo, load_environment
    from proactive_bench.suites.odyssey.generation_seed import GenerationInputError, SeedTask, load_seed_task
    from proactive_bench.suites.odyssey.memory import MemoryContext, build_documents, memory_context
    from proactive_bench.suites.odyssey.memory_coverage import Coverage, detail_coverage
    from proactive_bench.suites.odyssey.memory_docs import Granularity, HistoryDay, MemoryDoc, history_days, render_history
    from proactive_bench.suites.odyssey.memory_summaries import Summarizer, SummaryError
    from proactive_bench.suites.odyssey.memory_tokens import count_tokens, default_token_counter
    from proactive_bench.suites.odyssey.retrieval import BM25Retriever, EmbeddingRetriever
    from proactive_bench.suites.odyssey.retrieval_embedders import Embedder, EmbeddingError, OpenAIEmbedder
    from proactive_bench.suites.odyssey.settings import (
        DEFAULT_TOP_K,
        MemorySetting,
        MemorySettingError,
        OdysseySettings,
        parse_memory_setting,
    )
    from proactive_bench.suites.odyssey.suite import SUITE, OdysseySuite

__all__ = [
    "CRITERIA",
    "DEFAULT_TOP_K",
    "MAX_ROUNDS",
    "BM25Retriever",
    "Coverage",
    "Embedder",
    "EmbeddingError",
    "EmbeddingRetriever",
    "GeneratedHistory",
    "GenerationInputError",
    "Granularity",
    "HistoryDay",
    "MemoryContext",
    "MemoryDoc",
    "MemorySetting",
    "MemorySettingError",
    "NeoOutcome",
    "OdysseySettings",
    "OdysseySuite",
    "OpenAIEmbedder",
    "Outcome",
    "SUITE",
    "SeedTask",
    "Summarizer",
    "SummaryError",
    "TARGETS",
    "Verdict",
    "build_documents",
    "count_tokens",
    "default_token_counter",
    "detail_coverage",
    "generate_history",
    "generate_neo",
    "history_days",
    "lengthen",
    "load_environment",
    "load_seed_task",
    "mechanical_problems",
    "memory_context",
    "parse_memory_setting",
    "render_history",
    "report_path",
    "write_neo_outcome",
    "write_outcome",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
