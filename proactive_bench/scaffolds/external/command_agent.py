"""``cmd:COMMAND``: an agent that is a program, one process per session (or per run), one JSON object per line.

The command is split like a shell would (``shlex``) but run without one, in the session's workspace folder, with
the environment of :func:`~proactive_bench.scaffolds.external.environment.agent_environment`, in a process group of
its own. pbench writes events on its stdin; the agent writes one reply line per ``user`` line on its stdout;
stderr lines go to pbench's log (``agent_stderr``, shown with ``-v``). An argument naming an existing file relative
to pbench's folder is made absolute, so ``cmd:python agents/mine.py`` works from the workspace too.

By default a process lives for one session: a crash ends only its session, the next session starts a new process.
After ``session_end`` (and stdin closed) it has ``exit_grace`` seconds to exit; then, and at once after any fault,
its whole process group is killed. With ``lifetime`` ``episode`` (``--agent-lifetime episode``) the process is
kept across the run's sessions, which then pay its start once: each ``session_start`` names the session's MCP server
and workspace (its environment holds no ``PBENCH_MCP_*``: a server lives per session); stdin closes at the run's end
(:meth:`end_episode`), and the same grace applies. A fault still kills it, and the next session starts a new one, as
does a process that exited between sessions or a session in another workspace folder (a process's working folder is
fixed when it starts; a run's sessions share one). Faults, each a one-line :class:`ExternalAgentError`: a line that is not a reply
(quoted; a blank line too), a line over ``MAX_LINE_BYTES``, more than ``MAX_UNREAD_LINES`` lines or ``MAX_UNREAD_BYTES`` unread, output when no reply was asked,
an exit before replying (with its code and last stderr line), no reply by the turn's deadline.
"""

from __future__ import annotations

import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from proactive_bench.logs import get_logger
from proactive_bench.scaffolds.external.environment import agent_environment
from proactive_bench.scaffolds.external.messages import (
    MAX_LINE_BYTES,
    MAX_UNREAD_BYTES,
    ExternalAgentError,
    encode,
    parse_reply,
    shown,
)
from proactive_bench.scaffolds.external.session import ExternalAgent, ExternalSettings
from proactive_bench.scaffolds.external.tool_server import (
    McpEndpoint,
    ToolServer,
    mcp_tool_server,
)
from proactive_bench.scaffolds.protocol import ScaffoldLoadError, SessionContext

log = get_logger(__name__)

STDERR_LOG_BYTES = 1 << 20
"""How much of a session's stderr is logged; the rest is read and dropped (so the agent never blocks on it)."""
STDERR_LINE_CHARS = 2000
MAX_UNREAD_LINES = 64
"""Lines the agent's stdout may hold unread (a turn reads one); past them (or ``MAX_UNREAD_BYTES``) pbench stops reading."""


@dataclass(frozen=True)
class _End:
    """The end of the agent's stdout: closed (``reason`` None) or no longer read (``reason`` says why)."""

    reason: str | None = None


class _Backlog:
    """Bytes the stdout reader queued and the turns took: the reader stops when too much waits unread."""

    def __init__(self) -> None:
        self.queued = 0
        self.taken = 0


