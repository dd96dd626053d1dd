"""One module per schema revision, oldest first (``down_revision`` links them)."""

__all__: list[str] = []  # nothing is imported from here: alembic loads the revisions by path
