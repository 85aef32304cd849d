"""Sequence-form LP solver for small two-player zero-sum OpenSpiel games.

The game tree is walked once (one recursive pass over ``pyspiel`` states,
chance outcomes expanded with their probabilities).  The walk builds, for each
player ``i``:

* the sequences: index 0 is the empty sequence, then one sequence per
  (information state string, action); the sequences of one information set
  are numbered contiguously;
* the sequence-form constraints ``E x = e`` (player 0) and ``F y = f``
  (player 1): row 0 is ``x[empty] = 1`` and the row of an information set
  ``h`` is ``sum_a x[h, a] - x[parent(h)] = 0``;

and the sparse payoff matrix ``A`` (player 0's payoff, chance probabilities
folded in): ``A[s0, s1]`` is the sum over terminal histories whose last
sequences are ``(s0, s1)`` of ``chance reach * u0``.  It is assembled from
COO arrays.

The game value is ``max_x min_y x^T A y``.  Dualising the inner
minimisation gives one LP (Koller, Megiddo and von Stengel 1994)::

    max_{x, q}  q[0]
    s.t.        F^T q - A^T x <= 0        (one row per sequence of player 1)
                E x            = e
                x >= 0,  q free

solved with ``scipy.optimize.linprog(method="highs")`` on scipy.sparse
matrices.

Player 1's realization plan ``y`` is read from the HiGHS duals of the
inequality rows: ``y = -res.ineqlin.marginals`` (by LP duality, the dual of
the LP above is player 1's LP ``min_{y,p} e^T p  s.t.  E^T p - A y >= 0,
F y = f, y >= 0``).  This plan is *checked*, not trusted: it must be
non-negative and satisfy ``F y = f``, and the two plans are evaluated by
exact sequence-form best responses; the gap ``BR0(y) - BR1(x)`` must be
below a tolerance.  If the dual plan fails the check, player 1's LP is solved
explicitly and checked the same way; if that also fails, ``SolverError`` is
raised.  A ``linprog`` status other than 0 also raises ``SolverError``.

Realization plans are turned into behaviour strategies by normalising
within each information set; information sets that the player's own plan
does not reach (weight below ``_UNREACHED``) get the uniform behaviour.
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pyspiel
import scipy.sparse as sp

from solver.common import rounding
from solver.common.errors import SolverError
from solver.hand.lp.highs import linprog

__all__ = [
    "LPRun",
    "SequenceFormSolution",
    "SolverError",
    "solve_openspiel_game",
    "to_tabular_policy",
]

# Realization weight below which an information set counts as unreached by
# its own player's plan (uniform behaviour there).
_UNREACHED = 1e-9
# Allowed residual of F y = f for the plan read from the duals, and allowed
# relative best-response gap BR0(y) - BR1(x) (relative to max(1, max |u0|)).
_FEAS_TOL = 1e-7
_GAP_TOL = 1e-7


@dataclass(frozen=True)
class SequenceFormSolution:
    """Result of :func:`solve_openspiel_game` (in the spirit of OptimizeResult).

    Attributes:
        value: game value to player 0.
        status: ``scipy.optimize.linprog`` status (0 = optimal; any other
            status raises ``SolverError`` instead of being returned).
        message: ``linprog`` message.
        seconds: wall-clock time of the whole solve (tree walk, LP, checks).
        policies: per player, information state string -> {action: prob}.
        num_sequences: number of sequences per player, empty sequence
            included.
    """

    value: float
    status: int
    message: str
    seconds: float
    policies: tuple[dict[str, dict[int, float]], dict[str, dict[int, float]]]
    num_sequences: tuple[int, int]


class _PlayerTree:
    """Sequences and information sets of one player, filled by the walk."""

    __slots__ = ("index", "keys", "parent", "start", "actions", "num_sequences")

    def __init__(self) -> None:
        self.index: dict[str, int] = {}  # info state string -> infoset id
        self.keys: list[str] = []
        self.parent: list[int] = []  # parent sequence of each infoset
        self.start: list[int] = []  # first sequence of each infoset
        self.actions: list[list[int]] = []
        self.num_sequences = 1  # the empty sequence

    def constraint_matrix(self) -> sp.csr_matrix:
        """``E`` (or ``F``): (1 + #infosets) x #sequences."""
        rows = [0]
        cols = [0]
        vals = [1.0]
        for h, (par, start, acts) in enumerate(
            zip(self.parent, self.start, self.actions)
        ):
            rows.append(h + 1)
            cols.append(par)
            vals.append(-1.0)
            k = len(acts)
            rows.extend([h + 1] * k)
            cols.extend(range(start, start + k))
            vals.extend([1.0] * k)
        return sp.csr_matrix(
            (vals, (rows, cols)), shape=(len(self.keys) + 1, self.num_sequences)
        )

    def best_response(self, payoff: np.ndarray, maximize: bool) -> float:
        """Best-response value given ``payoff[s]`` = (A y)[s] or (A^T x)[s].

        Information sets were registered in DFS order, so every infoset comes
        after the infoset owning its parent sequence: a reverse sweep is a
        bottom-up pass.
        """
        v = np.array(payoff, dtype=float)
        for h in range(len(self.keys) - 1, -1, -1):
            s = self.start[h]
            block = v[s : s + len(self.actions[h])]
            v[self.parent[h]] += block.max() if maximize else block.min()
        return float(v[0])

    def plan_residual(self, plan: np.ndarray) -> float:
        """Max violation of the sequence-form constraints and of plan >= 0."""
        res = abs(plan[0] - 1.0)
        for h in range(len(self.keys)):
            s = self.start[h]
            tot = plan[s : s + len(self.actions[h])].sum()
            res = max(res, abs(tot - plan[self.parent[h]]))
        return max(res, float(-plan.min()))

    def behaviour(self, plan: np.ndarray) -> dict[str, dict[int, float]]:
        """Realization plan -> behaviour strategy (uniform where unreached)."""
        plan = np.clip(plan, 0.0, None)
        out: dict[str, dict[int, float]] = {}
        for key, start, acts in zip(self.keys, self.start, self.actions):
            w = plan[start : start + len(acts)]
            tot = float(w.sum())
            if tot > _UNREACHED:
                out[key] = {a: float(p) / tot for a, p in zip(acts, w)}
            else:
                out[key] = {a: 1.0 / len(acts) for a in acts}
        return out


def _load(game: pyspiel.Game | str) -> pyspiel.Game:
    if isinstance(game, str):
        return pyspiel.load_game(game)
    return game


def _check_game(game: pyspiel.Game) -> None:
    gt = game.get_type()
    name = gt.short_name
    if game.num_players() != 2:
        raise ValueError(
            f"{name}: sequence-form LP needs a two-player game, "
            f"got {game.num_players()} players"
        )
    if gt.utility != pyspiel.GameType.Utility.ZERO_SUM:
        raise ValueError(f"{name}: game must be zero-sum, got {gt.utility}")
    if gt.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(
            f"{name}: game must be sequential, got {gt.dynamics} "
            "(wrap a simultaneous game with pyspiel.convert_to_turn_based)"
        )
    if gt.reward_model != pyspiel.GameType.RewardModel.TERMINAL:
        raise ValueError(
            f"{name}: game must have terminal rewards, got {gt.reward_model}"
        )
    if gt.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        raise ValueError(
            f"{name}: sampled-stochastic chance cannot be enumerated exactly"
        )
    if not gt.provides_information_state_string:
        raise ValueError(f"{name}: game does not provide information_state_string")


# The walk visits every history; past this many the game is not "small enough to walk" and
# the solver refuses with a clear message instead of exhausting memory. Before the walk, a
# cheap estimate (random playouts) refuses games far beyond it in well under a second; the
# information-state strings kept are capped too (a game with huge ones fills memory first).
MAX_STATES = 2_000_000
MAX_KEY_BYTES = 256 * 2**20
_ESTIMATE_SAMPLES = 64
_ESTIMATE_MARGIN = 4          # the estimate is noisy: refuse on it only when clearly too big


def estimate_histories(game: pyspiel.Game, samples: int = _ESTIMATE_SAMPLES,
                       stop_at: float = float("inf"), seed: int = 0) -> float:
    """Knuth's estimate of the number of histories: along a random playout, the product of
    the branching factors met so far estimates the width of each depth; their sum the size.

    Unbiased (its mean over playouts is the exact count), exact for uniform trees; a playout
    stops counting once past `stop_at`, so a game like chess is judged in microseconds.
    """
    rng = random.Random(seed)
    total = 0.0
    for _ in range(samples):
        state = game.new_initial_state()
        width = count = 1.0
        while not state.is_terminal() and count <= stop_at:
            if state.is_chance_node():
                actions = [a for a, p in state.chance_outcomes() if p > 0.0]
            else:
                actions = state.legal_actions()
            if not actions:
                break
            width *= len(actions)
            count += width
            state.apply_action(rng.choice(actions))
        total += count
    return total / samples


def _build(game: pyspiel.Game, max_states: int = MAX_STATES, exact: bool = False
           ) -> tuple[tuple[_PlayerTree, _PlayerTree], sp.csr_matrix, float]:
    """One recursive walk: player trees, payoff matrix and payoff scale (max(1, max |u0|)).

    With `exact`, the walk also keeps the payoff matrix in Fractions (`_Walk.exact_terms`),
    returned through `_build_walk`."""
    return _build_walk(game, max_states, exact)[:3]


def _build_walk(game: pyspiel.Game, max_states: int = MAX_STATES, exact: bool = False
                ) -> tuple[tuple[_PlayerTree, _PlayerTree], sp.csr_matrix, float, "_Walk"]:
    """`_build`, and the walk itself (its exact terms, or why there are none)."""
    limit = _ESTIMATE_MARGIN * max_states
    estimate = estimate_histories(game, stop_at=limit)
    if estimate > limit:
        raise ValueError(f"{game}: about {estimate:.1e} histories or more (estimated from "
                         f"{_ESTIMATE_SAMPLES} random playouts); the sequence-form LP walks "
                         f"every one and stops at {max_states:,}")
    walk = _Walk(game, max_states, exact)
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 10 * game.max_game_length() + 1000))
    try:
        walk.visit(game.new_initial_state(), 0, 0, 1.0, Fraction(1) if exact else None)
    finally:
        sys.setrecursionlimit(old_limit)
    trees = walk.trees
    n0, n1 = trees[0].num_sequences, trees[1].num_sequences
    A = sp.coo_matrix((walk.vals, (walk.rows, walk.cols)), shape=(n0, n1)).tocsr()  # sums dups
    return trees, A, max(1.0, walk.max_abs), walk


