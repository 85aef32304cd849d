"""The numbers of docs/results.md's Bidú section ("bidu" in docs/data/results.json).

Every value is proved (solver/bidu/solve.py: an interval in exact arithmetic, printed
rounded outward): the default vuelta's from the published solution (outputs/bidu/, proved
again when read), the other stacks' solved now, and the folk advice's guarantee (the
captain's throwing pinned to "stand with 6-1-1 or better", his betting and all of the other
player's play solved, then what his strategy guarantees against a best reply, exactly).
The bet sizes and the standing lines are the published equilibrium's: they depend on
which equilibrium the LP returned, and the section says so.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from games.bidou import rules
from games.bidu import betting
from games.bidu.params import CAPTAIN_FIRST, BiduParams
from solver.bidu.model import NO_STAND, VueltaModel
from solver.bidu.proof import Q, stand_weights
from solver.bidu.solution_file import read_solution
from solver.bidu.solve import BiduSolution, solve_bidu
from solver.hand.exact.certificate import Certificate

__all__ = ["FOLK_HAND", "SWEEP_COMMAND", "bidu_part", "folk_rule", "sweep_summary"]

SWEEP_COMMAND = ("bidou sweep --game bidu --faces 2,3,4,5,6 --throws 1,2,3 --stack 1,2,3,4,5 "
                 "--throwing together,captain-first --out docs/data")

FOLK_HAND = (6, 1, 1)       # "un 6 o un valor mayor": 6-1-1 or any better hand
DIGITS = 10                 # decimals of the proved bounds the section prints


def _interval(solution: BiduSolution) -> dict[str, Any]:
    lower, upper = Certificate(solution.lower, solution.upper).decimals(DIGITS)
    return {"lower": lower, "upper": upper, "width": float(solution.width),
            "replay": float(solution.replay_probability)}


def folk_rule(model: VueltaModel) -> np.ndarray:
    """Stand with FOLK_HAND or better, over the model's hands."""
    floor = rules.rank_key(FOLK_HAND, model.params.ranking)
    return np.array([rules.rank_key(h, model.params.ranking) >= floor for h in model.hands])


def _reach(model: VueltaModel, solution: BiduSolution) -> dict:
    """Each seat's chance (floats) of reaching each betting node of each stand pair, its
    own dice and play included: the pair's chance is the product (independent hands)."""
    out: dict = {}
    for seat, strategy in enumerate(solution.strategies):
        weights, scale = stand_weights(model, strategy)
        stand_mass = {key: np.array([w / scale for w in ints]) for key, ints in weights.items()}
        for stands in model.stand_pairs():
            tree = model.tree(stands)
            mine, other = stands[seat], stands[1 - seat]
            start = stand_mass[(mine, model.pub_at_stand(seat, mine, other))]
            masses = {0: start}
            for node in range(len(tree.to_act)):      # preorder: parents come first
                if node not in masses or tree.kind[node] is not None:
                    continue
                for k, child in enumerate(tree.children[node]):
                    if tree.to_act[node] == seat:
                        probs = np.array(strategy.bets[stands][node][k], dtype=float) / Q
                        masses[child] = masses[node] * probs
                    else:
                        masses[child] = masses[node]
            out[(seat, stands)] = {node: float(m.sum()) for node, m in masses.items()}
    return out


def _betting_play(model: VueltaModel, solution: BiduSolution) -> dict[str, Any]:
    """How the vuelta is bet at equilibrium: the chance of each opening (the first bet,
    whoever makes it), of a raise and its size, of a showdown and of a replay."""
    reach = _reach(model, solution)
    opening: dict[str, float] = {}
    raises: dict[str, float] = {}
    ends = {betting.REPLAY: 0.0, betting.ONE_LEFT: 0.0, betting.SHOWDOWN: 0.0}
    for stands in model.stand_pairs():
        tree = model.tree(stands)
        both = {node: reach[(0, stands)].get(node, 0.0) * reach[(1, stands)].get(node, 0.0)
                for node in range(len(tree.to_act))}
        for node, seat in enumerate(tree.to_act):
            kind = tree.kind[node]
            if kind is not None:
                ends[kind] += both[node]
                continue
            for label, child in zip(tree.labels[node], tree.children[node]):
                if label.startswith("bet "):
                    opening[label] = opening.get(label, 0.0) + both[child]
                elif label.startswith("raise to "):
                    raises[label] = raises.get(label, 0.0) + both[child]
    return {"opening": dict(sorted(opening.items(), key=lambda kv: betting.amount_of(kv[0]))),
            "raises": dict(sorted(raises.items(), key=lambda kv: betting.amount_of(kv[0]))),
            "ends": ends}


