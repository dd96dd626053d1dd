"""The Alembic migrations of the results database (``versions/``), run by :mod:`proactive_bench.store.migration` on open."""

__all__: list[str] = []  # nothing is imported from here: alembic loads the revisions by path
