"""The world the agent acts on: a jailed workspace, memory, recorded tools and the simulated apps.

``workspace`` owns the per-episode directory and its path jail, ``jail`` the
framework's own reads of it, ``memory`` the agent's notes carried across
sessions, ``toolbox`` the tool registry and the recording wrapper every call
goes through; ``general_tools``, ``file_search``, ``shell``, ``web``,
``messaging``, ``skills`` and the office tools (``docx_tools``, ``xlsx_tools``,
``pdf_tools``) and ``image_tools`` (``view_image``) the built-in tools, ``apps`` the simulated apps,
``deliverables`` what a grader sees of a file (text, or a picture rendered by
``browser``'s headless Chromium),
and ``catalog`` says which module registers each built-in tool: the registry
imports it when the tool is first looked up. Public names load on first use
(``Exports``). See README.md for how to add a tool or an app and for
what the sandbox guarantees.
"""

from typing import TYPE_CHECKING, Any

import proactive_bench.env.jail as jail  # a module, public as itself: stdlib only
from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "apps.base": ("AppStore", "SeedError", "app_table", "app_tables"),
        "apps.chat": ("ChatLine", "ColleagueReply", "Colleagues"),
        "apps.clock": ("ClockRates", "VirtualClock"),
        "browser": ("BrowserError", "chromium", "chromium_command", "run_chromium", "screenshot_png"),
        "deliverables": ("Picture", "file_picture", "file_text", "is_visual"),
        "documents": ("DocumentError", "read_as_text"),
        "image_tools": ("picture",),
        "memory": ("Memory",),
        "office_files": ("stable_office_bytes",),
        "scratch": ("scratch_directory",),
        "toolbox": (
            "REGISTRY",
            "TOOL_FAILURES",
            "HistorySearch",
            "ToolBox",
            "ToolEnv",
            "ToolError",
            "ToolRecord",
            "ToolSpec",
            "register_tool",
            "render_result",
            "resolve_tool_names",
        ),
        "workspace": ("PathEscapeError", "SteadyWorkspace", "Workspace", "WorkspaceSeedError", "expand_snapshot", "resolve_inside"),
    },
)

if TYPE_CHECKING:
    from proactive_bench.env.apps.base import AppStore, SeedError, app_table, app_tables
    from proactive_bench.env.apps.chat import ChatLine, ColleagueReply, Colleagues
    from proactive_bench.env.apps.clock import ClockRates, VirtualClock
    from proactive_bench.env.browser import BrowserError, chromium, chromium_command, run_chromium, screenshot_png
    from proactive_bench.env.deliverables import Picture, file_picture, file_text, is_visual
    from proactive_bench.env.documents import DocumentError, read_as_text
    from proactive_bench.env.image_tools import picture
    from proactive_bench.env.memory import Memory
    from proactive_bench.env.office_files import stable_office_bytes
    from proactive_bench.env.scratch import scratch_directory
    from proactive_bench.env.toolbox import (
        REGISTRY,
        TOOL_FAILURES,
        HistorySearch,
        ToolBox,
        ToolEnv,
        ToolError,
        ToolRecord,
        ToolSpec,
        register_tool,
        render_result,
        resolve_tool_names,
    )
    from proactive_bench.env.workspace import (
        PathEscapeError,
        SteadyWorkspace,
        Workspace,
        WorkspaceSeedError,
        expand_snapshot,
        resolve_inside,
    )

__all__ = [
    "REGISTRY",
    "TOOL_FAILURES",
    "AppStore",
    "BrowserError",
    "ChatLine",
    "ClockRates",
    "ColleagueReply",
    "Colleagues",
    "DocumentError",
    "HistorySearch",
    "Memory",
    "PathEscapeError",
    "Picture",
    "SeedError",
    "SteadyWorkspace",
    "ToolBox",
    "ToolEnv",
    "ToolError",
    "ToolRecord",
    "ToolSpec",
    "VirtualClock",
    "Workspace",
    "WorkspaceSeedError",
    "app_table",
    "app_tables",
    "chromium",
    "chromium_command",
    "expand_snapshot",
    "file_picture",
    "file_text",
    "is_visual",
    "jail",
    "picture",
    "read_as_text",
    "register_tool",
    "render_result",
    "resolve_inside",
    "resolve_tool_names",
    "run_chromium",
    "scratch_directory",
    "screenshot_png",
    "stable_office_bytes",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
