"""How a state's stage strategy differs from the hand game's (chip-linear) strategy: what
playing the hand's equilibrium at this state would concede, and how often the two choose
differently. Charts of a state say it in one line."""

from __future__ import annotations

import dataclasses

import numpy as np

from solver.hand import best_response
from solver.hand.model import HandModel
from solver.hand.reach import own_reach
from solver.hand.strategy import Strategy
from solver.round.certify import RoundCertificate, certify_round
from solver.round.solve import RoundSolution
from solver.round.stage import hand_play_in_stage
from solver.round.states import ChipState


@dataclasses.dataclass(frozen=True)
class Difference:
    concedes: float           # win probability a best-responding opponent gains, at most
    captain_concedes: float
    opponent_concedes: float
    differ: float             # share of the reached decisions whose likeliest action differs
    stage_exploitability: float   # of the stage equilibrium itself (win probability)

    def short(self) -> str:
        """For a chart's title line: what the hand game's equilibrium, which sees no chip
        state (the chip-blind play), concedes here and how often it chooses otherwise."""
        return (f"chip-blind play (the hand game's) concedes {self.concedes:.1%}, differs "
                f"at {self.differ:.0%}")

    def sentence(self) -> str:
        return (f"The hand game's equilibrium, played blind to the chips: it would concede up to "
                f"{self.concedes:.1%} win probability here (captain "
                f"{self.captain_concedes:.1%}, opponent {self.opponent_concedes:.1%}); "
                f"{self.differ:.0%} of the decisions reached choose differently.")


def hand_strategy_in_stage(stage: HandModel, hand: HandModel, strategy: Strategy) -> Strategy:
    """The hand game's strategy at a stage: the same throwing; at each betting decision the
    same probabilities over the actions the chips allow (a raise nobody can cover is gone,
    its probability spread over the others)."""
    return hand_play_in_stage(stage, hand, strategy, _spread)


def _spread(actions: tuple[str, ...], theirs: tuple[str, ...], probs: np.ndarray
            ) -> np.ndarray:
    """The hand's probabilities of the actions the chips allow, renormalised (uniform where
    the hand plays only forbidden ones)."""
    rows = np.array([probs[theirs.index(a)] for a in actions])
    total = rows.sum(axis=0, keepdims=True)
    return np.where(total > 0, rows / np.where(total > 0, total, 1), 1.0 / len(actions))


def difference(stage: HandModel, stage_strategy: Strategy, hand: HandModel,
               hand_strategy: Strategy) -> Difference:
    mapped = hand_strategy_in_stage(stage, hand, hand_strategy)
    ours = best_response.exploitability(stage, stage_strategy)
    theirs = best_response.exploitability(stage, mapped)
    # what the hand strategy concedes beyond what the stage equilibrium does
    captain = max(0.0, ours.captain_guaranteed - theirs.captain_guaranteed)
    opponent = max(0.0, theirs.captain_best - ours.captain_best)
    reached = differ = 0.0
    for player in (0, 1):
        throw_reach, bet_reach = own_reach(stage, stage_strategy, player)
        for key, reach in bet_reach.items():
            weight = reach[0]
            a = np.argmax(np.round(stage_strategy.betting[key], 9), axis=0)
            b = np.argmax(np.round(mapped.betting[key], 9), axis=0)
            reached += weight.sum()
            differ += weight[a != b].sum()
        weight = throw_reach.sum(axis=-2)
        a = np.argmax(np.round(stage_strategy.throw[player], 9), axis=-2)
        b = np.argmax(np.round(mapped.throw[player], 9), axis=-2)
        reached += weight.sum()
        differ += weight[a != b].sum()
    return Difference(max(captain, opponent), captain, opponent,
                      differ / reached if reached else 0.0, ours.exploitability)


def chip_counting(solution: RoundSolution, hand: HandModel, hand_strategy: Strategy
                  ) -> dict[ChipState, Strategy]:
    """The hand game's equilibrium at every chip state of a solved round
    (`hand_strategy_in_stage`): how a chip-counting player plays the round."""
    return {state: hand_strategy_in_stage(stage.model, hand, hand_strategy)
            for state, stage in solution.stages.items()}


def chip_counting_round(solution: RoundSolution, hand: HandModel,
                        hand_strategy: Strategy) -> RoundCertificate:
    """The round when one player plays the hand game's equilibrium at every state
    (`chip_counting`; open throws played optimally) and the other best-replies: the
    round's certificate run on those strategies. Its interval at a state is [what the
    chip-counting captain guarantees, what a chip-counting opponent concedes], both proved;
    the equilibrium value lies between them."""
    counter = chip_counting(solution, hand, hand_strategy)
    stages = {state: dataclasses.replace(stage, strategy=counter[state])
              for state, stage in solution.stages.items()}
    return certify_round(dataclasses.replace(solution, stages=stages))
