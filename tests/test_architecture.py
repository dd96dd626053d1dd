"""The package's shape, read from its source with ``ast``: no import cycle, no import dodging one, no
upward import between subpackages, and other subpackages use only a subpackage's public names.

The layering is the table in proactive_bench/README.md (bottom to top).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from proactive_bench.env import catalog

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "proactive_bench"

LAYERS: dict[str, int] = {
    "logs": 0,
    "after_import": 0,
    "yaml_files": 0,
    "json_text": 0,
    "content_encoding": 0,
    "registry": 0,
    "exports": 0,
    "terminal": 0,
    "tracebacks": 0,
    "postgres_server": 0,
    "garbage_collection": 0,
    "store": 0,
    "llm": 1,
    "env": 1,
    "data_model": 2,
    "mcp_world": 2,
    "dataset": 3,
    "user": 4,
    "scaffolds": 4,
    "scoring": 4,
    "suites": 4,
    "episode": 5,
    "campaign": 6,
    "review": 6,
    "validation": 6,
    "reporting": 7,
    "importers": 7,
    "testing": 7,
    "api": 7,
    "cli": 8,
    "pytest_plugin": 8,
    "scaffold": 8,
}
SIDEWAYS = {
    ("scoring", "user"),
    ("suites", "user"),
    ("store", "exports"),
    ("store", "logs"),
    ("store", "json_text"),
    ("logs", "after_import"),
}
"""Imports allowed inside one layer (``(importer, imported)``); any other import must go down."""

DEFERRED = {
    (
        "proactive_bench.pytest_plugin.plugin",
        "proactive_bench.pytest_plugin.episodes",
    ): "pytest loads the plugin in every session: pbench (the store, the runner) loads only when a marked test runs",
    ("proactive_bench.cli", "proactive_bench.reporting.html"): "matplotlib loads only for `pbench report`",
    (
        "proactive_bench.cli.run",
        "proactive_bench.cli.run_exec",
    ): "a run's work (the campaign, dataset, store and agent code) loads when episode, resume or replay runs, not for their --help",
    (
        "proactive_bench.cli.sweep",
        "proactive_bench.cli.sweep_exec",
    ): "a sweep's work (the campaign, dataset, store and agent code) loads when the sweep command runs, not for its --help",
    (
        "proactive_bench.cli.run_exec",
        "proactive_bench.cli.sweep_exec",
    ): "the sweep command and its results tables load for a suite's tasks or a sweep's resume, not for one episode",
    ("proactive_bench.cli.validate", "proactive_bench.suites.trainee"): "the trainee templates load only for `validate --suite trainee`",
    (
        "proactive_bench.cli.view",
        "proactive_bench.reporting.view",
    ): "the web app (starlette, uvicorn) loads when `pbench view` runs, not for its --help",
    (
        "proactive_bench.cli.mcp_serve",
        "proactive_bench.cli.mcp_exec",
    ): "the session's world and the MCP SDK load when `pbench mcp` runs, not for its --help",
    (
        "proactive_bench.cli.generate",
        "proactive_bench.cli.generate_exec",
    ): "the models and the suites' generation code load when a `pbench generate` command runs, not for its --help",
    (
        "proactive_bench.cli.audit",
        "proactive_bench.cli.audit_exec",
    ): "the review code, the results store and the model clients load when a `pbench audit` command runs, not for its --help",
    (
        "proactive_bench.cli.play",
        "proactive_bench.cli.play_exec",
    ): "the run stack and the terminal participants load when `pbench play` runs, not for its --help",
    (
        "proactive_bench.reporting.trainee",
        "proactive_bench.suites.trainee",
    ): "the trainee suite (and odyssey's checkers) load only to report a trainee run",
    (
        "proactive_bench.reporting.trainee",
        "proactive_bench.env",
    ): "the tool catalog (openpyxl, every app) loads only to report a trainee run's days",
    (
        "proactive_bench.suites.agentif.copy_check",
        "proactive_bench.suites.agentif.attachment_writers",
    ): "fpdf2 (with fontTools) loads when validate writes a copied PDF deliverable, not with the suites every run loads",
    (
        "proactive_bench.suites.agentif.attachment_writers",
        "proactive_bench.suites.agentif.attachment_pdf",
    ): "fpdf2 (with fontTools and PIL) loads when a PDF is written, not with the other writers (validate's copy check writes none of the shipped tasks)",
    (
        "proactive_bench.episode.tracing",
        "proactive_bench.episode.otel",
    ): "the OpenTelemetry SDK and its OTLP exporter load only when tracing is on (--otel, OTEL_EXPORTER_OTLP_ENDPOINT)",
    (
        "proactive_bench.scaffolds.external.loading",
        "proactive_bench.scaffolds.external",
    ): "an external agent's transport module loads (importlib, by TRANSPORTS) when such an agent is built: the A2A SDK for a2a: only",
    (
        "proactive_bench.suites.odyssey.context",
        "proactive_bench.suites.odyssey.context_models",
    ): "the model clients (openai, LangChain) load only when a summary or embedding model makes an odyssey context",
    (
        "proactive_bench.suites.trainee.suite",
        "proactive_bench.suites.trainee.colleagues_llm",
    ): "the model clients (openai, LangChain) load only for trainee runs with --npc llm",
    (
        "proactive_bench.scaffolds.catalog",
        "proactive_bench.scaffolds.langgraph_graph",
    ): "LangGraph loads only when an agent named module:attr or path/file.py:attr is built (it may be a compiled graph)",
    ("proactive_bench.suites.odyssey.checkers", "pycel"): "pycel (with networkx) loads when a checker evaluates a formula",
    (
        "proactive_bench.campaign.executors",
        "proactive_bench.campaign.ray_executor",
    ): "the Ray executor (and its dataset archives) loads only for a sweep on Ray, not in every sweep and its workers",
    (
        "proactive_bench.llm.models",
        "proactive_bench.llm.http_chat",
    ): "LangChain's OpenAI integration and the SDK load with the first openai chat model built, not with every run's transport",
    (
        "proactive_bench.suites.trainee.pictures",
        "matplotlib",
    ): "matplotlib loads when a trainee picture (heatmap, floor plan, map) is drawn, not with every trainee scenario",
    (
        "proactive_bench.suites.trainee.pictures",
        "proactive_bench.suites.trainee.canvas",
    ): "the pictures' canvas (a matplotlib subclass) loads with matplotlib, when a trainee picture is drawn",
}
"""Function-level imports kept on purpose, ``(importer prefix, imported module prefix): why``: start-up time only."""

PENDING_UPWARD: dict[tuple[str, str], str] = {}
"""Upward imports another branch of issue 17 removes; each must still occur (a stale entry fails, to be deleted)."""


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str  # a module of proactive_bench (a package means its __init__)
    names: tuple[str, ...]  # the names taken with ``from imported import ...``; () for ``import imported``
    line: int
    top_level: bool  # at module level (or in a module-level if/try), not in a function or class body
    submodule: bool = False  # implied by ``from package import submodule``


def module_names() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = module_names()


def imports_of(module: str, path: Path) -> Iterator[Import]:
    """Every import of a proactive_bench module in ``module``'s source, except those only for type checkers."""
    tree = ast.parse(path.read_text(), str(path))
    top_level = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        block = [node] if not isinstance(node, (ast.If, ast.Try)) else list(ast.walk(node))
        top_level.update(id(n) for n in block)
    type_only = {
        id(n) for node in tree.body if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)
    }
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] == "proactive_bench":
            names = tuple(a.name for a in node.names)
            yield Import(module, node.module, names, node.lineno, id(node) in top_level)
            for name in names:  # ``from package import submodule`` imports the submodule too
                if f"{node.module}.{name}" in MODULES:
                    yield Import(module, f"{node.module}.{name}", (), node.lineno, id(node) in top_level, submodule=True)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "proactive_bench":
                    yield Import(module, alias.name, (), node.lineno, id(node) in top_level)


