"""The exfiltration canary: a real run whose agent tries every way to get host files into the results.

The runner is a separate ``pbench`` process with a planted ``OPENAI_API_KEY``
in its initial environment (so ``/proc/self/environ`` of the runner holds
it), a planted secret in another run's workspace and in a file outside for a
hard link. A custom scaffold (the scaffold protocol, loaded from a file) goes
through ``shell_exec`` and the file tools: links to ``/proc/self/environ``,
``/etc/passwd``, the other run's workspace and device files, a FIFO, a hard
link, a symlink loop, 1,500 nested folders and a name that is not UTF-8. The
rubric judge and (in a second run) the simulated user are models on the stub
server; the judge quotes the files it was shown into its rationale, as a
careless judge would. Afterwards the bytes of the database files, the logs,
the HTML report, an audit export and every request body the stub received
(judge and user prompts, a re-scoring's too) must not hold the key or the
secret, and the judge must have been shown the jail's markers. The attacks
only plant links and files, so the run means the same in either sandbox mode.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from proactive_bench.env import jail
from proactive_bench.testing.stub_server import (
    Reply,
    StubServer,
    prompt_section,
    prompt_text,
    silent_user_judgment,
    structured_reply,
    text_reply,
)
from tests.helpers.cli import PBENCH, run_cli
from tests.helpers.paths import MINI

PLANTED_KEY = "sk-test-CANARY-7f3e9a1c"
SECRET = "CANARY-HOST-SECRET-4d2b"

AGENT = """
import os
from proactive_bench.scaffolds.protocol import AgentTurn

SHELL = [
    "mkdir -p out",
    "ln -sf /proc/self/environ out/summary.md",
    "ln -sf /etc/passwd out/passwd.md",
    "ln -sf /etc/shadow out/shadow.md",
    "ln -sf {other} out/other.md",
    "ln -sf {other_folder} out/other_run",
    "ln -sf /dev/zero out/zero.md && ln -sf /dev/urandom out/random.md",
    "mkfifo out/pipe.md && ln -sf pipe.md out/pipe_link.md",
    "ln -sf loop_b out/loop_a && ln -sf loop_a out/loop_b",
    "touch \\"out/$(printf 'bad-\\\\377\\\\376.md')\\"",
    "d=out/deep; for i in $(seq 1500); do d=$d/d; done; mkdir -p $d && echo deep > $d/deep.md",
]
TOOLS = [
    ("read_file", {{"path": "out/summary.md"}}), ("read_file", {{"path": "out/loop_a"}}), ("list_dir", {{"path": "out"}}),
    ("list_dir", {{"path": "out/loop_a"}}), ("glob", {{"pattern": "**/*"}}), ("grep", {{"pattern": "sk-"}}),
    ("grep", {{"pattern": "x", "path": "out/loop_b"}}), ("write_file", {{"path": "out/loop_a", "content": "x"}}),
    ("read_file", {{"path": "out/hard.md"}}), ("read_file", {{"path": "out/other.md"}}),
]


class CanaryAgent:
    def start_session(self, ctx):
        self.ctx = ctx

    def end_session(self):
        pass

    def respond(self, message):
        tools = self.ctx.tools
        if self.ctx.session_id == "a1" and not os.path.exists(self.ctx.workspace.root / "out" / "hard.md"):
            for command in SHELL:
                tools.call("shell_exec", {{"command": command}})
            os.link({hard!r}, self.ctx.workspace.root / "out" / "hard.md")  # as a host user or a plain-mode shell could
        for name, args in TOOLS:
            tools.call(name, args)
        return AgentTurn(reply="Done: see out/summary.md and out/other.md.")
"""


class EchoingJudge:
    """A rubric judge that quotes the files it was shown; a user model that answers plainly."""

    def __call__(self, body: dict[str, Any]) -> Reply:
        prompt = prompt_text(body)
        if "grading an AI assistant" in prompt:
            return structured_reply(body, {"rationale": "Shown: " + prompt_section(prompt, "Files")[:3000], "verdict": "NO"})
        judged = silent_user_judgment(body)
        if judged is not None:
            return judged
        return text_reply("Thanks. " + prompt_section(prompt, "Files created or changed in the latest turn")[:500])


def dataset(tmp_path: Path) -> Path:
    """The mini dataset with the shell offered in a1 and every workspace file as the rubric's evidence."""
    data = tmp_path / "data"
    shutil.copytree(MINI, data)
    a1 = data / "episodes" / "mini" / "sessions" / "a1.yaml"
    text = a1.read_text()
    text = text.replace("files: [notes/batch.csv]\n", "files: [notes/batch.csv]\ntools: [workspace, memory, shell]\n")
    text = text.replace("evidence: {files: [out/summary.md]}", 'evidence: {files: [out/summary.md, "out/*", "**/*"]}')
    a1.write_text(text)
    return data


