"""Test double of a π-Bench grader script (written for pbench's tests): it knows its
criteria, but raises as soon as there is a tool call to grade."""

from typing import Any

CHECKS = {"note_created": 0, "title_exact": 0}


def score(tools_history: list[dict[str, Any]]) -> dict[str, int]:
    if tools_history:
        raise RuntimeError("this grader cannot read the history")
    return dict(CHECKS)
