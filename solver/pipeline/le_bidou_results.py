"""The numbers of docs/results.md's Le Bidou section: what stakes change against one-chip
betting (`solver.export.le_bidou_section` renders them).

    bidou results --le-bidou     # solves the hands below, keeps their numbers in
                                 # docs/data/results.json ("le_bidou"), renders the page

The headline is the default hand (`LeBidouParams()`: 6 faces, 3 throws, keep, french,
stakes up to 9, half stake rounded up) against the one-chip game with the same dice and
ranking (`BidouParams(reroll="keep", ranking="french")`, its value read from the sweep
table `docs/data/sweep.csv`, proved there). The penalty rules, `half_stake` up, down and
full, are compared on the default hand itself (stakes up to 9: the restricted LP's warm
double oracle solves each in seconds; the rounding up is the headline, solved once). Each hand is
solved by the LP (the restricted LP above 16 128 rows, `solver/hand/lp/restricted.py`) and its
value proved by the certificate; the behaviour (how often each stake is proposed, the
bluffs) is that of the LP's vertex: Le Bidou has no refined equilibrium on its stakes trees
(docs/le-bidou.md), so these numbers depend on the equilibrium chosen, and the page says so.

*Bluff*, as for the one-chip game (`solver.analysis.behaviour`, reused): a proposal of the
stake s (a first stake or a raise to s) is a bluff when the proposer's hand loses a showdown
to the responder's indifference hand, the weakest hand with which calling s against the
proposer's range (his hands, as the equilibrium brings them there and proposes s with them)
is worth at least withdrawing; every proposal is a bluff when no hand should call.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from games.bidou.betting import CAPTAIN, FOLD, Node
from games.bidou.params import BidouParams
from games.le_bidou.params import LeBidouParams
from games.le_bidou.stakes import CALL, WITHDRAW
from solver.analysis import behaviour
from solver.common.progress import Step
from solver.hand.model import HandModel
from solver.hand.result import Solution
from solver.hand.strategy import Strategy
from solver.pipeline.bidou_sweep import SWEEP

COMMAND = "bidou results --le-bidou"
HEADLINE = LeBidouParams()
# The hand under each withdrawal penalty: the source's half stake, rounded up (the default)
# or down, and the full stake it is measured against; at the default stakes up to 9 (one LP
# over the whole tree is practical only up to 5: at 9 the cold restricted LP takes over 25
# minutes for the rounding down; the warm double oracle takes seconds).
COMPARE_MAX_STAKE = HEADLINE.max_stake
PENALTIES: dict[str, LeBidouParams] = {
    rule: LeBidouParams(max_stake=COMPARE_MAX_STAKE, half_stake=rule)
    for rule in ("up", "down", "full")}
ONE_CHIP = BidouParams(reroll="keep", ranking="french")


def proposals(model: HandModel, strategy: Strategy) -> dict[str, dict[int, dict[str, float]]]:
    """Per stake s: how often it is proposed per hand played, first ("first": "stake s")
    and as a raise ("raise": "raise to s"), and the bluffs among those proposals."""
    params = model.game_params
    assert isinstance(params, LeBidouParams), "a Le Bidou hand"
    stakes = range(1, params.max_stake + 1)
    out = {kind: {s: {"per_hand": 0.0, "bluffs_per_hand": 0.0} for s in stakes}
           for kind in ("first", "raise")}
    for kind, (tc, to), node, rc, ro in behaviour.walk(model, strategy):
        if kind != "node":
            continue
        tree = model.tree((tc, to))
        mine, theirs = (rc, ro)[node.actor], (rc, ro)[node.actor.other]
        probs = strategy.betting[(tc, to, node.history)]
        for i, edge in enumerate(node.edges):
            if edge.node is None:
                continue                                  # withdraw, call: not a proposal
            facing = tree.nodes[edge.node]
            bettor_range = mine * probs[i]
            mass = bettor_range * theirs.sum()            # P(this proposal, with hand h)
            if mass.sum() <= 0:
                continue
            cell = out["first" if node.history == "" else "raise"][facing.level]
            cell["per_hand"] += float(mass.sum())
            cell["bluffs_per_hand"] += float(mass[_bluffing(model, tree, facing,
                                                            bettor_range)].sum())
    return out


def _bluffing(model: HandModel, tree, facing: Node, bettor_range: np.ndarray) -> np.ndarray:
    """The proposer's hands that are bluffs at the proposal `facing` answers (module
    docstring): those that lose a showdown to the responder's indifference hand."""
    called, withdrawn = tree.child(facing, CALL), tree.child(facing, WITHDRAW)
    assert withdrawn.kind == FOLD
    r = behaviour.indifference_between(model, tree, facing.actor, called, withdrawn,
                                       bettor_range)
    if r is None:
        return np.ones(model.num_hands, dtype=bool)
    if facing.actor.other == CAPTAIN:
        return model.compare[:, r] < 0
    return model.compare[r, :] > 0