def pbench(env: dict[str, str], log: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """A real ``pbench`` process (its own environment, so its /proc/self/environ holds the key); stderr logs to ``log``."""
    with log.open("ab") as stderr:
        return subprocess.run(
            [*PBENCH, *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=stderr,
            timeout=600,
            check=False,
        )


def run_everything(env: dict[str, str], data: Path, agent: Path, db: Path, log: Path, page: Path, audit: Path) -> list[str]:
    """Two episodes (rules user, then LLM user) and a re-scoring as ``pbench`` processes, a report and an audit export;
    the request bodies the stub received."""
    with StubServer(EchoingJudge()) as server:
        common = [
            "--data",
            str(data),
            "--persona",
            "mini",
            "--model",
            f"{agent}:CanaryAgent",
            "--db",
            str(db),
            "--json",
            "-v",
            "--judge-model",
            "openai:stub-judge",
            "--base-url",
            server.base_url,
        ]
        rules = pbench(env, log, "episode", *common)
        assert rules.returncode == 0, log.read_text()[-3000:]
        run_id = json.loads(rules.stdout)["run_id"]
        llm = pbench(env, log, "episode", *common, "--user", "llm", "--user-model", "openai:stub-user")
        assert llm.returncode == 0, log.read_text()[-3000:]
        assert pbench(env, log, "rescore", run_id, "--db", str(db), "--base-url", server.base_url).returncode == 0, log.read_text()[-3000:]
        bodies = [json.dumps(body, ensure_ascii=False) for body in server.requests]
    for args in (
        ["report", run_id, "--out", str(page)],
        ["audit", "export", run_id, "--out", str(audit)],
    ):  # in-process: they only read the database
        done = run_cli(*args, "--db", str(db))
        assert done.exit_code == 0, done.output
        with log.open("a") as out:
            out.write(done.output)
    return bodies


def test_no_planted_secret_reaches_the_results(tmp_path: Path) -> None:
    data, results = dataset(tmp_path), tmp_path / "results"
    other_run = results / "workspaces" / "other-run"
    other_run.mkdir(parents=True)
    (other_run / "notes.md").write_text(f"{SECRET} {PLANTED_KEY}\n")
    hard_target = tmp_path / "outside.txt"
    hard_target.write_text(f"{SECRET} {PLANTED_KEY}\n")
    agent = tmp_path / "canary_agent.py"
    agent.write_text(AGENT.format(other=other_run / "notes.md", other_folder=other_run, hard=str(hard_target)))
    env = {**os.environ, "OPENAI_API_KEY": PLANTED_KEY, "PYTHONPATH": os.pathsep.join(sys.path)}
    db, log, page, audit = results / "results.db", tmp_path / "pbench.log", tmp_path / "report.html", tmp_path / "audit.csv"
    try:
        bodies = run_everything(env, data, agent, db, log, page, audit)
    finally:
        jail.remove_tree(results / "workspaces")  # 1,500 nested folders: pytest's own clean-up (shutil.rmtree) would recurse too deep

    judge_prompts = [b for b in bodies if "grading an AI assistant" in b]
    assert judge_prompts and any("[skipped: symlink leaving the workspace]" in b for b in judge_prompts)  # the evidence was rendered
    assert any("[skipped: hard-linked file]" in b for b in judge_prompts) and any("[skipped: FIFO]" in b for b in judge_prompts)
    assert any("Files created or changed in the latest turn" in b for b in bodies)  # the LLM user saw its evidence too
    artefacts = {p.name: p.read_bytes() for p in results.glob("results.db*")} | {
        "log": log.read_bytes(),
        "report": page.read_bytes(),
        "audit": audit.read_bytes(),
    }
    artefacts |= {f"request {n}": body.encode() for n, body in enumerate(bodies)}
    artefacts |= {
        f"report {p.name}": p.read_bytes() for p in (page.parent / "runs").glob("*.html")
    }  # the trajectories are on the run pages
    assert len(artefacts["report"]) > 1000 and artefacts["results.db"] and any(name.startswith("report ") for name in artefacts)
    leaks = [name for name, data in artefacts.items() if PLANTED_KEY.encode() in data or SECRET.encode() in data or b"root:x:0:0" in data]
    assert leaks == []
    assert b"nested deeper than 64 levels" in log.read_bytes()  # what the checkpoint cut is logged
