"""The local attachment corpus of ``pbench generate agentif`` (no web): files indexed by kind and text, picked by BM25.

The default corpus is the attachments of the shipped tasks
(``pbench_data/agentif/*/workspace/``). A folder holding task folders gives
the files under their ``workspace/``; any other folder gives every file in it.
Each file is indexed by its kind (from its extension), its name and the text
the suite's readers extract (images: the name only). Picking is
deterministic: for each attachment kind the workflow needs, the corpus files
of that kind are ranked by Okapi BM25 (``rank-bm25``) of the need's
description against their name and text, ties by path, each file used once.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from rank_bm25 import BM25Okapi

from proactive_bench.env import DocumentError, read_as_text
from proactive_bench.suites.text_words import words

KINDS = {
    "pdf": (".pdf",),
    "spreadsheet": (".xlsx", ".csv"),
    "document": (".docx", ".md", ".txt"),
    "slides": (".pptx",),
    "image": (".png", ".jpg", ".jpeg"),
    "web_page": (".html", ".htm"),
    "drawing": (".svg",),
    "subtitles": (".srt",),
    "code": (".py",),
    "data": (".json",),
}
"""The attachment kinds a workflow may need, and the extensions of each."""
TEXTLESS = (".png", ".jpg", ".jpeg")
"""Kinds indexed by name only."""
WORKSPACE = "workspace"


class CorpusError(ValueError):
    """A corpus that cannot be used; the message is one line."""


@dataclass(frozen=True)
class CorpusFile:
    """One file of the corpus."""

    path: Path
    source: str
    """Its path relative to the corpus folder (recorded as the copy's provenance)."""
    kind: str
    text: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class Pick:
    """A corpus file chosen for a need (its role in the workflow), the workspace path it gets, and its BM25 score."""

    need: str
    file: CorpusFile
    path: str
    score: float


def kind_of(path: Path) -> str | None:
    suffix = path.suffix.lower()
    return next((kind for kind, suffixes in KINDS.items() if suffix in suffixes), None)


def index_corpus(folder: Path, exclude: Path | None = None) -> list[CorpusFile]:
    """Every file of a known kind in the corpus ``folder`` (not under ``exclude``: the seed's own attachments), by path."""
    if not folder.is_dir():
        raise CorpusError(f"--corpus: {folder} is not a folder")
    task_spaces = sorted(p for p in folder.glob(f"*/{WORKSPACE}") if p.is_dir())
    roots = task_spaces or [folder]
    files = []
    for path in sorted(p for root in roots for p in root.rglob("*") if p.is_file()):
        kind = kind_of(path)
        if kind is None or (exclude is not None and path.resolve().is_relative_to(exclude.resolve())):
            continue
        try:
            text = "" if path.suffix.lower() in TEXTLESS else read_as_text(path)
        except DocumentError:
            continue  # a damaged file is no candidate
        files.append(CorpusFile(path, path.relative_to(folder).as_posix(), kind, text))
    if not files:
        raise CorpusError(f"--corpus: {folder} holds no attachment of a known kind ({', '.join(KINDS)})")
    return files


def pick_attachments(corpus: list[CorpusFile], needs: list[tuple[str, str]], context: str = "") -> tuple[list[Pick], list[str]]:
    """For each (kind, role) need the best unused corpus file of that kind for the role and ``context`` (the workflow's
    summary); the picks and the needs left unmet (one line each)."""
    index = BM25Okapi([words(f"{f.path.stem.replace('_', ' ')} {f.text}") or [""] for f in corpus])
    used: set[int] = set()
    names: set[str] = set()
    picks, unmet = [], []
    for kind, role in needs:
        terms = words(f"{role} {context}")
        scores = index.get_scores(terms) if terms else [0.0] * len(corpus)
        ranked = sorted((n for n, f in enumerate(corpus) if f.kind == kind and n not in used), key=lambda n: (-scores[n], corpus[n].source))
        if not ranked:
            unmet.append(f"no unused {kind} file in the corpus for: {role}")
            continue
        best = corpus[ranked[0]]
        used.add(ranked[0])
        picks.append(Pick(role, best, _workspace_path(best.path.name, names), float(scores[ranked[0]])))
    return picks, unmet


def _workspace_path(name: str, taken: set[str]) -> str:
    """``inbox/<name>``, numbered when the name is taken."""
    stem, suffix = Path(name).stem, Path(name).suffix
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{stem}_{n}{suffix}"
    taken.add(candidate)
    return f"inbox/{candidate}"