class CommandAgent(ExternalAgent):
    """``cmd:COMMAND``: see the module's docstring."""

    starts_process = True

    def __init__(self, target: str, settings: ExternalSettings | None = None, serve_tools: ToolServer = mcp_tool_server) -> None:
        super().__init__(target, settings, serve_tools)
        try:
            argv = shlex.split(target)
        except ValueError as exc:
            raise ScaffoldLoadError(f"cmd:{target}: cannot split the command: {exc}") from None
        if not argv:
            raise ScaffoldLoadError("cmd: names no command (cmd:COMMAND, e.g. cmd:'python my_agent.py')")
        self.argv = [_absolute_if_file(arg) for arg in argv]
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[bytes | _End] = queue.Queue()
        self._backlog = _Backlog()
        self._stderr_tail: deque[str] = deque(maxlen=1)
        self._readers: list[threading.Thread] = []
        self._folder: Path | None = None

    @property
    def keeps_process(self) -> bool:
        return self.settings.lifetime == "episode"

    def _open(self, ctx: SessionContext, endpoint: McpEndpoint | None) -> None:
        root = ctx.workspace.root
        if self._process is not None:  # kept from the run's previous session
            if self._process.poll() is None and self._folder == root.resolve():
                log.info("external_agent_kept", session=self.session_id, pid=self._process.pid)
                return
            why = "a session in another folder" if self._process.poll() is None else f"exited with code {self._process.returncode}"
            log.warning("external_agent_replaced", session=self.session_id, pid=self._process.pid, why=why)
            self._stop_process(graceful=self._process.poll() is None)
        self._spawn(root, None if self.keeps_process else endpoint)

    def _spawn(self, root: Path, endpoint: McpEndpoint | None) -> None:
        """Start the command in ``root``; ``endpoint``: the MCP variables of its environment (None: none, for a process
        kept across sessions, which reads each session's server in ``session_start``)."""
        env = agent_environment(self.settings.env, root, endpoint.url if endpoint else None, endpoint.token if endpoint else None)
        try:
            process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=root,
                env=env,
                start_new_session=True,
            )
        except OSError as exc:
            raise ExternalAgentError(f"cannot start the agent command {self.argv[0]!r}: {exc.strerror or exc}") from None
        self._process, self._lines, self._backlog, self._stderr_tail = process, queue.Queue(), _Backlog(), deque(maxlen=1)
        self._folder = root.resolve()
        assert process.stdout is not None and process.stderr is not None
        self._readers = [
            threading.Thread(
                target=_read_stdout, args=(process.stdout, self._lines, self._backlog), daemon=True, name=f"agent-stdout-{process.pid}"
            ),
            threading.Thread(
                target=_read_stderr,
                args=(process.stderr, lambda: self.session_id, self._stderr_tail),
                daemon=True,
                name=f"agent-stderr-{process.pid}",
            ),
        ]
        for reader in self._readers:
            reader.start()
        log.info("external_agent_started", session=self.session_id, pid=process.pid, command=self.argv[0])

    def _deliver(self, event: dict[str, Any], deadline: float) -> None:
        self._write(event)
        if event["type"] == "session_end" and not self.keeps_process:
            self._close_stdin()

    def _ask(self, event: dict[str, Any], deadline: float) -> str:
        self._check_quiet()
        self._write(event)
        return parse_reply(self._next_line(deadline), "stdout line")

    def _close(self) -> None:
        if self._process is None:
            return
        if self.keeps_process and not self._broken and self._process.poll() is None and self._quiet_between_sessions():
            return  # kept for the next session
        self._stop_process(graceful=not self._broken)  # after a fault the agent is killed at once

    def _end_episode(self) -> None:
        if self._process is not None:
            self._stop_process(graceful=True)

    def _quiet_between_sessions(self) -> bool:
        """Whether a kept process can serve the next session: what it wrote unasked is logged and dropped (False: its
        stdout is no longer read, past a limit or closed)."""
        unread: list[bytes] = []
        while True:
            try:
                item = self._lines.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, _End):
                self._lines.put(item)
                return False
            unread.append(item)
            self._backlog.taken += len(item)
        if unread:
            log.warning("external_agent_unread_output", session=self.session_id, lines=len(unread), first=shown(unread[0]))
        return True

    def _stop_process(self, *, graceful: bool) -> None:
        """End the process: stdin closed and, when ``graceful``, ``exit_grace`` seconds to exit; then its group killed."""
        process, self._process, self._folder = self._process, None, None
        if process is None:
            return
        if graceful:
            self._close_stdin(process)
            try:
                process.wait(timeout=self.settings.exit_grace)
            except subprocess.TimeoutExpired:
                log.warning("external_agent_killed", session=self.session_id, pid=process.pid, why="did not exit after its stdin closed")
                _signal_group(process, signal.SIGTERM)
                try:
                    process.wait(timeout=1)
                except subprocess.TimeoutExpired:
                    pass
        _signal_group(process, signal.SIGKILL)  # the agent, and whatever it started that still runs
        process.wait()
        self._close_stdin(process)  # after the kill: a turn's write stuck on a full pipe has failed and let go of it
        for reader in self._readers:
            reader.join(timeout=2)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        if graceful:
            unread = [item for item in list(self._lines.queue) if not isinstance(item, _End)]
            if unread:  # too late to fail the session: said in the log
                log.warning("external_agent_unread_output", session=self.session_id, lines=len(unread), first=shown(unread[0]))
            if process.returncode != 0:
                log.warning("external_agent_exit", session=self.session_id, code=process.returncode)

    def _write(self, event: dict[str, Any]) -> None:
        process = self._require_process()
        try:
            assert process.stdin is not None
            process.stdin.write(encode(event))
            process.stdin.flush()
        except (OSError, ValueError):  # a broken pipe: the agent is gone or closed its stdin
            raise ExternalAgentError(self._gone("before reading pbench's message")) from None

    def _next_line(self, deadline: float) -> bytes:
        remaining = deadline - time.monotonic()
        try:
            if remaining <= 0:
                raise queue.Empty
            item = self._lines.get(timeout=remaining)
        except queue.Empty:
            raise ExternalAgentError(self.timed_out()) from None
        if isinstance(item, _End):
            self._lines.put(item)  # still the end for whoever reads next
            raise ExternalAgentError(item.reason or self._gone("before replying"))
        self._backlog.taken += len(item)
        return item

    def _check_quiet(self) -> None:
        """Fail on anything the agent wrote since its last reply."""
        try:
            item = self._lines.get_nowait()
        except queue.Empty:
            return
        if isinstance(item, _End):
            self._lines.put(item)
            raise ExternalAgentError(item.reason or self._gone("between turns"))
        raise ExternalAgentError(f"the agent wrote on stdout when no reply was asked: {shown(item)}")

    def _gone(self, when: str) -> str:
        """``the agent process exited with code 1 before replying; its last stderr line: '...'``."""
        process = self._require_process()
        try:
            code: int | None = process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            code = None
        how = "closed its stdout" if code is None else f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
        tail = f"; its last stderr line: {shown(self._stderr_tail[-1])}" if self._stderr_tail else ""
        return f"the agent process {how} {when}{tail}"

    def _close_stdin(self, process: subprocess.Popen[bytes] | None = None) -> None:
        process = process or self._process
        if process is not None and process.stdin is not None:
            try:
                process.stdin.close()
            except OSError:
                pass

    def _require_process(self) -> subprocess.Popen[bytes]:
        if self._process is None:
            raise ExternalAgentError("the agent process is not running (no session started)")
        return self._process