# OpenSpiel gives chance probabilities and returns as floats: the exact walk reads each as
# the nearest fraction with a denominator up to this bound (1/3 for 0.333...; a state's
# `exact_returns()`, where the game has it, is read instead of its returns), and gives up
# its exact terms (saying why) on a float that is no such fraction to 1e-12.
_MAX_DENOMINATOR = 10**6
# Each exact term takes about 190 bytes (measured: 91,960 terms of
# python_bidou(faces=3,throws=2,max_level=2) added 17 MB): past this many the exact walk
# gives them up, saying so, rather than hold hundreds of MB.
MAX_EXACT_TERMS = 1_000_000


def snap(x: float) -> Fraction | None:
    """The small fraction a float from OpenSpiel stands for, or None if there is none."""
    return rounding.snap(x, _MAX_DENOMINATOR)


class _Walk:
    """The state of one walk of the whole tree: both players' sequences and information
    sets, the payoff matrix's (row, column, value) triplets, and the counts that stop a walk
    too large to finish (histories, bytes of information state strings)."""

    def __init__(self, game: pyspiel.Game, max_states: int, exact: bool = False) -> None:
        self.game = game
        # (seq0, seq1, chance reach * u0) in Fractions, while every number snaps exactly
        self.exact_terms: list[tuple[int, int, Fraction]] | None = [] if exact else None
        self.inexact: str | None = None       # why the exact terms were given up
        self.max_states = max_states
        self.trees = (_PlayerTree(), _PlayerTree())
        self.visited = 0
        self.key_bytes = 0
        self.rows: list[int] = []
        self.cols: list[int] = []
        self.vals: list[float] = []
        self.max_abs = 0.0

    def visit(self, state: pyspiel.State, seq0: int, seq1: int, reach: float,
              exact_reach: Fraction | None = None) -> None:
        """Walk the subtree of `state`, reached by sequences (seq0, seq1) with chance
        probability `reach` (`exact_reach` in Fractions, in an exact walk)."""
        self.visited += 1
        if self.visited > self.max_states:
            raise ValueError(f"{self.game}: more than {self.max_states:,} histories; too "
                             f"large for the sequence-form LP over the whole tree")
        if state.is_terminal():
            self._terminal(state, seq0, seq1, reach, exact_reach)
            return
        if state.is_chance_node():
            for a, p in state.chance_outcomes():
                if p > 0.0:
                    self.visit(state.child(a), seq0, seq1, reach * p,
                               self._exact_product(exact_reach, p, "chance probability"))
            return
        player = state.current_player()
        if player not in (0, 1):
            raise ValueError(f"unexpected current player {player}")
        legal = state.legal_actions(player)
        start = self._information_set(state, player, seq0 if player == 0 else seq1, legal)
        for i, a in enumerate(legal):
            child = state.child(a)
            if player == 0:
                self.visit(child, start + i, seq1, reach, exact_reach)
            else:
                self.visit(child, seq0, start + i, reach, exact_reach)

    def _exact_product(self, exact_reach: Fraction | None, p: float, what: str
                       ) -> Fraction | None:
        """exact_reach * p in Fractions; None (and the exact terms given up) if `p` is no
        small fraction."""
        if exact_reach is None or self.exact_terms is None:
            return None
        q = snap(p)
        if q is None:
            self.exact_terms = None
            self.inexact = f"a {what} ({p!r}) is no fraction with a denominator up to " \
                           f"{_MAX_DENOMINATOR:.0e}"
            return None
        return exact_reach * q

    def _terminal(self, state: pyspiel.State, seq0: int, seq1: int, reach: float,
                  exact_reach: Fraction | None) -> None:
        r = state.returns()
        if abs(r[0] + r[1]) > 1e-9 * max(1.0, abs(r[0])):
            raise ValueError(f"terminal returns {r} are not zero-sum")
        if r[0] != 0.0:
            self.rows.append(seq0)
            self.cols.append(seq1)
            self.vals.append(reach * r[0])
            self.max_abs = max(self.max_abs, abs(r[0]))
            exact_returns = getattr(state, "exact_returns", None)   # a game's own Fractions
            term: Fraction | None
            if exact_returns is not None and exact_reach is not None:
                term = exact_reach * Fraction(exact_returns()[0])
            else:
                term = self._exact_product(exact_reach, r[0], "terminal return")
            if term is not None and self.exact_terms is not None:
                if len(self.exact_terms) >= MAX_EXACT_TERMS:
                    self.exact_terms = None
                    self.inexact = (f"more than {MAX_EXACT_TERMS:,} payoff terms, too many "
                                    f"to keep in Fractions")
                    return
                self.exact_terms.append((seq0, seq1, term))

    def _information_set(self, state: pyspiel.State, player: int, parent: int,
                         legal: list[int]) -> int:
        """The first sequence of the player's information set at `state`, registered on
        first sight; perfect recall and consistent legal actions checked on every other."""
        tree = self.trees[player]
        key = state.information_state_string(player)
        h = tree.index.get(key)
        if h is None:
            self.key_bytes += len(key)
            if self.key_bytes > MAX_KEY_BYTES:
                raise ValueError(f"{self.game}: its information states take more than "
                                 f"{MAX_KEY_BYTES >> 20} MiB; too large for the sequence-form "
                                 f"LP")
            h = len(tree.keys)
            tree.index[key] = h
            tree.keys.append(key)
            tree.parent.append(parent)
            tree.start.append(tree.num_sequences)
            tree.actions.append(list(legal))
            tree.num_sequences += len(legal)
        elif tree.parent[h] != parent:
            raise ValueError(
                f"imperfect recall: information state {key!r} of player "
                f"{player} is reached after different own sequences"
            )
        elif tree.actions[h] != list(legal):
            raise ValueError(
                f"information state {key!r} has inconsistent legal actions"
            )
        return tree.start[h]


