"""The dataset archives the Ray driver ships to its runners: only what the runs read, unpacked once, never outside the cache."""

from __future__ import annotations

import asyncio
import functools
import gzip
import io
import os
import shutil
import tarfile
import threading
import time
import types
from pathlib import Path

import pytest

from proactive_bench.campaign import ray_executor
from proactive_bench.campaign.dataset_archives import KEPT_FOR_S, DatasetArchive, pack, unpacked
from proactive_bench.dataset import episode_files, load_episode
from tests.helpers.paths import DATA


def archive_of(*members: tarfile.TarInfo) -> DatasetArchive:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for member in members:
            tar.addfile(member, io.BytesIO(b"x" * member.size) if member.isfile() else None)
    return DatasetArchive("d" * 64, buffer.getvalue(), len(members))


def test_an_episode_ships_its_folder_persona_and_graders_and_loads_the_same_from_the_copy(tmp_path: Path) -> None:
    loaded = load_episode(DATA, "pharmacist")
    members = episode_files(DATA, loaded)
    assert sorted(map(str, members)) == ["episodes/pharmacist", "graders", "personas/pharmacist.yaml"]
    archive = pack(DATA.resolve(), members)
    assert pack(DATA.resolve(), members).digest == archive.digest  # deterministic: the digest names the content
    copies: list[Path] = []
    racers = [threading.Thread(target=lambda: copies.append(unpacked(archive.digest, archive.data, tmp_path))) for _ in range(4)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    (copy,) = set(copies)
    assert copy == tmp_path / archive.digest and [p.name for p in tmp_path.iterdir()] == [archive.digest]  # no half copy left
    assert not (copy / "episodes" / "marketer").exists() and not (copy / "odyssey").exists()  # only what the runs read
    again = load_episode(copy, "pharmacist")
    assert (again.episode, again.persona, again.sessions) == (loaded.episode, loaded.persona, loaded.sessions)
    shipped = sorted(p.relative_to(copy) for p in copy.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    original = sorted(
        p.relative_to(DATA) for m in members for p in [DATA / m, *(DATA / m).rglob("*")] if p.is_file() and "__pycache__" not in p.parts
    )
    assert shipped == original and len(original) == archive.files
    assert all((copy / p).read_bytes() == (DATA / p).read_bytes() for p in original)


def test_a_copy_missing_files_is_unpacked_again(tmp_path: Path) -> None:
    archive = pack(DATA.resolve(), episode_files(DATA, load_episode(DATA, "pharmacist")))
    copy = unpacked(archive.digest, archive.data, tmp_path)
    (copy / "personas" / "pharmacist.yaml").unlink()  # as a temporary-files cleaner would
    assert unpacked(archive.digest, archive.data, tmp_path) == copy
    assert load_episode(copy, "pharmacist").persona.id == "pharmacist"
    assert [p.name for p in tmp_path.iterdir()] == [archive.digest]


@pytest.mark.parametrize("escaping", ["../outside.txt", "link"])
def test_members_escaping_the_cache_are_refused(tmp_path: Path, escaping: str) -> None:
    member = tarfile.TarInfo(escaping)
    if escaping == "link":
        member.type, member.linkname = tarfile.SYMTYPE, "../../outside.txt"
    else:
        member.size = 1
    cache = tmp_path / "cache"
    with pytest.raises(tarfile.FilterError):
        unpacked("d" * 64, archive_of(member).data, cache)
    assert not (tmp_path / "outside.txt").exists() and list(cache.iterdir()) == []  # neither the member nor a half copy


def test_an_absolute_member_lands_inside_the_copy(tmp_path: Path) -> None:
    member = tarfile.TarInfo(str(tmp_path / "absolute.txt"))
    member.size = 1
    copy = unpacked("d" * 64, archive_of(member).data, tmp_path / "cache")
    assert not (tmp_path / "absolute.txt").exists() and (copy / str(tmp_path).lstrip("/") / "absolute.txt").is_file()


def test_a_link_in_the_dataset_to_a_file_outside_brings_no_file_of_the_drivers_machine(tmp_path: Path) -> None:
    root = tmp_path / "data"
    (root / "episodes" / "e" / "workspace").mkdir(parents=True)
    (tmp_path / "secret.txt").write_text("the driver's")
    (root / "episodes" / "e" / "workspace" / "notes.txt").symlink_to(tmp_path / "secret.txt")
    archive = pack(root, [Path("episodes/e")])
    assert b"the driver's" not in gzip.decompress(archive.data)
    with pytest.raises(tarfile.FilterError):
        unpacked(archive.digest, archive.data, tmp_path / "cache")


def test_a_new_copy_removes_copies_unused_for_a_week_and_keeps_the_rest(tmp_path: Path) -> None:
    week_ago = time.time() - KEPT_FOR_S - 60
    unused, recent, leftover = tmp_path / ("a" * 64), tmp_path / ("b" * 64), tmp_path / ".aaaaaaaaaaaa-interrupted"
    for folder in (unused, recent, leftover):
        (folder / "episodes").mkdir(parents=True)
        (folder / "episodes" / "notes.txt").write_text("an older dataset")
    for folder in (unused, leftover):
        os.utime(folder, (week_ago, week_ago))
    archive = pack(DATA.resolve(), episode_files(DATA, load_episode(DATA, "pharmacist")))
    copy = unpacked(archive.digest, archive.data, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([recent.name, archive.digest])
    os.utime(copy, (week_ago, week_ago))
    assert unpacked(archive.digest, archive.data, tmp_path) == copy and copy.stat().st_mtime > week_ago + 60  # used again: touched


def test_a_runner_unpacks_again_a_copy_pruned_while_it_ran(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ray_executor, "unpacked", functools.partial(unpacked, cache=tmp_path))
    archive = pack(DATA.resolve(), episode_files(DATA, load_episode(DATA, "pharmacist")))
    runner = types.SimpleNamespace(datasets={})
    runner._unpack = functools.partial(ray_executor.EpisodeRunner._unpack, runner)

    async def shipped() -> bytes:
        return archive.data

    async def run_starts() -> list[Path]:
        first = await ray_executor.EpisodeRunner.dataset(runner, archive.digest, shipped())  # type: ignore[arg-type]
        shutil.rmtree(first)  # another sweep's runner pruned it
        return [first, await ray_executor.EpisodeRunner.dataset(runner, archive.digest, shipped())]  # type: ignore[arg-type]

    first, second = asyncio.run(run_starts())
    assert first == second and load_episode(second, "pharmacist").persona.id == "pharmacist"
