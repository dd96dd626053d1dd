"""The built-in tools and apps: importing this module registers every one of them.

Each tool module registers its tools with :func:`~proactive_bench.env.toolbox.register_tool`
and each app module its tables (on ``AppModel``), its :class:`~proactive_bench.env.apps.base.AppSpec`
and its tools when imported. The package ``__init__`` imports this catalog, so anything that
imports from :mod:`proactive_bench.env` finds every built-in tool in ``REGISTRY`` and every app
table in the database an ``AppStore`` creates. A new tool or app module is added to the list below.
"""

# each module below registers its tools (and an app its tables) on import
import proactive_bench.env.apps.amazon
import proactive_bench.env.apps.calendar
import proactive_bench.env.apps.chat
import proactive_bench.env.apps.clock
import proactive_bench.env.apps.file_system
import proactive_bench.env.apps.gmail
import proactive_bench.env.apps.phone
import proactive_bench.env.apps.simple_note
import proactive_bench.env.apps.splitwise
import proactive_bench.env.apps.spotify
import proactive_bench.env.apps.todoist
import proactive_bench.env.docx_tools
import proactive_bench.env.file_search
import proactive_bench.env.general_tools
import proactive_bench.env.history
import proactive_bench.env.messaging
import proactive_bench.env.pdf_tools
import proactive_bench.env.shell
import proactive_bench.env.skills
import proactive_bench.env.web
import proactive_bench.env.xlsx_tools  # noqa: F401 (imported to register its tools; it binds the name `proactive_bench` only)
from proactive_bench.env.apps.base import APPS
from proactive_bench.env.toolbox import REGISTRY

BUILTIN_TOOLS = frozenset(REGISTRY)
"""The names of the built-in tools (later registrations, e.g. a test's app, are not built-in)."""
BUILTIN_APPS = frozenset(APPS)
