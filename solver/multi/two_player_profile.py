"""The two-player equilibrium played by every seat of a multi-hand Bidou hand: how far the
two-player equilibrium is from good three-player play (docs/multi.md, "The two-player
equilibrium played by all three").

A two-hand strategy knows one opponent, one-chip bets and a ladder of raises; a multi-hand
hand has two or three opponents, bets of 1-3 chips and raises of 1-2. So the two-hand
strategy is read through a named rule, the **two-player map** (every point where it is a
choice is marked "choice"):

- **Throwing.** The captain (seat 0) throws as the two-hand captain. Seat s > 0 throws as
  the two-hand opponent facing the *fewest* throws among the seats before him (choice: the
  count he must undercut to lead the betting, rule M3, as the two-hand opponent must
  undercut the captain's).
- **Whom he bets against** (his two-hand opponent): facing a bet, the player who made the
  standing bet or raise; with no bet yet, the betting leader, and for the leader himself
  the other player with the fewest throws (the first of them clockwise from the captain,
  M3's order; choice).
- **Roles and counts.** Of the actor and that opponent, the one seated earlier (nearer the
  captain) is the two-hand captain, the other the opponent, each with his own throw count.
  Then the two-hand rule "the captain bets first unless he made more throws" names the same
  player as the multi-hand leader (M3), so the two-hand history below is one where the
  actor is to speak.
- **Histories.** No bet yet: the leader at "" and anyone after passes at "p" (choice: two
  passes and a third player read as one pass). Facing a bet after k bets and raises: "b"
  then k - 1 "r", or "pb" then k - 1 "r", whichever ends with the opponent's action
  (choice: the calls and drop-outs in between are not seen); beyond the two-hand ladder's
  top (max_level), the deepest history of the same parity.
- **Actions.** pass -> pass; bet -> "bet 1"; fold -> pass (drop out); call -> call; raise ->
  "raise 1" (choice: the smallest sizes, the two-hand bet and raise each being one chip
  more); a raise the multi-hand rules forbid there (not enough chips, nobody left to
  answer) becomes a call. "bet 2", "bet 3" and "raise 2" are never played.

The result is a strategy on the public tree (`sigma[e, h]`), so the solver's exact best
response certifies what each seat would gain by deviating from it alone
(`best_response.gains`), as for the solver's own strategies.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou_multi import betting
from games.bidou_multi.params import MultiParams, ParameterError
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy
from solver.multi.tree import AGAIN, STOP, PublicTree

# The rules both games must share for the map to mean anything.
SHARED_RULES = ("faces", "throws", "reroll", "ranking", "aces_beat_bidou")


def check_compatible(params: MultiParams, model: HandModel) -> None:
    """ParameterError unless the two-hand strategy is for the same dice and ranking."""
    two = model.game_rules
    for name in SHARED_RULES:
        if two.get(name) != getattr(params, name):
            raise ParameterError(f"the two-player strategy is for {name}={two.get(name)}, "
                                 f"the multi-hand game has {name}={getattr(params, name)}")


def mapped_profile(tree: PublicTree, model: HandModel, strategy: Strategy,
                   stores: Optional[tuple[int, ...]] = None) -> np.ndarray:
    """Every seat's strategy on the public tree by the two-player map (the module's rule):
    sigma[e, h] for each edge and hand of `tree` (built with `stores`, if not the rules'
    chips each)."""
    check_compatible(tree.params, model)
    index = {hand: i for i, hand in enumerate(model.hands)}
    order = np.array([index[hand] for hand in tree.hands])   # tree hand -> model hand
    sigma = np.zeros((tree.num_edges, len(tree.hands)))
    tables = _tables(tree, stores)
    ends = list(tree.edge_starts[1:]) + [tree.num_edges]
    for start, end in zip(tree.edge_starts, ends):
        node = int(tree.edge_parent[start])
        names = tree.edge_name[start:end]
        label, table = tree.node_label[node], tables[node]
        if table is None:
            probs = _throw(model, strategy, label, int(tree.node_player[node]))
        else:
            probs = _bet(model, strategy, table, label, names)
        if set(probs) - set(names):
            raise AssertionError(f"the map plays {sorted(set(probs) - set(names))} at "
                                 f"{label!r}, where the rules allow {names}")
        for k, name in enumerate(names):
            if name in probs:
                sigma[start + k] = probs[name][order]
    return sigma


def _tables(tree: PublicTree, stores: Optional[tuple[int, ...]]
            ) -> list[Optional[betting.Table]]:
    """The betting table at every node (None during the throws), replayed from the root
    along the edges (parents come before children in the tree's breadth-first order)."""
    def first(label: str) -> betting.Table:
        counts = _counts(label)
        return betting.new_table(len(counts), tree.params.chips, counts, stores)

    tables: list[Optional[betting.Table]] = [None] * tree.num_nodes
    if tree.node_label[0].endswith("b:"):                  # one throw each: no throw nodes
        tables[0] = first(tree.node_label[0])
    for e in range(tree.num_edges):
        parent, child = int(tree.edge_parent[e]), int(tree.edge_child[e])
        parent_table = tables[parent]
        if parent_table is not None:
            tables[child] = betting.apply(parent_table, tree.edge_name[e])
        elif tree.node_label[child].endswith("b:"):
            tables[child] = first(tree.node_label[child])
    return tables


def _counts(label: str) -> list[int]:
    """The finished seats' throw counts in a public history ("t0:1 t1:3 t2:2 b:..." ->
    [1, 3, 2]; "t0:1 t1:2?" -> [1])."""
    done = label.split("b:")[0].split()
    return [int(token.split(":")[1]) for token in done if not token.endswith("?")]


def _throw(model: HandModel, strategy: Strategy, label: str, seat: int
           ) -> dict[str, np.ndarray]:
    """A throw decision: the two-hand captain's rule for seat 0, the opponent's against the
    fewest earlier throws for the others."""
    count = int(label.split()[-1].split(":")[1].rstrip("?"))
    if seat == 0:
        table = strategy.throw[CAPTAIN][0, count - 1]
    else:
        fewest = min(_counts(label)[:seat])
        table = strategy.throw[OPPONENT][fewest - 1, count - 1]
    stop = model.throw_actions.index(rules.STOP)
    return {STOP: table[stop], AGAIN: table[1 - stop]}


def _opponent(table: betting.Table, counts: list[int], actor: int) -> int:
    """Whom the actor bets against (the module's rule)."""
    if table.opened:
        assert table.standing is not None
        return table.standing
    leader = table.order[0]
    if actor != leader:
        return leader
    others = [s for s in range(table.players) if s != actor]
    return min(others, key=lambda s: (counts[s], s))


def _history(model: HandModel, public: tuple[int, int], actor_first: bool, bets: int
             ) -> str:
    """Facing a bet after `bets` bets and raises: the two-hand history ending with the
    opponent's action, where the actor is to speak (the module's rule)."""
    known = {node.history for node in model.tree(public).nodes}
    for prefix in ("b", "pb"):
        history = prefix + "r" * (bets - 1)
        while history not in known and len(history) > len(prefix) + 1:
            history = history[:-2]                   # the deepest of the same parity
        if history in known and (len(history) % 2 == 0) == actor_first:
            return history
    raise AssertionError(f"no two-hand history for {bets} bets at {public}")


def _bet(model: HandModel, strategy: Strategy, table: betting.Table, label: str,
         names: list[str]) -> dict[str, np.ndarray]:
    """A betting decision read from the two-hand strategy (the module's rule)."""
    assert table.to_act is not None
    actor = table.to_act
    counts = _counts(label)
    opponent = _opponent(table, counts, actor)
    captain, other = sorted((actor, opponent))
    public = (counts[captain], counts[other])
    first = captain if public[0] <= public[1] else other       # the two-hand first bettor
    if not table.opened:
        history = "" if actor == table.order[0] else "p"
        assert (history == "") == (first == actor), label
    else:
        actions = label.split("b:")[1].split(",")
        bets = sum(1 for a in actions if a.startswith(("bet ", "raise ")))
        history = _history(model, public, first == actor, bets)
    node = model.tree(public).node(history)
    probs = strategy.betting[(public[0], public[1], history)]
    two = {action: probs[k] for k, action in enumerate(node.actions)}
    if not table.opened:
        return {"pass": two["pass"], "bet 1": two["bet"]}
    out = {"pass": two["fold"], "call": two["call"].copy()}
    if "raise" in two:
        if "raise 1" in names:
            out["raise 1"] = two["raise"]
        else:
            out["call"] = out["call"] + two["raise"]
    return out
