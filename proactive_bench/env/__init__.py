"""The world the agent acts on: a jailed workspace, memory, and recorded tools.

``workspace`` owns the per-episode directory and its path jail, ``memory`` the
agent's notes carried across sessions, ``toolbox`` the tool registry and the
recording wrapper every call goes through; ``general_tools``, ``file_search``,
``shell``, ``web``, ``messaging`` and ``skills`` the built-in tools, ``apps``
the simulated apps. See README.md for how to add a tool or an app and for what
the sandbox guarantees.
"""
