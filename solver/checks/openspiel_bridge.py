"""Between the compact model and the faithful OpenSpiel game `python_bidou`.

A compact strategy conditions on (throws so far, current hand) and the public betting; the
faithful game's information states carry the whole dice history. Playing the compact
strategy in the faithful game means reading, at each information state, only the part the
compact strategy conditions on (`to_openspiel_policy`). The other way, a faithful policy
becomes the compact strategy with the same realization plan (`from_openspiel_policy`).
Only small variants can be enumerated this way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import cast

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

import games.bidou.game  # noqa: F401  (registers python_bidou)
from games.bidou import rules
from games.bidou.betting import ACTIONS, CAPTAIN, OPPONENT, Node
from games.bidou.params import BidouParams
from games.bidou.rules import STOP, throw_action_name
from solver.hand.model import HandModel, build_model
from solver.hand.strategy import Strategy


def load_game(params: BidouParams) -> pyspiel.Game:
    return pyspiel.load_game(params.to_game_string())


def to_openspiel_policy(game: pyspiel.Game, strategy: Strategy,
                        model: HandModel | None = None) -> policy_lib.TabularPolicy:
    """The compact strategy as a TabularPolicy of the faithful game (small variants only)."""
    model = model or build_model(game.params)
    tabular = policy_lib.TabularPolicy(game)
    for row, legal, key, index in faithful_decisions(model, tabular):
        if key[0] == "bet":
            _, (tc, to, history), hand = key
            column = strategy.betting[(tc, to, history)][:, hand]
        else:
            _, player, context, throw, hand = key
            column = strategy.throw[player][context, throw][:, hand]
        probs = np.array([column[i] for i in index])
        tabular.action_probability_array[row, :] = 0.0
        tabular.action_probability_array[row, legal] = probs / probs.sum()
    return tabular


def faithful_decisions(model: HandModel, tabular: policy_lib.TabularPolicy
                       ) -> Iterator[tuple[int, list[int], tuple, list[int]]]:
    """For each state of a TabularPolicy of the faithful game: (its row, its legal action
    ids, the compact decision it plays, the index of each legal action in that decision).

    The decision is keyed as in `solver.hand.exact.certificate.decisions` (and
    `solver.common.types.Exact`):
    ("throw", role, context, throw, hand) or ("bet", (tc, to, history), hand); the faithful
    state reads only what the compact strategy conditions on.
    """
    hand_index = {h: i for i, h in enumerate(model.hands)}
    throw_index = {throw_action_name(a): i for i, a in enumerate(model.throw_actions)}
    for row, state in enumerate(tabular.states):
        player = state.current_player()
        legal = state.legal_actions()
        names = [state.action_to_string(player, a) for a in legal]
        hand = hand_index[tuple(state.hands[player])]
        counts = state.throw_counts
        key: tuple
        if names[0] in ACTIONS:
            node = model.tree(tuple(counts)).after(state.betting)
            assert isinstance(node, Node), "a player to act is at a decision, not a leaf"
            key = ("bet", (counts[0], counts[1], node.history), hand)
            index = [node.actions.index(name) for name in names]
        else:
            context = 0 if player == CAPTAIN else counts[0] - 1
            key = ("throw", player, context, counts[player] - 1, hand)
            index = [throw_index[name] for name in names]
        yield row, legal, key, index


def tabular_lookup(game: pyspiel.Game, policy: policy_lib.TabularPolicy
                   ) -> Callable[[str, list[str]], dict]:
    """`from_openspiel_policy`'s reader for a TabularPolicy of `game`."""
    def lookup(info_state: str, names: list[str]) -> dict:
        if info_state not in policy.state_lookup:
            return {}
        row = policy.policy_for_key(info_state)
        return {name: float(row[game.action_id(name)]) for name in names}

    return lookup


def from_openspiel_policy(model: HandModel,
                          probabilities: Callable[[str, list[str]], dict]) -> Strategy:
    """A faithful-game policy as the compact strategy with the same realization plan.

    `probabilities(info_state, legal action names in id order)` gives {name: probability}
    ({} where the policy knows nothing: uniform).

    Every compact decision merges the faithful information states that end in the same
    (throws, hand, public betting); its behaviour is their average weighted by the
    player's own reach (own chance included), which keeps each player's realization plan
    over (public state, hand, betting) and so every payoff and the exploitability: any
    OpenSpiel policy can then be scored by `solver.hand.best_response`. Enumerates each
    player's own histories: O(hands^throws) strings, so it is for small variants and for
    samplers' tables (MCCFR's) on the default game.
    """
    n, T = model.num_hands, model.throws
    hand_index = {h: i for i, h in enumerate(model.hands)}
    A = len(model.throw_actions)
    throw_mass = [np.zeros((1, max(T - 1, 0), A, n)), np.zeros((T, max(T - 1, 0), A, n))]
    bet_mass = {key: np.zeros((len(model.tree(key[:2]).node(key[2]).actions), n))
                for key in _betting_keys(model)}
    for player in (CAPTAIN, OPPONENT):
        contexts = [""] if player == CAPTAIN else [_public(tc, T) for tc in range(1, T + 1)]
        for context in contexts:
            for tokens, count, hand, reach in _own_turns(model, player, context, probabilities,
                                                         throw_mass[player]):
                own = ",".join(tokens)
                for other in range(1, T + 1):
                    tc, to = (count, other) if player == CAPTAIN else (context.count("?"), count)
                    head = (f"p0 | c:{own} | o:{_public(other, T)} | b:" if player == CAPTAIN
                            else f"p1 | c:{context} | o:{own} | b:")
                    _walk_betting(model, (tc, to), player, head, hand_index[hand], reach,
                                  probabilities, bet_mass)
                    if player == OPPONENT:
                        break           # the opponent's own count fixes the public state
    return _behaviour(model, throw_mass, bet_mass)


