"""The two-player vuelta of Bidú solved on the compact model and proved (docs/bidu.md).

Newton's method on G(x), the value of the stage game whose replay pays x (B12: V = G(V)):
at x the LP (solver/bidu/sequence_form.py) gives G(x) and an equilibrium, whose chance of a
replay p is the slope of its line, and x moves to the line's root (G(x) - p x) / (1 - p).
Four or five LPs reach V to the floats' precision; each after the first starts from the
last basis. Then the proof (solver/bidu/proof.py): the last equilibrium's two strategies,
rounded to exact binary fractions, guarantee W0 to the captain and concede W1 over the
whole vuelta, replays included, both exact, so W0 <= V <= W1.
"""

from __future__ import annotations

import dataclasses
import time
from fractions import Fraction
from typing import Callable, Optional

from games.bidu.params import BiduParams
from solver.bidu.model import VueltaModel, build_model
from solver.bidu.proof import ExactBehaviour, exact_behaviour, guaranteed, pair_line
from solver.bidu.sequence_form import StageLP, behaviour, replay_probability
from solver.common.errors import SolverError

__all__ = ["BiduSolution", "MAX_STEPS", "proved", "solve_bidu"]

MAX_STEPS = 12                # Newton's LPs allowed; four or five settle every variant tried
SETTLED = 1e-13               # Newton stops once a step moves the worth less than this


@dataclasses.dataclass(frozen=True)
class BiduSolution:
    """The captain's value V of a two-player vuelta, replays included.

    `lower` <= V <= `upper`, exact: what the captain's strategy guarantees and what the
    other's concedes over the whole vuelta. `played`: the value of the two strategies
    against each other, exact (between the bounds), and `estimate` its float.
    `steps`: the LPs solved. `replay_probability`: the chance that nobody bets when the two
    strategies meet, exact. `strategies`: the two exact strategies behind the bounds.
    """

    params: BiduParams
    model: VueltaModel
    lower: Fraction
    upper: Fraction
    played: Fraction
    steps: int
    replay_probability: Fraction
    strategies: tuple[ExactBehaviour, ExactBehaviour]
    seconds: float

    @property
    def width(self) -> Fraction:
        return self.upper - self.lower

    @property
    def exact(self) -> Optional[Fraction]:
        return self.lower if self.lower == self.upper else None

    @property
    def estimate(self) -> float:
        return float(self.played)

    @property
    def captain_exploitability(self) -> float:
        """What a best reply to the captain's strategy gains, over the whole vuelta, over
        what the two strategies give each other."""
        return float(self.played - self.lower)

    @property
    def other_exploitability(self) -> float:
        return float(self.upper - self.played)


def solve_bidu(params: BiduParams, report: Optional[Callable[[str], None]] = None,
               captain_stands: Optional[dict] = None,
               other_stands: Optional[dict] = None) -> BiduSolution:
    """Solve and prove the two-player vuelta of `params`; SolverError if the LP fails,
    Newton's method does not settle within MAX_STEPS, or the proof does not contain the
    LP's value. `captain_stands` pins the captain's throwing (`StageLP`): then `lower` is
    what his solved strategy, which follows the pins, guarantees (`upper` bounds nothing
    of that restricted game: the other's strategy is checked against every captain).
    `other_stands` pins the other player's: then `upper` is what his solved strategy,
    which follows them, concedes to every captain."""
    begin = time.perf_counter()
    say = report or (lambda _: None)
    model = build_model(params)
    lp = StageLP(model, captain_stands, other_stands)
    worth, step = 0.0, 0
    while True:
        step += 1
        say(f"LP {step} at replay worth {worth:+.15f}")
        stage = lp.solve(Fraction(worth))
        p = replay_probability(model, stage.plans)
        if p >= 1.0:
            raise SolverError(f"{params.describe()}: an equilibrium never bets, so the "
                              f"vuelta has no value")
        following = (stage.value - p * worth) / (1.0 - p)
        if abs(following - worth) < SETTLED:
            break
        if step >= MAX_STEPS:
            raise SolverError(f"{params.describe()}: Newton's method on the replay's worth "
                              f"did not settle in {MAX_STEPS} LPs (last step "
                              f"{abs(following - worth):.1e})")
        worth = following
    say("proving the value in exact arithmetic")
    strategies = (exact_behaviour(behaviour(model, stage.plans[0])),
                  exact_behaviour(behaviour(model, stage.plans[1])))
    start = Fraction(following)
    lower = guaranteed(model, strategies[0], start)
    upper = guaranteed(model, strategies[1], start)
    return proved(params, model, strategies, lower, upper, step,
                  time.perf_counter() - begin)


def proved(params: BiduParams, model: VueltaModel,
           strategies: tuple[ExactBehaviour, ExactBehaviour], lower: Fraction,
           upper: Fraction, steps: int, seconds: float) -> BiduSolution:
    """The solution of two strategies whose guarantees are `lower` and `upper`, with what
    they give each other; SolverError if the bounds do not hold that."""
    line = pair_line(model, *strategies)
    played = line.root()
    if not lower <= played <= upper:
        raise SolverError(f"{params.describe()}: the proof is inconsistent (the strategies "
                          f"give each other {float(played)}, outside [{float(lower)}, "
                          f"{float(upper)}])")
    return BiduSolution(params=params, model=model, lower=lower, upper=upper, played=played,
                        steps=steps, replay_probability=Fraction(line.p, line.d),
                        strategies=strategies, seconds=seconds)
