"""docs/results.md: the findings, each with its number, table or plot, and command.

    bidou sweep --faces 2,3,4,5,6 --throws 1,2,3 --max-level 1,2,3,4 --reroll all,keep \
        --ranking encyclopedia,french --aces-beat-bidou true,false --exact --out docs/data
    bidou results            # docs/data/results.json, docs/results.md, docs/img/results_*.png

`compute` reads the sweep table (every value in it carries its certified interval, and the
exact fraction where it was proved) and solves the featured games exactly (their behaviour
is read from the strategies the certificate proved); `render` turns the numbers, kept in
`docs/data/results.json`, into the Markdown. The test holds both: the Markdown is the
rendering of the JSON, the JSON's sweep tables are those of the committed table, a few rows
and the default game are solved again.
"""

from __future__ import annotations

import io
import json
import math
import re
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT
from games.bidou.params import BidouParams, ParameterError
from solver.analysis import behaviour
from solver.analysis.no_betting import exact_guarantee, solve_throw_game
from solver.common.progress import Step
from solver.exploit import locking
from solver.hand.exact.certificate import decimal
from solver.hand.model import HandModel
from solver.hand.reach import own_reach

SCHEMA, SCHEMA_VERSION = "bidou-results", 1
SWEEP_COMMAND = ("bidou sweep --faces 2,3,4,5,6 --throws 1,2,3 --max-level 1,2,3,4 "
                 "--reroll all,keep --ranking encyclopedia,french --aces-beat-bidou true,false "
                 "--exact --out docs/data")
RESULTS_COMMAND = "bidou results"
FEATURED: dict[str, BidouParams] = {
    "default": BidouParams(),
    "keep": BidouParams(reroll="keep"),
    "french": BidouParams(ranking="french"),
    "french_unbeaten": BidouParams(ranking="french", aces_beat_bidou=False),
}
VARIANTS = {"all, encyclopedia": ("all", "encyclopedia", True),
            "keep, encyclopedia": ("keep", "encyclopedia", True),
            "all, french, aces beat bidou": ("all", "french", True),
            "all, french, bidou unbeaten": ("all", "french", False),
            "keep, french, aces beat bidou": ("keep", "french", True),
            "keep, french, bidou unbeaten": ("keep", "french", False)}


# --- the sweep's tables ----------------------------------------------------------------------

def sweep_grid() -> list[BidouParams]:
    from solver.app.sweep import build_grid

    return build_grid("2,3,4,5,6", "1,2,3", "1,2,3,4", "all,keep", "encyclopedia,french",
                      "true,false")


def _cell(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"value": row["value"], "lower": row["lower"], "upper": row["upper"],
            "exact": row["exact"]}


def _difference(a: Mapping[str, Any], b: Mapping[str, Any]) -> float:
    """a's value minus b's, exactly where both are proved (no rounding noise), else floats."""
    if a["exact"] is not None and b["exact"] is not None:
        return float(Fraction(a["exact"]) - Fraction(b["exact"]))
    return a["value"] - b["value"]


# An exact value in the sweep table: a signed fraction of plain digits, bounded before
# Fraction() reads it (an exponent would make it grind; garbage would be a traceback).
_EXACT_VALUE = re.compile(r"-?[0-9]{1,400}(?:/[0-9]{1,400})?", re.ASCII)


def checked_rows(rows: Sequence[Mapping[str, Any]]) -> None:
    """ParameterError (one line naming the row) unless every row's value, lower and upper
    are finite numbers and its exact value is empty or a fraction "p/q"."""
    from solver.app.sweep import rule_key

    for row in rows:
        for name in ("value", "lower", "upper"):
            value = row[name]
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value):
                raise ParameterError(f"the sweep table's row {rule_key(row)} has {name} "
                                     f"{value!r:.40}, not a number")
        exact = row["exact"]
        if exact is not None and not (isinstance(exact, str) and _EXACT_VALUE.fullmatch(exact)
                                      and not re.fullmatch(r"-?[0-9]+/0+", exact)):
            raise ParameterError(f"the sweep table's row {rule_key(row)} has exact value "
                                 f"{exact!r:.40}, not a fraction p/q")


