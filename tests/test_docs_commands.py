"""The documentation's runnable blocks run, docs/cli.md names every command and option, and relative links resolve.

A fenced block whose info string holds the word ``runnable`` (```` ```bash runnable ````,
```` ```python file=my_agent.py runnable ````) is run by this test: the blocks of one page in order,
in one fresh temporary folder, offline, with no API key and no ``PBENCH_DB``; each must exit 0.
A ``bash`` block runs under ``bash -euo pipefail``; a ``python`` block is written to its ``file=``
name (default ``block<N>.py``) and run with this interpreter, so a later block may use the file
(CONTRIBUTING.md, "Runnable blocks").
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer

from proactive_bench.cli import app

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)
LANGUAGES = ("bash", "python")


@dataclass(frozen=True)
class Block:
    """One runnable fenced block: its page, line, language, file name (python) and text."""

    page: Path
    line: int
    language: str
    file: str | None
    text: str

    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def runnable_blocks(page: Path) -> list[Block]:
    """The blocks of ``page`` marked runnable, in order; ValueError for a marked block pbench cannot run."""
    source = page.read_text(encoding="utf-8")
    blocks = []
    for match in FENCE.finditer(source):
        words = match["info"].split()
        if "runnable" not in words:
            continue
        line = source.count("\n", 0, match.start()) + 1
        language = words[0] if words else ""
        if language not in LANGUAGES:
            raise ValueError(f"{page.name}:{line}: a runnable block must be one of {LANGUAGES}, not {language!r}")
        files = [w.removeprefix("file=") for w in words if w.startswith("file=")]
        if files and language != "python":
            raise ValueError(f"{page.name}:{line}: file= is for python blocks")
        blocks.append(Block(page, line, language, files[0] if files else None, match["body"]))
    return blocks


def offline_env(folder: Path) -> dict[str, str]:
    """The environment of a fresh machine: this interpreter's scripts first, this checkout's code, no keys, no database URL."""
    env = {k: v for k, v in os.environ.items() if not (k.endswith("_API_KEY") or k.startswith(("PBENCH_", "OPENAI_")))}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(REPO),
        HOME=str(folder / "home"),
        XDG_CACHE_HOME=str(folder / "cache"),
        COLUMNS="120",
        NO_COLOR="1",
    )
    return env


def run_block(block: Block, index: int, folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    if block.language == "bash":
        command = ["bash", "-euo", "pipefail", "-c", block.text]
    else:
        script = folder / (block.file or f"block{index}.py")
        script.write_text(block.text, encoding="utf-8")
        command = [sys.executable, script.name]
    return subprocess.run(command, cwd=folder, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300, check=False)


PAGES_WITH_BLOCKS = [p for p in PAGES if runnable_blocks(p)]


@pytest.mark.parametrize("page", PAGES_WITH_BLOCKS, ids=lambda p: p.name)
def test_every_runnable_block_of_a_page_exits_0(page: Path, tmp_path: Path) -> None:
    blocks = runnable_blocks(page)
    (tmp_path / "home").mkdir()
    env = offline_env(tmp_path)
    for index, block in enumerate(blocks):
        done = run_block(block, index, tmp_path, env)
        assert done.returncode == 0, (
            f"{block.where()} exited {done.returncode}:\n{block.text}\n--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
        )


def test_the_readme_runs_an_episode_an_agent_of_its_own_and_the_python_api() -> None:
    """The quick start is what the runnable set exists for: an empty or trimmed set would pass the test above unseen."""
    blocks = runnable_blocks(REPO / "README.md")
    shell = "\n".join(b.text for b in blocks if b.language == "bash")
    assert re.search(r"^pbench episode --persona pharmacist --agent scripted:\w+", shell, re.M)
    assert re.search(r"^pbench results latest", shell, re.M)
    agent = next(b for b in blocks if b.file == "my_agent.py")
    assert "class MyAgent" in agent.text and "--agent my_agent.py:MyAgent" in shell
    assert any(b.language == "python" and "pb.run_episode(" in b.text for b in blocks)


def test_a_marked_block_in_another_language_is_refused(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("text\n\n```console runnable\n$ pbench runs\n```\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"page.md:3: a runnable block must be one of"):
        runnable_blocks(page)


def test_a_failing_block_fails(tmp_path: Path) -> None:
    """The runner reports a failed command: a pipeline's failure and an unknown option are not exit 0."""
    page = tmp_path / "page.md"
    page.write_text("```bash runnable\npbench --no-such-option | cat\n```\n", encoding="utf-8")
    (block,) = runnable_blocks(page)
    assert run_block(block, 0, tmp_path, offline_env(tmp_path)).returncode != 0


