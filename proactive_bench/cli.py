"""The ``pbench`` command line."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from dotenv import load_dotenv
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from sqlalchemy.exc import DBAPIError

from proactive_bench.campaign import (
    SweepConfig,
    SweepConfigError,
    SweepWorkers,
    WorkerFailed,
    create_sweep,
    load_sweep_config,
    run_fast,
    run_sweep,
    sweep_endpoints,
    sweep_episodes,
    sweep_run_spec,
    tune_for_runs,
    unfinished_runs,
    validate_sweep_config,
)
from proactive_bench.dataset import (
    DEFAULT_DATA_ROOT,
    DatasetError,
    Episode,
    LoadedEpisode,
    Persona,
    Session,
    load_episode,
)
from proactive_bench.env import (
    REGISTRY,
    SeedError,
    WorkspaceSeedError,
    resolve_tool_names,
)
from proactive_bench.episode import (
    DEFAULT_MAX_TURNS,
    CallLedger,
    LaunchError,
    ResumeError,
    RunSpec,
    execute_run,
    run_spec,
    start_run,
)
from proactive_bench.importers.pibench import import_app
from proactive_bench.llm import (
    ROLES,
    Budget,
    EndpointError,
    MaxTokens,
    ModelSpecError,
    PriceFileError,
    PriceTable,
    check_reachable,
    parse_max_tokens,
    probe_model,
    probe_table,
)
from proactive_bench.logs import configure_logging
from proactive_bench.reporting import (
    BurdenRow,
    Summary,
    burden_rows,
    burden_table,
    category_table,
    pct,
    results_table,
    summarize,
    summary_csv,
    summary_tables,
)
from proactive_bench.review import (
    AuditFileError,
    audit_rows,
    disagreement,
    import_audit_file,
    model_audit,
    rescore_run,
    write_audit_file,
)
from proactive_bench.scaffolds import ScaffoldLoadError, reference_problem
from proactive_bench.scoring import (
    PROTOCOLS,
    EpisodeResult,
    SessionResult,
    protocol_problem,
)
from proactive_bench.store import (
    HeldLease,
    LeaseHeld,
    LeaseLost,
    Run,
    Store,
    StoreSchemaError,
    Sweep,
    lease_scope,
    writing,
)
from proactive_bench.validation import (
    VALIDATED_DIR,
    dataset_problems,
    episode_stats,
    oracle_problems,
    participant_problem,
    run_oracle,
    validate_root,
)

app = typer.Typer(help="pbench: measure whether AI assistants are proactive.", no_args_is_help=True, add_completion=False)


@app.callback()
def _settings_from_dotenv() -> None:
    """pbench: measure whether AI assistants are proactive."""
    load_dotenv(Path.cwd() / ".env", override=False)  # keys and URLs kept beside the project; the environment wins
err_console = Console(stderr=True, soft_wrap=True)
out_console = Console()

DataOpt = Annotated[Path, typer.Option("--data", help="Dataset root holding personas/, episodes/ and graders/.")]
RoleUrlOpt = Annotated[Optional[str], typer.Option(help="This role's OpenAI-compatible endpoint (default: --base-url).")]
RoleKeyOpt = Annotated[Optional[str], typer.Option(help="Name of the environment variable (or ./.env entry) holding this role's API key.")]
MaxTokensOpt = Annotated[Optional[list[str]], typer.Option(help=f"ROLE=N: answer cap of one role's calls, repeatable; roles {', '.join(ROLES)} (defaults {MaxTokens().model_dump()}).")]
CallTimeoutOpt = Annotated[Optional[float], typer.Option(min=0.1, help="Seconds one model call may take (default 120).")]
DEFAULT_RESULTS = Path("pbench-runs")


def fail(message: str, code: int = 2) -> typer.Exit:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(code)


def parse_sessions(spec: str | None, sessions: list[Session]) -> list[Session]:
    """``1-3,5`` (1-based positions) or session ids, comma-separated; anything else is a ValueError naming --sessions."""
    if spec is None:
        return sessions
    chosen: list[Session] = []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            raise ValueError(f"--sessions: {spec!r} has an empty item; give positions (1-{len(sessions)}), ranges (1-3) or session ids, comma-separated")
        if re.fullmatch(r"\d+-\d+", part):
            lo, hi = (int(x) for x in part.split("-"))
            picked = sessions[lo - 1 : hi] if 1 <= lo <= hi <= len(sessions) else None
        elif part.isdigit():
            picked = [sessions[int(part) - 1]] if 1 <= int(part) <= len(sessions) else None
        else:
            picked = [s for s in sessions if s.id == part] or None
        if picked is None:
            raise ValueError(f"--sessions: {part!r} is not a session id, a position in 1-{len(sessions)} or a range of them (lo-hi)")
        chosen += [s for s in picked if s not in chosen]
    return [s for s in sessions if s in chosen]


def parse_options(pairs: list[str]) -> dict[str, str]:
    """``["max_steps=8"]`` as ``{"max_steps": "8"}``."""
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--agent-option: expected KEY=VALUE, got {pair!r}")
        options[key.strip()] = value.strip()
    return options


def _load(data: Path, persona: str) -> LoadedEpisode:
    try:
        return load_episode(data, persona)
    except DatasetError as exc:
        raise _dataset_failure(exc, f"dataset {data}") from None


def _dataset_failure(exc: DatasetError, what: str) -> typer.Exit:
    for problem in exc.problems:
        err_console.print(f"[red]{problem}[/]", highlight=False)
    return fail(f"{what} has {len(exc.problems)} problem(s)")


def _admit(loaded: LoadedEpisode, session_ids: list[str], results_dir: Path) -> None:
    """Refuse to run data ``pbench validate`` rejects, with its messages (exit 1)."""
    problems = dataset_problems(loaded, session_ids, results_dir / VALIDATED_DIR)
    for problem in problems:
        err_console.print(f"[red]error[/] {problem}", highlight=False)
    if problems:
        raise fail(f"{len(problems)} error(s) in episode {loaded.episode.id} (see pbench validate); nothing was run. --no-validate skips these checks", 1)


NoValidateOpt = Annotated[bool, typer.Option("--no-validate", help="Skip the checks of pbench validate before running (they are cached by the data's content).")]


@app.command()
def episode(
    persona: Annotated[str, typer.Option(help="Persona whose episode to run, e.g. pharmacist.")],
    model: Annotated[str, typer.Option(help="Agent: scripted:reference|passive|asker|surface; openai:NAME (the react scaffold on that model); package.module:attr or path/file.py:attr (your own scaffold).")],
    sessions: Annotated[Optional[str], typer.Option(help="Subset, e.g. '1-3' or 's01_x,s02_y'.")] = None,
    user: Annotated[str, typer.Option(help="User simulator backend: rules or llm.")] = "rules",
    user_model: Annotated[Optional[str], typer.Option(help="Chat model for --user llm.")] = None,
    judge_model: Annotated[Optional[str], typer.Option(help="Chat model for rubric items; without it they are ungraded.")] = None,
    base_url: Annotated[Optional[str], typer.Option(help="OpenAI-compatible endpoint for all models.")] = None,
    db: Annotated[Optional[Path], typer.Option(help="SQLite results database.")] = None,
    max_turns: Annotated[int, typer.Option(min=1, help="Agent turns before a session is truncated.")] = DEFAULT_MAX_TURNS,
    agent_option: Annotated[Optional[list[str]], typer.Option(help="KEY=VALUE for the scaffold, repeatable (react: max_steps, max_retries).")] = None,
    max_tokens: MaxTokensOpt = None,
    call_timeout: CallTimeoutOpt = None,
    no_probe: Annotated[bool, typer.Option("--no-probe", help="Do not probe the model servers' capabilities before the first decision.")] = False,
    agent_base_url: RoleUrlOpt = None,
    user_base_url: RoleUrlOpt = None,
    judge_base_url: RoleUrlOpt = None,
    agent_key_env: RoleKeyOpt = None,
    user_key_env: RoleKeyOpt = None,
    judge_key_env: RoleKeyOpt = None,
    context_tokens: Annotated[Optional[int], typer.Option(min=256, help="The models' context window in tokens (default: from the probe or the server's errors).")] = None,
    data: DataOpt = DEFAULT_DATA_ROOT,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")] = False,
    no_validate: NoValidateOpt = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log progress details to stderr.")] = False,
    protocol: Annotated[str, typer.Option(help="Evaluation rules: pbench or pibench (README, docs/metrics.md).")] = "pbench",
) -> None:
    """Run one persona's episode against an agent and score it."""
    configure_logging(verbose)
    loaded = _load(data, persona)
    try:
        chosen = parse_sessions(sessions, loaded.sessions)
        extra = parse_options(agent_option or [])
        caps = MaxTokens(**parse_max_tokens(max_tokens or []))
    except ValueError as exc:
        raise fail(str(exc)) from None
    if user not in ("rules", "llm"):
        raise fail(f"--user must be 'rules' or 'llm', not {user!r}")
    if user == "llm" and not user_model:
        raise fail("--user llm needs --user-model (e.g. openai:gpt-4o-mini)")
    try:
        problem = protocol_problem(protocol, user, judge_model)
    except ValueError as exc:
        raise fail(str(exc)) from None
    if problem:
        raise fail(problem)
    if missing_reference := reference_problem(model, chosen):
        raise fail(missing_reference)
    if user == "rules":
        unannotated = [f"{s.id}/{i.id}" for s in chosen for i in s.intents if not i.has_rules]
        if unannotated:
            raise fail(
                f"--user rules needs every intent annotated with evidence, ask, question and reveal; "
                f"{len(unannotated)} intent(s) are not (first: {', '.join(unannotated[:3])}). "
                "Imported π-Bench data carries no such annotations: use --user llm --user-model MODEL."
            )
    db_path = db or DEFAULT_RESULTS / "pbench.db"
    spec = RunSpec(
        persona=persona, model=model, data_root=str(data), sessions=[s.id for s in chosen], user=user,  # type: ignore[arg-type]
        user_model=user_model, judge_model=judge_model, base_url=base_url, max_turns=max_turns, agent_options=extra, protocol=protocol,  # type: ignore[arg-type]
        max_tokens=caps, call_timeout=call_timeout, probe=not no_probe, context_tokens=context_tokens,
        role_base_urls=_per_role(agent_base_url, user_base_url, judge_base_url), role_key_envs=_per_role(agent_key_env, user_key_env, judge_key_env),
    )
    if problem := participant_problem(spec):
        raise fail(problem)
    _check_endpoints(spec.endpoints())
    if not no_validate:
        _admit(loaded, [s.id for s in chosen], db_path.parent)
    store = _open_store(db_path, create=True)
    run = start_run(store, loaded, spec, db_path.parent)
    with _owning(store, run.id):
        _finish(store, run, loaded, as_json)


