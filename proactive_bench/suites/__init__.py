"""Suites: kinds of tasks beside the built-in persona episodes (``odyssey``: OdysseyBench-style office workflows)."""

__all__: list[str] = []
