"""A :class:`~proactive_bench.reporting.summary.Summary` or one run's result as rich tables or CSV.

A figure that has errored, truncated or unplayed sessions in it carries a
``†`` and the counts stand beside it, so a failure is never silent.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from rich.table import Table

import proactive_bench.suites as suites  # the AgentIF suite loads when its table is printed
from proactive_bench.dataset import NO_CATEGORY
from proactive_bench.reporting.summary import Summary
from proactive_bench.reporting.trainee import TraineeTables
from proactive_bench.review import POLARITIES, Disagreement
from proactive_bench.scoring import EpisodeResult

WHOLE = ("model", "persona", "ablation", "task", "role")
"""Columns printed whole at any width (see proactive_bench/terminal.py)."""
FAILURE_MARK = "†"
GAP_MARK = "‡"
"""A session that lacked part of its source benchmark's world (its dataset session's ``gaps``, e.g. an import's)."""
ERROR_CHARS = 240
"""Characters of a session's error shown in its (wrapping) table cell; the full error is stored and printed below the table."""
FAILURE_NOTE = f"{FAILURE_MARK} = the figure includes errored (scored 0), truncated or not-run sessions; see the err/trunc/not-run column."


def pct(value: float | None) -> str:
    """A fraction as a percentage with one decimal, or a dash."""
    return "—" if value is None else f"{100 * value:.1f}"


def mean_std(stats: dict[str, Any]) -> str:
    """``mean ± std`` in percent (``± n/a`` for a single run: one run has no spread to show), or a dash."""
    if stats["mean"] is None:
        return "—"
    return f"{100 * stats['mean']:.1f} ± " + ("n/a" if stats["std"] is None else f"{100 * stats['std']:.1f}")


def interval(stats: dict[str, Any]) -> str:
    """The 95 % bootstrap interval over runs in percent, ``[low, high]``; ``n/a`` below two runs."""
    if stats.get("boot95") is None:
        return "n/a" if stats["mean"] is not None else "—"
    low, high = stats["boot95"]
    return f"[{100 * low:.1f}, {100 * high:.1f}]"


def failure_counts(failures: dict[str, int]) -> str:
    """``errored/truncated/not run`` session counts."""
    return f"{failures['error']}/{failures['truncated']}/{failures['not_run']}"


def marked(text: str, failures: dict[str, int]) -> str:
    """A figure with the failure mark when any session failed."""
    return f"{text} {FAILURE_MARK}" if text != "—" and any(failures.values()) else text


def titled(title: str, *columns: str) -> Table:
    """An empty table with a title and named columns."""
    table = Table(title=title)
    for name in columns:
        table.add_column(name, no_wrap=name in WHOLE)
    return table


def summary_tables(summary: Summary) -> list[Table]:
    """Main table, table 1, ablation, statuses, turns, categories, odyssey pass rates, AgentIF scores, trainee scenarios and cost where there is something to show."""
    tables = [_main_table(summary)] if summary.main or not (summary.pass_rate or summary.agentif or summary.trainee) else []
    if len(summary.personas) > 1:
        tables.append(_overall_table(summary))
    if summary.flips:
        tables.append(flip_table(summary.flips))
    if summary.ablation:
        ablation = titled(
            "No-dependency-history ablation: final sessions of dependency groups (%)",
            "model",
            "persona",
            "sessions",
            "Proc with",
            "Proc without",
            "Δ Proc",
            "Comp with",
            "Comp without",
            "Δ Comp",
        )
        average = [{**row, "persona": "Average", "sessions": [f"{row['sessions']} finals"]} for row in summary.ablation_average]
        for row in [*summary.ablation, *average]:
            ablation.add_row(
                row["model"],
                row["persona"],
                ", ".join(row["sessions"]),
                *(marked(pct(row[f"proc_{w}"]), row["failures"]) for w in ("with_history", "without_history", "delta")),
                *(marked(pct(row[f"comp_{w}"]), row["failures"]) for w in ("with_history", "without_history", "delta")),
            )
        tables.append(ablation)
    if summary.main:
        tables += _status_and_turn_tables(summary)
    if summary.pass_rate:
        tables += pass_rate_tables_of(summary)
    if summary.agentif:
        tables += agentif_tables_of(summary)
    if summary.trainee:
        tables += trainee_tables_of(summary.trainee)
    if summary.categories:
        tables.append(category_table(summary))
    if summary.cost:
        cost = titled(
            "Model calls and cost", "model", "role", "calls", "cached", "failed", "prompt tok", "completion tok", "USD", "unpriced"
        )
        for row in summary.cost:
            cost.add_row(
                row["model"],
                row["role"],
                *(str(row[k]) for k in ("calls", "cached", "failed", "prompt_tokens", "completion_tokens")),
                f"{row['cost_usd']:.4f}",
                str(row["unpriced_calls"]),
            )
        tables.append(cost)
    return tables