def _standing(model: VueltaModel, solution: BiduSolution) -> list[dict[str, Any]]:
    """Each seat's standing after each throw but the last, nobody having stood yet: the
    weakest hand from which every better hand is stood with (probability at least one
    half), how many weaker hands are stood with besides, and the chance of standing on
    that throw."""
    rows = []
    for seat, strategy in enumerate(solution.strategies):
        for t in range(1, model.throws):
            rate = np.array(strategy.stand[(t, NO_STAND)], dtype=float) / Q
            stands = rate >= 0.5
            floor = model.num_hands
            while floor > 0 and stands[floor - 1]:
                floor -= 1
            rows.append({"seat": seat, "throw": t,
                         "every_hand_from": None if floor == model.num_hands
                         else rules.format_hand(model.hands[floor]),
                         "weaker_stood": int(stands[:floor].sum()),
                         "chance_of_standing": float(sum(
                             float(model.chances[h]) * rate[h]
                             for h in range(model.num_hands)))})
    return rows


def bidu_part(published: Path, params: BiduParams = BiduParams(),
              report: Optional[Callable[[str], None]] = None) -> dict[str, Any]:
    """The section's numbers for `params` (the published solution's rules): that solution
    proved again, every smaller stack, the captain-first variant and the folk advice for
    each seat solved now (minutes at the default rules: four LPs each)."""
    say = report or (lambda _: None)
    say("the published vuelta, proved again")
    default = read_solution(published, params)
    by_stack = []
    for stack in range(1, params.stack):
        say(f"stack {stack}")
        by_stack.append({"stack": stack, **_interval(solve_bidu(
            dataclasses.replace(params, stack=stack)))})
    by_stack.append({"stack": params.stack, **_interval(default)})
    say("the captain throwing first")
    sequential = solve_bidu(dataclasses.replace(params, throwing=CAPTAIN_FIRST))
    say("the folk advice, the captain's throwing pinned")
    rule = folk_rule(default.model)
    pins = {(t, pub): rule for t in range(1, params.throws)
            for pub in default.model.pubs(0, t)}
    folk = solve_bidu(params, captain_stands=pins)
    guarantee = Certificate(folk.lower, folk.lower).decimals(DIGITS)[0]
    cost = Certificate(default.lower - folk.lower, default.upper - folk.lower).decimals(DIGITS)
    say("the folk advice, the other player's throwing pinned")
    other_pins = {(t, pub): rule for t in range(1, params.throws)
                  for pub in default.model.pubs(1, t)}
    other = solve_bidu(params, other_stands=other_pins)
    concedes = Certificate(other.upper, other.upper).decimals(DIGITS)[1]
    other_cost = Certificate(other.upper - default.upper,
                             other.upper - default.lower).decimals(DIGITS)
    return {
        "rules": params.to_dict(),
        "default": _interval(default),
        "by_stack": by_stack,
        "captain_first": _interval(sequential),
        "betting": _betting_play(default.model, default),
        "standing": _standing(default.model, default),
        "folk": {"hand": rules.format_hand(FOLK_HAND), "hands": int(rule.sum()),
                 "chance": float(sum(c for c, r in zip(default.model.chances, rule) if r)),
                 "captain_guarantees": guarantee, "cost_lower": cost[0],
                 "cost_upper": cost[1], "other_concedes": concedes,
                 "other_cost_lower": other_cost[0], "other_cost_upper": other_cost[1]},
    }


def sweep_summary(data_dir: Path) -> dict[str, Any]:
    """What the sweep's table (`SWEEP_COMMAND`, bidu_sweep.csv) says: how many rule sets,
    every one proved, the widest interval, the sign of the captain's value, the value at
    the largest stack by faces and throws, and what throwing at once is worth to the
    captain against throwing first (each pair of rows' proved bounds, outward)."""
    from solver.pipeline.bidu_sweep import SWEEP

    rows = SWEEP.read_rows(data_dir)
    proved = [r for r in rows if r["status"] == "proved"]
    together = {(r["faces"], r["throws"], r["stack"]): r for r in proved
                if r["throwing"] == "together"}
    first = {(r["faces"], r["throws"], r["stack"]): r for r in proved
             if r["throwing"] == CAPTAIN_FIRST}
    stack = max(k[2] for k in together)
    gains = [(together[k]["lower"] - first[k]["upper"], together[k]["upper"] - first[k]["lower"])
             for k in together if k in first]
    return {
        "command": SWEEP_COMMAND,
        "rule_sets": len(rows), "proved": len(proved),
        "widest": max(r["upper"] - r["lower"] for r in proved),
        "captain_always_behind": all(r["upper"] < 0 for r in together.values()),
        "stack": stack,
        "by_faces_throws": [{"faces": f, "throws": t, "value": together[(f, t, stack)]["value"]}
                            for (f, t, s) in sorted(together) if s == stack],
        "together_over_first": {"least": min(low for low, _ in gains),
                                "most": max(high for _, high in gains),
                                "pairs": len(gains)},
        # one throw: nobody chooses, so the order cannot matter (each pair's bounds meet)
        "one_throw_same": all(abs(together[k]["value"] - first[k]["value"]) < 1e-12
                              for k in together if k in first and k[1] == 1),
    }
