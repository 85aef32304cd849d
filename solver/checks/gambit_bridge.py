"""Exact game values of small OpenSpiel games through pygambit.

The OpenSpiel game tree is written out as Gambit ``.efg`` text with *exact
rational* chance probabilities and payoffs (OpenSpiel's own
``open_spiel.python.algorithms.gambit.export_gambit`` prints probabilities
as 16-digit decimals, so e.g. Kuhn's 1/3 would not be exact), read with
``pygambit.read_efg`` and solved with ``pygambit.nash.lp_solve`` (Gambit's
sequence-form LP on the extensive game).

pygambit is an optional (test) dependency: it is imported lazily.
"""

from __future__ import annotations

import io
from fractions import Fraction

import pyspiel

from solver.common import rounding

__all__ = ["export_efg", "gambit_game", "gambit_value"]

# Floats coming from OpenSpiel (1/3 as 0.333...) are snapped to the nearest
# fraction with a denominator up to this bound.
_MAX_DENOMINATOR = 10**6


def _exact(x: float) -> Fraction:
    f = rounding.snap(x, _MAX_DENOMINATOR)
    if f is None:
        raise ValueError(f"{x!r} has no small exact fraction")
    return f


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _labels(state, actions: list[int]) -> list[str]:
    """The actions' names as the game says them (``action_to_string``: "bet",
    "throw 2-1-1"), quoted for the .efg text; an action whose name another of
    the node's actions shares keeps its id beside it, so each reads apart."""
    player = state.current_player()
    names = [state.action_to_string(player, a) for a in actions]
    return [_quote(name if names.count(name) == 1 else f"{name} ({a})")
            for a, name in zip(actions, names)]


def export_efg(game: pyspiel.Game) -> str:
    """Gambit ``.efg`` text of a sequential OpenSpiel game, exact rationals.

    Actions and chance outcomes are labelled by the game's own names for them
    (OpenSpiel's ``action_to_string``), information sets by their
    ``information_state_string`` (so labels agree within an infoset).
    """
    gt = game.get_type()
    if gt.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError("export_efg needs a sequential game")
    n = game.num_players()
    players = " ".join(_quote(f"Player {i}") for i in range(n))
    lines = [f"EFG 2 R {_quote(str(game))} {{ {players} }}", '""', ""]
    infoset_ids: list[dict[str, int]] = [{} for _ in range(n)]
    counters = {"chance": 0, "outcome": 0}

    def walk(state) -> None:
        if state.is_terminal():
            counters["outcome"] += 1
            pay = " ".join(str(_exact(r)) for r in state.returns())
            lines.append(f't "" {counters["outcome"]} "" {{ {pay} }}')
            return
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            probs = [_exact(p) for _, p in outcomes]
            if sum(probs) != 1:
                raise ValueError(f"chance probabilities {probs} do not sum to 1")
            counters["chance"] += 1
            names = _labels(state, [a for a, _ in outcomes])
            body = " ".join(f"{name} {p}" for name, p in zip(names, probs))
            lines.append(f'c "" {counters["chance"]} "" {{ {body} }} 0')
            for a, _ in outcomes:
                walk(state.child(a))
            return
        player = state.current_player()
        key = state.information_state_string(player)
        legal = state.legal_actions(player)
        ids = infoset_ids[player]
        if key in ids:
            lines.append(f'p "" {player + 1} {ids[key]} 0')
        else:
            ids[key] = len(ids) + 1
            acts = " ".join(_labels(state, legal))
            lines.append(
                f'p "" {player + 1} {ids[key]} {_quote(key)} {{ {acts} }} 0'
            )
        for a in legal:
            walk(state.child(a))

    walk(game.new_initial_state())
    return "\n".join(lines) + "\n"


def gambit_game(game: pyspiel.Game | str):
    """The OpenSpiel game as a ``pygambit.Game``."""
    import pygambit

    if isinstance(game, str):
        game = pyspiel.load_game(game)
    return pygambit.read_efg(io.StringIO(export_efg(game)))


def gambit_value(game: pyspiel.Game | str, rational: bool = True) -> Fraction:
    """Game value to player 0 by ``pygambit.nash.lp_solve``.

    With ``rational=True`` Gambit computes in exact rational arithmetic and the
    result is exact (given the exact export).  With ``rational=False`` the
    float result is returned as ``Fraction(float)``.
    """
    import pygambit

    if isinstance(game, str):
        game = pyspiel.load_game(game)
    if game.num_players() != 2:
        raise ValueError("gambit_value needs a two-player game")
    g = gambit_game(game)
    result = pygambit.nash.lp_solve(g, rational=rational)
    # pygambit 17 returns one `equilibrium` (and `success`); 16.x a list of `equilibria`
    equilibrium = getattr(result, "equilibrium", None)
    if equilibrium is None and getattr(result, "equilibria", None):
        equilibrium = result.equilibria[0]
    if equilibrium is None or getattr(result, "success", True) is False:
        raise RuntimeError("pygambit.nash.lp_solve returned no equilibrium")
    player = list(g.players)[0]
    if hasattr(equilibrium, "payoff"):                  # pygambit 16
        payoff = equilibrium.payoff(player)
    else:                                               # pygambit 17: a payoff vector
        payoff = equilibrium.payoffs[player]
    return Fraction(payoff) if rational else Fraction(float(payoff))
