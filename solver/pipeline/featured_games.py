"""The featured games of docs/results.md (the default game, `--reroll keep`, `--ranking
french` with and without the cycle), solved exactly, and what the page says of each: the
proved value, the equilibrium's behaviour (read from the strategies the certificate proved),
the game without betting, and the folk stopping rule's cost."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou.params import BidouParams
from solver.analysis import behaviour
from solver.analysis.no_betting import ThrowGame, exact_guarantee, solve_throw_game
from solver.common.progress import Step
from solver.exploit import locking
from solver.hand.model import HandModel
from solver.hand.reach import own_reach
from solver.hand.result import Solution
from solver.hand.strategy import Strategy

FEATURED: dict[str, BidouParams] = {
    "default": BidouParams(),
    "keep": BidouParams(reroll="keep"),
    "french": BidouParams(ranking="french"),
    "french_unbeaten": BidouParams(ranking="french", aces_beat_bidou=False),
}


def stop_summary(model: HandModel, strategy: Strategy) -> list[dict[str, Any]]:
    """Each throwing decision in words: the hands that always stop, never stop, or mix."""
    order = [h for h in np.argsort(-model.strength, kind="stable")]      # strongest first
    out = []
    for row in behaviour.stop_table(model, strategy):
        stop = row["stop"]
        always = [stop[h] > 1 - 1e-9 for h in order]
        top = always.index(False) if False in always else len(always)
        name = [rules.format_hand(model.hands[h]) for h in order]
        mixed = {name[i]: round(float(stop[h]), 4) for i, h in enumerate(order)
                 if 1e-9 < stop[h] < 1 - 1e-9}
        out.append({"player": row["player"], "captain_throws": row["captain_throws"],
                    "throw": row["throw"], "stop_overall": row["stop_overall"],
                    "hands": model.num_hands, "always_stop": int(sum(always)),
                    "stops_from": name[top - 1] if top else None, "stops_from_count": top,
                    "also_stops": [name[i] for i in range(top, len(order)) if always[i]],
                    "mixed": mixed})
    return out


def behaviour_shift(a: tuple[HandModel, Strategy], b: tuple[HandModel, Strategy], top: int = 6
                    ) -> list[dict[str, Any]]:
    """Where two strategies of the same hands differ most: per player and hand, the sum over
    his decisions of (average own reach) x (total variation between the two mixes)."""
    (model, s1), (_, s2) = a, b
    shift: dict[tuple[str, str, int], float] = {}
    for role in (CAPTAIN, OPPONENT):
        name = ("captain", "opponent")[role]
        r1, b1 = own_reach(model, s1, role)
        r2, b2 = own_reach(model, s2, role)
        reach = (r1 + r2) / 2                      # (contexts, T-1, A, n), per action row
        tv = 0.5 * np.abs(s1.throw[role] - s2.throw[role]).sum(axis=-2)
        throw = (reach[..., 0, :] * tv).sum(axis=(0, 1))
        for h in range(model.num_hands):
            shift[(name, "throwing", h)] = float(throw[h])
        for key, r in b1.items():
            avg = (r[0] + b2[key][0]) / 2
            tv = 0.5 * np.abs(s1.betting[key] - s2.betting[key]).sum(axis=0)
            for h in range(model.num_hands):
                shift[(name, "betting", h)] = shift.get((name, "betting", h), 0.0) + \
                    float(avg[h] * tv[h])
    ranked = sorted(shift.items(), key=lambda kv: -kv[1])[:top]
    return [{"player": p, "part": part, "hand": rules.format_hand(model.hands[h]),
             "shift": value} for (p, part, h), value in ranked]


def folk_rule(model: HandModel) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """The hands that stop under the folk rule (a 6 or better: `locking.folk_stops`, the
    rule `bidou exploit --profile folk-stop` locks), and the pure throwing strategy it
    gives each player (the opponent's the same whatever the captain's count)."""
    rule = locking.folk_throwing(model)
    return locking.folk_stops(model), {CAPTAIN: rule, OPPONENT: np.stack([rule] * model.throws)}


def folk_costs(model: HandModel, equilibrium: Fraction) -> dict[str, Any]:
    """The folk stopping rule in the game without betting: what each player guarantees
    with it (exact, against a best response), against the game's proved value."""
    stops, rule = folk_rule(model)
    captain = exact_guarantee(model, rule[CAPTAIN], player=0)
    opponent = exact_guarantee(model, rule[OPPONENT], player=1)
    return {"stop_hands": int(stops.sum()), "stop_probability": float(model.prior[stops].sum()),
            "captain_guarantee": str(captain), "opponent_guarantee": str(opponent),
            "captain_cost": float(equilibrium - captain),
            "opponent_cost": float(opponent - equilibrium)}


