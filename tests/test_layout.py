"""The tests' own layout (tests/README.md): folders mirror the package, shared code is in tests/helpers/, no flat pile-up."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers.paths import REPO, TESTS

PACKAGE = REPO / "proactive_bench"
OWN_FOLDERS = {"helpers", "data", "graders", "reliability"}
"""Folders that mirror no subpackage: shared helpers, test data, the shipped graders (pbench_data/graders), deliberate failures."""
WHOLE_PACKAGE = {
    "test_architecture.py",
    "test_architecture_store.py",
    "test_layout.py",
    "test_public_api.py",
    "test_packaging.py",
    "test_plugins.py",
    "test_registry.py",
    "test_terminal.py",
    "test_yaml_files.py",
    "test_json_text.py",
    "test_content_encoding.py",
    "test_docs_commands.py",
}
"""The test modules at the top: the package as a whole and its top-level modules (a subpackage's tests go in its folder)."""


def folders() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*") if p.is_dir() and "data" not in p.relative_to(TESTS).parts and p.name != "__pycache__")


def test_every_test_folder_mirrors_a_subpackage_or_is_one_of_the_own_folders() -> None:
    strays = []
    for folder in folders():
        relative = folder.relative_to(TESTS)
        if relative.parts[0] not in OWN_FOLDERS and not (PACKAGE / relative).is_dir():
            strays.append(f"tests/{relative.as_posix()}: no proactive_bench/{relative.as_posix()} to mirror")
    assert not strays, "\n".join(strays)


def test_every_folder_is_a_package_so_same_named_files_do_not_clash() -> None:
    assert [f"tests/{f.relative_to(TESTS).as_posix()}" for f in folders() if not (f / "__init__.py").is_file()] == []
    assert (TESTS / "__init__.py").is_file()


def test_no_flat_pile_and_no_second_helping() -> None:
    top = {p.name for p in TESTS.glob("test_*.py")}
    assert top <= WHOLE_PACKAGE, f"move into the folder of the subpackage they test: {sorted(top - WHOLE_PACKAGE)}"
    assert [p.name for p in TESTS.rglob("*_more.py")] == [], "merge a *_more.py file into its sibling"
    helpers = {p.name for p in TESTS.glob("*.py")} - top - {"__init__.py", "conftest.py"}
    assert not helpers, f"shared helpers go in tests/helpers/: {sorted(helpers)}"


def test_shared_code_is_imported_from_helpers_not_from_conftest() -> None:
    wrong = []
    for path in TESTS.rglob("*.py"):
        if "data" in path.relative_to(TESTS).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in ("conftest", "tests.conftest"):
                wrong.append(f"tests/{path.relative_to(TESTS).as_posix()}:{node.lineno}")
    assert not wrong, "import run_cli, paths and agents from tests.helpers: " + ", ".join(wrong)
