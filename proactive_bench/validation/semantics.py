"""Rules of the dataset format that the schema cannot see on one file (``pbench validate``).

Scope and ``source_session`` must agree and point back in the episode; the
category is a taxonomy code; per-session counts stay in the documented ranges
(warnings: a short session is allowed, but weakens the scores).
"""

from __future__ import annotations

from proactive_bench.dataset import (
    CATEGORY_CODES,
    AppRows,
    AppRowsAdded,
    HiddenIntent,
    LoadedEpisode,
    Problem,
    Scope,
    Session,
    ToolCount,
    unknown_timed_folders,
)
from proactive_bench.env import REGISTRY, app_tables

INTENTS_PER_SESSION = (5, 12)
ITEMS_PER_SESSION = (5, 10)
RULE_SHARE = 0.25
"""At least this share of the episode's checklist items is rule-graded."""


def is_unannotated(intent: HiddenIntent) -> bool:
    """No rule annotation at all, as in imported datasets (partly annotated intents are warned about one by one)."""
    return not (intent.evidence or intent.ask or intent.question or intent.reveal)


def semantic_problems(episode: LoadedEpisode) -> list[Problem]:
    order = [e.id for e in episode.episode.sessions]
    problems: list[Problem] = []
    found = {s.id: _session_problems(s, order) for s in episode.sessions}
    intents = [i for s in episode.sessions for i in s.intents]
    if intents and all(is_unannotated(i) for i in intents):
        found, problems = _imported_summary(episode, found)
    for session_id, session_problems in found.items():
        rel = f"episodes/{episode.episode.id}/sessions/{session_id}.yaml"
        problems += [Problem(rel, field, reason, level) for field, reason, level in session_problems]
    for folder in unknown_timed_folders(episode.directory, order):
        problems.append(
            Problem(
                f"episodes/{episode.episode.id}/apps/{folder}",
                "",
                "no session of the episode has this id (timed app rows go in apps/<session id>/)",
            )
        )
    items = [c for s in episode.sessions for c in s.checklist]
    rule = sum(c.grader == "rule" for c in items)
    if items and rule < RULE_SHARE * len(items):
        problems.append(
            Problem(
                f"episodes/{episode.episode.id}/episode.yaml",
                "sessions",
                f"{rule} of {len(items)} checklist items are rule-graded; at least a quarter should be",
                "warning",
            )
        )
    return problems


def unknown_name(node: object) -> str | None:
    """Why a predicate names an app table or tool group that does not exist (it would never hold), or None."""
    if isinstance(node, AppRows | AppRowsAdded):
        table = node.app_rows.table if isinstance(node, AppRows) else node.app_rows_added.table
        if table not in app_tables():
            return f"unknown app table {table!r}"
    if (
        isinstance(node, ToolCount)
        and node.tool_count.group is not None
        and not any(spec.group == node.tool_count.group for spec in REGISTRY.values())
    ):
        return f"unknown tool group {node.tool_count.group!r}"
    return None


def _imported_summary(
    episode: LoadedEpisode, found: dict[str, list[tuple[str, str, str]]]
) -> tuple[dict[str, list[tuple[str, str, str]]], list[Problem]]:
    """Imported data (no intent annotated) keeps its own categories and sizes: one warning per kind for the episode."""
    summary: list[Problem] = []
    for field in ("category", "intents", "checklist"):
        hits = [sid for sid, problems in found.items() if any(f == field for f, _, _ in problems)]
        if hits:
            what = "categories outside the taxonomy" if field == "category" else f"{field} counts outside the documented range"
            summary.append(
                Problem(
                    f"episodes/{episode.episode.id}/episode.yaml",
                    field,
                    f"{len(hits)} session(s) have {what} (first: {', '.join(hits[:3])}), as imported data may",
                    "warning",
                )
            )
    kept = {sid: [p for p in problems if p[0] not in ("category", "intents", "checklist")] for sid, problems in found.items()}
    return kept, summary


def _session_problems(session: Session, order: list[str]) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    if session.category not in CATEGORY_CODES:
        out.append(
            (
                "category",
                f"{session.category!r} is not a taxonomy code ({CATEGORY_CODES[0]}-{CATEGORY_CODES[-1]}, docs/taxonomy.md)",
                "error",
            )
        )
    earlier = order[: order.index(session.id)] if session.id in order else []
    for n, intent in enumerate(session.intents):
        where = f"intents[{n}]"
        if intent.scope == Scope.PERSISTENT and intent.source_session is None:
            out.append((f"{where}.source_session", "a persistent intent names the earlier session whose output holds it", "error"))
        elif intent.scope == Scope.SESSION and intent.source_session is not None:
            out.append(
                (f"{where}.source_session", "only a persistent intent has a source session (set scope: persistent, or drop it)", "error")
            )
        elif intent.source_session is not None and intent.source_session in order and intent.source_session not in earlier:
            out.append((f"{where}.source_session", f"{intent.source_session!r} does not come before this session", "error"))
    for field, count, (low, high) in (
        ("intents", len(session.intents), INTENTS_PER_SESSION),
        ("checklist", len(session.checklist), ITEMS_PER_SESSION),
    ):
        if count and not low <= count <= high:
            out.append(
                (
                    field,
                    f"{count} {'hidden intent(s)' if field == 'intents' else 'checklist item(s)'}; a session has {low}-{high}",
                    "warning",
                )
            )
    return out
