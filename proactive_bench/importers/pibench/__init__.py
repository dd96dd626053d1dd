"""Import the public π-Bench benchmark into a pbench dataset and grade with its scripts.

``reader`` parses a π-Bench checkout, ``convert`` maps it to pbench models,
``writer`` writes the dataset root, ``scripts`` runs π-Bench grader scripts
(the ``pibench_script`` predicate), ``report`` lists what could not be
converted, ``cli`` is ``pbench import pibench``. See README.md here.
"""

from proactive_bench.importers.pibench.cli import import_app

__all__ = [
    "import_app",
]
