"""The one registry mechanism: built-ins by decorator, declared built-ins of higher layers, entry-point plugins."""

from __future__ import annotations

from pathlib import Path

import pytest

from proactive_bench import registry
from proactive_bench.dataset import PREDICATE_CHECKS
from proactive_bench.importers.pibench.scripts import script_check
from proactive_bench.registry import PluginError, Registry
from tests.helpers.plugins import install_fake_plugin

PLUGIN_MODULE = """
def shout(text):
    return text.upper()
"""


@pytest.fixture
def plugin_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "pbench_fake_plugin_mod.py").write_text(PLUGIN_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "pbench_fake_plugin_mod"


def test_decorator_registers_and_twice_is_an_error() -> None:
    things: Registry[object] = Registry("things")

    @things.register("one")
    def one() -> int:
        return 1

    assert things.get("one") is one and "one" in things and things.names() == ["one"]
    with pytest.raises(PluginError, match="things: 'one' registered twice"):
        things.add("one", one)


def test_unknown_name_says_which_are_known() -> None:
    things: Registry[int] = Registry("things")
    things.add("a", 1)
    assert things.find("b") is None
    with pytest.raises(PluginError, match=r"unknown things 'b'; known: a$"):
        things.get("b")


def test_an_installed_distribution_is_found_by_its_entry_point(plugin_module: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_fake_plugin(tmp_path, monkeypatch, "pbench.shouters", "shout", f"{plugin_module}:shout")
    shouters: Registry[object] = Registry("shouters")
    assert shouters.names() == ["shout"]
    assert shouters.get("shout")("hi") == "HI"  # type: ignore[operator]
    assert shouters.get("shout") is shouters.get("shout")  # loaded once, then registered


def test_a_plugin_that_cannot_load_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_fake_plugin(tmp_path, monkeypatch, "pbench.shouters", "broken", "pbench_no_such_module_xyz:shout")
    with pytest.raises(
        PluginError, match=r"shouters 'broken' \(entry point pbench_no_such_module_xyz:shout\) cannot be loaded: No module named"
    ):
        Registry("shouters").get("broken")


def test_a_built_in_wins_over_a_plugin_of_the_same_name(plugin_module: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_fake_plugin(tmp_path, monkeypatch, "pbench.shouters", "shout", f"{plugin_module}:shout")
    shouters: Registry[object] = Registry("shouters", builtins={"shout": "builtins:len"})
    assert shouters.get("shout") is len


def test_the_pibench_check_is_declared_without_package_metadata() -> None:
    assert PREDICATE_CHECKS.get("pibench_script") is script_check  # pbench is not installed in the test venv


def test_registries_share_one_scan_of_the_installed_entry_points(
    plugin_module: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scanning reads every installed distribution's metadata: the registries a process uses read it once between them,
    and find what a scan per group found; a rescan reads it again (a plugin installed since is found)."""
    scans: list[dict[str, str]] = []
    real = registry.entry_points
    monkeypatch.setattr(registry, "entry_points", lambda **params: scans.append(params) or real(**params))
    first, second = Registry("things"), Registry("scaffolds")
    first.rescan()  # from no scan read so far
    assert [ep.value for ep in second.plugins.values()] == [ep.value for ep in real(group="pbench.scaffolds")]
    assert "shout" not in first and len(scans) == 1
    install_fake_plugin(tmp_path, monkeypatch, "pbench.things", "shout", f"{plugin_module}:shout")
    first.rescan()
    assert first.get("shout")("hi") == "HI" and len(scans) == 2
