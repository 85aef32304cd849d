"""Play hands against the equilibrium strategy.

The engine is a pure function of the strategy, a random generator and two callbacks (`ask`
for the person's choices, `tell` for what he sees), so tests can script a whole hand.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT, ROLE_NAMES, Leaf, Node
from games.bidou.rules import STOP, throw_action_name
from solver.model import HandModel
from solver.strategy import Strategy

Ask = Callable[[str, Sequence[str]], str]
Tell = Callable[[str], None]


def _draw(rng: np.random.Generator, probs: np.ndarray) -> int:
    probs = np.maximum(probs, 0.0)
    return int(rng.choice(len(probs), p=probs / probs.sum()))


def _throw_turn(model: HandModel, strategy: Strategy, role: int, context: int,
                human: int | None, rng: np.random.Generator, ask: Ask | None, tell: Tell
                ) -> tuple[int, int]:
    """One throwing turn; returns (throws made, final hand index)."""
    hand = _draw(rng, model.prior)
    for t in range(1, model.throws + 1):
        if role == human:
            tell(f"Throw {t}: you have {rules.format_hand(model.hands[hand])} "
                 f"({rules.hand_name(model.hands[hand], model.params.ranking)}).")
        if t == model.throws:
            return t, hand
        legal = np.nonzero(model.throw_legal[:, hand])[0]
        if role == human:
            names = [throw_action_name(model.throw_actions[a]) for a in legal]
            assert ask is not None
            choice = legal[names.index(ask("Your choice", names))]
        else:
            choice = _draw(rng, strategy.throw[role][context, t - 1, :, hand])
        if model.throw_actions[choice] == STOP:
            return t, hand
        hand = _draw(rng, model.outcome[choice])
    raise AssertionError("unreachable")


def captain_payoff(model: HandModel, leaf: Leaf, hands: tuple[int, int],
                   public: tuple[int, int]) -> float:
    """The captain's payoff at a betting leaf, from the rules' `compare`."""
    outcome = rules.compare(model.hands[hands[0]], model.hands[hands[1]],
                            model.params.ranking, model.params.aces_beat_bidou)
    return float(model.tree(public).payoff(leaf, outcome))


def play_hand(model: HandModel, strategy: Strategy, human: int | None,
              rng: np.random.Generator, ask: Ask | None, tell: Tell) -> float:
    """Play one hand with the person in role `human`; returns his payoff in chips.

    With `human=None` the strategy plays both seats and the captain's payoff is returned.
    """
    if human is not None:
        tell(f"You are the {ROLE_NAMES[human]}.")
    tc, captain_hand = _throw_turn(model, strategy, CAPTAIN, 0, human, rng, ask, tell)
    if human == OPPONENT:
        tell(f"The captain threw {tc} time{'s' if tc > 1 else ''}.")
    to, opponent_hand = _throw_turn(model, strategy, OPPONENT, tc - 1, human, rng, ask, tell)
    if human == CAPTAIN:
        tell(f"The opponent threw {to} time{'s' if to > 1 else ''}.")
    hands = (captain_hand, opponent_hand)
    tree = model.tree((tc, to))
    at: Node | Leaf = tree.root
    while isinstance(at, Node):
        node = at
        if node.actor == human and ask is not None:
            action = ask(f"Bet level {node.level}", list(node.actions))
        else:
            probs = strategy.betting[(tc, to, node.history)][:, hands[node.actor]]
            action = node.actions[_draw(rng, probs)]
            tell(f"The {ROLE_NAMES[node.actor]} says: {action}.")
        edge = node.edges[node.actions.index(action)]
        at = tree.nodes[edge.node] if edge.leaf is None else tree.leaves[edge.leaf]
    leaf = at
    payoff = captain_payoff(model, leaf, hands, (tc, to))
    if leaf.kind == "showdown":
        tell(f"Showdown: captain {rules.format_hand(model.hands[captain_hand])}, "
             f"opponent {rules.format_hand(model.hands[opponent_hand])}.")
    if human is None:
        return payoff
    mine = payoff if human == CAPTAIN else -payoff
    tell(f"Your payoff: {mine:+g} (chips are penalties: + means your opponent takes them).")
    return mine
