"""Importers: other benchmarks turned into pbench datasets (``pbench import <suite>``).

Each importer is a subpackage (``pibench``) that reads the foreign format,
writes a pbench dataset root and may contribute predicate checks through
:data:`proactive_bench.dataset.PREDICATE_CHECKS`. :data:`IMPORTERS` holds each
importer's typer app by suite name; the CLI mounts every one under
``pbench import``. A plugin importer is an entry point of the
``pbench.importers`` group naming its typer app.
"""

import typer

from proactive_bench.registry import Registry

IMPORTERS: Registry[typer.Typer] = Registry("importers", builtins={"pibench": "proactive_bench.importers.pibench.cli:import_app"})
"""Typer apps by suite name; an app with one command is mounted as ``pbench import <suite>`` itself."""

__all__ = ["IMPORTERS"]
