"""Mutated datasets: `validate` and `episode` pass or fail in one line, and a run never starts on data validate rejects.

Each example takes the mini dataset, breaks one file in one way (a dropped
key, a wrong type, an unknown key, a duplicate key, a path out of the
workspace, an unknown tool group, a bad app seed) and runs both commands in-process.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import event, given, settings, strategies as st

from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI

FILES = ["personas/tester.yaml", "episodes/mini/episode.yaml", *(f"episodes/mini/sessions/{s}.yaml" for s in ("a1", "a2", "a3"))]
WRONG_VALUES = [42, -1.5, True, None, "text", "", [], ["x"], {}, {"x": 1}, {"file_exists": "x"}]
BAD_PATHS = ["../../etc/passwd", "/etc/hostname", "out/../../x.md", "..", "\\\\server\\share", ""]
BAD_SEEDS = [
    "gmail_teleport:\n  - {id: 1}\n",
    "gmail_user: not a list\n",
    "gmail_user:\n  - {id: one, unknown_column: 2}\n",
    "- just\n- a list\n",
    "gmail_user: [\n",
    "gmail_user: []\ngmail_user: []\n",
]


def _slots(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths to every mapping key and list item below ``node``."""
    out: list[tuple[Any, ...]] = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for key, child in items:
        out.append((*path, key))
        out += _slots(child, (*path, key))
    return out


def _parent(data: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        data = data[key]
    return data


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, str, Any]:
    """(file, kind, detail): what to break and how."""
    kind = draw(st.sampled_from(["drop", "wrong_type", "unknown_key", "duplicate_key", "bad_path", "unknown_tool", "bad_seed"]))
    file = draw(st.sampled_from(FILES))
    data = yaml.safe_load((MINI / file).read_text())
    if kind in ("drop", "wrong_type"):
        slot = draw(st.sampled_from(_slots(data)))
        return file, kind, (slot, draw(st.sampled_from(WRONG_VALUES)))
    if kind == "unknown_key":
        mappings = [()] + [s for s in _slots(data) if isinstance(_parent(data, (*s, None)), dict)]
        return file, kind, draw(st.sampled_from(mappings))
    if kind == "duplicate_key":
        return file, kind, draw(st.sampled_from(sorted(data)))
    if kind == "bad_path":
        return draw(st.sampled_from(FILES[2:])), kind, draw(st.sampled_from(BAD_PATHS))
    if kind == "unknown_tool":
        return draw(st.sampled_from(FILES[2:])), kind, draw(st.text(min_size=1, max_size=12))
    return "episodes/mini/apps/seed.yaml", kind, draw(st.sampled_from(BAD_SEEDS))


def _apply(root: Path, file: str, kind: str, detail: Any) -> None:
    path = root / file
    if kind == "bad_seed":
        path.parent.mkdir(exist_ok=True)
        path.write_text(detail)
        return
    if kind == "duplicate_key":
        path.write_text(path.read_text() + f"{detail}: again\n")
        return
    data = yaml.safe_load(path.read_text())
    if kind == "drop":
        slot, _ = detail
        del _parent(data, slot)[slot[-1]]
    elif kind == "wrong_type":
        slot, value = detail
        _parent(data, slot)[slot[-1]] = value
    elif kind == "unknown_key":
        target = _parent(data, (*detail, None))
        target["bogus_field"] = 1
    elif kind == "bad_path":
        paths = [s for s in _slots(data) if s[-1] in ("path", "file_exists") or (len(s) > 1 and s[-2] == "files")]
        for slot in paths:
            _parent(data, slot)[slot[-1]] = detail
        if not paths:
            data["files"] = [detail]
    elif kind == "unknown_tool":
        data["tools"] = ["workspace", detail]
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


def _runs(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as con:
        return con.execute("select count(*) from run").fetchone()[0]


def _clean(result: Any, argv: list[str]) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), f"traceback from {argv}: {result.exception!r}"
    if result.exit_code == 2:
        assert result.output.strip().splitlines()[-1].startswith("error:"), result.output


@settings(max_examples=50, deadline=None)
@given(mutation=mutations())
def test_a_mutated_dataset_never_tracebacks_and_never_runs_when_rejected(mutation: tuple[str, str, Any]) -> None:
    with tempfile.TemporaryDirectory(prefix="pbench-fuzz-") as tmp:
        root = Path(tmp) / "mini"
        shutil.copytree(MINI, root)
        _apply(root, *mutation)
        validate = ["validate", "--data", str(root)]
        checked = run_cli(*validate)
        _clean(checked, validate)
        assert checked.exit_code in (0, 1), checked.output
        event(f"{mutation[1]}: validate {'passes' if checked.exit_code == 0 else 'rejects'}")
        db = Path(tmp) / "runs" / "r.db"
        episode = ["episode", "--data", str(root), "--persona", "mini", "--model", "scripted:reference", "--db", str(db)]
        ran = run_cli(*episode)
        _clean(ran, episode)
        if checked.exit_code == 1:
            assert ran.exit_code != 0 and ran.output.strip().splitlines()[-1].startswith("error:"), ran.output
            assert _runs(db) == 0, f"ran data validate rejects: {mutation}"
