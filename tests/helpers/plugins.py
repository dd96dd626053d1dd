"""A fake installed distribution on sys.path, so entry-point discovery is tested the way pip installs plugins."""

from __future__ import annotations

from pathlib import Path

import pytest


def install_fake_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, group: str, name: str, value: str) -> Path:
    """A ``*.dist-info`` folder declaring entry point ``name = value`` in ``group``, on sys.path until the test ends."""
    site = tmp_path / "site-packages"
    info = site / "pbench_fake_plugin-1.0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pbench-fake-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{name} = {value}\n")
    monkeypatch.syspath_prepend(str(site))
    return site
