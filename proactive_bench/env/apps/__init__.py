"""Simulated apps (gmail, todoist, phone, ...) with state in SQLite; see base.py.

Everything others need (``AppStore``, ``SeedError``, ``app_table``, ``app_tables``) is public
from :mod:`proactive_bench.env`; an app module registers itself when
:mod:`proactive_bench.env.catalog`'s loader imports it (a tool of the app looked up, or an ``AppStore`` made).
"""

__all__: list[str] = []
