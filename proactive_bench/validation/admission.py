"""Checks at the door: what ``episode``, ``sweep``, ``resume`` and ``replay`` verify before a run row exists.

Data: the errors ``pbench validate`` finds in the episode (its reference
solutions replayed on a scratch world, about a second for the pharmacist
episode), restricted to the sessions that will run. Settings: a user backend
that exists and has its model, the protocol's needs, reference solutions for a
scripted baseline, intent annotations for the rules user. An episode that passed
is remembered by a digest of its folder, its persona, the dataset's graders
and pbench's own code, so unchanged data is not checked again (the digest
costs milliseconds). Models: every participant a run spec names is built
once, so a sweep with an unknown scaffold or model fails before it starts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import proactive_bench.episode as episode  # the runner and the agents load when participants are built, not with the checks
from proactive_bench.dataset import LoadedEpisode, Problem, Session
from proactive_bench.episode import LaunchError, RunSpec
from proactive_bench.llm import ModelSpecError
from proactive_bench.logs import get_logger
from proactive_bench.scaffolds import ScaffoldLoadError, reference_problem
from proactive_bench.suites import DEFAULT_SUITE, SUITES
from proactive_bench.user import USERS, known_users
from proactive_bench.validation.digests import PACKAGE, content_digest
from proactive_bench.validation.lint import validate_episode

log = get_logger(__name__)

VALIDATED_DIR = "validated"
"""Under a results folder: one empty ``<digest>.ok`` file per episode content that passed."""


def dataset_problems(loaded: LoadedEpisode, session_ids: list[str], cache_dir: Path | None) -> list[Problem]:
    """Errors of ``pbench validate`` in this episode that concern the sessions to run; empty: go ahead."""
    root = loaded.directory.parent.parent
    marker = cache_dir / f"{episode_digest(loaded, root)}.ok" if cache_dir is not None else None
    if marker is not None and marker.is_file():
        return []
    found = validate_episode(loaded, root) if loaded.suite == DEFAULT_SUITE else SUITES.get(loaded.suite).problems(root, loaded.episode.id)
    errors = [p for p in found if p.level == "error"]
    if not errors and marker is not None:
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError as exc:  # the checks still ran; only the next run repeats them
            log.warning("validation_cache_unwritable", path=str(marker), error=exc.strerror)
    not_run = {f"episodes/{loaded.episode.id}/sessions/{s.id}.yaml" for s in loaded.sessions if session_ids and s.id not in session_ids}
    return [p for p in errors if p.file not in not_run]


def settings_problem(agent: str, sessions: Sequence[Session], user: str = "rules") -> str | None:
    """Why a run of ``agent`` with this user backend cannot run these sessions (one line), or None.

    What the settings alone decide (the LLM user's model, the protocol's needs, a suite's settings) their models'
    validators check (``RunSettings``, the suite's ``settings_model``); these checks need the sessions or the
    installed plug-ins.
    """
    if user not in USERS:
        return f"--user must be {known_users()}, not {user!r}"
    if problem := reference_problem(agent, list(sessions)):
        return problem
    unannotated = [f"{s.id}/{i.id}" for s in sessions for i in s.intents if not i.has_rules] if user == "rules" else []
    if unannotated:
        return (
            f"--user rules needs every intent annotated with evidence, ask, question and reveal; "
            f"{len(unannotated)} intent(s) are not (first: {', '.join(unannotated[:3])}). "
            "Imported π-Bench data carries no such annotations: use --user llm --user-model MODEL."
        )
    return None


def participant_problem(spec: RunSpec) -> str | None:
    """Why the spec's agent, user or judge cannot be built, or None."""
    if spec.base_url is not None and not re.match(r"https?://[^/\s]+", spec.base_url):
        return f"--base-url {spec.base_url!r} is not an http:// or https:// URL"
    try:
        episode.build_participants(spec, episode.CallLedger("admission"), None, None)
    except (ScaffoldLoadError, ModelSpecError, LaunchError) as exc:
        return str(exc)
    return None


def episode_digest(loaded: LoadedEpisode, root: Path) -> str:
    """A digest of everything validation reads: the episode folder, persona, graders and pbench's code."""
    persona = root / "personas" / f"{loaded.persona.id}.yaml"
    folders = {"episode": loaded.directory, "graders": root / "graders", "pbench": PACKAGE}
    return content_digest(folders, persona.read_bytes() if persona.is_file() else b"")
