"""What model calls cost: a configurable price table and a budget shared by a sweep.

Prices are per million tokens, per model, in a YAML file::

    openai:gpt-4o-mini: {input: 0.15, output: 0.60}
    "openai:qwen*": {input: 0.0, output: 0.0}      # globs allowed

No price is built in: prices change, and a made-up price would be a guessed
figure. A model without a price has unknown cost (reported as such), and a
budget counts only calls whose cost is known. Calls served from a recording
cost nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proactive_bench.llm.ledger import LLMCallRecord
from proactive_bench.yaml_files import YamlFileError, read_yaml_file


class Price(BaseModel):
    model_config = ConfigDict(extra="forbid")
    input: float = Field(ge=0, description="USD per million prompt tokens.")
    output: float = Field(ge=0, description="USD per million completion tokens.")


class PriceFileError(ValueError):
    """A price file that cannot be used; the message names the file, the entry and the reason."""


@dataclass(frozen=True)
class PriceTable:
    prices: dict[str, Price] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | None) -> PriceTable:
        if path is None:
            return cls()
        try:
            data = read_yaml_file(path) or {}
        except YamlFileError as exc:
            raise PriceFileError(f"cannot read prices: {exc}") from None
        if not isinstance(data, dict):
            raise PriceFileError(f"{path}: expected a mapping of model name to {{input, output}}")
        prices = {}
        for name, entry in data.items():
            try:
                prices[str(name)] = Price.model_validate(entry)
            except ValidationError as exc:
                problem = exc.errors()[0]
                where = ".".join(str(p) for p in problem["loc"]) or "entry"
                raise PriceFileError(f"{path}: {name}.{where}: {problem['msg']}") from None
        return cls(prices)

    def price_of(self, model: str) -> Price | None:
        if model in self.prices:
            return self.prices[model]
        return next((p for pattern, p in self.prices.items() if fnmatchcase(model, pattern)), None)

    def cost(self, model: str, prompt_tokens: int | None, completion_tokens: int | None, cached: bool = False) -> float | None:
        """USD for one call; 0 for a served recording; None when the price or the usage is unknown."""
        if cached:
            return 0.0
        price = self.price_of(model)
        if price is None or prompt_tokens is None or completion_tokens is None:
            return None
        return (prompt_tokens * price.input + completion_tokens * price.output) / 1_000_000


class Budget:
    """Spending over every run of a sweep; runs stop starting sessions once it is spent."""

    def __init__(self, prices: PriceTable, limit_usd: float | None = None) -> None:
        self.prices = prices
        self.limit_usd = limit_usd
        self._spent_usd = 0.0

    @property
    def spent_usd(self) -> float:
        return self._spent_usd

    def add(self, cost_usd: float) -> None:
        self._spent_usd += cost_usd

    def charge(self, record: LLMCallRecord) -> float | None:
        """The call's cost (None when its model has no price), added to the spending."""
        cost = self.prices.cost(record.model, record.prompt_tokens, record.completion_tokens, record.cached)
        if cost is not None:
            self.add(cost)
        return cost

    @property
    def exhausted(self) -> bool:
        return self.limit_usd is not None and self.spent_usd >= self.limit_usd
