"""The Alembic migrations of the results database (``versions/``), run by :mod:`proactive_bench.store.migration` on open."""
