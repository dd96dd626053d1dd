"""The built-in tools and apps: importing this module registers every one of them.

Each tool module registers its tools with :func:`~proactive_bench.env.toolbox.register_tool`
and each app module its tables (on ``AppModel``), its :class:`~proactive_bench.env.apps.base.AppSpec`
and its tools when imported. The package ``__init__`` imports this catalog, so anything that
imports from :mod:`proactive_bench.env` finds every built-in tool in ``REGISTRY`` and every app
table in the database an ``AppStore`` creates. A new tool or app module is added to the list below.
"""

import proactive_bench.env.apps.amazon  # noqa: F401  (registers on import)
import proactive_bench.env.apps.calendar  # noqa: F401
import proactive_bench.env.apps.chat  # noqa: F401
import proactive_bench.env.apps.clock  # noqa: F401
import proactive_bench.env.apps.file_system  # noqa: F401
import proactive_bench.env.apps.gmail  # noqa: F401
import proactive_bench.env.apps.phone  # noqa: F401
import proactive_bench.env.apps.simple_note  # noqa: F401
import proactive_bench.env.apps.splitwise  # noqa: F401
import proactive_bench.env.apps.spotify  # noqa: F401
import proactive_bench.env.apps.todoist  # noqa: F401
import proactive_bench.env.docx_tools  # noqa: F401
import proactive_bench.env.file_search  # noqa: F401
import proactive_bench.env.general_tools  # noqa: F401
import proactive_bench.env.history  # noqa: F401
import proactive_bench.env.messaging  # noqa: F401
import proactive_bench.env.pdf_tools  # noqa: F401
import proactive_bench.env.shell  # noqa: F401
import proactive_bench.env.skills  # noqa: F401
import proactive_bench.env.web  # noqa: F401
import proactive_bench.env.xlsx_tools  # noqa: F401
from proactive_bench.env.apps.base import APPS
from proactive_bench.env.toolbox import REGISTRY

BUILTIN_TOOLS = frozenset(REGISTRY)
"""The names of the built-in tools (later registrations, e.g. a test's app, are not built-in)."""
BUILTIN_APPS = frozenset(APPS)
