"""pbench installed like a library: every imported distribution declared with bounds the installed one meets, and a wheel that runs from anywhere."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.helpers.paths import REPO


def declared() -> dict[str, Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    requirements = [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["dev"]]
    return {canonicalize_name(r.name): r for r in requirements}


def imported_modules() -> set[str]:
    """The top-level names the package imports anywhere, except optional ones (imported in a ``try`` that catches ImportError)."""
    names: set[str] = set()
    for path in (REPO / "proactive_bench").rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        optional = {
            id(node)
            for guard in ast.walk(tree)
            if isinstance(guard, ast.Try) and _catches_import_error(guard)
            for statement in guard.body
            for node in ast.walk(statement)
        }
        for node in ast.walk(tree):
            if id(node) in optional:
                continue
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"proactive_bench", "pbench_data"}


def _catches_import_error(guard: ast.Try) -> bool:
    caught = [ast.unparse(handler.type) for handler in guard.handlers if handler.type is not None]
    return any("ImportError" in names or "ModuleNotFoundError" in names for names in caught)


def test_every_imported_distribution_is_declared_with_bounds() -> None:
    distributions = metadata.packages_distributions()
    requirements = declared()
    for module in sorted(imported_modules()):
        assert module in distributions, f"{module} is imported but not installed"
        names = {canonicalize_name(d) for d in distributions[module]}
        assert names & requirements.keys(), f"{module} (from {sorted(names)}) is imported but not in pyproject.toml's dependencies"
        for name in names & requirements.keys():
            specifier = requirements[name].specifier
            assert any(s.operator == ">=" for s in specifier), f"{name}: no lower bound"
            assert name == "structlog" or any(s.operator == "<" for s in specifier), f"{name}: no upper bound"


def test_the_installed_distributions_meet_the_bounds() -> None:
    for name, requirement in declared().items():
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        version = metadata.version(name)
        assert requirement.specifier.contains(version, prereleases=True), f"{name} {version} is outside {requirement.specifier}"


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pbench built once as a wheel, from a copy of the checkout (the build writes beside the sources)."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "src"
    ignore = shutil.ignore_patterns(".git", ".venv*", ".ci-*", "pbench-runs", "__pycache__", "*.egg-info", "build", "dist", ".pytest_cache")
    shutil.copytree(REPO, source, ignore=ignore)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(root), str(source)], check=True, timeout=300
    )
    (built,) = root.glob("pbench-*.whl")
    return built


@pytest.mark.slow
def test_the_wheel_ships_the_type_information(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"proactive_bench/__init__.py", "proactive_bench/py.typed"} <= names


@pytest.mark.slow
def test_a_wheel_installed_in_a_fresh_venv_runs_an_episode_from_another_folder(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    # the dependencies (and pip) from this environment's site folders, as a plain path entry: their .pth files (this
    # checkout's editable install among them) are not read, so pbench itself comes only from the wheel
    (site / "dependencies.pth").write_text("\n".join(dict.fromkeys([sysconfig.get_path("purelib"), sysconfig.get_path("platlib")])) + "\n")
    # without PYTHONPATH, for pip too: a checkout on it (with its editable install's egg-info) reads as pbench installed
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)], check=True, timeout=300, env=env)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    found = "import json, proactive_bench, pbench_data; print(json.dumps([*proactive_bench.__path__, *pbench_data.__path__]))"  # pbench_data: a namespace package
    where = json.loads(subprocess.run([python, "-c", found], cwd=elsewhere, env=env, capture_output=True, text=True, check=True).stdout)
    assert where and all(Path(p).is_relative_to(site) for p in where), where  # not this checkout
    episode = subprocess.run(
        [venv / "bin" / "pbench", "episode", "--persona", "pharmacist", "--model", "scripted:reference", "--json"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert episode.returncode == 0, episode.stderr[-2000:]
    result = json.loads(episode.stdout)
    assert len(result["sessions"]) == 20 and result["proc"] == 1.0
    assert (elsewhere / "pbench-runs" / "pbench.db").is_file()