@contextmanager
def _owning(store: Store, scope: str, beat: bool = True) -> Iterator[HeldLease]:
    """Write a run or sweep under its lease; another writer's lease, or losing ours, is a one-line error (exit 3)."""
    try:
        with writing(store, scope, beat=beat) as held:
            yield held
    except (LeaseHeld, LeaseLost) as exc:
        raise fail(str(exc), 3) from None


def _per_role(agent: str | None, user: str | None, judge: str | None) -> dict[str, str]:
    """The per-role settings given."""
    return {role: value for role, value in (("agent", agent), ("user", user), ("judge", judge)) if value}


def _check_endpoints(endpoints: dict[str, list[str]]) -> None:
    """Stop with one line, before any row is written, when a model server is not there."""
    try:
        check_reachable(endpoints)
    except EndpointError as exc:
        raise fail(str(exc)) from None


def _finish(store: Store, run: Run, loaded: LoadedEpisode, as_json: bool, budget: Budget | None = None) -> None:
    """Execute a run with a progress bar, print its results, exit 1 if a session errored."""
    ledger = CallLedger(run.id, budget)
    try:
        result = _run_with_progress(store, run, loaded, ledger)
    except (ScaffoldLoadError, ModelSpecError, LaunchError, SeedError, WorkspaceSeedError) as exc:
        store.update(run, status="failed")
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
    else:
        out_console.print(results_table(result, len(loaded.sessions)))
        err_console.print(f"results: {store.path} (run {run.id}); workspace: {run.workspace}", highlight=False)
    if any(s.status == "error" for s in result.sessions):
        raise typer.Exit(1)


