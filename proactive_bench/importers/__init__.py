"""Importers: other benchmarks turned into pbench datasets (``pbench import <suite>``).

Each importer is a subpackage (``pibench``) that reads the foreign format,
writes a pbench dataset root and may contribute predicate checks through
:data:`proactive_bench.dataset.PREDICATE_CHECKS`.
"""

__all__: list[str] = []