@functools.cache
def all_imports() -> list[Import]:
    """Every package import in the package's source, parsed once per process when a test first asks (not at collection)."""
    return [imp for module, path in sorted(MODULES.items()) for imp in imports_of(module, path)]


def top(module: str) -> str:
    """The subpackage (or top-level module) a module belongs to: ``env`` for ``proactive_bench.env.apps.gmail``."""
    return module.split(".")[1] if module != "proactive_bench" else ""


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the directed graph, as a path that ends where it starts, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_import_cycle_between_modules() -> None:
    edges: dict[str, set[str]] = {}
    for imp in all_imports():
        if imp.top_level and imp.imported in MODULES and imp.imported != imp.importer:
            edges.setdefault(imp.importer, set()).add(imp.imported)
    cycle = find_cycle(edges)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_function_level_import_of_the_package() -> None:
    lazy = [
        f"{imp.importer}:{imp.line} imports {imp.imported} inside a function"
        for imp in all_imports()
        if not imp.top_level and not any(imp.importer.startswith(a) and imp.imported.startswith(b) for a, b in DEFERRED)
    ]
    assert not lazy, "\n".join(lazy)


def test_every_subpackage_has_a_layer() -> None:
    tops = {top(m) for m in MODULES} - {""}
    assert tops == set(LAYERS), f"add to LAYERS (and the README table): {sorted(tops - set(LAYERS))}; gone: {sorted(set(LAYERS) - tops)}"


def upward_imports() -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for imp in all_imports():
        a, b = top(imp.importer), top(imp.imported)
        if a != b and b and (LAYERS[b] > LAYERS[a] or (LAYERS[b] == LAYERS[a] and (a, b) not in SIDEWAYS)):
            found.setdefault((a, b), f"{imp.importer}:{imp.line} imports {imp.imported} (layer {LAYERS[a]} -> {LAYERS[b]})")
    return found


