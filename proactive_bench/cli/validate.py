"""``pbench validate``: a dataset checked, or a report of the same files checked by the same pbench before.

It imports no checking code until the checks run: a report found in the cache
(``validation.recall_report``) costs the digest of the files, not the checks.
The checks and the trainee templates are reached through the lazy
``proactive_bench.validation`` package and a deferred import
(tests/test_architecture.py ``DEFERRED``).
"""

from __future__ import annotations

import atexit
import functools
import gc
import json
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

import proactive_bench.validation as validation
from proactive_bench.cli.common import DataOpt, err_console, fail, out_console, warn
from proactive_bench.dataset import DEFAULT_DATA_ROOT
from proactive_bench.logs import configure_logging
from proactive_bench.validation import recall_report, remember_report, report_key

if TYPE_CHECKING:
    from proactive_bench.dataset import LoadedEpisode


REPORT_KEYS = {"json", "lines", "ok"}
"""What :func:`validation_report` returns and the cache keeps."""


def validate(
    data: DataOpt = DEFAULT_DATA_ROOT,
    stats: Annotated[bool, typer.Option("--stats", help="Print counts per persona.")] = False,
    strict: Annotated[bool, typer.Option(help="Fail on warnings too.")] = False,
    oracle: Annotated[bool, typer.Option("--oracle", help="Also run the scripted baselines and check the quality bar (slower).")] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the problems (the oracle outcomes, the --stats counts) as one JSON object on stdout.")
    ] = False,
    suite: Annotated[
        str | None,
        typer.Option(
            help="trainee: check every scenario template over --seeds seeds and every default scenario (or --task) instead (oracle and baselines played)."
        ),
    ] = None,
    seeds: Annotated[
        int | None, typer.Option(min=1, help="With --suite trainee: seeds per template (default: the suite's validation seeds).")
    ] = None,
    task: Annotated[
        str | None,
        typer.Option(
            help="With --suite trainee: the scenarios to compose and check, s<seed>-n<tasks>, comma-separated (default: the default benchmark s1-n2..s50-n6)."
        ),
    ] = None,
    tasks: Annotated[str | None, typer.Option("--tasks", hidden=True, help="Deprecated spelling of --task.")] = None,
    cache: Annotated[
        bool,
        typer.Option(
            help="Reuse the report of an earlier run on the same files with the same pbench (kept under ~/.cache/pbench/validate)."
        ),
    ] = True,
) -> None:
    """Check a dataset in one pass: schema, semantics, references, leaks, annotations, grader imports."""
    configure_logging()
    if tasks is not None:
        warn("--tasks is now --task")
        task = task if task is not None else tasks
    if suite is not None:
        validate_templates(suite, seeds, [t.strip() for t in task.split(",") if t.strip()] if task is not None else None, as_json)
        return
    if task is not None:
        raise fail("--task goes with --suite trainee (the scenarios to check)")
    key = report_key(data, {"oracle": oracle})  # one report with and without --stats: the counts cost next to nothing
    report = recall_report(key) if cache else None
    if report is None or not report.keys() >= REPORT_KEYS:  # none, or not one this command wrote
        report = validation_report(data, oracle)
        remember_report(key, report)
        if not oracle:  # the oracle's agent loops may leave clients whose finalizers the last collection runs
            _no_collection_at_exit()
    if as_json:
        typer.echo(json.dumps(report["json"] if stats else {k: v for k, v in report["json"].items() if k != "stats"}, indent=2))
    else:
        for level, line in report["lines"]:
            err_console.print(f"[{'red' if level == 'error' else 'yellow'}]{level}[/] {line}", highlight=False)
        if stats:
            out_console.print(stats_table(report["json"]["stats"]))
    errors, warnings = report["json"]["errors"], report["json"]["warnings"]
    if errors or (strict and warnings):
        raise fail(f"{errors} error(s), {warnings} warning(s)", 1)
    err_console.print(report["ok"])


@functools.cache
def _no_collection_at_exit() -> None:
    """Leave what the checks made (the dataset, every task, the modules they loaded) out of the interpreter's last
    garbage collection, once the command is done: the process ends, and walking them cost longer than many checks."""
    atexit.register(gc.freeze)