def _public(count: int, throws: int) -> str:
    """What the other player sees of a turn of `count` throws (of at most `throws`)."""
    tokens = []
    for k in range(count):
        tokens.append("?")
        if k < count - 1:
            tokens.append("again")
        elif count < throws:
            tokens.append("stop")
    return ",".join(tokens)


Turn = tuple[list[str], int, rules.Hand, float]


def _own_turns(model: HandModel, player: int, context: str,
               probabilities: Callable[[str, list[str]], dict],
               throw_mass: np.ndarray) -> Iterator[Turn]:
    """Yield (tokens, throws, hand, own reach) of every finished own turn of `player` (after
    the captain's public turn `context`), adding the reach-weighted behaviour of each throw
    decision on the way to `throw_mass` (the player's, shaped like `Strategy.throw`)."""
    T, faces = model.throws, model.params.faces
    hand_index = {h: i for i, h in enumerate(model.hands)}
    action_index = {throw_action_name(a): i for i, a in enumerate(model.throw_actions)}
    c = 0 if player == CAPTAIN else int(context.count("?")) - 1

    def visit(tokens: list[str], count: int, hand: rules.Hand, reach: float) -> Iterator[Turn]:
        if count == T:
            yield tokens, count, hand, reach
            return
        view = (f"p0 | c:{','.join(tokens)} | o: | b:" if player == CAPTAIN
                else f"p1 | c:{context} | o:{','.join(tokens)} | b:")
        options = [a for i, a in enumerate(model.throw_actions)
                   if model.throw_legal[i, hand_index[hand]]]      # = OpenSpiel id order
        names = [throw_action_name(a) for a in options]
        p = _normalized_probs(probabilities(view, names), names)
        for action, name in zip(options, names):
            throw_mass[c, count - 1, action_index[name], hand_index[hand]] += reach * p[name]
            if p[name] == 0.0:
                continue
            if action == STOP:
                yield tokens + ["stop"], count, hand, reach * p[name]
                continue
            kept = cast(rules.Kept, action)          # every throw action but STOP keeps dice
            for new, q in rules.next_hand_distribution(hand, kept, faces).items():
                yield from visit(tokens + [name, rules.format_hand(new)], count + 1,
                                 new, reach * p[name] * float(q))

    for first, q in rules.hand_distribution(faces).items():
        yield from visit([rules.format_hand(first)], 1, first, float(q))


def _behaviour(model: HandModel, throw_mass: list[np.ndarray],
               bet_mass: dict[tuple[int, int, str], np.ndarray]) -> Strategy:
    """The strategy whose every decision plays in proportion to its reach-weighted mass
    (uniform over the legal actions where no mass arrived: a decision never reached)."""
    legal = model.throw_legal
    throws = []
    for mass in throw_mass:
        total = mass.sum(axis=-2, keepdims=True)
        uniform = np.broadcast_to(legal / legal.sum(axis=0), mass.shape)
        throws.append(np.where(total > 0, mass / np.where(total > 0, total, 1), uniform))
    betting = {}
    for key, mass in bet_mass.items():
        total = mass.sum(axis=0, keepdims=True)
        betting[key] = np.where(total > 0, mass / np.where(total > 0, total, 1),
                                1.0 / mass.shape[0])
    return Strategy((throws[0], throws[1]), betting)


def _betting_keys(model: HandModel):
    return [(tc, to, node.history) for tc, to in model.public_states
            for node in model.tree((tc, to)).nodes]


def _normalized_probs(probs: dict, names: list[str]) -> dict:
    values = np.array([max(probs.get(name, 0.0), 0.0) for name in names])
    if values.sum() <= 0:
        values = np.ones(len(names))
    values = values / values.sum()
    return dict(zip(names, values))


def _walk_betting(model: HandModel, public: tuple[int, int], player: int, head: str, hand: int,
                  reach: float, probabilities: Callable[[str, list[str]], dict],
                  bet_mass: dict[tuple[int, int, str], np.ndarray]) -> None:
    """Add `player`'s reach of each own betting decision, for one hand, to `bet_mass`."""
    tree = model.tree(public)
    chosen: dict[int, dict] = {}

    def step(node: Node, a: int, carried: tuple[list[str], float]) -> tuple[list[str], float]:
        names, mass = carried
        action = node.edges[a].action
        if node.actor != player:
            return names + [action], mass
        if node.index not in chosen:
            actions: list[str] = list(node.actions)
            chosen[node.index] = _normalized_probs(
                probabilities(head + ",".join(names), actions), actions)
            for i, name in enumerate(actions):
                bet_mass[(public[0], public[1], node.history)][i, hand] += \
                    mass * chosen[node.index][name]
        return names + [action], mass * chosen[node.index][action]

    start: tuple[list[str], float] = ([], reach)
    tree.push(start, step)
