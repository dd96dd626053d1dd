"""One module per schema revision, oldest first (``down_revision`` links them)."""
