"""Simulated apps (gmail, todoist, phone, ...) with state in SQLite; see base.py."""
