"""The ``odyssey`` suite: OdysseyBench-style office workflows whose details lie in a multi-day dialogue history.

``task`` is the task format (pydantic), ``checkers`` the named checkers,
``settings`` the memory settings, ``context`` the memory context a session
opens with, ``loading`` reads a task and converts it into a one-session pbench
episode, ``validity`` checks a task is solvable from its history and does not
leak it, ``suite`` the :class:`OdysseySuite` registered in ``SUITES``.
"""

from proactive_bench.suites.odyssey.suite import SUITE, OdysseySuite

__all__ = ["SUITE", "OdysseySuite"]
