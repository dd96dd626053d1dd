"""The names an AgentIF task is sorted by, as plain tuples: its category and domain, its rubric items' categories.

Its own module, loading nothing: ``pbench generate agentif`` builds its ``--category`` and ``--domain`` choices from
these without loading the task model (pydantic) or the generation code.
"""

CATEGORIES = ("workflow", "latent", "refinement")
"""Open workflow execution, latent instruction inference, iterative refinement."""
DOMAINS = ("work", "study", "life")
ITEM_CATEGORIES = ("content", "form", "execution")
