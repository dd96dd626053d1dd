"""Skills: ``<skills_root>/<folder>/SKILL.md`` (YAML front matter with name and description,
then the instructions) plus optional data files beside it.

The scaffold shows :func:`skill_catalog` in its prompt; the agent reads a skill,
or one of its data files, with ``read_skill``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field

import proactive_bench.env.jail as jail
from proactive_bench.env.documents import bytes_as_text
from proactive_bench.env.toolbox import NoArgs, ToolEnv, ToolError, register_tool
from proactive_bench.env.workspace import resolve_inside
from proactive_bench.yaml_files import parse_yaml

SKILL_FILE = "SKILL.md"


class SkillError(ValueError):
    """A SKILL.md that cannot be parsed."""


@dataclass(frozen=True)
class SkillInfo:
    name: str
    description: str
    folder: Path
    files: tuple[str, ...]
    """Data files of the skill, relative to its folder."""


class ReadSkillArgs(BaseModel):
    name: str = Field(min_length=1, description="The skill's name, as list_skills shows it.")
    file: str | None = Field(default=None, description="One of the skill's data files; omit to read its instructions.")


def parse_skill_md(text: str, source: str) -> tuple[dict[str, Any], str]:
    """Split a SKILL.md into its front matter (a mapping) and the instructions after it."""
    if not text.startswith("---"):
        return {}, text.strip()
    _, _, rest = text.partition("\n")
    header, sep, body = rest.partition("\n---")
    if not sep:
        raise SkillError(f"{source}: front matter is not closed with '---'")
    try:
        meta = parse_yaml(header) or {}
    except yaml.YAMLError as exc:
        raise SkillError(f"{source}: front matter is not valid YAML: {exc}") from None
    if not isinstance(meta, dict):
        raise SkillError(f"{source}: front matter must be a mapping")
    return meta, body.partition("\n")[2].strip()


def skill_catalog(root: Path | None) -> list[SkillInfo]:
    """The skills under ``root``, sorted by name (empty when there is no such folder): each a folder (not a link) holding a
    SKILL.md, read through the jail, and its data files as :func:`jail.walk` lists them (links not followed)."""
    if root is None or not root.is_dir():
        return []
    root = root.resolve()
    skills = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink()):
        try:
            text = jail.read_file(folder, SKILL_FILE).decode("utf-8")
        except jail.Missing:
            continue
        except jail.Refused as exc:
            raise SkillError(f"{jail.shown(folder.name)}/{SKILL_FILE}: {exc}") from None
        meta, _ = parse_skill_md(text, f"{folder.name}/{SKILL_FILE}")
        files = tuple(jail.shown(entry.path) for entry in jail.walk(folder).files() if entry.path != SKILL_FILE)
        skills.append(SkillInfo(str(meta.get("name") or folder.name), str(meta.get("description") or "").strip(), folder, files))
    return sorted(skills, key=lambda s: s.name)


@register_tool("list_skills", group="skills")
def list_skills(env: ToolEnv, args: NoArgs) -> list[dict[str, Any]]:
    """List the available skills: name, description and data files."""
    return [{"name": s.name, "description": s.description, "files": list(s.files)} for s in skill_catalog(env.skills_root)]


@register_tool("read_skill", group="skills")
def read_skill(env: ToolEnv, args: ReadSkillArgs) -> dict[str, Any]:
    """Read a skill's instructions, or one of its data files."""
    skill = next((s for s in skill_catalog(env.skills_root) if s.name == args.name), None)
    if skill is None:
        raise ToolError(f"no skill named {args.name!r}; list_skills shows the available ones")
    if args.file is None:
        _, instructions = parse_skill_md(jail.read_file(skill.folder, SKILL_FILE).decode("utf-8"), args.name)
        return {"name": skill.name, "description": skill.description, "instructions": instructions, "files": list(skill.files)}
    resolve_inside(skill.folder, args.file, "skill folder")
    try:
        data = jail.read_file(skill.folder, jail.unshown(args.file))
    except jail.Missing:
        raise ToolError(f"skill {args.name!r} has no file {args.file!r}; its files: {', '.join(skill.files) or 'none'}") from None
    except jail.Refused as exc:
        raise ToolError(f"skill {args.name!r}: {args.file!r}: {exc}") from None
    return {"name": skill.name, "file": args.file, "content": bytes_as_text(data, args.file)}
