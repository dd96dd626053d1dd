"""The built-in ``personas`` suite (the default; ``pibench`` before 0.2): persona episodes (``episodes/<persona>/``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel

from proactive_bench.dataset import (
    Episode,
    LoadedEpisode,
    Persona,
    Problem,
    Session,
    load_dataset_partly,
    load_episode,
    load_episode_partly,
)
from proactive_bench.suites.base import DEFAULT_SUITE, NoSettings, SuiteContext


@dataclass(frozen=True)
class PersonasSuite:
    """π-Bench-style episodes: a persona, sessions with hidden intents, a simulated user."""

    name: str = DEFAULT_SUITE
    folder: str = "episodes"
    settings_model: ClassVar[type[BaseModel]] = NoSettings

    def names(self, root: Path) -> list[str]:
        folder = root / self.folder
        return sorted(p.name for p in folder.iterdir() if (p / "episode.yaml").is_file()) if folder.is_dir() else []

    def load(self, root: Path, name: str, settings: SuiteContext) -> LoadedEpisode:
        return load_episode(root, name)

    def load_all(self, root: Path) -> tuple[dict[str, LoadedEpisode], list[Problem]]:
        dataset, problems = load_dataset_partly(root)
        return dataset.episodes, problems

    def problems(self, root: Path, name: str) -> list[Problem]:
        return load_episode_partly(root, name)[1]

    def group(self, root: Path, name: str) -> str | None:
        return None

    @property
    def formats(self) -> dict[str, type[BaseModel]]:
        return {
            "personas/<id>.yaml": Persona,
            "episodes/<persona>/episode.yaml": Episode,
            "episodes/<persona>/sessions/<id>.yaml": Session,
        }


SUITE = PersonasSuite()
"""The default suite (``SUITES`` names it ``personas``, alias ``pibench``)."""
