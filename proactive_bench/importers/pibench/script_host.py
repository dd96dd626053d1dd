"""Run one π-Bench grader script in a child process: ``python script_host.py SCRIPT``.

Standalone on purpose (no pbench imports): the script runs in its own process,
in a working folder prepared by :mod:`proactive_bench.importers.pibench.scripts`. Reads
``{"histories": [[record, ...], ...]}`` on stdin, calls ``score(history)`` once
per history and writes ``{"results": [...]}`` or ``{"error": "..."}`` as the last
line of stdout. Whatever the script prints goes to stderr.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import sys


def main() -> None:
    script = sys.argv[1]
    histories = json.load(sys.stdin)["histories"]
    try:
        with contextlib.redirect_stdout(sys.stderr):
            spec = importlib.util.spec_from_file_location("pibench_grader_script", script)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {script}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            score = getattr(module, "score", None)
            if not callable(score):
                raise TypeError("the script defines no score(tools_history) function")
            results = [score(history) for history in histories]
    except BaseException as exc:  # the parent reports any failure, SystemExit included
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}))
        return
    print(json.dumps({"results": results}, default=repr))


if __name__ == "__main__":
    main()
