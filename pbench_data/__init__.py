"""pbench's shipped dataset: personas/, episodes/ and graders/, installed with the package.

``proactive_bench.dataset.DEFAULT_DATA_ROOT`` resolves this folder through ``importlib.resources``,
so a non-editable install finds the data from any working directory.
"""
