"""episode."""
