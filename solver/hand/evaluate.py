"""A strategy pair measured once: its value, each side's exploitability (exact best
responses), the value interval it proves in exact arithmetic, and each player's own reach.

Tables, charts, the simplified strategy and `bidou evaluate` all read one `Evaluation`
instead of measuring again (the export layer draws and writes; it does not measure).
"""

from __future__ import annotations

import dataclasses

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.common.types import OwnReach, Reach
from solver.hand import best_response
from solver.hand.best_response import Exploitability
from solver.hand.exact.certificate import Certificate, certify
from solver.hand.model import HandModel
from solver.hand.reach import own_reach
from solver.hand.strategy import Strategy

__all__ = ["Evaluation", "evaluate", "reach_of", "OwnReach", "Reach"]


@dataclasses.dataclass(frozen=True)
class Evaluation:
    exploitability: Exploitability
    certificate: Certificate
    reach: Reach                              # by role

    @property
    def value(self) -> float:
        """u(x, y): the captain's expected payoff when both follow the strategies."""
        return self.exploitability.value


def reach_of(model: HandModel, strategy: Strategy) -> Reach:
    return (own_reach(model, strategy, CAPTAIN), own_reach(model, strategy, OPPONENT))


def evaluate(model: HandModel, strategy: Strategy,
             exploitability: Exploitability | None = None,
             certificate: Certificate | None = None) -> Evaluation:
    """Measure what is not given (a solver's result already carries its exploitability and
    certificate: they are reused, not measured twice)."""
    return Evaluation(
        exploitability=exploitability or best_response.exploitability(model, strategy),
        certificate=certificate or certify(model, strategy),
        reach=reach_of(model, strategy))