def _run_with_progress(store: Store, run: Run, loaded: LoadedEpisode, ledger: CallLedger) -> EpisodeResult:
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn())
    with Progress(*columns, console=err_console, transient=True) as progress:
        task = progress.add_task(f"{loaded.persona.id}: starting", total=len(run_spec(run).sessions))

        def on_progress(session_id: str, result: SessionResult | None) -> None:
            if result is None:
                progress.update(task, description=f"{loaded.persona.id}: {session_id}")
            else:
                progress.advance(task)

        tune_for_runs()
        return run_fast(execute_run(store, run, loaded, ledger, on_progress=on_progress))


def _open_store(db: Path, create: bool = False) -> Store:
    """The results database at ``--db`` (made if ``create``), or a one-line error."""
    if db.is_dir():
        raise fail(f"--db {db}: is a folder, not a results database")
    if not create and not db.is_file():
        raise fail(f"no results database at {db}")
    try:
        return Store(db)
    except StoreSchemaError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"--db {db}: cannot open it as a results database: {exc.strerror}: {exc.filename}") from None
    except DBAPIError as exc:
        raise fail(f"--db {db}: cannot open it as a results database: {exc.orig}") from None


def _open_run(db: Path, run_id: str) -> tuple[Store, Run, LoadedEpisode]:
    store = _open_store(db)
    run = store.run(run_id)
    if run is None:
        raise fail(f"{db}: no run {run_id!r}")
    spec = run_spec(run)
    return store, run, _load(Path(spec.data_root), spec.persona)


