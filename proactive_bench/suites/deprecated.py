"""Names of the suite protocol from before 0.2's one settings model, kept for one minor version (removed in 0.3).

Each resolves from ``proactive_bench.suites`` (and ``proactive_bench``) with a DeprecationWarning.
"""

from __future__ import annotations

from typing import Any

from proactive_bench.suites.base import SuiteContext


class SuiteSettings(SuiteContext):
    """Deprecated (goes in 0.3): use :class:`~proactive_bench.suites.SuiteContext`, what a suite's ``load`` gets now.

    The old form held the built-in suites' settings as keyword fields and a plug-in suite's in ``extra``:
    ``SuiteSettings(memory="none", extra=(("greeting", "Hi"),))`` is ``SuiteContext.of({"memory": "none", "greeting": "Hi"})``,
    and ``settings.memory`` still reads a setting by attribute (None when unset).
    """

    def __init__(
        self, *, extra: tuple[tuple[str, Any], ...] = (), base_url: str | None = None, summaries_db: str | None = None, **settings: Any
    ) -> None:
        given = SuiteContext.of({**settings, **dict(extra)})
        super().__init__(given.items, base_url, summaries_db)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.value(name)