def test_no_upward_import_between_subpackages() -> None:
    found = upward_imports()
    wrong = [why for pair, why in found.items() if pair not in PENDING_UPWARD]
    assert not wrong, "\n".join(wrong)
    stale = [f"{a} -> {b}" for a, b in PENDING_UPWARD if (a, b) not in found]
    assert not stale, f"these upward imports are gone: delete them from PENDING_UPWARD: {stale}"


def public_names(package: str) -> set[str] | None:
    """A package's ``__all__`` (None when its ``__init__`` states none)."""
    tree = ast.parse(MODULES[package].read_text())
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value is not None:
            return set(ast.literal_eval(node.value))
    return None


PACKAGES = sorted(m for m, p in MODULES.items() if p.name == "__init__.py" and m != "proactive_bench")


@pytest.mark.parametrize("package", PACKAGES)
def test_each_subpackage_states_its_public_names(package: str) -> None:
    tree = ast.parse(MODULES[package].read_text())
    assert ast.get_docstring(tree), f"{package}/__init__.py has no docstring"
    names = public_names(package)
    assert names is not None, f"{package}/__init__.py has no __all__"
    defined = {a.asname or a.name.split(".")[-1] for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    defined |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    defined |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    defined |= set(lazy_exports(package))
    assert names <= defined, f"{package}.__all__ lists names its __init__ does not define: {sorted(names - defined)}"


def lazy_exports(package: str) -> dict[str, tuple[str, str]]:
    """The ``Exports(__name__, ...)`` table of a package's ``__init__`` (proactive_bench/exports.py), read from its source."""
    for node in ast.walk(ast.parse(MODULES[package].read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Exports":
            modules = ast.literal_eval(node.args[1])
            renamed = next((ast.literal_eval(k.value) for k in node.keywords if k.arg == "renamed"), {})
            table = {name: (module, name) for module, names in modules.items() for name in names}
            return table | {name: tuple(target.split(":")) for name, target in renamed.items()}
    return {}


@pytest.mark.parametrize("package", [p for p in PACKAGES if lazy_exports(p)])
def test_a_lazy_package_s_names_exist_and_are_not_its_module_names(package: str) -> None:
    """Each declared name is defined where the table says; none is shadowed by a submodule of the same name."""
    table = lazy_exports(package)
    for name, (module, attribute) in table.items():
        assert f"{package}.{module}" in MODULES, f"{package}: {name} from {module}, which is no module of the package"
        assert f"{package}.{name}" not in MODULES, f"{package}.{name} is also a module, whose import would hide the name: rename one"
        assert attribute in module_defines(f"{package}.{module}"), f"{package}: {package}.{module} defines no {attribute}"


@pytest.mark.parametrize("package", [p for p in PACKAGES if lazy_exports(p)])
def test_a_lazy_package_imports_its_names_for_the_type_checker(package: str) -> None:
    """Its ``if TYPE_CHECKING:`` block imports exactly the table's names: mypy sees their types, not the Any of ``__getattr__``."""
    typed: dict[str, tuple[str, ...]] = {}
    for node in ast.parse(MODULES[package].read_text()).body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.module, f"{package}: only imports under TYPE_CHECKING"
                module = statement.module.removeprefix(f"{package}.")
                typed |= {alias.asname or alias.name: (module, alias.name) for alias in statement.names}
    assert typed == lazy_exports(package), f"{package}: the TYPE_CHECKING imports differ from the Exports table"


def module_defines(module: str) -> set[str]:
    """The names a module binds at its top level (definitions, assignments, imports)."""
    tree = ast.parse(MODULES[module].read_text())
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found |= {a.asname or a.name.split(".")[0] for a in node.names}
        else:
            found |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return found


def test_other_subpackages_import_only_public_names() -> None:
    wrong = []
    for imp in all_imports():
        if imp.submodule or top(imp.importer) == top(imp.imported) or imp.imported not in MODULES:
            continue
        if MODULES[imp.imported].parent == PACKAGE and MODULES[imp.imported].name != "__init__.py":
            continue  # a top-level module (logs, yaml_files, registry): its names are its own
        if MODULES[imp.imported].name != "__init__.py":
            wrong.append(f"{imp.importer}:{imp.line} imports module {imp.imported}: import its package's public names")
            continue
        public = public_names(imp.imported) or set()
        wrong += [f"{imp.importer}:{imp.line} imports {imp.imported}.{n}, not in its __all__" for n in imp.names if n not in public]
    assert not wrong, "\n".join(wrong)


def test_the_tool_catalog_names_every_tool_and_app_module() -> None:
    """Every module that registers a tool or an app is in ``env/catalog.py``'s tables, which the registry loads by name."""
    listed = {f"proactive_bench.env.{m}" for modules in catalog.GROUP_MODULES.values() for m in modules}
    registering = {
        m
        for m, p in MODULES.items()
        if m.startswith("proactive_bench.env.") and ("@register_tool(" in p.read_text() or "\nregister_app(" in p.read_text())
    }
    assert registering and registering <= listed, f"add to env/catalog.py: {sorted(registering - listed)}"
