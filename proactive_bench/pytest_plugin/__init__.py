"""pbench's pytest plugin: an agent's own test suite asserts proactivity thresholds (docs/pytest.md).

``plugin`` is the module pytest loads (entry point ``pytest11``: ``pbench``); it imports only ``gate`` and
``verdict``, so a pytest session without a ``pbench`` marker loads none of pbench. See README.md here.
"""

from proactive_bench.pytest_plugin.gate import Gate, GateError

__all__ = ["Gate", "GateError"]
