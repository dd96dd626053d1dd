"""The schema revision this pbench writes, and where a database keeps its own: read without Alembic or SQLAlchemy."""

HEAD = "0009"
"""The schema revision this pbench writes: the newest of ``migrations/versions`` (tests/store checks they agree)."""
VERSION_TABLE = "alembic_version"
"""Where Alembic keeps a database's revision (one row, column ``version_num``)."""
