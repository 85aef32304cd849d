"""The exact recovery of the limit, with the two players' systems solved side by side.

solver/hand/exact/equilibrium.py recovers each player's exact strategy from the other's
indifferences; the two systems share nothing but the float strategy they start from
(`recover_role` of one player reads only its plans), so they can run at once. On the
default game each takes about half of the recovery (two rounds each, Fractions
throughout; 0.42-0.55 s CPU for the captain's, 0.40-0.58 s for the opponent's, load
average 8), so a second process cuts the recovery's wall time to about half when a
second core is free, and about nothing when none is (load average 10 on 2 cores: 3.7-5.2
s against 3.5-4.1 s one after the other, 1.0-1.5 s CPU either way). It is
refused, and the two run one after the other, where a child process cannot be forked
safely: no "fork" start method, inside a daemonic worker such as the round's pool, or
beside other Python threads.

The result is the same dictionary either way: each system is deterministic, and the child
returns its exact Fractions (pickled through a pipe between two processes of this run,
never to a file) as integer pairs: a pickled Fraction is its string, parsed again on
arrival, and the 7224 probabilities of the default game's opponent take 59 values. A
child that dies without answering has its system solved here.
"""

from __future__ import annotations

from fractions import Fraction

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.common.progress import Step
from solver.common.side_by_side import can_fork, side_by_side
from solver.common.types import Exact
from solver.hand.exact.equilibrium import RecoveryError, both_plans, recover_role
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy


def exact_limit(model: HandModel, strategy: Strategy, progress: Step | None = None,
                parallel: bool = True) -> Exact:
    """Both players' exact strategies with the supports of `strategy` (RecoveryError if
    none): the opponent's system in a forked child while this process solves the
    captain's, when `parallel` and `can_fork()`; otherwise one after the other. Progress
    follows the captain's system (the longer one), and the opponent's too when serial.
    Forked, the child reads the model and the plans from the memory it inherits (a pool
    would pickle 0.9 MB each way); only its answer comes back, as integer pairs."""
    plans = both_plans(model, strategy)
    forked = parallel and can_fork()
    captain, opponent = side_by_side(
        lambda: recover_role(model, strategy, plans, CAPTAIN, progress),
        lambda: as_pairs(recover_role(model, strategy, plans, OPPONENT,
                                       None if forked else progress)),
        parallel=forked, passes=(RecoveryError,))
    out: dict = dict(captain)
    out.update(from_pairs(opponent))
    return out


def as_pairs(exact: Exact) -> dict[tuple, list[tuple[int, int]]]:
    """Exact probabilities as integer pairs, which pickle as integers."""
    return {key: [(p.numerator, p.denominator) for p in row] for key, row in exact.items()}


def from_pairs(pairs: dict[tuple, list[tuple[int, int]]]) -> Exact:
    """`as_pairs` undone: the same Fractions, each distinct value built once."""
    made: dict[tuple[int, int], Fraction] = {}
    out = {}
    for key, row in pairs.items():
        new = []
        for pair in row:
            value = made.get(pair)
            if value is None:
                value = made[pair] = Fraction(*pair)
            new.append(value)
        out[key] = new
    return out
