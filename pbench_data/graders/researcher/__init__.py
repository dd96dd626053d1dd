"""Python graders for the researcher persona's rule items (tables, budgets, plans)."""