def answers(model: HandModel, strategy: Strategy) -> dict[str, float]:
    """How the other answers the first stake, per hand played: withdraw, call or raise."""
    out = {"withdraw": 0.0, "call": 0.0, "raise": 0.0}
    for kind, (tc, to), node, rc, ro in behaviour.walk(model, strategy):
        if kind != "node" or len(node.history) != 1:
            continue
        probs = strategy.betting[(tc, to, node.history)]
        for i, action in enumerate(node.actions):
            name = action if action in (WITHDRAW, CALL) else "raise"
            out[name] += float(rc.sum() * (ro @ probs[i]))
    return out


def hand_numbers(solution: Solution) -> dict[str, Any]:
    """One Le Bidou hand: its proved value, both exploitabilities by the exact best
    response, the solver's status, how hands end and the stakes proposed."""
    from solver.hand.exact.certificate import decimal

    model, strategy, proof = solution.model, solution.strategy, solution.certificate
    if proof is None:
        raise ValueError(f"{model.game_params.describe()}: no certificate")
    e = solution.exploitability
    found = proposals(model, strategy)
    outcomes = behaviour.outcomes(model, strategy)
    return {"rules": model.game_rules, "value": float((proof.lower + proof.upper) / 2),
            "lower": decimal(proof.lower, 15, up=False),
            "upper": decimal(proof.upper, 15, up=True), "exact": proof.exact and str(
                proof.exact),
            "captain_exploitability": e.captain_exploitability,
            "opponent_exploitability": e.opponent_exploitability,
            "status": solution.status,
            "folded": outcomes.folded, "showdown": outcomes.showdown,
            "chips_moved": outcomes.chips_moved,
            "first": {str(s): v for s, v in found["first"].items()},
            "raise": {str(s): v for s, v in found["raise"].items()},
            "answers": _first_answers(model, strategy)}


def _first_answers(model: HandModel, strategy: Strategy) -> dict[str, float]:
    """`answers` as fractions of the first stakes (they sum to 1)."""
    got = answers(model, strategy)
    total = sum(got.values())
    return {k: v / total for k, v in got.items()}


def one_chip(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The one-chip game with the same dice and ranking, from the sweep table."""
    row = {SWEEP.rule_key(r): r for r in rows}[SWEEP.rule_key(ONE_CHIP)]
    return {"rules": ONE_CHIP.to_dict(), "value": row["value"], "lower": row["lower"],
            "upper": row["upper"], "exact": row["exact"]}


def compute(rows: Sequence[Mapping[str, Any]], progress: Step | None = None) -> dict[str, Any]:
    """The Le Bidou part of docs/data/results.json: the HEADLINE hand and every hand of
    PENALTIES solved and proved."""
    from solver.common.errors import SolverError
    from solver.hand.solve import solve

    wanted = {"headline": HEADLINE, **PENALTIES}
    solved: dict[LeBidouParams, dict[str, Any]] = {}
    for done, (name, params) in enumerate(wanted.items(), start=1):
        if params in solved:
            continue
        if progress is not None:
            progress(f"solving Le Bidou: {params.describe()}", done, len(wanted))
        solution = solve(params)
        if solution.certificate is None or solution.certificate.width > 1e-9:
            raise SolverError(f"{params.describe()}: its value is not proved")
        solved[params] = hand_numbers(solution)
    return {"command": COMMAND, "equilibrium": "plain LP vertex", "one_chip": one_chip(rows),
            "headline": solved[HEADLINE],
            "hands": {rule: solved[params] for rule, params in PENALTIES.items()}}