def _linprog(c, A_ub, b_ub, A_eq, b_eq, bounds):
    res = linprog(
        c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds,
        method="highs",
    )
    if res.status != 0:
        raise SolverError(
            f"linprog did not find an optimum (status {res.status}): {res.message}"
        )
    return res


def _solve_player1_lp(A, E, F) -> np.ndarray:
    """Player 1's LP: min_{y,p} e^T p  s.t.  A y - E^T p <= 0, F y = f."""
    n1 = A.shape[1]
    m0 = E.shape[0]
    c = np.zeros(n1 + m0)
    c[n1] = 1.0  # p[0]
    A_ub = sp.hstack([A, -E.T], format="csr")
    A_eq = sp.hstack([F, sp.csr_matrix((F.shape[0], m0))], format="csr")
    b_eq = np.zeros(F.shape[0])
    b_eq[0] = 1.0
    bounds = [(0, None)] * n1 + [(None, None)] * m0
    res = _linprog(c, A_ub, np.zeros(A.shape[0]), A_eq, b_eq, bounds)
    return res.x[:n1]


@dataclass(frozen=True)
class LPRun:
    """Everything one LP solve computed, for those who check or rationalise it
    (`solver.checks.openspiel_exact`): the solution, both players' sequences and
    information sets, their realization plans `x`, `y`, the best-response gap, and the
    payoff matrix in Fractions (None, with the reason in `inexact`, if the game's numbers
    are not all small fractions or it was not asked for)."""

    solution: SequenceFormSolution
    trees: tuple[_PlayerTree, _PlayerTree]
    x: np.ndarray
    y: np.ndarray
    gap: float
    exact_terms: list[tuple[int, int, Fraction]] | None
    inexact: str | None