def validation_report(data: Path, oracle: bool) -> dict[str, Any]:
    """Every check on ``data``: ``json`` (what ``--json --stats`` prints), ``lines`` (each problem as ``[level, text]``) and
    the ``ok`` line."""
    dataset, tasks, problems = validation.validate_all(data)
    if not dataset.episodes and not tasks and not problems:
        raise fail(f"no episodes under {data / 'episodes'} and no tasks of another suite", 1)
    episodes = [*dataset.episodes.values(), *tasks.values()]
    outcomes = [o for e in episodes if oracle and not problems_in(problems, e) for o in validation.run_oracle(e, dataset.root)]
    if oracle:  # the oracle (and the agent loop it runs) loads with --oracle only
        problems += validation.oracle_problems(outcomes)
    errors = sum(p.level == "error" for p in problems)
    warnings = len(problems) - errors
    found = {
        "errors": errors,
        "warnings": warnings,
        "episodes": len(dataset.episodes),
        "tasks": len(tasks),
        "problems": [{"file": p.file, "field": p.field, "reason": p.reason, "level": p.level} for p in problems],
        "oracle": [o.as_dict() for o in outcomes],
        "stats": [asdict(validation.episode_stats(e)) for e in dataset.episodes.values()],
    }
    per_suite = "".join(f"{n} {suite} task(s), " for suite, n in sorted(Counter(e.suite for e in tasks.values()).items()))
    ok = f"ok: {len(dataset.episodes)} episode(s), {per_suite}{warnings} warning(s)" + (
        f", {len(outcomes)} oracle run(s) on the bar" if oracle else ""
    )
    return {"json": found, "lines": [[p.level, str(p)] for p in problems], "ok": ok}


def validate_templates(suite: str, seeds: int | None, scenarios: list[str] | None, as_json: bool) -> None:
    """``--suite trainee``: every template instantiated over the seeds and every scenario composed (the default benchmark,
    or ``scenarios``), its oracle and baselines played."""
    if suite != "trainee":
        raise fail(f"--suite: only trainee has generated tasks to check (its templates), not {suite!r}")
    from proactive_bench.suites.trainee import (  # only this option plays the templates
        TEMPLATES,
        VALIDATE_SEEDS,
        default_names,
        scenarios_problems,
        templates_problems,
    )

    seeds = seeds or len(VALIDATE_SEEDS)
    names = default_names() if scenarios is None else scenarios
    problems = templates_problems(seeds) + scenarios_problems(names)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "errors": len(problems),
                    "templates": len(TEMPLATES),
                    "seeds": seeds,
                    "scenarios": names,
                    "problems": [{"file": p.file, "field": p.field, "reason": p.reason} for p in problems],
                },
                indent=2,
            )
        )
    for problem in [] if as_json else problems:
        err_console.print(f"[red]error[/] {problem}", highlight=False)
    if problems:
        raise fail(f"{len(problems)} error(s) in {len(TEMPLATES)} template(s) and {len(names)} scenario(s)", 1)
    err_console.print(
        f"ok: {len(TEMPLATES)} template(s) x {seeds} seed(s) and {len(names)} scenario(s) over two days: "
        "oracle 1.0 without guesses, passive and guessing fail a clue checkpoint, laundry lists and keyword questions obtain nothing"
    )


def problems_in(problems: list[Any], episode: LoadedEpisode) -> bool:
    """Whether any error concerns the episode (the oracle only runs on data that validates)."""
    folder = episode.directory.relative_to(episode.directory.parent.parent).as_posix()
    return any(p.level == "error" and p.file.startswith(f"{folder}/") for p in problems)


def stats_table(rows: list[dict[str, Any]]) -> Table:
    """The ``--stats`` counts (``EpisodeStats`` as dicts), one column per persona."""
    headers = {
        "persona": "persona",
        "sessions": "sessions",
        "event_sessions": "event",
        "dependency_groups": "dep. groups",
        "intents_session": "intents (session)",
        "intents_persistent": "intents (persistent)",
        "rule_items": "rule items",
        "rubric_items": "rubric items",
        "tools": "tools used",
    }
    table = Table(title="dataset statistics")
    table.add_column("")
    for row in rows:
        table.add_column(row["persona"], justify="right", no_wrap=True)
    for field, header in list(headers.items())[1:]:
        table.add_row(header, *(str(row[field]) for row in rows))
    return table