def _setting(row: dict[str, Any]) -> str:
    return row["memory"] + (f" k={row['top_k']}" if row["top_k"] is not None else "")


def _tokens(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


PASS_RATE_NOTE = f"{FAILURE_MARK} = errored sessions or criteria that could not be graded count as not passed; see the err column."


def pass_rate_tables_of(summary: Summary) -> list[Table]:
    """Odyssey tables: pass rate per application group and macro-average (table 2), per memory setting × top-k (table 3), per task."""
    tables = summary.pass_rate
    groups = titled(
        "Odyssey pass rate (%) by application group; overall = macro-average over tasks",
        "model",
        "memory",
        "tasks",
        "1-app",
        "2-app",
        "3-app",
        "overall",
        "err",
    )
    groups.caption = PASS_RATE_NOTE
    for row in tables.groups:
        failures = {"error": row["errored"] + row["grader_errors"]}
        groups.add_row(
            row["model"],
            _setting(row),
            str(row["tasks"]),
            *(f"{pct(row[g])} ({row[f'{g} tasks']})" if row[g] is not None else "—" for g in ("1-app", "2-app", "3-app")),
            marked(pct(row["overall"]), failures),
            str(failures["error"]),
        )
    memory = titled(
        "Odyssey memory settings: pass rate (%) and mean context tokens", "model", "memory", "top-k", "tasks", "pass rate", "tokens"
    )
    for row in tables.memory:
        memory.add_row(
            row["model"],
            row["memory"],
            "—" if row["top_k"] is None else str(row["top_k"]),
            str(row["tasks"]),
            pct(row["pass_rate"]),
            _tokens(row["context_tokens"]),
        )
    tasks = titled("Odyssey tasks: runs passed", "model", "memory", "task", "group", "passed", "err", "tokens")
    for row in tables.tasks:
        tasks.add_row(
            row["model"],
            _setting(row),
            row["task"],
            row["group"],
            f"{row['passed']}/{row['runs']}",
            str(row["errored"] + row["grader_errors"]),
            _tokens(row["context_tokens"]),
        )
    return [groups, memory, tasks]


AGENTIF_NOTE = (
    f"score = mean over tasks of max(0, S+ - S-) / S_max (%); {FAILURE_MARK} = errored runs (scored 0) or runs left out "
    "because an item could not be graded; see the err/unscored column."
)


def agentif_tables_of(summary: Summary) -> list[Table]:
    """AgentIF tables: score per model with its category, domain and attachment columns, penalties avoided, Proc and burden; item categories; per task."""
    tables = summary.agentif
    models = Table(
        title="AgentIF score (%) by task category, domain and attachments; penalty points avoided; Proc on latent rules; user burden",
        caption=AGENTIF_NOTE,
    )
    for name in (
        "model",
        "tasks",
        "score",
        *suites.AGENTIF_CATEGORIES,
        *suites.AGENTIF_DOMAINS,
        "w/ att.",
        "w/o att.",
        "neg. const.",
        "Proc",
        "user turns",
        "questions",
        "err/unscored",
    ):
        models.add_column(name)
    for row in tables.models:
        failures = {"error": row["errored"], "unscored": row["unscored"]}
        models.add_row(
            row["model"],
            str(row["tasks"]),
            marked(pct(row["score"]), failures),
            *(pct(row[c]) for c in suites.AGENTIF_CATEGORIES),
            *(pct(row[d]) for d in suites.AGENTIF_DOMAINS),
            pct(row["with_attachments"]),
            pct(row["without_attachments"]),
            pct(row["neg_const"]),
            pct(row["proc"]),
            _decimal(row["user_turns"]),
            _decimal(row["questions"]),
            f"{row['errored']}/{row['unscored']}",
        )
    items = Table(title="AgentIF items by category: bonus points earned / possible, penalty points triggered")
    for name in ("model", "item category", "bonus earned", "bonus %", "penalty items", "penalty points", "withheld"):
        items.add_column(name)
    for row in tables.items:
        items.add_row(
            row["model"],
            row["item_category"],
            f"{row['bonus_earned']}/{row['bonus_possible']}",
            pct(row["bonus_share"]),
            str(row["penalty_items"]),
            str(row["penalty_points"]),
            str(row["withheld"]),
        )
    tasks = Table(title="AgentIF tasks: score (%), S+ / S- / S_max (means over runs)")
    for name in ("model", "task", "category", "domain", "att.", "runs", "score", "S+", "S-", "S_max", "Proc", "err/unscored"):
        tasks.add_column(name)
    for row in tables.tasks:
        tasks.add_row(
            row["model"],
            row["task"],
            row["category"],
            row["domain"],
            str(row["attachments"]),
            str(row["runs"]),
            pct(row["score"]),
            _decimal(row["bonus"]),
            _decimal(row["penalty"]),
            str(row["max_points"]),
            pct(row["proc"]),
            f"{row['errored']}/{row['unscored']}",
        )
    return [models, items, tasks]


def _decimal(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def trainee_tables_of(tables: TraineeTables) -> list[Table]:
    """Overall (the paper's table 2 plus asking and guessing), by concurrent tasks (table 3), by difficulty (table 4), day 1 vs 2 (table 5), hints."""
    overall = titled(
        "Trainee: Success Rate and Checkpoint Score (%), per scenario day",
        "model",
        "days",
        "SR",
        "CS",
        "avg steps",
        "avg tool calls",
        "clues asked",
        "guesses",
        "avg msgs",
        "msgs/clue",
    )
    for r in tables.overall:
        overall.add_row(
            r["model"],
            str(r["scenario_days"]),
            pct(r["success_rate"]),
            pct(r["checkpoint_score"]),
            _num(r["avg_steps"]),
            _num(r["avg_tool_calls"]),
            pct(r["clues_asked"]),
            pct(r["guesses"]),
            _num(r["messages"]),
            _num(r["messages_per_clue"]),
        )
    overall.caption = (
        "steps = agent decisions (model calls; a scripted agent's actions and replies); clues asked = clues released over chat / "
        "clues colleagues hold; guesses = clue-needing checkpoints attempted without the clue / attempted-or-not; "
        "avg msgs = chat messages to colleagues per day; msgs/clue = chat messages per clue obtained (— when none was)."
    )
    out = [overall]
    by_tasks = titled("Trainee by number of concurrent tasks: SR / CS (%)", "model", "tasks", "days", "SR", "CS")
    for r in tables.by_tasks:
        by_tasks.add_row(r["model"], str(r["tasks"]), str(r["scenario_days"]), pct(r["success_rate"]), pct(r["checkpoint_score"]))
    out.append(by_tasks)
    by_difficulty = titled("Trainee by task difficulty: SR / CS (%) over tasks", "model", "difficulty", "tasks", "SR", "CS")
    for r in tables.by_difficulty:
        by_difficulty.add_row(r["model"], r["difficulty"], str(r["tasks"]), pct(r["success_rate"]), pct(r["checkpoint_score"]))
    out.append(by_difficulty)
    if tables.by_day:
        by_day = titled("Trainee Day 1 vs Day 2 (feedback, new seeds): CS (%)", "model", "scenarios", "day 1", "day 2", "Δ CS")
        for r in tables.by_day:
            by_day.add_row(r["model"], str(r["scenarios"]), pct(r["day1"]), pct(r["day2"]), pct(r["gain"]))
        out.append(by_day)
    if len({r["hints"] for r in tables.by_hints}) > 1:
        by_hints = titled("Trainee by hints: SR / CS (%)", "model", "hints", "days", "SR", "CS")
        for r in tables.by_hints:
            by_hints.add_row(r["model"], r["hints"], str(r["scenario_days"]), pct(r["success_rate"]), pct(r["checkpoint_score"]))
        out.append(by_hints)
    return out


STATUS_COLUMNS = ("completed", "inferred", "provided", "unresolved", "intents", "sessions ok/trunc/err/not run")


def _status_and_turn_tables(summary: Summary) -> list[Table]:
    """Table 7 and figure 4's points per model (every persona together), then the same per persona."""
    by_model = Table(title="Terminal statuses of hidden intents (%), per model over every persona (table 7)")
    for name in ("model", "ablation", "personas", *STATUS_COLUMNS):
        by_model.add_column(name, no_wrap=name in WHOLE)
    for row in summary.model_statuses:
        by_model.add_row(row["model"], row["ablation"], ", ".join(row["personas"]), *_status_cells(row))
    points = Table(
        title="Follow-up user turns per session and Proc, per model over every persona (figure 4)",
        caption="Proc: table 1's Average (mean ± sample std over runs); turns: errored sessions left out.",
    )
    for name in ("model", "ablation", "personas", "sessions", "mean turns", "Proc"):
        points.add_column(name, no_wrap=name in WHOLE)
    for row in summary.model_turns:
        points.add_row(
            row["model"], row["ablation"], ", ".join(row["personas"]), str(row["sessions"]), f"{row['mean']:.2f}", mean_std(row["proc"])
        )
    statuses = Table(title="Terminal statuses: intents (%) and sessions, per persona")
    for name in ("model", "persona", "ablation", *STATUS_COLUMNS):
        statuses.add_column(name, no_wrap=name in WHOLE)
    for row in summary.statuses:
        statuses.add_row(row["model"], row["persona"], row["ablation"], *_status_cells(row))
    turns = Table(title="Follow-up user turns per session (errored sessions left out)")
    for name in ("model", "persona", "ablation", "sessions", "mean", "median", "max"):
        turns.add_column(name, no_wrap=name in WHOLE)
    for row in summary.turns:
        turns.add_row(
            row["model"],
            row["persona"],
            row["ablation"],
            str(row["sessions"]),
            f"{row['mean']:.2f}",
            f"{row['median']:.1f}",
            str(row["max"]),
        )
    return [by_model, points, statuses, turns]


def _status_cells(row: dict[str, Any]) -> list[str]:
    s = row["sessions"]
    return [
        *(pct(row["intents"][k]) for k in ("completed", "inferred", "provided", "unresolved")),
        str(row["intents_total"]),
        f"{s['completed']}/{s['truncated']}/{s['error']}/{s['not_run']}",
    ]


def _main_table(summary: Summary) -> Table:
    left_out = sum(row["partial_runs_left_out"] for row in summary.main)
    caption = FAILURE_NOTE + (f" {left_out} partial run(s) left out (--include-partial to count them)." if left_out else "")
    clipped = {k: sum(row["clipped"][k] for row in summary.main) for k in ("intents", "items")}
    if any(clipped.values()):
        caption += f" Decided on clipped evidence: {clipped['intents']} intent label(s), {clipped['items']} checklist item(s)."
    main = Table(
        title=f"Proc and Comp (%, mean ± sample std over runs, 95 % bootstrap interval; {summary.scoring} scoring)", caption=caption
    )
    pass_keys = summary.pass_keys
    for name in ("model", "persona", "ablation", "runs", "Proc", "Proc 95% CI", "Comp", "Comp 95% CI", "err/trunc/not run", *pass_keys):
        main.add_column(name, justify="left" if name in WHOLE else "right", no_wrap=name in WHOLE)
    for row in summary.main:
        f = row["failures"]
        main.add_row(
            row["model"],
            row["persona"],
            row["ablation"],
            str(row["runs"]) + (f" (+{row['partial_runs_left_out']} partial)" if row["partial_runs_left_out"] else ""),
            marked(mean_std(row["proc"]), f),
            interval(row["proc"]),
            marked(mean_std(row["comp"]), f),
            interval(row["comp"]),
            failure_counts(f),
            *(pct(row.get(k)) for k in pass_keys),
        )
    return main


def flip_table(flips: list[dict[str, Any]], title: str = "Flip rate between repeats (%): each model's noise floor") -> Table:
    """Per model with repeats: tasks repeated, how many flipped (verdict, labels) and the share that did."""
    table = Table(
        title=title,
        caption="A task flips when its pass/fail verdict or its intent labels differ between runs of the same model, persona and ablation.",
    )
    for name in ("model", "tasks repeated", "repeats", "flipped", "verdict flips", "label flips", "flip rate"):
        table.add_column(name, justify="left" if name in WHOLE else "right", no_wrap=name in WHOLE)
    for row in flips:
        table.add_row(
            row["model"],
            str(row["tasks"]),
            str(row["repeats"]),
            str(row["flipped"]),
            str(row["verdict_flips"]),
            str(row["label_flips"]),
            pct(row["rate"]),
        )
    return table


def _overall_table(summary: Summary) -> Table:
    """Table 1: Proc / Comp per persona and the Average over all their tasks."""
    personas = summary.personas
    table = Table(title="Proc / Comp (%) per persona and Average over all tasks (table 1)", caption=FAILURE_NOTE)
    for name in ("model", "ablation", *personas, "Average"):
        table.add_column(name, justify="left" if name in WHOLE else "right", no_wrap=name in WHOLE)
    for row in summary.overall:
        cells = []
        for persona in personas:
            cell = row["personas"].get(persona)
            cells.append("—" if cell is None else marked(f"{mean_std(cell['proc'])} / {mean_std(cell['comp'])}", cell["failures"]))
        avg = row["average"]
        cells.append(marked(f"{mean_std(avg['proc'])} / {mean_std(avg['comp'])}", avg["failures"]))
        table.add_row(row["model"], row["ablation"], *cells)
    return table


CATEGORY_NOTE = (
    f"{FAILURE_MARK} = the cell includes errored (scored 0) or truncated sessions. {NO_CATEGORY}: tasks whose dataset gives no "
    "taxonomy category (a π-Bench release's tasks carry none, and the paper lists no task per category); never guessed."
)


def category_table(summary: Summary) -> Table:
    """Table 8: task-averaged Proc / Comp per category, one column per model (and ablation)."""
    columns = sorted({_column(row) for row in summary.categories})
    categories = sorted({row["category"] for row in summary.categories})
    cells = {(row["category"], _column(row)): row for row in summary.categories}
    table = Table(title="Proc / Comp (%) by task category, averaged over tasks (table 8)", caption=CATEGORY_NOTE)
    table.add_column("category")
    for name in columns:
        table.add_column(name, no_wrap=True)  # headed by model names
    for category in categories:
        table.add_row(category, *(_category_cell(cells.get((category, column))) for column in columns))
    return table


def _column(row: dict[str, Any]) -> str:
    return row["model"] if row["ablation"] == "none" else f"{row['model']} ({row['ablation']})"


def _category_cell(row: dict[str, Any] | None) -> str:
    return "—" if row is None else marked(f"{pct(row['proc'])} / {pct(row['comp'])} (n={row['tasks']})", row["failures"])


def audit_table(rows: list[Disagreement]) -> Table:
    """Table 6: each audit source's disagreement with the runs' judgments (``pbench audit show``, ``pbench results``)."""
    polarities = [p for p in POLARITIES if any(p in row.by_polarity for row in rows)]
    table = Table(
        title="Disagreement with the run's judgments (%, table 6)" + ("; agreement per AgentIF item polarity (%)" if polarities else "")
    )
    for name in ("audit source", "checklist", "hidden intents", *(f"{p} agreement" for p in polarities)):
        table.add_column(name, no_wrap=name == "audit source")
    for row in rows:
        table.add_row(
            row.label,
            f"{pct(row.checklist_rate)} (n={row.checklist_n})",
            f"{pct(row.intents_rate)} (n={row.intents_n})",
            *(f"{pct(row.agreement(p))} (n={row.by_polarity.get(p, (0, 0))[0]})" for p in polarities),
        )
    return table


def results_table(result: EpisodeResult, total_sessions: int) -> Table:
    """One run, session by session, with the episode's figures and its failures."""
    basis, failures = result.basis, result.failures.as_dict()
    caption = (
        f"C/I/P = intents completed/inferred/provided. Comp covers {basis.graded} graded item(s) ({', '.join(basis.graders) or 'none'})"
    )
    if basis.ungraded:
        caption += f"; {basis.ungraded} rubric item(s) ungraded (no --judge-model)"
    if basis.errored:
        caption += f"; {basis.errored} item(s) errored"
    if any(failures.values()):
        caption += f". {FAILURE_MARK} sessions errored/truncated/not run: {failure_counts(failures)}; an errored session scores 0"
    if result.partial:
        caption += ". PARTIAL run: left out of comparisons"
    if any(result.clipped.values()):
        caption += f". Decided on clipped evidence: {result.clipped['intents']} intent label(s), {result.clipped['items']} item(s)"
    if gapped := [s for s in result.sessions if s.gaps]:
        caption += (
            f". {GAP_MARK} {len(gapped)} session(s) lacked part of their source world (app records, web pages, a grader script: "
            "the session's gaps, listed in the import's IMPORT_REPORT.md); not comparable with the source's figures"
        )
    table = Table(title=f"{result.persona} · {result.model} · run {result.run_id}", caption=caption)
    table.add_column("session", no_wrap=True)
    for name in ("turns", "C", "I", "P", "Proc%", "Comp%"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("status", no_wrap=True)
    errors = any(s.error is not None for s in result.sessions)
    if errors:
        table.add_column("error")
    for s in result.sessions:
        table.add_row(
            f"{s.session_id} {GAP_MARK}" if s.gaps else s.session_id,
            str(s.follow_up_turns),
            str(s.counts.completed),
            str(s.counts.inferred),
            str(s.counts.provided),
            pct(s.proc),
            pct(s.scored_comp),
            s.status,
            *([(s.error or "")[:ERROR_CHARS]] if errors else []),
        )
    totals = [sum(getattr(s.counts, f) for s in result.sessions) for f in ("completed", "inferred", "provided")]
    table.add_section()
    table.add_row(
        f"episode {len(result.sessions)}/{total_sessions}",
        str(sum(s.follow_up_turns for s in result.sessions)),
        *map(str, totals),
        marked(pct(result.proc), failures),
        marked(pct(result.comp), failures),
        "",
        *([""] if errors else []),
    )
    return table


def summary_csv(summary: Summary) -> str:
    """The main table as CSV (fractions, not percentages); a summary of odyssey or AgentIF runs only: its per-task rows."""
    if summary.agentif and not summary.main and not summary.pass_rate:
        return _rows_csv(summary.agentif.tasks, AGENTIF_CSV_COLUMNS)
    if summary.pass_rate and not summary.main:
        return _rows_csv(summary.pass_rate.tasks, PASS_RATE_CSV_COLUMNS)
    buffer = io.StringIO()
    pass_keys = summary.pass_keys
    writer = csv.writer(buffer)
    writer.writerow(
        [
            "model",
            "persona",
            "ablation",
            "runs",
            *(f"{m}_{s}" for m in ("proc", "comp") for s in ("mean", "std", "ci95", "boot95_low", "boot95_high")),
            "errored_sessions",
            "truncated_sessions",
            "not_run_sessions",
            "partial_runs_left_out",
            *pass_keys,
        ]
    )
    for row in summary.main:
        f = row["failures"]
        figures = [
            value
            for m in ("proc", "comp")
            for value in (row[m]["mean"], row[m]["std"], row[m]["ci95"], *(row[m]["boot95"] or (None, None)))
        ]
        writer.writerow(
            [
                row["model"],
                row["persona"],
                row["ablation"],
                row["runs"],
                *figures,
                f["error"],
                f["truncated"],
                f["not_run"],
                row["partial_runs_left_out"],
                *(row.get(k) for k in pass_keys),
            ]
        )
    return buffer.getvalue()


PASS_RATE_CSV_COLUMNS = (
    "model",
    "memory",
    "top_k",
    "task",
    "group",
    "runs",
    "passed",
    "pass_rate",
    "errored",
    "grader_errors",
    "context_tokens",
)
AGENTIF_CSV_COLUMNS = (
    "model",
    "task",
    "category",
    "domain",
    "attachments",
    "runs",
    "score",
    "bonus",
    "penalty",
    "max_points",
    "errored",
    "unscored",
    "rules",
    "proc",
    "user_turns",
    "questions",
)


def _rows_csv(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(columns)
    for row in rows:
        writer.writerow([row[c] for c in columns])
    return buffer.getvalue()
