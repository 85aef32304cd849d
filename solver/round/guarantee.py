"""What one person X guarantees by following fixed stage strategies in a stochastic game over
hands whose every hand leads to a state, or to the end (`markov.Lead`): the one step the
proofs of the manche and of Montevideo's heads-up end take at each state and seat.

X's guarantee g(state, seat) is his least chance of winning against every reply of the other
person. One step: the stage game paying, where each hand leads, X's guarantee there (his
seat then is his seat now if the first player stays first, the other otherwise; the end is
worth `end` to the first player), as the first player's payoff when X is first and one minus
it when he is second, so that the other person's best response (`exact_best_response`, or
the float `best_response`) is always his own best; X's guarantee is what that leaves him.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.hand import best_response
from solver.hand.exact.certificate import exact_best_response
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy
from solver.round.markov import Lead

FIRST, SECOND = 0, 1                          # X's seat: the first player, the other
Guarantee = Callable[[Any, int], Fraction | float]   # a state and X's seat there
Stage = Callable[[Callable[[Any], Fraction | float]], HandModel]   # the stage, given its pay


def x_value(nxt: Lead, seat: int, g: Guarantee) -> Fraction | float:
    """X's guarantee where a hand leads, X having held `seat` in it."""
    if nxt.state is None:
        assert nxt.end is not None
        return nxt.end if seat == FIRST else 1 - nxt.end
    return g(nxt.state, seat if nxt.same else 1 - seat)


def responder(seat: int) -> int:
    """The other person's role in the hand when X holds `seat`."""
    return OPPONENT if seat == FIRST else CAPTAIN


def guarantee_step(stage: Stage, strategy: Strategy, seat: int, g: Guarantee,
                   exact: bool) -> Fraction | float:
    """X's guarantee at a state where he holds `seat` and plays `strategy`, the hands paying
    his guarantees `g` where they lead: exact (a Fraction) or in floating point."""
    def pay(nxt: Lead) -> Fraction | float:
        v = x_value(nxt, seat, g)
        return v if seat == FIRST else 1 - v

    model = stage(pay)
    if exact:
        best: Fraction | float = exact_best_response(model, strategy, responder(seat))
    else:
        best = best_response.best_response(model, strategy, responder(seat)).value
    value = -best if seat == FIRST else 1 - best
    return Fraction(value) if exact else float(value)
