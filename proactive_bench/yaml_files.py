"""Reading YAML files strictly, with one-line errors.

Every YAML file pbench reads (dataset, sweep settings, prices, app seeds)
goes through :func:`read_yaml_file`: a duplicate mapping key is an error (a
plain ``safe_load`` keeps the last value silently), and every failure (missing
file, folder, binary content, syntax) is a :class:`YamlFileError` whose
message is one line naming the file, the line and the reason.

Parsing runs on libyaml (``yaml.CSafeLoader``) when PyYAML was built with it
and on the pure-Python ``yaml.SafeLoader`` otherwise; the duplicate-key check
lives in the constructor, which both share. A syntax error's wording is the
parser's own, so it differs between the two; its line and column do not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode

_MERGE_TAG = "tag:yaml.org,2002:merge"


class YamlFileError(ValueError):
    """A YAML file that cannot be read: ``where`` is ``line L, column C`` when known."""

    def __init__(self, path: Path, where: str, reason: str) -> None:
        self.path, self.where, self.reason = path, where, reason
        super().__init__(f"{path}: {where}: {reason}" if where else f"{path}: {reason}")


#: libyaml's safe loader when PyYAML has it (several times faster), else the pure-Python one.
FASTEST_SAFE_LOADER: type[SafeConstructor] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class RefusesDuplicateKeys(SafeConstructor):
    """A safe constructor that refuses a mapping with the same key twice (merge keys ``<<`` excepted).

    Mixed in before a safe loader: ``class L(RefusesDuplicateKeys, yaml.SafeLoader)``.
    """

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        first_line: dict[Any, int] = {}
        for key_node, _value in node.value:
            if key_node.tag == _MERGE_TAG:
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                repeated = key in first_line
            except TypeError:
                continue  # an unhashable key: the base constructor reports it
            if repeated:
                raise ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    f"duplicate key {key!r} (first on line {first_line[key] + 1})",
                    key_node.start_mark,
                )
            first_line[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


class UniqueKeyLoader(RefusesDuplicateKeys, FASTEST_SAFE_LOADER):  # type: ignore[misc,valid-type]  # the base is chosen at import (the C loader when built)
    """The loader pbench reads YAML with: :data:`FASTEST_SAFE_LOADER` refusing duplicate keys."""


def parse_yaml(text: str) -> Any:
    """Parse YAML text with :class:`UniqueKeyLoader`; raises ``yaml.YAMLError``."""
    return yaml.load(text, Loader=UniqueKeyLoader)  # a safe loader


def read_yaml_file(path: Path) -> Any:
    """The parsed content of a YAML file, or a one-line :class:`YamlFileError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except IsADirectoryError:
        raise YamlFileError(path, "", "is a folder, not a YAML file") from None
    except FileNotFoundError:
        raise YamlFileError(path, "", "file not found") from None
    except UnicodeDecodeError as exc:
        raise YamlFileError(path, "", f"not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise YamlFileError(path, "", f"cannot read: {exc.strerror or exc}") from None
    try:
        return parse_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        reason = getattr(exc, "problem", None) or str(exc)
        raise YamlFileError(path, where, f"invalid YAML: {' '.join(str(reason).split())}") from None
