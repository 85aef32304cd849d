"""What a chip state changes in the play of a hand, in words: where its stage equilibrium
chooses differently from the hand game's equilibrium (which hands call, fold, bet or stop
differently, and how often that comes up), with what playing the hand game's strategy
there would cost in win probability (`compare.difference`). Computed once when a round is
saved (`solver.round.store`), read back by `bidou round --state`.

Also the stage strategy of a state as JSON and back, at full float precision (the saved
round keeps every state's strategy, for its charts and `--json`).
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT, Node
from solver.hand.model import HandModel
from solver.hand.reach import end_mass, throw_flow
from solver.hand.strategy import Strategy, throw_shapes

ROLE = {CAPTAIN: "captain", OPPONENT: "opponent"}
LIMIT = 6                  # situations named in words, the most frequent first
HANDS_NAMED = 6            # hands named per change, strongest first
DIGITS = 9                 # a likeliest action is compared after rounding to this


def stage_advice(stage: HandModel, stage_strategy: Strategy, hand: HandModel,
                 hand_strategy: Strategy) -> dict[str, Any]:
    """The cost of playing the hand game's strategy at this state (win probability a
    best-replying opponent gains, per side) and the situations where the state's likeliest
    action differs, most frequent first (JSON-ready)."""
    # compare reaches the round's solver (scipy): imported here, so that reading advice
    # (`advice_lines`, a query of a saved round) stays light
    from solver.round.compare import difference, hand_strategy_in_stage

    said = difference(stage, stage_strategy, hand, hand_strategy)
    mapped = hand_strategy_in_stage(stage, hand, hand_strategy)
    changes = _betting_changes(stage, stage_strategy, mapped)
    changes += _throw_changes(stage, stage_strategy, mapped)
    changes.sort(key=lambda c: -c["weight"])
    return {"concedes": said.concedes, "captain_concedes": said.captain_concedes,
            "opponent_concedes": said.opponent_concedes, "differ": said.differ,
            "stage_exploitability": said.stage_exploitability,
            "changes": changes[:LIMIT], "more_changes": max(0, len(changes) - LIMIT)}


def _likeliest(probs: np.ndarray) -> np.ndarray:
    return np.argmax(np.round(probs, DIGITS), axis=0)


def _betting_changes(stage: HandModel, ours: Strategy, mapped: Strategy) -> list[dict]:
    changes = []
    for (tc, to, history), weight in _betting_reach(stage, ours).items():
        node = stage.tree((tc, to)).node(history)
        a = _likeliest(ours.betting[(tc, to, history)])
        b = _likeliest(mapped.betting[(tc, to, history)])
        where = (f"the {ROLE[node.actor]} at throws {tc}-{to} (captain-opponent), "
                 + (f"after {', '.join(history_words(history))}" if history
                    else "first to bet"))
        changes += _grouped(stage, where, weight, a, b, [str(x) for x in node.actions])
    return changes


def _betting_reach(stage: HandModel, strategy: Strategy) -> dict[tuple, np.ndarray]:
    """P(the hand reaches this betting decision with the actor holding each hand), both
    players playing `strategy` (their dice are independent: the actor's own reach times
    the total reach of the other)."""
    captain_ends = end_mass(stage, strategy.throw[CAPTAIN][0])
    out = {}
    for tc, to in stage.public_states:
        opponent_ends = end_mass(stage, strategy.throw[OPPONENT][tc - 1])
        tree = stage.tree((tc, to))

        def step(node: Node, a: int, pair: tuple[np.ndarray, np.ndarray]
                 ) -> tuple[np.ndarray, np.ndarray]:
            probs = strategy.betting[(tc, to, node.history)][a]
            own = list(pair)
            own[node.actor] = own[node.actor] * probs
            return own[0], own[1]

        at_node, _ = tree.push((captain_ends[tc - 1], opponent_ends[to - 1]), step)
        for node in tree.nodes:
            pair = at_node[node.index]
            out[(tc, to, node.history)] = pair[node.actor] * pair[1 - node.actor].sum()
    return out


def _throw_changes(stage: HandModel, ours: Strategy, mapped: Strategy) -> list[dict]:
    """Stopping and keeping: the captain's throws are reached by his own dice and choices,
    the opponent's once the captain has stopped after as many throws as he saw."""
    changes = []
    names = [_throw_word(x) for x in stage.throw_actions]
    captain_ends = end_mass(stage, ours.throw[CAPTAIN][0])
    for player in (CAPTAIN, OPPONENT):
        for context in range(ours.throw[player].shape[0]):
            before, _ = throw_flow(stage, ours.throw[player][context])
            seen = 1.0 if player == CAPTAIN else float(captain_ends[context].sum())
            for throw in range(ours.throw[player].shape[1]):
                a = _likeliest(ours.throw[player][context, throw])
                b = _likeliest(mapped.throw[player][context, throw])
                after = (f" (the captain stopped after {context + 1})"
                         if player == OPPONENT else "")
                where = f"the {ROLE[player]} after his throw {throw + 1}{after}"
                changes += _grouped(stage, where, before[throw] * seen, a, b, names)
    return changes