def _solve(game: pyspiel.Game | str, player1_plan: str = "duals"):
    """Solve; return (solution, x, y, gap).  ``player1_plan``: "duals" | "lp"."""
    run = solve_run(game, player1_plan)
    return run.solution, run.x, run.y, run.gap


def solve_run(game: pyspiel.Game | str, player1_plan: str = "duals",
              exact: bool = False) -> LPRun:
    """Solve and keep what the solve computed (`LPRun`); with `exact`, the payoff matrix
    in Fractions too. Raises as `solve_openspiel_game`."""
    t0 = time.perf_counter()
    game = _load(game)
    _check_game(game)
    trees, A, scale, walk = _build_walk(game, exact=exact)
    n0, n1 = A.shape
    E = trees[0].constraint_matrix()
    F = trees[1].constraint_matrix()
    m1 = F.shape[0]

    # max q[0]  s.t.  F^T q - A^T x <= 0,  E x = e,  x >= 0, q free.
    c = np.zeros(n0 + m1)
    c[n0] = -1.0
    A_ub = sp.hstack([-A.T, F.T], format="csr")
    A_eq = sp.hstack([E, sp.csr_matrix((E.shape[0], m1))], format="csr")
    b_eq = np.zeros(E.shape[0])
    b_eq[0] = 1.0
    bounds = [(0, None)] * n0 + [(None, None)] * m1
    res = _linprog(c, A_ub, np.zeros(n1), A_eq, b_eq, bounds)
    value = -float(res.fun)
    x = res.x[:n0]

    def gap_of(y: np.ndarray) -> float:
        br0 = trees[0].best_response(A @ y, maximize=True)
        br1 = trees[1].best_response(A.T @ x, maximize=False)
        if not (br1 - _GAP_TOL * scale <= value <= br0 + _GAP_TOL * scale):
            return float("inf")
        return br0 - br1

    def acceptable(y: np.ndarray) -> tuple[bool, float]:
        if trees[1].plan_residual(y) > _FEAS_TOL:
            return False, float("inf")
        g = gap_of(np.clip(y, 0.0, None))
        return g <= _GAP_TOL * scale, g

    if trees[0].plan_residual(x) > _FEAS_TOL:
        raise SolverError("player 0's plan from linprog violates E x = e")
    y = None
    if player1_plan == "duals":
        marginals = getattr(getattr(res, "ineqlin", None), "marginals", None)
        if marginals is not None and len(marginals) == n1:
            y = -np.asarray(marginals, dtype=float)
            ok, gap = acceptable(y)
            if not ok:
                y = None  # fall back to the explicit LP
    elif player1_plan != "lp":
        raise ValueError(f"player1_plan must be 'duals' or 'lp', not {player1_plan!r}")
    if y is None:
        y = _solve_player1_lp(A, E, F)
        ok, gap = acceptable(y)
        if not ok:
            raise SolverError(
                f"equilibrium check failed: best-response gap {gap:.3g} "
                f"exceeds {_GAP_TOL * scale:.3g}"
            )

    policies = (trees[0].behaviour(x), trees[1].behaviour(y))
    sol = SequenceFormSolution(
        value=value,
        status=int(res.status),
        message=str(res.message),
        seconds=time.perf_counter() - t0,
        policies=policies,
        num_sequences=(n0, n1),
    )
    return LPRun(sol, trees, x, y, gap, walk.exact_terms,
                 walk.inexact if exact else "not asked for")


