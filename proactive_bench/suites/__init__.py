"""Suites: the kinds of task pbench runs, each loaded as pbench episodes (see ``base``).

``base`` holds the :class:`Suite` protocol and the ``SUITES`` registry,
``pibench`` the default suite (persona episodes), ``odyssey/`` the
OdysseyBench-style suite (history-grounded office workflows), registered by
name and loaded when first asked for. See README.md here.
"""

from proactive_bench.suites.base import DEFAULT_SUITE, SUITES, Suite, SuiteSettings
from proactive_bench.suites.pibench import PibenchSuite

__all__ = ["DEFAULT_SUITE", "SUITES", "PibenchSuite", "Suite", "SuiteSettings"]
