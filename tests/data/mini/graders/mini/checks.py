"""Grader functions for the mini test dataset."""


def summary_has_mean(evidence) -> bool:
    return "4.65" in evidence.workspace.read_text("out/summary.md")


def explode(evidence) -> bool:
    raise RuntimeError("grader bug")