def _commands(command: Any, ctx: typer.Context, path: str) -> dict[str, Any]:
    """Every leaf command of the app by its path (``audit export``), groups walked (typer's own click, so by duck type)."""
    if not hasattr(command, "list_commands"):
        return {path: command}
    found: dict[str, Any] = {}
    for name in command.list_commands(ctx):
        sub = command.get_command(ctx, name)
        assert sub is not None
        found |= _commands(sub, typer.Context(sub, parent=ctx, info_name=name), f"{path} {name}".strip())
    return found


def _sections(page: str) -> dict[str, str]:
    """The text under each ``### `pbench COMMAND` `` heading of docs/cli.md, by command path."""
    parts = re.split(r"^### `pbench ([a-z -]+)`[^\n]*\n", page, flags=re.M)
    return {name: text.split("\n## ")[0] for name, text in zip(parts[1::2], parts[2::2], strict=True)}


def test_docs_cli_names_every_command_and_each_of_its_options() -> None:
    root = typer.main.get_command(app)
    commands = _commands(root, typer.Context(root, info_name="pbench"), "")
    sections = _sections((REPO / "docs" / "cli.md").read_text(encoding="utf-8"))
    missing = sorted(set(commands) - set(sections))
    assert not missing, f"docs/cli.md has no '### `pbench NAME`' section for: {missing}"
    assert not set(sections) - set(commands), f"docs/cli.md documents commands pbench lacks: {sorted(set(sections) - set(commands))}"
    unnamed = [
        f"{name}: {flag}"
        for name, command in commands.items()
        for param in command.params
        if param.param_type_name == "option" and param.name != "help" and not getattr(param, "hidden", False)
        for flag in param.opts
        if flag.startswith("--") and not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", sections[name])
    ]
    assert not unnamed, f"docs/cli.md does not name these options in their command's section: {unnamed}"


LINKED_PAGES = sorted(
    {
        *PAGES,
        REPO / "CONTRIBUTING.md",
        REPO / "CHANGELOG.md",
        *REPO.glob("scaffolds/**/*.md"),
        *REPO.glob("examples/**/*.md"),
        *REPO.glob("proactive_bench/**/*.md"),
    }
)
LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


def _prose(text: str) -> str:
    """The page without its fenced blocks (a ``#`` line in a code block is no heading, a ``](x)`` there no link)."""
    return FENCE.sub("", text)


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered."""
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*$", _prose(page.read_text(encoding="utf-8")), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        found.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return found


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` whose file does not exist, or whose ``#anchor`` is no heading of that page."""
    broken = []
    for target in LINK.findall(_prose(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{page.name}: {target} (no such file)")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{page.name}: {target} (no such heading)")
    return broken


def test_every_relative_link_of_the_docs_reaches_a_file_and_its_heading() -> None:
    broken = [line for page in LINKED_PAGES for line in broken_links(page)]
    assert not broken, "\n".join(broken)


def test_a_link_to_a_moved_heading_or_file_is_reported(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n## Set-up (fresh machine)\n\n[ok](#set-up-fresh-machine) [gone](#running) [file](other.md)\n"
        "```bash\n# not a heading\n```\n[code](#not-a-heading)\n",
        encoding="utf-8",
    )
    assert broken_links(page) == [
        "page.md: #running (no such heading)",
        "page.md: other.md (no such file)",
        "page.md: #not-a-heading (no such heading)",
    ]


def test_anchors_follow_github() -> None:
    page = REPO / "docs" / "metrics.md"
    assert {"labels-when-a-question-earns-inferred", "agentif-tasks-bonuspenalty-score", "protocols"} <= anchors(page)


def test_ci_runs_the_readme_set_up() -> None:
    """.ci/run does what the set-up commands do on a fresh machine: the tests' install, the episode, the tests."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    set_up = readme.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    episode, tests = ([c.strip() for c in m["body"].split("&&")] for m in FENCE.finditer(set_up))
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    # CI installs what the README's `pip install` does, through uv's pip interface (same packages, a fifth of the time)
    wanted = [episode[-1], tests[-2].replace("pip install", "uv pip install --quiet"), tests[-1]]
    assert episode[-1].startswith("pbench episode ") and tests[-1] == "python -m pytest", (episode, tests)
    missing = [command for command in wanted if not any(line.startswith(command) for line in ci)]
    assert not missing, f".ci/run does not run these README set-up commands: {missing}"
