"""Which sessions ``no-dependency-history`` keeps and removes, and which seeded files it withholds."""

from __future__ import annotations

from proactive_bench.dataset import Episode, Session, SessionEntry, Trigger, ablated_sessions, removed_sessions, withheld_files

# b and c build on a; d on c; e stands alone; g on f.
DEPENDS = {"a": [], "b": ["a"], "c": ["a"], "d": ["c"], "e": [], "f": [], "g": ["f"]}
FILES = {"a": ["data/a.csv", "shared.json"], "c": ["lit/"], "e": ["shared.json"], "f": ["raw/*.csv"], "g": ["raw/g.csv"]}


def episode() -> tuple[Episode, list[Session]]:
    entries = [SessionEntry(id=sid, depends_on=deps) for sid, deps in DEPENDS.items()]
    sessions = [Session(id=sid, title=sid, category="A", trigger=Trigger(message="go"), files=FILES.get(sid, [])) for sid in DEPENDS]
    return Episode(id="ep", persona="p", sessions=entries), sessions


def test_every_final_is_kept_even_where_two_build_on_one_session() -> None:
    """b and d both build on a (d through c): each is the final of its group; a and c are removed, e and f are not played."""
    ep, sessions = episode()
    kept = [s.id for s in ablated_sessions(ep, sessions, "no-dependency-history")]
    assert kept == ["b", "d", "g"]
    assert removed_sessions(ep, kept) == ["a", "c", "f"]
    assert ablated_sessions(ep, sessions, "none") == sessions
    assert [s.id for s in ablated_sessions(ep, [s for s in sessions if s.id in ("a", "c")], "no-dependency-history")] == ["c"]


def test_only_files_no_other_session_names_are_withheld() -> None:
    ep, sessions = episode()
    present = ["data/a.csv", "shared.json", "lit/x/one.md", "literature.md", "raw/f.csv", "raw/g.csv", "other.txt"]
    gone = withheld_files(sessions, removed_sessions(ep, ["b", "d", "g"]), present)
    assert gone == ["data/a.csv", "lit/x/one.md", "raw/f.csv"]  # shared.json (e), raw/g.csv (g) stay; a folder entry is no prefix
