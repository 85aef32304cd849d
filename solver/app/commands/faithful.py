"""The faithful OpenSpiel game `python_bidou(...)` of a rule set, for the commands that
export it (`export-policy`, `export-efg`), refused at once when it is too big to walk."""

from __future__ import annotations

from typing import Any

from games.bidou.params import BidouParams, ParameterError

# Both exports walk every history of the faithful game (OpenSpiel's TabularPolicy lists
# every state; a .efg file writes every node). Measured on 2 shared cores: 6.4e3 histories
# (faces 2, throws 2) take 1 s, 1.7e5 (faces 3, throws 2) 39 s; the default game has about
# 1e12. Refused above this many, from a cheap estimate, before anything is solved.
MAX_HISTORIES = 1_000_000


def faithful_game(params: BidouParams, what: str, limit: int = MAX_HISTORIES) -> Any:
    """The pyspiel game of `params`; ParameterError (one line) if it has about more than
    `limit` histories (Knuth's estimate from random playouts, `estimate_histories`)."""
    import pyspiel

    import games.bidou.game  # noqa: F401  (registers python_bidou)
    from solver.checks.openspiel_lp import estimate_histories

    game = pyspiel.load_game(params.to_game_string())
    estimate = estimate_histories(game, samples=256, stop_at=4 * limit)
    if estimate > limit:
        raise ParameterError(
            f"{what} walks every history of {params.to_game_string()}: it has about "
            f"{estimate:.1e} or more, above the limit of {limit:,} (try fewer --faces or "
            f"--throws)")
    return game
