"""Write converted personas as a pbench dataset root: ``personas/``, ``episodes/<p>/``, ``graders/<p>/``."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from proactive_bench.importers.pibench.convert import ConvertedPersona
from proactive_bench.importers.pibench.report import REPORT_FILE

DATASET_FOLDERS = ("personas", "episodes", "graders")


class OutputError(Exception):
    """An output folder the importer must not write into."""


class _Dumper(yaml.SafeDumper):
    """Multi-line strings as ``|`` blocks, so long role texts and prompts stay readable."""


def _represent_str(dumper: yaml.SafeDumper, data: str) -> Any:
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|" if "\n" in data else None)


_Dumper.add_representer(str, _represent_str)


def dump_model(model: BaseModel) -> str:
    """A model as dataset YAML: defaults left out, fields in declaration order."""
    data = model.model_dump(mode="json", exclude_defaults=True, by_alias=True)
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)


def prepare_out(out: Path) -> None:
    """A new or empty folder, or one holding an earlier import (whose dataset folders are replaced)."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out} is a file, not a folder")
    if out.is_dir() and any(out.iterdir()):
        if not (out / REPORT_FILE).is_file():
            raise OutputError(f"{out} is not empty and holds no earlier import ({REPORT_FILE}); choose another --out")
        for name in DATASET_FOLDERS:
            shutil.rmtree(out / name, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)


def write_dataset(converted: list[ConvertedPersona], out: Path) -> None:
    """Write every persona's YAML files and app seeds, and copy its task files, scripts, skills and web pages byte for byte."""
    for item in converted:
        name = item.persona.id
        _write(out / "personas" / f"{name}.yaml", dump_model(item.persona))
        _write(out / "episodes" / name / "episode.yaml", dump_model(item.episode))
        for session in item.sessions:
            _write(out / "episodes" / name / "sessions" / f"{session.id}.yaml", dump_model(session))
        for target, rows in item.seeds.items():
            _write(out / target, yaml.dump(rows, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120))
        for target, source in item.files.items():
            path = out / target
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, path)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