def folk_costs_with_betting(model: HandModel, value: Fraction) -> dict[str, Any]:
    """The folk stopping rule in the game itself: the restricted game where one player's
    throwing follows the rule and everything else is optimized (the LP with his throwing
    pinned), and what his solved strategy guarantees, exactly, against a best response."""
    from solver.hand.exact.certificate import exact_best_response
    from solver.hand.lp.sequence_form import solve_lp

    _, pinned = folk_rule(model)
    out: dict[str, Any] = {}
    for player, name in ((CAPTAIN, "captain"), (OPPONENT, "opponent")):
        lp = solve_lp(model, maximizer=player, fixed_throw=pinned[player])
        strategy = lp.strategy.copy()
        strategy.throw[player][...] = pinned[player].reshape(strategy.throw[player].shape)
        other = OPPONENT if player == CAPTAIN else CAPTAIN
        best = exact_best_response(model, strategy, other)     # the other's payoff
        guarantee = -best if player == CAPTAIN else best        # to the captain
        cost = value - guarantee if player == CAPTAIN else guarantee - value
        out[name] = {"lp_value": lp.value, "guarantee": str(guarantee),
                     "cost": float(cost)}
    return out


def game_results(name: str, solution: Solution, throw_game: ThrowGame | None = None
                 ) -> dict[str, Any]:
    """A featured game's proved value and its equilibrium behaviour."""
    model, strategy = solution.model, solution.strategy
    proof = solution.certificate
    if proof is None:
        raise ValueError(f"{name}: no certificate")
    value = solution.value if proof.exact is None else float(proof.exact)
    out: dict[str, Any] = {"rules": model.params.to_dict(), "value": value,
                           "certificate": proof.to_dict(),
                           "exploitability": solution.exploitability.exploitability,
                           "outcomes": behaviour.outcomes(model, strategy).to_dict(),
                           "bluffs": behaviour.bluffs(model, strategy).to_dict(),
                           "bluff_share": behaviour.bluffs(model, strategy).frequency(),
                           "stops": stop_summary(model, strategy)}
    if throw_game is not None:
        out["no_betting"] = {"value": throw_game.value,
                             "certificate": throw_game.certificate.to_dict()}
        if model.params.reroll == "all" and model.params.faces == 6:
            middle = (throw_game.certificate.lower + throw_game.certificate.upper) / 2
            out["folk"] = folk_costs(model, middle)
            out["folk"]["equilibrium_width"] = float(throw_game.certificate.width)
            proved = (proof.lower + proof.upper) / 2
            out["folk"]["with_betting"] = folk_costs_with_betting(model, proved)
    return out


def solve_featured(progress: Step | None = None
                   ) -> tuple[dict[str, Solution], dict[str, ThrowGame]]:
    """The featured games solved with their refined equilibrium (`solve_hand`: exact, the
    value proved, and the strategy the float rounding of those exact probabilities,
    measured again; docs/refined.md), and their no-betting games.

    The behaviour tables and the chip counter describe one equilibrium among many: the
    exact one is a fixed point of the LP's support, the same on every machine, where the
    LP's floats (and its choices where nobody goes) move with the machine. SolverError if
    a featured game's exact equilibrium is not recovered (all four are)."""
    from solver.common.errors import SolverError
    from solver.hand.model import build_model
    from solver.pipeline.hand import solve_hand

    solutions, throw_games = {}, {}
    for done, (name, params) in enumerate(FEATURED.items(), start=1):
        if progress is not None:
            progress(f"solving {name} exactly", done, len(FEATURED) + 1)
        found = solve_hand(params, exact=True)
        if found.exact is None:
            raise SolverError(f"the exact equilibrium of the featured game {name} was not "
                              f"recovered ({found.why_not}); its behaviour would be the "
                              f"LP's, which moves with the machine")
        solutions[name] = found.solution
        throw_games[name] = solve_throw_game(build_model(params))
    return solutions, throw_games