def sweep_tables(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The value tables of the findings, from the sweep's rows (which must cover the grid)."""
    from solver.app.sweep import rule_key

    checked_rows(rows)
    by_key = {rule_key(r): r for r in rows}
    missing = [p for p in sweep_grid() if rule_key(p) not in by_key]
    if missing:
        raise ParameterError(f"the sweep table lacks {len(missing)} rule sets (first: "
                             f"{missing[0].describe()}); run `{SWEEP_COMMAND}`")

    def get(faces, throws, level, variant):
        reroll, ranking, aces = VARIANTS[variant]
        return by_key[(faces, throws, level, reroll, ranking, aces)]

    faces_throws = {v: {f"{f},{t}": _cell(get(f, t, 4, v)) for f in range(2, 7)
                        for t in range(1, 4)} for v in VARIANTS}
    levels = {v: {f"{t},{m}": _cell(get(6, t, m, v)) for t in range(1, 4) for m in range(1, 5)}
              for v in VARIANTS}
    cycle = {r: {f"{f},{t}": _difference(get(f, t, 4, f"{r}, french, aces beat bidou"),
                                         get(f, t, 4, f"{r}, french, bidou unbeaten"))
                 for f in range(2, 7) for t in range(1, 4)} for r in ("all", "keep")}
    level_effect = {scope: {f"{m}": max(abs(_difference(by_key[k[:2] + (m,) + k[3:]],
                                                         by_key[k]))
                                        for k in by_key if k[2] == 4 and k[0] in faces)
                            for m in (1, 2, 3)}
                    for scope, faces in (("6 faces", (6,)), ("all", (2, 3, 4, 5, 6)))}
    negative = sum(1 for r in rows if r["upper"] < 0)
    return {"faces_throws": faces_throws, "levels": levels, "cycle": cycle,
            "rule_sets": len(by_key), "captain_behind": negative,
            "level_effect": level_effect,
            "exact_rows": sum(1 for r in rows if r["exact"] is not None),
            "widest_interval": max(r["upper"] - r["lower"] for r in rows)}


# --- the featured games -----------------------------------------------------------------------

def stop_summary(model: HandModel, strategy) -> list[dict[str, Any]]:
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


def behaviour_shift(a: tuple[HandModel, Any], b: tuple[HandModel, Any], top: int = 6
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


def game_results(name: str, solution, throw_game=None) -> dict[str, Any]:
    """A featured game's proved value and its equilibrium behaviour."""
    model, strategy = solution.model, solution.strategy
    proof = solution.certificate
    value = solution.value if proof.exact is None else float(proof.exact)
    out = {"rules": model.params.to_dict(), "value": value,
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


def compute(sweep_rows: Sequence[Mapping[str, Any]], solutions: Mapping[str, Any],
            throw_games: Mapping[str, Any], round_solution=None) -> dict[str, Any]:
    """Every number of docs/results.md, as one JSON document."""
    for name, solution in solutions.items():
        if solution.certificate is None:
            raise ValueError(f"{name}: no certificate")
    games = {name: game_results(name, s, throw_games.get(name))
             for name, s in solutions.items()}
    french, unbeaten = solutions["french"], solutions["french_unbeaten"]
    doc = {"schema": SCHEMA, "schema_version": SCHEMA_VERSION,
           "sweep": sweep_tables(sweep_rows), "float_decimals": FLOAT_DECIMALS,
           "equilibrium": EQUILIBRIUM, "games": stable(games),
           "cycle_shift": stable(behaviour_shift((french.model, french.strategy),
                                                 (unbeaten.model, unbeaten.strategy)))}
    if round_solution is not None:
        doc["round"] = stable(chip_counting_results(round_solution, solutions["default"]))
    return doc


# The floats computed here (behaviour, costs, the round's Markov chain) carry rounding that
# depends on the machine's BLAS kernels in their 16th digit; the document keeps 12 decimals,
# which every machine computes alike (the sweep's numbers are the table's, kept whole).
FLOAT_DECIMALS = 12
# Which equilibrium the behaviour and the chip counter's numbers describe: the exact one,
# the same on every machine (an LP vertex moves with the machine's floats).
EQUILIBRIUM = "exact"


def stable(data: Any) -> Any:
    """`data` with every float rounded to FLOAT_DECIMALS decimals (exact fractions, kept as
    strings, and integers untouched)."""
    if isinstance(data, float):
        return round(data, FLOAT_DECIMALS) + 0.0       # + 0.0: no "-0.0"
    if isinstance(data, dict):
        return {key: stable(value) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [stable(value) for value in data]
    return data


def chip_counting_results(round_solution, hand_solution) -> dict[str, Any]:
    """The round's first state when one player plays the hand game's equilibrium at every
    hand (chip-counting play) against a best reply, both sides proved
    (`round.compare.chip_counting_round`), beside the round's proved value.

    Not kept: what the chip counter gets against the round's solved equilibrium (a Markov
    chain, `round.evaluate.pair_values`). It depends on which of the round's equilibria
    the other plays, and the solved one, an LP vertex of degenerate stages, moves with the
    machine's floats: 0.422378 here, 0.422402 with another CPU's BLAS kernels, 0.422505 on
    a fresh clone, where everything else on the page stayed."""
    from solver.round.certify import certify_round
    from solver.round.compare import chip_counting_round
    from solver.round.states import start

    first = start(round_solution.params.chips)
    proof = certify_round(round_solution).states[first]
    counting = chip_counting_round(round_solution, hand_solution.model,
                                   hand_solution.strategy).states[first]
    value = (proof.lower + proof.upper) / 2
    # the proved bounds are exact rationals of the certificate's float fixed point, whose
    # far digits move with the machine: kept as decimals rounded outward, still proved
    return {"rules": round_solution.params.to_dict(),
            "value": float(value), "lower": decimal(proof.lower, FLOAT_DECIMALS, up=False),
            "upper": decimal(proof.upper, FLOAT_DECIMALS, up=True),
            "captain_guarantee": decimal(counting.lower, FLOAT_DECIMALS, up=False),
            "opponent_concedes": decimal(counting.upper, FLOAT_DECIMALS, up=True),
            "captain_cost": float(value - counting.lower),
            "opponent_cost": float(counting.upper - value)}


def solve_featured(progress: Step | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
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


# --- the Markdown ------------------------------------------------------------------------------


def _variant_tables(tables: dict, row_name: str, rows, column_names: list[str], columns
                    ) -> list[str]:
    """One Markdown table of values per rule variant: `tables[variant]["row,column"]`."""
    lines: list[str] = []
    for variant in ("all, encyclopedia", "keep, encyclopedia", "all, french, aces beat bidou"):
        table = tables[variant]
        lines += [f"*reroll {variant}*", "", f"| {row_name} | " + " | ".join(column_names)
                  + " |", "|" + "---|" * (len(column_names) + 1)]
        for r in rows:
            lines.append(f"| {r} | " + " | ".join(_value(table[f"{r},{c}"]) for c in columns)
                         + " |")
        lines.append("")
    return lines


def _value(cell: Mapping[str, Any], digits: int = 5) -> str:
    return f"{cell['value']:+.{digits}f}"


PROVED_DECIMALS = 15


def _proved(cert: Mapping[str, Any]) -> str:
    """The exact value, or the proved interval rounded outward to PROVED_DECIMALS decimals
    (its width is ~1e-17: the far digits move with the machine's floats; cutting the
    20-character decimals rounded a negative lower bound up, inside the interval)."""
    if cert.get("exact"):
        return f"exactly {cert['exact']}"
    lower = decimal(Fraction(cert["lower"]), PROVED_DECIMALS, up=False)
    upper = decimal(Fraction(cert["upper"]), PROVED_DECIMALS, up=True)
    return f"in [{lower}, {upper}]"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _points(x: float) -> str:
    """A difference of probabilities, in percentage points."""
    return f"{100 * x:.2f} percentage points"


def render(doc: Mapping[str, Any]) -> str:
    """docs/results.md from the results document (pure: the same JSON gives the same text)."""
    s, g = doc["sweep"], doc["games"]
    lines = _introduction(s, "le_bidou" in doc, "multi" in doc)
    lines += _disadvantage_section(s, g["default"])
    lines += _behaviour_section(g)
    lines += _cycle_section(doc)
    lines += _split_section(doc)
    if "le_bidou" in doc:
        from solver.app import le_bidou_results

        lines += le_bidou_results.render(doc["le_bidou"], 6)
    if "multi" in doc:
        from solver.app import multi_results

        lines += multi_results.render(doc["multi"], 7 if "le_bidou" in doc else 6)
    return "\n".join(lines).rstrip() + "\n"


def _others(le_bidou: bool, multi: bool) -> str:
    """The introduction's word on the sections about other games."""
    parts = (["in section 6, Le Bidou, the French game of stakes"] if le_bidou else []) + (
        [f"in section {7 if le_bidou else 6}, multi-hand Bidou with three and four players, "
         "whose numbers are certified epsilon-equilibria of `bidou multi` runs, not the "
         "proved values of the rest"] if multi else [])
    return f" (and, {'; '.join(parts)})" if parts else ""


def _introduction(s: Mapping[str, Any], le_bidou: bool = False, multi: bool = False
                  ) -> list[str]:
    """What the page is, where its numbers come from, and how to reproduce them."""
    return [
        "# Results",
        "",
        "Findings about two-hand Bidou" + _others(le_bidou, multi)
        + ", each with its number, its table or plot, and the "
        "command that reproduces it. Every value below comes from a strategy pair whose value "
        "the exact certificate (`solver/hand/exact/certificate.py`) proved: an interval of width "
        "below "
        f"{s['widest_interval']:.0e} around it, or the exact fraction where `--exact` proved "
        f"it ({s['exact_rows']} of the sweep's {s['rule_sets']} rule sets). Generated by "
        "`bidou results` from `docs/data/sweep.csv` (the sweep below) and "
        "exact solves of four featured games; the numbers are kept in `docs/data/results.json`"
        " and a test (`tests/test_results.py`) checks that this page is their rendering, that "
        "the tables are those of the committed sweep, and re-solves a sample. The sweep's "
        "intervals are enclosures: in every row of `docs/data/sweep.csv`, read as floats or "
        "as the decimals printed, `lower <= value <= upper` and `lower <= exact <= upper` "
        "(the bounds rounded outward), and no exploitability is negative "
        "(`tests/test_sweep_table.py`).",
        "",
        "*Which numbers depend on the equilibrium chosen.* A game's value is the same for "
        "every equilibrium: the values, intervals and differences of section 1, 3 and 4, "
        "and the folk rule's guarantees of section 5, do not depend on it. The behaviour "
        "of section 2, the cycle's shift and outcomes in section 3 and the chip counter's "
        "numbers in section 5 do, and say so: they come from the refined equilibrium "
        "(`bidou solve`, docs/refined.md: exact, a best reply at every decision, reached "
        "or not), the same on every machine, "
        f"and the document keeps its floats to {FLOAT_DECIMALS} decimals.",
        "",
        "Reproduce everything:",
        "",
        "```sh",
        SWEEP_COMMAND,
        RESULTS_COMMAND,
        *(["bidou results --le-bidou     # section 6 alone"] if le_bidou else []),
        *(["python -m solver.app.multi_results --default DIR ...   # the multi-hand section"]
          if multi else []),
        "```",
        "",
    ]


def _disadvantage_section(s: Mapping[str, Any], d: Mapping[str, Any]) -> list[str]:
    """Section 1: how much the captain loses across the sweep, and why."""
    o = d["outcomes"]
    lines = [
        "## 1. The captain's disadvantage, and why",
        "",
        f"The captain loses in **{s['captain_behind']} of the {s['rule_sets']}** rule sets of "
        "the sweep (proved: the upper end of the certified interval is negative). In the "
        f"default game he loses **{_value(d, 6)}** chips per hand "
        f"({_proved(d['certificate'])}).",
        "",
        "Value to the captain (chips per hand) by number of faces (rows) and most throws "
        "(columns), `--max-level 4`:",
        "",
    ]
    lines += _variant_tables(s["faces_throws"], "faces", range(2, 7),
                             ["1 throw", "2 throws", "3 throws"], range(1, 4))
    nb = d["no_betting"]
    one = s["faces_throws"]["all, encyclopedia"]["6,1"]
    first = sum(p for k, p in o["by_public"].items()
                if int(k.split(",")[0]) <= int(k.split(",")[1]))
    lines += [
        "![value by faces and throws](img/results_value.png)",
        "",
        "Why. Two things act against the captain, and the sweep separates them:",
        "",
        "- *He bets first.* With one throw nobody chooses anything before the betting, yet "
        f"the captain, who must open, loses {_value(one)} (6 faces, 1 throw): acting first in "
        "the betting costs him that much. With more throws he opens only when he made no "
        f"more throws than the opponent: {_pct(first)} of hands in the default game.",
        f"- *He shows his throw count first.* With more throws the opponent throws knowing how "
        f"many throws the captain needed. With the betting removed (both always go to a "
        f"showdown at level 1, section 4) the default game is worth {nb['value']:+.6f} to the "
        f"captain ({_proved(nb['certificate'])}): the information alone costs him more than "
        f"the whole game does ({_value(d, 6)}); the betting gives "
        f"{d['value'] - nb['value']:+.6f} of it back.",
        "",
        "The one-chip limit: value by most throws (rows) and `--max-level` (columns), 6 faces:",
        "",
    ]
    lines += _variant_tables(s["levels"], "throws", range(1, 4),
                             [f"level {m}" for m in range(1, 5)], range(1, 5))
    effect = s["level_effect"]
    six, every = effect["6 faces"], effect["all"]
    lines += [
        "How much each limit changes the value, the largest difference from `--max-level 4` "
        "over every throw count, reroll rule and ranking of the sweep (chips per hand):",
        "",
        "| | level 1 (no raise) | level 2 | level 3 |",
        "|---|---|---|---|",
        "| 6 faces | " + " | ".join(f"{six[m]:.2e}" for m in "123") + " |",
        "| 2 to 6 faces | " + " | ".join(f"{every[m]:.2e}" for m in "123") + " |",
        "",
        "![value by max level](img/results_levels.png)",
        "",
    ]
    return lines


def _behaviour_section(g: Mapping[str, Any]) -> list[str]:
    """Section 2: how the equilibrium plays (outcomes, bluffs, stopping, public states)."""
    d = g["default"]
    o = d["outcomes"]
    lines = [
        "## 2. Behaviour at equilibrium",
        "",
        "*These numbers depend on the equilibrium chosen.* They describe the refined "
        "equilibrium `bidou solve` gives (exact; its float rounding; the certificate proves "
        "its value; `--plain` gives an arbitrary LP vertex instead). Other equilibria may "
        "behave differently where the game leaves a choice; the numbers describe this one.",
        "",
        "| | default | `--reroll keep` | `--ranking french` |",
        "|---|---|---|---|",
    ]
    names = ("default", "keep", "french")
    rows = [("hands ending with both passing", lambda x: _pct(x["outcomes"]["passed"])),
            ("hands ending in a fold", lambda x: _pct(x["outcomes"]["folded"])),
            ("hands ending in a showdown", lambda x: _pct(x["outcomes"]["showdown"])),
            ("chips changing hands per hand, E\\|payoff\\|",
             lambda x: f"{x['outcomes']['chips_moved']:.4f}"),
            ("captain's expected throws", lambda x: f"{x['outcomes']['captain_throws']:.4f}"),
            ("opponent's expected throws", lambda x: f"{x['outcomes']['opponent_throws']:.4f}"),
            ("bets and raises per hand",
             lambda x: f"{sum(v['per_hand'] for v in x['bluffs'].values()):.4f}"),
            ("share of bets and raises that are bluffs", lambda x: _pct(x["bluff_share"]))]
    for label, get in rows:
        lines.append(f"| {label} | " + " | ".join(get(g[n]) for n in names) + " |")
    lines += [
        "",
        "Bluffs by player and action (default game; per hand played, and the share of that "
        "action that is a bluff):",
        "",
        "| who, action | per hand | bluffs per hand | bluff share |",
        "|---|---|---|---|",
    ]
    for key, v in d["bluffs"].items():
        lines.append(f"| {key} | {v['per_hand']:.4f} | {v['bluffs_per_hand']:.4f} | "
                     f"{_pct(v['bluff_share'])} |")
    lines += [
        "",
        "*Bluff*, precisely: at a bet or raise to level L, the bettor's range is the "
        "distribution of his hand given that he makes it; the responder's *indifference "
        "point* is the weakest hand (lowest in the ranking table) with which calling, a "
        "showdown at level L against that range, is worth at least folding (the option to "
        "raise left out). The bet is a bluff when the bettor's hand loses a showdown to that "
        "hand (every bet, if no hand should call). `solver/analysis/behaviour.py` computes it; "
        "`tests/test_behaviour.py` checks it against brute-force enumeration.",
        "",
        "When each hand stops throwing (default game). `P(stop)`: the probability that the "
        "turn ends by stopping after that throw (the opponent's, given the captain's count); "
        "then the hands that always stop: every hand from the one named up (how many), and "
        "any weaker ones; then the hands that mix, with their probability of stopping. All "
        "other hands throw again.",
        "",
        "| player | captain's throws | throw | P(stop) | stops with every hand from | "
        "also stops with | mixes |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in d["stops"]:
        mixed = ", ".join(f"{h} {_pct(p)}" for h, p in row["mixed"].items()) or "none"
        top = f"{row['stops_from']} ({row['stops_from_count']} of {row['hands']})" \
            if row["stops_from"] else "none"
        lines.append(f"| {row['player']} | {row['captain_throws'] or ''} | {row['throw']} | "
                     f"{_pct(row['stop_overall'])} | {top} | "
                     f"{', '.join(row['also_stops']) or 'none'} | {mixed} |")
    lines += [
        "",
        "How often each public state (captain's throws, opponent's throws) occurs, default "
        "game: " + ", ".join(f"({k}) {_pct(v)}" for k, v in o["by_public"].items()) + ".",
        "",
        "The full strategies are in `outputs/` (`bidou outputs`); `bidou export` draws them.",
        "",
    ]
    return lines


def _cycle_section(doc: Mapping[str, Any]) -> list[str]:
    s, g = doc["sweep"], doc["games"]
    on, off = g["french"], g["french_unbeaten"]
    lines = [
        "## 3. The French ranking's cycle (three aces beat the bidou)",
        "",
        f"With `--ranking french` the default game is worth {_value(on, 6)} "
        f"({_proved(on['certificate'])}) with the cycle and {_value(off, 6)} "
        f"({_proved(off['certificate'])}) without it (`--no-aces-beat-bidou`): the cycle "
        f"moves the value by {on['value'] - off['value']:+.2e} chips per hand.",
        "",
        "Value with the cycle minus without it, by faces (rows) and throws (columns), level 4:",
        "",
        "| faces | reroll all: 1 | 2 | 3 | reroll keep: 1 | 2 | 3 |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in range(2, 7):
        lines.append(f"| {f} | " + " | ".join(f"{s['cycle'][r][f'{f},{t}']:+.2e}"
                                              for r in ("all", "keep") for t in range(1, 4))
                     + " |")
    lines += [
        "",
        "Where play changes (6 faces, reroll all): per player and hand, the reach-weighted "
        "total variation between the two exact equilibria's mixes, summed over his "
        "decisions (largest first; this table and the outcomes below depend on the "
        "equilibria chosen, the value differences above do not):",
        "",
        "| player | part | hand | shift |",
        "|---|---|---|---|",
    ]
    for row in doc["cycle_shift"]:
        lines.append(f"| {row['player']} | {row['part']} | {row['hand']} | "
                     f"{row['shift']:.4f} |")
    lines += [
        "",
        "Outcomes with and without the cycle: both passing "
        f"{_pct(on['outcomes']['passed'])} / {_pct(off['outcomes']['passed'])}, folds "
        f"{_pct(on['outcomes']['folded'])} / {_pct(off['outcomes']['folded'])}, showdowns "
        f"{_pct(on['outcomes']['showdown'])} / {_pct(off['outcomes']['showdown'])}, bluff "
        f"share {_pct(on['bluff_share'])} / {_pct(off['bluff_share'])}. With the betting "
        f"removed (section 4) the value is {on['no_betting']['value']:+.12f} with the cycle "
        f"and {off['no_betting']['value']:+.12f} without it: the cycle acts through the "
        "betting.",
        "",
    ]
    return lines


def _split_section(doc: Mapping[str, Any]) -> list[str]:
    g = doc["games"]
    lines = [
        "## 4. Throwing against betting: the value with betting removed",
        "",
        "Both players always go to a showdown at level 1 (the captain wins 2 chips, loses 2, "
        "or ties); only the throwing is left. `solver/analysis/no_betting.py` solves this "
        "throw-only game with its own maximin LP over throwing strategies and proves the "
        "value with exact best responses (`tests/test_no_betting.py` checks the LP against "
        "the normal form's LP over every pure strategy).",
        "",
        "| game | with betting | betting removed | the betting's share |",
        "|---|---|---|---|",
    ]
    labels = {"default": "default", "keep": "`--reroll keep`", "french": "`--ranking french`",
              "french_unbeaten": "`--ranking french --no-aces-beat-bidou`"}
    for name, label in labels.items():
        x = g[name]
        nb = x["no_betting"]["value"]
        lines.append(f"| {label} | {x['value']:+.6f} | {nb:+.6f} "
                     f"({_proved(x['no_betting']['certificate'])}) | "
                     f"{x['value'] - nb:+.6f} |")
    folk = g["default"]["folk"]
    lines += [
        "",
        "## 5. The folk advice: stop with a 6 or better",
        "",
        "Seed 000: \"A los jugadores que hayan sacado un 6 o un valor mayor, se les aconseja "
        f"no volver a tirar\". Read as: stop with any hand at least as good as 6-1-1 "
        f"({folk['stop_hands']} of 56 hands, {_pct(folk['stop_probability'])} of throws), "
        "throw again otherwise.",
        "",
        "*With the betting removed* (section 4), exactly, against a best response: a captain "
        f"following the rule guarantees {float(Fraction(folk['captain_guarantee'])):+.6f}, "
        f"that is {folk['captain_cost']:.6f} chips per hand less than the game's value; an "
        "opponent following it (whatever the captain's count) concedes "
        f"{float(Fraction(folk['opponent_guarantee'])):+.6f}, a cost of "
        f"{folk['opponent_cost']:.6f} to him.",
        "",
        "*With the betting*: the restricted game where one player's throwing follows the "
        "rule and the rest of his play (all his betting) and all of the other's is "
        "optimized: the sequence-form LP with his throwing pinned "
        "(`solve_lp(model, fixed_throw=...)`), and what his solved strategy guarantees, "
        "exactly, against a best response. " + _folk_betting(folk["with_betting"],
                                                             g["default"]["value"]),
        "",
    ]
    if "round" in doc:
        lines += _round_folk(doc["round"])
    return lines


def _round_folk(r: Mapping[str, Any]) -> list[str]:
    return [
        "*In the round*: the other piece of folk wisdom is to play every hand as the hand "
        "game says, counting chips as chips whatever the piles. One player plays the hand "
        "game's equilibrium at every state of the nine-chip round (the same throwing; the "
        "same betting probabilities over the bets the chips allow; open throws played as "
        "in the solved round). From the round's first state, where the first captain wins "
        f"with probability {r['value']:.9f} at equilibrium:",
        "",
        "| chip counter's seat | P(the first captain wins), other player best-replies "
        "(proved) |",
        "|---|---|",
        f"| first captain | at least {float(Fraction(r['captain_guarantee'])):.6f} (a loss of "
        f"{_points(r['captain_cost'])}) |",
        f"| opponent | at most {float(Fraction(r['opponent_concedes'])):.6f} (a loss of "
        f"{_points(r['opponent_cost'])} to him) |",
        "",
        "A player who knows the round exploits chip counting hand after hand: in a single "
        "hand the hand strategy concedes little with chips in the centre and up to about "
        "3 points of win probability once the centre is empty (`bidou round --state 0,4,5 "
        "--charts --out DIR` says 3.4%), where chips flow both ways and hands repeat, and "
        "the losses add up. The best reply is proved by the "
        "round's certificate (a super-solution checked in exact arithmetic). *These numbers "
        "depend on the equilibrium chosen*: the chip counter plays the hand's refined "
        "equilibrium (another hand equilibrium plays otherwise where the round reaches what "
        "the hand does not). What he gets against a player of the round's equilibrium "
        "rather than a best reply is not printed: it depends on which of the round's many "
        "equilibria that player follows, and the solved one (LP vertices of degenerate "
        "stage games) moves with the machine's floats: for the first captain 0.422378 on "
        "one machine, 0.422402 with another CPU's BLAS kernels, 0.422505 on a fresh clone "
        "(`docs/verification.md`, reproducibility). Reproduce: `bidou results` "
        "(`solver/round/compare.py`: `chip_counting_round`).",
        "",
    ]


def _folk_betting(folk: Mapping[str, Any], value: float) -> str:
    captain, opponent = folk["captain"], folk["opponent"]
    return (f"A captain who stops with a 6 or better and bets well guarantees "
            f"{float(Fraction(captain['guarantee'])):+.6f} (the game: {value:+.6f}), a cost of "
            f"{captain['cost']:.6f} chips per hand; an opponent doing so concedes "
            f"{float(Fraction(opponent['guarantee'])):+.6f}, a cost of {opponent['cost']:.6f}.")


# --- plots and files ---------------------------------------------------------------------------

def plots(doc: Mapping[str, Any]) -> dict[str, bytes]:
    """results_value.png and results_levels.png (Agg canvas, no global state), and Le
    Bidou's results_le_bidou_stakes.png when the document has its part."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    s = doc["sweep"]
    out = {}
    for name, key, xs, xlabel, series in (
            ("results_value.png", "faces_throws", range(2, 7), "faces",
             [(f"{t} throw{'s' * (t > 1)}", lambda x, t=t: f"{x},{t}") for t in range(1, 4)]),
            ("results_levels.png", "levels", range(1, 5), "max level",
             [(f"{t} throw{'s' * (t > 1)}", lambda x, t=t: f"{t},{x}") for t in range(1, 4)])):
        figure = Figure(figsize=(12, 3.6), dpi=100)
        FigureCanvasAgg(figure)
        variants = ("all, encyclopedia", "keep, encyclopedia", "all, french, aces beat bidou")
        for i, variant in enumerate(variants):
            axes = figure.add_subplot(1, 3, i + 1)
            for label, cell in series:
                axes.plot(list(xs), [s[key][variant][cell(x)]["value"] for x in xs],
                          marker="o", markersize=3, label=label)
            axes.axhline(0, color="0.6", linewidth=0.6)
            axes.set_xticks(list(xs))
            axes.set_title(f"reroll {variant}" + (", 6 faces" if key == "levels" else
                                                   ", max level 4"), fontsize=9)
            axes.set_xlabel(xlabel)
            axes.set_ylabel("value to the captain (chips/hand)")
            axes.legend(fontsize=7)
        figure.tight_layout()
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", metadata={"Software": None})
        out[name] = buffer.getvalue()
    if "le_bidou" in doc:
        from solver.app import le_bidou_results

        out[le_bidou_results.PLOT] = le_bidou_results.plot(doc["le_bidou"])
    return out


def _fresh_document(rows: Sequence[Mapping[str, Any]], progress: Step | None) -> dict[str, Any]:
    """The two-hand Bidou document: the featured games and the round solved now."""
    from games.bidou.round_params import RoundParams
    from solver.round.solve import solve_round

    solutions, throw_games = solve_featured(progress)
    if progress is not None:
        progress("solving the round", len(FEATURED) + 1, len(FEATURED) + 1)
    return compute(rows, solutions, throw_games, solve_round(RoundParams()))


def read_document(path: str | Path) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except ValueError:
        raise ParameterError(f"{path} is not a JSON document") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA \
            or doc.get("schema_version") != SCHEMA_VERSION:
        raise ParameterError(f"{path} is not a {SCHEMA} version {SCHEMA_VERSION} document")
    return doc


def _kept_document(path: Path, strict: bool) -> dict[str, Any] | None:
    """The results document already written, whose Le Bidou part a plain run carries over:
    with `strict` (`--le-bidou`, which keeps everything else) an unreadable one is bad
    input; a plain run rewrites every other part anyway, so it only loses section 6."""
    if not path.is_file():
        return None
    try:
        return read_document(path)
    except ParameterError:
        if strict:
            raise
        return None


def write_results(root: str | Path = ".", progress: Step | None = None,
                  le_bidou: bool = False) -> list[Path]:
    """Solve the featured games, read docs/data/sweep.csv, write the JSON, page and plots.

    Le Bidou's part (section 6, `solver.app.le_bidou_results`) is kept from the document
    already written unless `le_bidou`; with `le_bidou` only that part is solved again, and
    the rest kept (each part is minutes of solving: the one asked for is redone).
    The destinations are checked before the minutes of solving; the set (three folders)
    is staged beside its destinations and moved in only once every file is written, so a
    failure leaves the previous results whole."""
    from solver.app.sweep import read_rows
    from solver.common.files import check_directory_destination, write_set

    root = Path(root)
    for folder in ("docs/data", "docs", "docs/img"):
        check_directory_destination(root / folder)
    rows = read_rows(root / "docs" / "data")
    sweep_tables(rows)                           # an incomplete table fails before solving
    path = root / "docs" / "data" / "results.json"
    kept = _kept_document(path, strict=le_bidou)
    if le_bidou:
        from solver.app import le_bidou_results

        if kept is None:
            raise ParameterError(f"{path} is missing: run `{RESULTS_COMMAND}` first")
        doc = dict(kept, le_bidou=stable(le_bidou_results.compute(rows, progress)))
    else:
        doc = _fresh_document(rows, progress)
        for part in ("le_bidou", "multi"):       # each made by its own command
            if kept is not None and part in kept:
                doc[part] = kept[part]
    files = {root / "docs" / "data" / "results.json":
             (json.dumps(doc, indent=1, allow_nan=False) + "\n").encode("utf-8"),
             root / "docs" / "results.md": render(json.loads(json.dumps(doc))).encode("utf-8")}
    files.update({root / "docs" / "img" / name: data for name, data in plots(doc).items()})
    write_set(files)
    return list(files)
