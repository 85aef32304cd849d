"""Every number of docs/results.md, as one JSON document (docs/data/results.json): the
sweep's value tables (`results_sweep`), the featured games solved exactly
(`featured_games`), the round's chip counter, and the parts other commands make, Le Bidou's
(`le_bidou_results`, `bidou results --le-bidou`) and the multi-hand one (`multi_results`).
`solver.export.results_page` renders the document; the test holds both: the Markdown is
the rendering of the JSON, the JSON's sweep tables are those of the committed table, a few
rows and the default game are solved again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from games.bidou.params import ParameterError
from solver.common.progress import Step
from solver.hand.exact.certificate import decimal
from solver.pipeline.featured_games import (
    FEATURED,
    behaviour_shift,
    game_results,
    solve_featured,
)
from solver.pipeline.results_sweep import sweep_tables

if TYPE_CHECKING:
    from solver.analysis.no_betting import ThrowGame
    from solver.hand.result import Solution
    from solver.round.solve import RoundSolution

SCHEMA, SCHEMA_VERSION = "bidou-results", 1
# The document's parts that other commands make, kept when `bidou results` solves the rest.
KEPT_PARTS = ("le_bidou", "multi", "bidu", "montevideo")
# The floats computed here (behaviour, costs, the round's Markov chain) carry rounding that
# depends on the machine's BLAS kernels in their 16th digit; the document keeps 12 decimals,
# which every machine computes alike (the sweep's numbers are the table's, kept whole).
FLOAT_DECIMALS = 12
# Which equilibrium the behaviour and the chip counter's numbers describe: the exact one,
# the same on every machine (an LP vertex moves with the machine's floats).
EQUILIBRIUM = "exact"


def compute(sweep_rows: Sequence[Mapping[str, Any]], solutions: Mapping[str, Solution],
            throw_games: Mapping[str, ThrowGame], round_solution: RoundSolution | None = None
            ) -> dict[str, Any]:
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


def chip_counting_results(round_solution: RoundSolution, hand_solution: Solution
                          ) -> dict[str, Any]:
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


def fresh_document(rows: Sequence[Mapping[str, Any]], progress: Step | None = None,
                   kept: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The two-hand Bidou document: the featured games and the round solved now, and the
    parts other commands make (KEPT_PARTS) carried over from `kept`, the document already
    written."""
    from games.bidou.round_params import RoundParams
    from solver.round.solve import solve_round

    solutions, throw_games = solve_featured(progress)
    if progress is not None:
        progress("solving the round", len(FEATURED) + 1, len(FEATURED) + 1)
    doc = compute(rows, solutions, throw_games, solve_round(RoundParams()))
    for part in KEPT_PARTS:
        if kept is not None and part in kept:
            doc[part] = kept[part]
    return doc


def with_le_bidou(kept: Mapping[str, Any], rows: Sequence[Mapping[str, Any]],
                  progress: Step | None = None) -> dict[str, Any]:
    """`kept`, the document already written, with Le Bidou's part solved again (`bidou
    results --le-bidou`: each part is minutes of solving, the one asked for is redone)."""
    from solver.pipeline import le_bidou_results

    return dict(kept, le_bidou=stable(le_bidou_results.compute(rows, progress)))


def read_document(path: str | Path) -> dict[str, Any]:
    """docs/data/results.json as written; ParameterError (one line) for anything else."""
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except ValueError:
        raise ParameterError(f"{path} is not a JSON document") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA \
            or doc.get("schema_version") != SCHEMA_VERSION:
        raise ParameterError(f"{path} is not a {SCHEMA} version {SCHEMA_VERSION} document")
    return doc
