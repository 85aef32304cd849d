"""The result every solver returns: value, strategies, exact exploitability, provenance."""

from __future__ import annotations

import dataclasses
import platform
from importlib import metadata
from typing import Any

from games.bidou.params import BidouParams
from solver.hand.best_response import Exploitability
from solver.hand.exact.certificate import Certificate
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy, strategy_to_json


@dataclasses.dataclass(frozen=True)
class Solution:
    """A solved hand: value to the captain, both strategies, and how far from equilibrium."""

    model: HandModel
    method: str
    value: float                 # chips per hand to the captain
    status: str                  # "optimal", "converged", or why not
    converged: bool
    message: str
    seconds: float
    iterations: int | None
    exploitability: Exploitability
    strategy: Strategy
    history: tuple[tuple[int, float, float], ...] = ()   # (iteration, seconds, exploitability)
    certificate: Certificate | None = None   # exact bounds on the value (exact.certificate)

    @property
    def params(self) -> BidouParams:
        return self.model.params

    def summary(self) -> dict[str, Any]:
        """The provenance and numbers a user needs to trust (or distrust) the result."""
        e = self.exploitability
        return {
            "rules": self.model.game_rules,
            "method": self.method,
            "value": self.value,
            "status": self.status,
            "converged": self.converged,
            "message": self.message,
            "exploitability": e.exploitability,
            "nash_conv": e.nash_conv,
            "captain_exploitability": e.captain_exploitability,
            "opponent_exploitability": e.opponent_exploitability,
            "on_policy_value": e.value,
            "iterations": self.iterations,
            "certified_value": self.certificate.to_dict() if self.certificate else None,
            "seconds": self.seconds,
            "versions": versions(),
        }

    def to_json(self) -> dict[str, Any]:
        """The strategy file: rules, result and every decision."""
        return strategy_to_json(self.model, self.strategy, self.summary())


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in ("bidou-solver", "numpy", "scipy", "open_spiel"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out