DbOpt = Annotated[Path, typer.Option("--db", help="SQLite results database.")]


@app.command()
def resume(
    run_id: Annotated[str, typer.Argument(help="The run or sweep to continue.")],
    db: DbOpt = DEFAULT_RESULTS / "pbench.db",
    max_cost: Annotated[Optional[float], typer.Option(help="New USD budget for a sweep's remaining work.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")] = False,
    no_validate: NoValidateOpt = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v")] = False,
) -> None:
    """Continue an interrupted run or sweep: finished sessions are kept, unfinished ones run again."""
    configure_logging(verbose)
    store = _open_store(db)
    sweep = store.sweep(run_id)
    if sweep is not None:
        try:
            config = validate_sweep_config({**sweep.config, **({"max_cost_usd": max_cost} if max_cost is not None else {})}, f"sweep {sweep.id}")
        except SweepConfigError as exc:
            raise fail(str(exc)) from None
        budget = _budget(config)
        with _owning(store, sweep.id, beat=False) as held:  # taken before reading what is left to do
            try:
                pending = unfinished_runs(store, sweep)
            except DatasetError as exc:
                raise _dataset_failure(exc, f"the dataset of sweep {sweep.id}") from None
            for loaded in {id(loaded): loaded for _run, loaded in pending}.values() if not no_validate else []:
                _admit(loaded, [], db.parent)
            _check_endpoints(sweep_endpoints(config))
            _sweep_and_report(store, sweep, pending, config, budget, as_json, held)
        return
    store, run, loaded = _open_run(db, run_id)
    if not no_validate:
        _admit(loaded, run_spec(run).sessions, db.parent)
    _check_endpoints(run_spec(run).endpoints())
    with _owning(store, lease_scope(run)):
        _finish(store, store.run(run.id) or run, loaded, as_json)  # read again: a former holder may have moved it on


