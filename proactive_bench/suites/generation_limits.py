"""How many generator-verifier rounds each suite's generation runs, as plain numbers.

Its own module, loading nothing: ``pbench generate``'s ``--max-rounds`` options read these without loading the
generation code (models, prompts, the tasks' pydantic models).
"""

ODYSSEY_MAX_ROUNDS = 5
"""``generate odyssey`` and ``odyssey-neo``: rounds of writing and judging at most (per phase); the bound of every suite's option."""
AGENTIF_MAX_ROUNDS = 3
"""``generate agentif``: its rounds by default."""