def _absolute_if_file(arg: str) -> str:
    """``agents/mine.py`` as an absolute path when it names a file from pbench's folder; any other argument as it is."""
    if arg.startswith("-") or os.path.isabs(arg) or not Path(arg).is_file():
        return arg
    return str(Path(arg).resolve())


def _read_stdout(stream: IO[bytes], lines: queue.Queue[bytes | _End], backlog: _Backlog) -> None:
    """Queue the agent's stdout lines until it closes; stop reading at a line too long or too much unread."""
    end = _End()
    try:
        while True:
            line = stream.readline(MAX_LINE_BYTES + 1)
            if not line:
                break
            if len(line) > MAX_LINE_BYTES:
                end = _End(f"the agent wrote a stdout line over {MAX_LINE_BYTES} bytes: {shown(line)}")
                break
            lines.put(line)
            backlog.queued += len(line)
            if backlog.queued - backlog.taken > MAX_UNREAD_BYTES or lines.qsize() > MAX_UNREAD_LINES:
                end = _End(f"the agent wrote more on stdout than any turn asked for ({MAX_UNREAD_LINES} lines or {MAX_UNREAD_BYTES} bytes)")
                break
    except (OSError, ValueError):  # the stream was closed at teardown
        pass
    lines.put(end)


def _read_stderr(stream: IO[bytes], session: Callable[[], str], tail: deque[str]) -> None:
    """Log the agent's stderr lines (up to ``STDERR_LOG_BYTES`` per process) with the session they came in, keep the
    last one for error messages."""
    logged = 0
    try:
        for raw in iter(lambda: stream.readline(STDERR_LINE_CHARS), b""):
            line = raw.decode(errors="replace").rstrip()
            if not line:
                continue
            tail.append(line)
            if logged < STDERR_LOG_BYTES:
                log.info("agent_stderr", session=session(), line=line)
                logged += len(raw)
                if logged >= STDERR_LOG_BYTES:
                    log.warning("agent_stderr_cut", session=session(), logged_bytes=logged)
    except (OSError, ValueError):
        pass


def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    try:
        os.killpg(process.pid, sig)  # its own group: start_new_session=True
    except (ProcessLookupError, PermissionError):
        pass
