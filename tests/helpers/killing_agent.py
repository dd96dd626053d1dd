"""A ``cmd:`` agent for the resume tests: examples/agents/cmd_reference.py's replay of a recorded run, which kills
pbench (its parent, SIGKILL) once, at turn TURN of session SESSION: as it is ``asked`` the turn, or once it has
``worked`` it (made the turn's tool calls, not replied).

    killing_agent.py RECORDING LOG SESSION TURN asked|worked

Each session's id is appended to LOG as the session starts. The kill happens once: it leaves ``LOG.killed``, and
a later process (the resumed run's) plays on. Before killing it waits a second, so the previous session's save
(written while the agent works) lands first: turn 1 ``asked`` is a kill between sessions, ``worked`` one
mid-session, the workspace changed.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "agents"))
from replay import NOTHING_LEFT, mcp_session, play, recorded_turns  # the examples' module, by path


def kill_pbench(marker: Path) -> None:
    marker.touch()
    time.sleep(1.0)
    os.kill(os.getppid(), signal.SIGKILL)
    os._exit(0)


async def main(recording: str, log: Path, kill_session: str, kill_turn: int, at: str) -> None:
    turns = recorded_turns(recording)
    marker = log.with_name(log.name + ".killed")
    async with mcp_session(os.environ["PBENCH_MCP_URL"], os.environ["PBENCH_MCP_TOKEN"]) as tools:
        pending: list = []
        session, number = "", 0
        while line := await asyncio.to_thread(sys.stdin.readline):
            event = json.loads(line)
            if event["type"] == "session_start":
                session, number, pending = event["session"], 0, list(turns.get(event["session"], []))
                with log.open("a") as out:
                    out.write(f"{session}\n")
            elif event["type"] == "user":
                number += 1
                kill = (session, number) == (kill_session, kill_turn) and not marker.exists()
                if kill and at == "asked":
                    kill_pbench(marker)
                reply = await play(tools, pending.pop(0) if pending else NOTHING_LEFT)
                if kill:
                    kill_pbench(marker)
                print(json.dumps({"type": "reply", "text": reply}), flush=True)
            else:
                return


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]))
