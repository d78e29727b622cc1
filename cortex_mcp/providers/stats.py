"""What each provider has cost: calls, failures, latency, tokens and an estimate in US dollars."""

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Price:
    """US dollars per million input and output tokens."""

    input_per_million: float
    output_per_million: float = 0.0


FREE = Price(0.0, 0.0)

# List prices at the time of writing; an estimate for the stats page, never a bill.
PRICES_USD_PER_MILLION: dict[str, Price] = {
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "claude-haiku-4-5": Price(1.00, 5.00),
    "claude-sonnet-4-5": Price(3.00, 15.00),
    "text-embedding-3-small": Price(0.02),
    "text-embedding-3-large": Price(0.13),
}


def price_for(model: str) -> Price | None:
    """The list price of `model` or of the model it is a dated snapshot of; None if unknown."""
    if model in PRICES_USD_PER_MILLION:
        return PRICES_USD_PER_MILLION[model]
    for known, price in PRICES_USD_PER_MILLION.items():
        if model.startswith(known + "-"):
            return price
    return None


@dataclass
class ProviderStats:
    """Running totals for one provider since the process started."""

    provider: str
    model: str
    price: Price | None
    calls: int = 0
    failures: int = 0
    total_latency_ms: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    last_error: str | None = None

    def record_success(self, latency_ms: float) -> None:
        """Count a call that returned a result."""
        self.calls += 1
        self.total_latency_ms += latency_ms

    def record_failure(self, latency_ms: float, reason: str) -> None:
        """Count a call that failed or timed out, keeping the one-line reason."""
        self.calls += 1
        self.failures += 1
        self.total_latency_ms += latency_ms
        self.last_error = reason

    def record_tokens(self, input_tokens: int, output_tokens: int = 0) -> None:
        """Add the tokens a successful call consumed, as the provider reported them."""
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens

    @property
    def estimated_cost_usd(self) -> float:
        """Tokens times list price; 0 when the price of the model is unknown."""
        if self.price is None:
            return 0.0
        return (
            self.input_tokens * self.price.input_per_million
            + self.output_tokens * self.price.output_per_million
        ) / 1_000_000

    def snapshot(self) -> dict[str, Any]:
        """A JSON-ready summary for the stats resource."""
        summary: dict[str, Any] = {
            "provider": self.provider,
            "model": self.model,
            "calls": self.calls,
            "failures": self.failures,
            "total_latency_ms": round(self.total_latency_ms, 1),
            "mean_latency_ms": round(self.total_latency_ms / self.calls, 1) if self.calls else 0.0,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "estimated_cost_usd": round(self.estimated_cost_usd, 6),
            "last_error": self.last_error,
        }
        if self.price is None:
            summary["cost_note"] = f"no list price known for {self.model}; cost not estimated"
        return summary