def _grouped(stage: HandModel, where: str, weight: np.ndarray, ours: np.ndarray,
             theirs: np.ndarray, actions: list[str]) -> list[dict]:
    """One change per (state's action, hand game's action) pair at a decision: the hands
    reached there that switch, strongest first, and how often it comes up."""
    out = []
    differ = (ours != theirs) & (weight > 1e-12)
    pairs = sorted({(int(x), int(y)) for x, y in zip(ours[differ], theirs[differ])})
    for x, y in pairs:
        chosen = np.flatnonzero(differ & (ours == x) & (theirs == y))
        chosen = chosen[np.argsort(-stage.strength[chosen], kind="stable")]
        out.append({"where": where, "here": actions[x], "hand_game": actions[y],
                    "hands": [rules.format_hand(stage.hands[i]) for i in chosen],
                    "weight": float(weight[chosen].sum())})
    return out


def history_words(history: str) -> list[str]:
    words = {"p": "pass", "b": "bet", "f": "fold", "c": "call", "r": "raise"}
    return [words.get(letter, letter) for letter in history]


def _throw_word(action: Any) -> str:
    if action == rules.STOP:
        return "stop"
    kept = tuple(action) if isinstance(action, tuple) else ()
    return f"throw again keeping {rules.format_hand(kept)}" if kept else "throw again"


def change_sentence(change: Mapping[str, Any]) -> str:
    """One change in words: "the opponent at throws 1-2 (captain-opponent), after bet: call
    with 6-5-4, 3-3-3 (the hand game: fold; comes up in 2.1% of hands here)"."""
    hands = list(change["hands"])
    named = ", ".join(hands[:HANDS_NAMED])
    if len(hands) > HANDS_NAMED:
        named += f" and {len(hands) - HANDS_NAMED} more"
    return (f"{change['where']}: {change['here']} with {named} (the hand game: "
            f"{change['hand_game']}; comes up in {change['weight']:.1%} of hands here)")


def advice_lines(advice: Mapping[str, Any]) -> list[str]:
    """The advice in words, a few lines."""
    lines = [f"playing the hand game's equilibrium here would concede up to "
             f"{advice['concedes']:.2%} win probability (as captain "
             f"{advice['captain_concedes']:.2%}, as opponent "
             f"{advice['opponent_concedes']:.2%}); {advice['differ']:.0%} of the decisions "
             f"reached choose differently"]
    if not advice["changes"]:
        lines.append("no likeliest action changes: play the hand game's strategy")
    lines += [f"- {change_sentence(c)}" for c in advice["changes"]]
    if advice["more_changes"]:
        lines.append(f"- and {advice['more_changes']} smaller changes (--json lists the "
                     f"state's whole strategy)")
    return lines


def open_throw_lines(advice: Mapping[str, Any]) -> list[str]:
    """An open throw's advice (`open_throw_table.open_throw_advice`) in words; here, not
    beside it, so that a query reads it without the round's state graph (networkx)."""
    lines = [f"first thrower, after throw {r['after_throw']}: stop with {r['stop_with']}; "
             f"else {r['else']}" for r in advice["first"]]
    lines.append("second thrower: stop as soon as ahead, throw again while behind"
                 + ("" if not advice["second_exceptions"] else
                    f" (but for {advice['second_exceptions']} decisions)"))
    lines += [f"second thrower, tied after throw {r['after_throw']}: stop with a tie of "
              f"{r['stop_with']}; else {r['else']}" for r in advice["second_tied"]]
    return lines


def strategy_json(strategy: Strategy) -> dict[str, Any]:
    """A stage strategy as JSON, every float as Python writes it (exact round trip)."""
    return {"throw": [strategy.throw[CAPTAIN].tolist(), strategy.throw[OPPONENT].tolist()],
            "betting": [[tc, to, history, array.tolist()]
                        for (tc, to, history), array in sorted(strategy.betting.items())]}


def strategy_from_json(document: Mapping[str, Any], model: HandModel) -> Strategy:
    """The inverse of `strategy_json` for the stage game `model`; ValueError/KeyError/
    TypeError if malformed (the caller checks the result against `model`,
    `solver.hand.strategy.check_strategy`). With one throw there is no throw decision, and the
    empty lists JSON keeps lose the arrays' shape: `model` gives it back."""
    throw = tuple(np.asarray(t, dtype=float) for t in document["throw"])
    if len(throw) != 2:
        raise ValueError("two throwing strategies expected")
    throw = tuple(t.reshape(shape) if t.size == 0 == math.prod(shape) else t
                  for t, shape in zip(throw, throw_shapes(model)))
    betting = {(int(tc), int(to), str(history)): np.asarray(array, dtype=float)
               for tc, to, history, array in document["betting"]}
    return Strategy((throw[0], throw[1]), betting)
