"""The strict YAML reader: duplicate keys are errors, every failure is one line naming file, line and reason."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from proactive_bench.yaml_files import (
    FASTEST_SAFE_LOADER,
    RefusesDuplicateKeys,
    UniqueKeyLoader,
    YamlFileError,
    parse_yaml,
    read_yaml_file,
)

# A syntax error's wording is the parser's own: libyaml's when PyYAML has it.
UNCLOSED_FLOW = "did not find expected node content" if yaml.__with_libyaml__ else "expected the node content, but found '<stream end>'"


class PurePythonUniqueKeyLoader(RefusesDuplicateKeys, yaml.SafeLoader):
    """The fallback pbench uses where PyYAML lacks libyaml."""


@pytest.mark.parametrize(
    ("text", "key", "line", "first"),
    [
        ("id: a\ntitle: x\nid: b\n", "id", 3, 1),
        ("trigger:\n  type: user\n  message: hi\n  type: event\n", "type", 4, 2),
        ("trigger: {type: user, type: event}\n", "type", 1, 1),
        ("intents:\n  - id: a\n    text: t\n    text: u\n", "text", 4, 3),
        ("1: a\n1.0: b\n", 1.0, 2, 1),
    ],
)
def test_a_duplicate_key_names_its_line_and_the_first(text: str, key: object, line: int, first: int) -> None:
    with pytest.raises(yaml.YAMLError) as info:
        parse_yaml(text)
    assert info.value.problem == f"duplicate key {key!r} (first on line {first})"  # type: ignore[attr-defined]
    assert info.value.problem_mark.line + 1 == line  # type: ignore[attr-defined]


def test_merge_keys_may_be_overridden_and_equal_keys_in_sibling_mappings_are_fine() -> None:
    text = "base: &b {k: 1, j: 2}\nuse:\n  <<: *b\n  k: 3\nlist:\n  - {id: a}\n  - {id: b}\n"
    assert parse_yaml(text) == {"base": {"k": 1, "j": 2}, "use": {"k": 3, "j": 2}, "list": [{"id": "a"}, {"id": "b"}]}


def test_the_loader_stays_safe() -> None:
    with pytest.raises(yaml.YAMLError):
        parse_yaml("!!python/object/apply:os.system ['true']\n")


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: p.mkdir(), "is a folder, not a YAML file"),
        (lambda p: None, "file not found"),
        (lambda p: p.write_bytes(b"a: \xff\xfe\n"), "not UTF-8 text (byte 3)"),
        (lambda p: p.write_text("a: [1,\n"), f"line 2, column 1: invalid YAML: {UNCLOSED_FLOW}"),
        (lambda p: p.write_text("a: 1\na: 2\n"), "line 2, column 1: invalid YAML: duplicate key 'a' (first on line 1)"),
    ],
)
def test_every_failure_is_one_line(tmp_path: Path, make, reason: str) -> None:
    path = tmp_path / "f.yaml"
    make(path)
    with pytest.raises(YamlFileError) as info:
        read_yaml_file(path)
    assert str(info.value) == f"{path}: {reason}"
    assert "\n" not in str(info.value)


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml")
def test_the_loader_runs_on_libyaml_and_still_names_a_duplicate_key_in_one_line(tmp_path: Path) -> None:
    assert FASTEST_SAFE_LOADER is yaml.CSafeLoader
    assert issubclass(UniqueKeyLoader, yaml.CSafeLoader)
    path = tmp_path / "session.yaml"
    path.write_text("id: s1\nintents:\n  - id: i1\n    text: a\n  - id: i2\n    text: b\n    id: i3\n")
    with pytest.raises(YamlFileError) as info:
        read_yaml_file(path)
    assert str(info.value) == f"{path}: line 7, column 5: invalid YAML: duplicate key 'id' (first on line 5)"


@pytest.mark.parametrize(
    "text",
    ["id: a\ntitle: x\nid: b\n", "t: {type: user, type: event}\n", "base: &b {k: 1}\nuse:\n  <<: *b\n  k: 2\n  k: 3\n"],
)
def test_the_pure_python_fallback_refuses_the_same_duplicates(text: str) -> None:
    with pytest.raises(yaml.YAMLError) as fast:
        parse_yaml(text)
    with pytest.raises(yaml.YAMLError) as pure:
        yaml.load(text, Loader=PurePythonUniqueKeyLoader)  # a safe loader
    assert fast.value.problem == pure.value.problem  # type: ignore[attr-defined]
    assert fast.value.problem_mark.line == pure.value.problem_mark.line  # type: ignore[attr-defined]