@app.command()
def probe(
    model: Annotated[str, typer.Option(help="The model to probe: openai:NAME (or openai/NAME).")],
    base_url: Annotated[Optional[str], typer.Option(help="Its OpenAI-compatible endpoint (default: OpenAI's).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """One short call per capability (plain chat, json_schema, function calling, JSON mode, tool use) and a table of what works."""
    configure_logging(False)
    try:
        report = run_fast(probe_model(model, base_url))
    except ModelSpecError as exc:
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(report.to_json())
    else:
        out_console.print(probe_table(report))
    if not report.reachable:
        raise fail(f"no answer from {report.base_url}: {report.capabilities[0].detail}")


@app.command()
def replay(
    run_id: Annotated[str, typer.Argument(help="The recorded run to replay.")],
    db: DbOpt = DEFAULT_RESULTS / "pbench.db",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")] = False,
    no_validate: NoValidateOpt = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v")] = False,
) -> None:
    """Run a recorded run again as a new run, every model answer served from the record (no model calls)."""
    configure_logging(verbose)
    store, source, loaded = _open_run(db, run_id)
    spec = run_spec(source).model_copy(update={"replay_of": source.id})
    if not no_validate:
        _admit(loaded, spec.sessions, db.parent)
    run = start_run(store, loaded, spec, db.parent)
    with _owning(store, run.id):
        _finish(store, run, loaded, as_json)


def _split(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


@app.command()
def sweep(
    models: Annotated[Optional[str], typer.Option(help="Comma-separated --model values, e.g. 'scripted:reference,openai:gpt-4o-mini'.")] = None,
    personas: Annotated[Optional[str], typer.Option(help="Comma-separated personas; default: all in the dataset.")] = None,
    runs: Annotated[Optional[int], typer.Option(min=1, help="Repeats of each combination (default 1; 3 under --protocol pibench).")] = None,
    ablation: Annotated[str, typer.Option(help="Comma-separated: none, no-dependency-history.")] = "none",
    config: Annotated[Optional[Path], typer.Option(help="A sweep YAML file (keys as SweepConfig); flags given override it.")] = None,
    user: Annotated[Optional[str], typer.Option(help="rules or llm.")] = None,
    user_model: Annotated[Optional[str], typer.Option()] = None,
    judge_model: Annotated[Optional[str], typer.Option()] = None,
    base_url: Annotated[Optional[str], typer.Option()] = None,
    concurrency: Annotated[Optional[int], typer.Option(min=1, help="Episodes at once (default 4).")] = None,
    workers: Annotated[Optional[int], typer.Option(min=1, help="Processes to divide the runs among (default 1; use the cores you have).")] = None,
    rps: Annotated[Optional[float], typer.Option(help="Requests per second per endpoint.")] = None,
    max_cost: Annotated[Optional[float], typer.Option(help="USD budget; the sweep stops starting sessions once spent.")] = None,
    prices: Annotated[Optional[Path], typer.Option(help="YAML price table: model: {input, output} USD per million tokens.")] = None,
    max_tokens: MaxTokensOpt = None,
    call_timeout: CallTimeoutOpt = None,
    agent_base_url: RoleUrlOpt = None,
    user_base_url: RoleUrlOpt = None,
    judge_base_url: RoleUrlOpt = None,
    agent_key_env: RoleKeyOpt = None,
    user_key_env: RoleKeyOpt = None,
    judge_key_env: RoleKeyOpt = None,
    db: Annotated[Optional[Path], typer.Option(help="SQLite results database.")] = None,
    data: Annotated[Optional[Path], typer.Option("--data", help="Dataset root.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    no_validate: NoValidateOpt = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v")] = False,
    protocol: Annotated[Optional[str], typer.Option(help="Evaluation rules: pbench (default) or pibench.")] = None,
) -> None:
    """Run models × personas × repeats × ablations concurrently and print the summary tables."""
    configure_logging(verbose)
    flags = {
        "models": _split(models) or None, "personas": _split(personas) or None, "runs": runs, "protocol": protocol,
        "ablations": _split(ablation) if ablation != "none" else None, "user": user, "user_model": user_model,
        "judge_model": judge_model, "base_url": base_url, "concurrency": concurrency, "workers": workers, "requests_per_second": rps,
        "max_cost_usd": max_cost, "prices": str(prices) if prices else None, "data": str(data) if data else None,
        "call_timeout": call_timeout,
        "role_base_urls": _per_role(agent_base_url, user_base_url, judge_base_url) or None,
        "role_key_envs": _per_role(agent_key_env, user_key_env, judge_key_env) or None,
    }
    given = {k: v for k, v in flags.items() if v is not None}
    db_path = db or DEFAULT_RESULTS / "pbench.db"
    try:
        if max_tokens:
            given["max_tokens"] = parse_max_tokens(max_tokens)
        base = load_sweep_config(config).model_dump(mode="json", exclude_unset=True) if config else {}
        settings = validate_sweep_config({**base, **given}, str(config) if config else "flags")
        episodes = sweep_episodes(settings)
    except ValueError as exc:  # SweepConfigError and --max-tokens errors
        raise fail(str(exc)) from None
    except DatasetError as exc:
        raise _dataset_failure(exc, "the dataset") from None
    for loaded in episodes.values() if not no_validate else []:
        _admit(loaded, [], db_path.parent)
    for model in settings.models:  # every scaffold and model is built once before any row exists
        if problem := participant_problem(sweep_run_spec(settings, model, next(iter(episodes)))):
            raise fail(problem)
    _check_endpoints(sweep_endpoints(settings))
    budget = _budget(settings)
    store = _open_store(db_path, create=True)
    new_sweep, new_runs = create_sweep(store, settings, db_path.parent, episodes)
    err_console.print(f"sweep {new_sweep.id}: {len(new_runs)} run(s)", highlight=False)
    with _owning(store, new_sweep.id, beat=False) as held:
        _sweep_and_report(store, new_sweep, new_runs, settings, budget, as_json, held)


def _budget(config: SweepConfig) -> Budget:
    try:
        return Budget(PriceTable.load(config.prices), config.max_cost_usd)
    except PriceFileError as exc:
        raise fail(str(exc)) from None


def _sweep_and_report(
    store: Store, the_sweep: Sweep, pending: list[tuple[Run, LoadedEpisode]], config: SweepConfig, budget: Budget, as_json: bool,
    lease: HeldLease,
) -> None:
    total = sum(len(run_spec(run).sessions) for run, _ in pending)
    workers = SweepWorkers(store, the_sweep, pending, config, budget) if config.workers > 1 else None
    if workers is not None:
        workers.start()  # before the progress display's thread exists, so workers can be forked
    lease.keep_alive()  # its heartbeat thread too
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total} sessions"), TimeElapsedColumn())
    with Progress(*columns, console=err_console, transient=True) as progress:
        task = progress.add_task(f"sweep {the_sweep.id}", total=total)

        def on_event(run: Run, event: str) -> None:
            if event == "session":
                progress.advance(task)

        if workers is not None:
            try:
                workers.follow(on_event)
            except WorkerFailed as exc:
                raise fail(str(exc), 1) from None
        else:
            tune_for_runs()
            run_fast(run_sweep(store, the_sweep, pending, config, budget, on_event))
    if budget.exhausted:
        err_console.print(f"budget of ${config.max_cost_usd} spent; continue with: pbench resume {the_sweep.id} --max-cost MORE", highlight=False)
    _print_summary(summarize(store, store.runs(the_sweep.id)), "json" if as_json else "table")
    err_console.print(f"results: {store.path} (sweep {the_sweep.id})", highlight=False)


def _print_summary(summary: Summary, fmt: str, by: str | None = None, burden: list[BurdenRow] | None = None) -> None:
    if by == "category":
        if fmt == "json":
            typer.echo(json.dumps(summary.categories, indent=2))
        else:
            out_console.print(category_table(summary))
    elif fmt == "json":
        typer.echo(json.dumps(summary.as_dict() | ({"burden": [r.as_dict() for r in burden]} if burden else {}), indent=2))
    elif fmt == "csv":
        typer.echo(summary_csv(summary), nl=False)
    else:
        for table in summary_tables(summary):
            out_console.print(table)
        if burden:
            out_console.print(burden_table(burden))


@app.command()
def results(
    ident: Annotated[str, typer.Argument(metavar="ID", help="A sweep id or a run id.")],
    db: DbOpt = DEFAULT_RESULTS / "pbench.db",
    fmt: Annotated[str, typer.Option("--format", help="table, json or csv.")] = "table",
    by: Annotated[Optional[str], typer.Option("--by", help="'category': only the task-averaged Proc / Comp per task category.")] = None,
    include_partial: Annotated[bool, typer.Option("--include-partial", help="Count runs stopped early (budget, Ctrl-C) in the figures.")] = False,
    protocol: Annotated[Optional[str], typer.Option(help="Score every run by this protocol's rules (default: each run's own).")] = None,
) -> None:
    """Summaries of a sweep or a run (docs/metrics.md): Proc/Comp mean ± std, failures, pass^k, table 1, ablation, statuses, turns, categories, cost."""
    configure_logging()
    if fmt not in ("table", "json", "csv"):
        raise fail(f"--format must be table, json or csv, not {fmt!r}")
    if by not in (None, "category"):
        raise fail(f"--by must be 'category', not {by!r}")
    if protocol is not None and protocol not in PROTOCOLS:
        raise fail(f"--protocol must be one of {', '.join(PROTOCOLS)}, not {protocol!r}")
    store = _open_store(db)
    scoring = PROTOCOLS[protocol].scoring if protocol else None
    runs = _runs_of(store, ident, db)
    _print_summary(summarize(store, runs, scoring, include_partial), fmt, by, burden_rows(store, runs))


def _runs_of(store: Store, ident: str, db: Path) -> list[Run]:
    runs = store.runs_for(ident)
    if not runs:
        raise fail(f"{db}: no sweep or run {ident!r}")
    return runs


@app.command()
def rescore(
    run_id: Annotated[str, typer.Argument(help="A finished run.")],
    judge_model: Annotated[Optional[str], typer.Option(help="Chat model for rubric items (default: the run's).")] = None,
    base_url: Annotated[Optional[str], typer.Option(help="Endpoint for the judge (default: the run's).")] = None,
    db: DbOpt = DEFAULT_RESULTS / "pbench.db",
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Grade a finished run's sessions again from their saved final state, without re-running the agent."""
    configure_logging()
    store, run, loaded = _open_run(db, run_id)
    spec = run_spec(run)
    try:
        result = run_fast(rescore_run(store, run, loaded, judge_model or spec.judge_model, base_url or spec.base_url))
    except (ModelSpecError, ResumeError) as exc:
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
    else:
        out_console.print(results_table(result, len(loaded.sessions)))


@app.command()
def validate(
    data: DataOpt = DEFAULT_DATA_ROOT,
    stats: Annotated[bool, typer.Option("--stats", help="Print counts per persona.")] = False,
    strict: Annotated[bool, typer.Option(help="Fail on warnings too.")] = False,
    oracle: Annotated[bool, typer.Option("--oracle", help="Also run the scripted baselines and check the quality bar (slower).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the problems (and oracle outcomes) as one JSON object on stdout.")] = False,
) -> None:
    """Check a dataset in one pass: schema, semantics, references, leaks, annotations, grader imports."""
    configure_logging()
    dataset, problems = validate_root(data)
    if not dataset.episodes and not problems:
        raise fail(f"no episodes under {data / 'episodes'}", 1)
    outcomes = [o for e in dataset.episodes.values() if oracle and not problems_in(problems, e) for o in run_oracle(e, dataset.root)]
    problems += oracle_problems(outcomes)
    errors = sum(p.level == "error" for p in problems)
    warnings = len(problems) - errors
    if as_json:
        typer.echo(json.dumps({
            "errors": errors, "warnings": warnings, "episodes": len(dataset.episodes),
            "problems": [{"file": p.file, "field": p.field, "reason": p.reason, "level": p.level} for p in problems],
            "oracle": [o.as_dict() for o in outcomes],
        }, indent=2))
    for problem in [] if as_json else problems:
        style = "red" if problem.level == "error" else "yellow"
        err_console.print(f"[{style}]{problem.level}[/] {problem}", highlight=False)
    if stats and not as_json:
        out_console.print(stats_table([episode_stats(e) for e in dataset.episodes.values()]))
    if errors or (strict and warnings):
        raise fail(f"{errors} error(s), {warnings} warning(s)", 1)
    err_console.print(f"ok: {len(dataset.episodes)} episode(s), {warnings} warning(s)" + (f", {len(outcomes)} oracle run(s) on the bar" if oracle else ""))


def problems_in(problems: list[Any], episode: LoadedEpisode) -> bool:
    """Whether any error concerns the episode (the oracle only runs on data that validates)."""
    return any(p.level == "error" and p.file.startswith(f"episodes/{episode.episode.id}/") for p in problems)


def stats_table(rows: list[Any]) -> Table:
    headers = {
        "persona": "persona", "sessions": "sessions", "event_sessions": "event", "dependency_groups": "dep. groups",
        "intents_session": "intents (session)", "intents_persistent": "intents (persistent)",
        "rule_items": "rule items", "rubric_items": "rubric items", "tools": "tools used",
    }
    table = Table(title="dataset statistics")
    table.add_column("")
    for row in rows:
        table.add_column(row.persona, justify="right")
    for field, header in list(headers.items())[1:]:
        table.add_row(header, *(str(getattr(row, field)) for row in rows))
    return table


@app.command()
def schema() -> None:
    """Print the JSON Schema of the dataset format (persona, episode, session)."""
    combined = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "pbench dataset",
        "description": "personas/<id>.yaml is a Persona; episodes/<persona>/episode.yaml an Episode; episodes/<persona>/sessions/<id>.yaml a Session.",
        "$defs": {},
    }
    for model in (Persona, Episode, Session):
        model_schema = model.model_json_schema(ref_template="#/$defs/{model}")
        combined["$defs"].update(model_schema.pop("$defs", {}))
        combined["$defs"][model.__name__] = model_schema
    typer.echo(json.dumps(combined, indent=2))


@app.command()
def tools(
    persona: Annotated[Optional[str], typer.Option(help="Only the tools this persona's sessions offer.")] = None,
    data: DataOpt = DEFAULT_DATA_ROOT,
    as_json: Annotated[bool, typer.Option("--json", help="Print name, group, description and argument schema as JSON.")] = False,
) -> None:
    """List registered tools with their argument schemas."""
    specs = resolve_tool_names([])  # loads every built-in tool and app
    if persona is None:
        specs = sorted(REGISTRY.values(), key=lambda s: (s.group, s.name))
    else:
        loaded = _load(data, persona)
        offered: dict[str, Any] = {}
        for session in loaded.sessions:
            offered.update((spec.name, spec) for spec in resolve_tool_names(session.tools))
        specs = sorted(offered.values(), key=lambda s: (s.group, s.name))
    if as_json:
        rows = [{"name": s.name, "group": s.group, "description": s.description, "args": s.json_schema()} for s in specs]
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(title=f"{len(specs)} tools" + (f" offered to {persona}" if persona else ""))
    table.add_column("tool", overflow="fold")  # names are what people copy: fold, never cut
    table.add_column("group", no_wrap=True)
    table.add_column("arguments", overflow="fold")
    table.add_column("description")
    for spec in specs:
        props = spec.json_schema().get("properties", {})
        required = set(spec.json_schema().get("required", []))
        args = ", ".join(f"{k}{'' if k in required else '?'}: {v.get('type', 'any')}" for k, v in props.items())
        table.add_row(spec.name, spec.group, args, spec.description.splitlines()[0])
    out_console.print(table)


@app.command()
def report(
    ident: Annotated[Optional[str], typer.Argument(metavar="ID", help="A sweep id or a run id.")] = None,
    compare: Annotated[Optional[tuple[str, str]], typer.Option("--compare", metavar="RUN_A RUN_B", help="Two runs side by side instead.")] = None,
    out: Annotated[Path, typer.Option("--out", help="The HTML file to write.")] = Path("report.html"),
    db: DbOpt = DEFAULT_RESULTS / "pbench.db",
) -> None:
    """Write a self-contained HTML report: tables, figures and every session's trajectory (works offline)."""
    from proactive_bench.reporting.html import (  # matplotlib loads only here
        ReportError,
        render_comparison,
        render_report,
    )

    configure_logging()
    if (ident is None) == (compare is None):
        raise fail("give a sweep or run ID, or --compare RUN_A RUN_B")
    store = _open_store(db)
    try:
        html = render_comparison(store, *compare) if compare else render_report(store, ident or "")
    except ReportError as exc:
        raise fail(str(exc)) from None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(html, encoding="utf-8", errors="backslashreplace")  # a file name that is not UTF-8 cannot stop a report
    except OSError as exc:
        raise fail(f"cannot write {out}: {exc.strerror}") from None
    err_console.print(f"report: {out}", highlight=False)


audit_app = typer.Typer(help="Audits of checklist grades and intent statuses (the disagreement rates of table 6).", no_args_is_help=True)


@audit_app.command("export")
def audit_export(
    ident: Annotated[str, typer.Argument(metavar="ID", help="A sweep id or a run id.")],
    out: Annotated[Path, typer.Option("--out", help="The CSV file to write.")] = Path("audit.csv"),
    sample: Annotated[Optional[int], typer.Option(min=1, help="Only this many whole session runs (all their judgments), an equal share per model, drawn at random.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the sample.")] = 0,
    db: DbOpt = DEFAULT_RESULTS / "pbench.db",
) -> None:
    """Write rubric grades and intent statuses to a CSV for auditors to fill in (column 'audited')."""
    store = _open_store(db)
    rows = audit_rows(store, _runs_of(store, ident, db), sample, seed)
    try:
        write_audit_file(rows, out)
    except OSError as exc:
        raise fail(f"cannot write {out}: {exc.strerror}") from None
    err_console.print(f"{len(rows)} judgment(s) to audit: {out}", highlight=False)


@audit_app.command("import")
def audit_import(
    path: Annotated[Path, typer.Argument(help="A filled audit CSV.")],
    source: Annotated[str, typer.Option(help="Who audited, e.g. human:ana or model:gpt-4o.")],
    db: DbOpt = DEFAULT_RESULTS / "pbench.db",
) -> None:
    """Store the verdicts of a filled audit CSV (blank rows are skipped; nothing is stored if a row is bad)."""
    store = _open_store(db)
    try:
        count = import_audit_file(store, path, source)
    except AuditFileError as exc:
        raise fail(str(exc)) from None
    err_console.print(f"{count} verdict(s) stored from {source}", highlight=False)


@audit_app.command("model")
def audit_model(
    ident: Annotated[str, typer.Argument(metavar="ID", help="A sweep id or a run id.")],
    model: Annotated[str, typer.Option("--model", help="The auditing chat model, e.g. openai:gpt-4o.")],
    base_url: Annotated[Optional[str], typer.Option(help="Its OpenAI-compatible endpoint.")] = None,
    db: DbOpt = DEFAULT_RESULTS / "pbench.db",
) -> None:
    """Have another model judge the rubric items and intent statuses again (source model:NAME)."""
    configure_logging()
    store = _open_store(db)
    try:
        count = run_fast(model_audit(store, _runs_of(store, ident, db), model, base_url))
    except (ModelSpecError, ResumeError) as exc:
        raise fail(str(exc)) from None
    err_console.print(f"{count} verdict(s) stored from model:{model}", highlight=False)


@audit_app.command("show")
def audit_show(
    ident: Annotated[str, typer.Argument(metavar="ID", help="A sweep id or a run id.")],
    db: DbOpt = DEFAULT_RESULTS / "pbench.db",
) -> None:
    """Disagreement rates (table 6): human sources by majority vote per judgment (ties counted), each model source apart."""
    store = _open_store(db)
    rows = disagreement(store, _runs_of(store, ident, db))
    table = Table(title="Disagreement with the run's judgments (%)")
    for name in ("audit source", "checklist", "hidden intents"):
        table.add_column(name)
    for row in rows:
        table.add_row(row.label, f"{pct(row.checklist_rate)} (n={row.checklist_n})", f"{pct(row.intents_rate)} (n={row.intents_n})")
    out_console.print(table if rows else "no audits recorded for these runs")


app.add_typer(import_app, name="import")
app.add_typer(audit_app, name="audit")