def solve_openspiel_game(game: pyspiel.Game | str) -> SequenceFormSolution:
    """Solve a two-player zero-sum sequential OpenSpiel game exactly (to LP
    tolerance) with the sequence-form LP and scipy's HiGHS.

    Args:
        game: a ``pyspiel.Game`` or a game string for ``pyspiel.load_game``.

    Returns:
        A :class:`SequenceFormSolution`; ``value`` is to player 0.

    Raises:
        ValueError: the game is not two-player, zero-sum, sequential, with
            terminal rewards and enumerable chance, or has imperfect recall.
        SolverError: ``linprog`` did not report an optimum, or the resulting
            strategies fail the best-response check.
    """
    return _solve(game)[0]


def to_tabular_policy(game: pyspiel.Game | str, solution: SequenceFormSolution):
    """Both players' behaviour strategies as one OpenSpiel ``TabularPolicy``."""
    from open_spiel.python import policy as policy_lib

    game = _load(game)
    tab = policy_lib.TabularPolicy(game)
    for player_policy in solution.policies:
        for key, probs in player_policy.items():
            idx = tab.state_lookup.get(key)
            if idx is None:
                raise ValueError(
                    f"information state {key!r} is not in the game's TabularPolicy"
                )
            row = tab.action_probability_array[idx]
            row[:] = 0.0
            for a, p in probs.items():
                row[a] = p
    return tab
