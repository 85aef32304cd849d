"""The LP of a large betting tree, solved on a restricted tree whose support is proved
complete (double oracle).

Le Bidou's stakes tree has 2**max_stake decisions a public state (512 at the default) and
its full sequence-form LP does not finish in minutes, yet its equilibrium plays few of
them (max_stake 5: 10 of 32 decisions). So the LP is solved on a *restricted* tree: every
decision kept offers all the actions that end the hand (withdraw, call: it stays a game)
and only some of those that lead to another decision (raises). The restricted equilibrium
is then lifted to the full tree and checked against every raise it leaves out:

- a raise the restricted tree leaves out at a decision h of player Q leads to a decision
  g of the other player P that no LP saw. P's play there is *completed*: a mix, per hand,
  of the actions at g that end the hand and of its *last raises* (to a decision where Q
  can only end the hand), chosen by a small LP (or a threshold: call with the strongest
  hands) so that Q's hands gain as little as possible by the raise over their best value
  at h in the restricted game (the counterfactual values against P's restricted strategy,
  `_responder_values`);
- then each player's best response in the *full* game is computed against the lifted
  strategies. If neither gains over the restricted value, the lifted pair is an
  equilibrium of the full game and the restricted value is its value. Else the decisions
  out of the tree that the best responses raise to join it, each with the last raises its
  completion played, and the LP is solved again. The tree only grows, so this ends.

Each LP of a round starts from the final basis of the round before (solver/hand/lp/warm.py: the
tree only grows, so the basis carries over by name, its new rows crashed by the lifted
strategies): the default hand's five LPs take a fifth of their cold time. Each round's
check uses both cores on a large tree: every other
completion, then the opponent's best response, in a forked child (solver/common/side_by_side.py;
the completions are independent, and a player's best response reads only the other's
play), with the same result as in one process. Nothing here is trusted either:
`solve_restricted` returns the lifted pair as an `LPSolution` of the full model, which the
caller checks as every LP solution is (the float best response on the full model, then
`solver.hand.exact.certificate.certify` in exact arithmetic on the full model). A decision below a
completed one is reached only through a raise its own actor never makes (the one out of
the tree, or a raise the completion does not play), so any play there proves the same
bounds. `exact_lift` gives the exact value: the exact equilibrium recovered on the
restricted model (where the LP's strategies are a vertex; on the full model the
completions' mixes are too many unknowns for `exact_equilibrium`), lifted, and proved on
the full model.

Nothing here knows which betting structure it is: a tree is restricted by the decisions it
keeps (`restrict`), and the full trees come from the model's description.
"""

from __future__ import annotations

import dataclasses
import time
from fractions import Fraction
from typing import TYPE_CHECKING, Iterable

import numpy as np
import scipy.sparse as sp

from games.bidou.betting import CAPTAIN, OPPONENT, BettingTree, Edge, Leaf, Node, Role
from solver.common.errors import SolverError
from solver.common.progress import Step, quiet
from solver.common.side_by_side import side_by_side
from solver.hand import best_response
from solver.hand.exact import certificate
from solver.hand.lp.highs import quiet_highs
from solver.hand.lp.sequence_form import LPSolution, solve_lp
from solver.hand.lp.warm import Guide, KeyedBasis, lifted_guide, solve_grown
from solver.hand.model import HandModel, build_model
from solver.hand.reach import end_mass
from solver.hand.strategy import Strategy, StrategyFileError

if TYPE_CHECKING:
    from solver.hand.exact.equilibrium import Recovery

# A best response gaining more than this (chips a hand) over the restricted value brings
# its raises out of the tree into it; a completion's raise is played when its weight (the
# completing player's reach times his probability) is positive.
GAIN_TOLERANCE = 1e-10
MAX_ROUNDS = 30


def restrict(tree: BettingTree, kept: Iterable[str]) -> BettingTree:
    """The tree with only the decisions named in `kept` (and the root): a kept decision
    keeps every edge to a leaf and the edges to the kept decisions below it. Leaves keep
    their payoffs; nodes and leaves are renumbered in the same pre-order."""
    keep = set(kept) | {tree.root.history}
    nodes: list[Node | None] = []
    leaves: list[Leaf] = []
    payoffs = []

    def visit(node: Node) -> int:
        index = len(nodes)
        nodes.append(None)
        edges = []
        for edge in node.edges:
            target = tree.target(edge)
            if isinstance(target, Leaf):
                leaves.append(dataclasses.replace(target, index=len(leaves)))
                payoffs.append(tree.payoffs[target.index])
                edges.append(Edge(edge.action, leaf=len(leaves) - 1))
            elif target.history in keep:
                edges.append(Edge(edge.action, node=visit(target)))
        if not edges:
            raise ValueError(f"a restricted tree must keep an action at {node.history!r}")
        nodes[index] = dataclasses.replace(node, index=index, edges=tuple(edges))
        return index

    visit(tree.root)
    return BettingTree(tree.first, tuple(n for n in nodes if n is not None), tuple(leaves),
                       tuple(payoffs), tree.supply)


def leaf_payoffs(model: HandModel, tree: BettingTree) -> list[np.ndarray]:
    """The captain's payoff U[i, j] (his hand i, the opponent's j) at each leaf of `tree`."""
    wins, ties = model.compare > 0, model.compare == 0
    out = []
    for win, tie, lose in tree.payoffs:
        out.append(np.where(wins, float(win), np.where(ties, float(tie), float(lose))))
    return out


def _ends(model: HandModel, strategy: Strategy, player: int, public: tuple[int, int]
          ) -> np.ndarray:
    """The mass (with chance) of `player`'s hands when his throwing ends in `public`."""
    tc, to = public
    if player == CAPTAIN:
        return end_mass(model, strategy.throw[CAPTAIN][0])[tc - 1]
    return end_mass(model, strategy.throw[OPPONENT][tc - 1])[to - 1]


@dataclasses.dataclass(frozen=True)
class _Frontier:
    """Raises the restricted tree leaves out at one public state: for each, the decision
    it leaves (`at`, a restricted node), the full tree's decision it leads to, the other
    player's reach there and the raiser's best restricted value at `at`, per hand."""

    public: tuple[int, int]
    at: Node
    target: Node
    reach: np.ndarray            # the completing player's own reach, per his hand
    best: np.ndarray             # the raiser's counterfactual value at `at`, per his hand


def _frontier(model: HandModel, small: BettingTree, full: BettingTree, strategy: Strategy,
              public: tuple[int, int], payoffs: list[np.ndarray], raiser: Role
              ) -> list[_Frontier]:
    """Every raise of `raiser` at one public state that `small` leaves out of `full`."""
    tc, to = public
    probs = [strategy.betting[(tc, to, node.history)] for node in small.nodes]
    out: list[_Frontier] = []
    other = raiser.other
    reach, leaf_reach = small.push(_ends(model, strategy, other, public),
                                   lambda node, a, r: r if node.actor != other
                                   else r * probs[node.index][a])
    values = _responder_values(small, raiser, leaf_reach, payoffs)
    for node in small.nodes:
        if node.actor != raiser or not reach[node.index].any():
            continue
        kept = set(node.actions)
        for edge in full.node(node.history).edges:
            if edge.node is not None and edge.action not in kept:
                out.append(_Frontier(public, node, full.nodes[edge.node],
                                     reach[node.index], values[node.index]))
    return out


def _responder_values(tree: BettingTree, responder: Role, leaf_reach: list[np.ndarray],
                      payoffs: list[np.ndarray]) -> list[np.ndarray]:
    """The responder's best counterfactual value per hand at each node, against the other
    player's reach at each leaf (his strategy folded in)."""
    if responder == CAPTAIN:
        leaf_values = [u @ r for u, r in zip(payoffs, leaf_reach)]
    else:
        leaf_values = [-(r @ u) for u, r in zip(payoffs, leaf_reach)]

    def combine(node: Node, children: list[np.ndarray]) -> np.ndarray:
        child = np.array(children)
        return child.max(axis=0) if node.actor == responder else child.sum(axis=0)

    return tree.pull(leaf_values, combine)


def _raiser_matrix(model: HandModel, full: BettingTree, leaf: int, raiser: Role,
                   payoffs: dict[int, np.ndarray]) -> np.ndarray:
    """The raiser's payoff V[i, j] at a leaf (the completing player's hand i, his j)."""
    if leaf not in payoffs:
        win, tie, lose = full.payoffs[leaf]
        payoffs[leaf] = np.where(model.compare > 0, float(win), np.where(
            model.compare == 0, float(tie), float(lose)))
    u = payoffs[leaf]                                # captain's hand i, opponent's j
    return u.T if raiser == CAPTAIN else -u


def _options(model: HandModel, full: BettingTree, spot: _Frontier,
             payoffs: dict[int, np.ndarray]
             ) -> tuple[list[int], list[np.ndarray], list[int], list[list[np.ndarray]]]:
    """The completing player's options at the spot: the actions that end the hand, with
    the raiser's payoff after each, and the *last raises* (to a decision where the raiser
    can only end the hand), with his payoff after each of his answers there."""
    raiser = spot.at.actor
    ends, end_values, raises, raise_values = [], [], [], []
    for a, edge in enumerate(spot.target.edges):
        if edge.leaf is not None:
            ends.append(a)
            end_values.append(_raiser_matrix(model, full, edge.leaf, raiser, payoffs))
            continue
        after = full.nodes[edge.node] if edge.node is not None else None
        if after is not None and all(e.leaf is not None for e in after.edges):
            raises.append(a)
            raise_values.append([_raiser_matrix(model, full, e.leaf, raiser, payoffs)
                                 for e in after.edges if e.leaf is not None])
    return ends, end_values, raises, raise_values


def _complete(model: HandModel, full: BettingTree, spot: _Frontier,
              payoffs: dict[int, np.ndarray]) -> tuple[np.ndarray | None, float]:
    """The completing player's mix at the spot, (actions of the target, hands), that
    leaves the raiser's hands the least gain over their restricted best (ending the hand,
    or a last raise that the raiser then answers as well as he can), and that gain
    (positive: no mix deters every hand)."""
    ends, end_values, raises, raise_values = _options(model, full, spot, payoffs)
    n, k = model.num_hands, len(spot.target.edges)
    if not ends:
        return None, np.inf
    w_end = [spot.reach[:, None] * v for v in end_values]        # (completer i, raiser j)
    w_raise = [[spot.reach[:, None] * v for v in answers] for answers in raise_values]
    mix = _threshold_mix(model, w_end, spot.best)
    if mix is None:
        mix = _lp_mix(w_end, w_raise, spot.best)
    gains = sum(w.T @ p for w, p in zip(w_end, mix)) - spot.best
    for answers, p in zip(w_raise, mix[len(ends):]):
        gains = gains + np.max([w.T @ p for w in answers], axis=0)
    out = np.zeros((k, n))
    for a, p in zip(ends + raises, mix):
        out[a] = p
    return out, float(gains.max())


def _threshold_mix(model: HandModel, weighted: list[np.ndarray], best: np.ndarray
                   ) -> list[np.ndarray] | None:
    """With two actions, the pure mixes "the second with the k strongest hands, the first
    with the others" (k = 0..n): the first that leaves no gain, else None."""
    if len(weighted) != 2:
        return None
    order = np.argsort(-model.strength)                  # strongest first
    first, second = weighted
    base = first.sum(axis=0)                              # every hand takes the first
    change = np.cumsum((second - first)[order], axis=0)   # the k strongest switch
    gains = np.vstack([base[None], base[None] + change]) - best[None]
    ok = np.nonzero(gains.max(axis=1) <= GAIN_TOLERANCE)[0]
    if not len(ok):
        return None
    k = int(ok[np.argmin(gains[ok].max(axis=1))])
    switched = np.zeros(model.num_hands)
    switched[order[:k]] = 1.0
    return [1.0 - switched, switched]


def _lp_mix(w_end: list[np.ndarray], w_raise: list[list[np.ndarray]], best: np.ndarray
            ) -> list[np.ndarray]:
    """The mix minimizing the raiser's largest gain, an LP: p[a, i] per option and hand of
    the completing player, z[r, j] the raiser's best answer to last raise r with hand j,
    t the gain: sum_a W_a^T p_a + sum_r z_r - t <= best, W_{r,l}^T p_r <= z_r."""
    n = best.shape[0]
    m, R = len(w_end), len(w_raise)
    P = (m + R) * n                                  # p, then z (R n), then t
    nv = P + R * n + 1
    A, inequalities = _mix_matrix(w_end, w_raise, n)
    c = np.zeros(nv)
    c[-1] = 1.0
    lower = np.concatenate([np.zeros(P), np.full(R * n + 1, -np.inf)])
    upper = np.concatenate([np.ones(P), np.full(R * n + 1, np.inf)])
    x = _highs_minimum(c, lower, upper, A,
                       np.concatenate([np.full(inequalities, -np.inf), np.ones(n)]),
                       np.concatenate([best, np.zeros(inequalities - n), np.ones(n)]))
    p = np.clip(x[:P].reshape(m + R, n), 0.0, 1.0)
    return list(p / p.sum(axis=0, keepdims=True))


def _mix_matrix(w_end: list[np.ndarray], w_raise: list[list[np.ndarray]], n: int
                ) -> tuple[sp.csc_matrix, int]:
    """`_lp_mix`'s constraint matrix (its inequality rows, then the n rows sum_a p_a = 1)
    in compressed columns, and how many inequality rows it has. Built from the nonzeros
    of each block: the same matrix, entry for entry and in the same order, as stacking
    the dense blocks and compressing them (which took a third of a completion's time on
    the default hand: 400 of them a solve)."""
    m, R = len(w_end), len(w_raise)
    P = (m + R) * n
    hands = np.arange(n)
    rows, cols, vals = [], [], []

    def block(matrix: np.ndarray, row0: int, col0: int) -> None:
        i, j = np.nonzero(matrix)
        rows.append(i + row0)
        cols.append(j + col0)
        vals.append(matrix[i, j])

    def diagonal(value: float, row0: int, col0: int) -> None:
        rows.append(hands + row0)
        cols.append(hands + col0)
        vals.append(np.full(n, value))

    for a, w in enumerate(w_end):                     # the gain rows: sum_a W_a^T p_a
        block(w.T, 0, a * n)
    for r in range(R):                                # + sum_r z_r
        diagonal(1.0, 0, P + r * n)
    rows.append(hands)                                # - t
    cols.append(np.full(n, P + R * n))
    vals.append(np.full(n, -1.0))
    row0 = n
    for r, answers in enumerate(w_raise):             # W_{r,l}^T p_r - z_r <= 0
        for w in answers:
            block(w.T, row0, (m + r) * n)
            diagonal(-1.0, row0, P + r * n)
            row0 += n
    for a in range(m + R):                            # sum_a p_a = 1
        diagonal(1.0, row0, a * n)
    A = sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(row0 + n, P + R * n + 1)).tocsc()
    A.sort_indices()
    return A, row0


def _highs_minimum(c: np.ndarray, lower: np.ndarray, upper: np.ndarray, A: sp.spmatrix,
                   row_lower: np.ndarray, row_upper: np.ndarray) -> np.ndarray:
    """min c x over lower <= x <= upper, row_lower <= A x <= row_upper, by HiGHS's dual
    simplex through highspy: a completion's LP is small (a few hundred columns) and the
    default hand solves hundreds of them, so scipy's checks of its arguments cost more
    than HiGHS (measured: 13 of 20 s)."""
    import highspy

    A = sp.csc_matrix(A)          # a copy only if it is not compressed columns already
    inf = highspy.kHighsInf
    h = quiet_highs(highspy, solver="simplex", simplex_strategy=1)
    # the arrays passed as they are (every column continuous): a HighsLp's attributes
    # copy them element by element, a tenth of the completions' time (measured)
    h.passModel(A.shape[1], A.shape[0], A.nnz, int(highspy.MatrixFormat.kColwise),
                int(highspy.ObjSense.kMinimize), 0.0, np.asarray(c, dtype=np.float64),
                np.where(np.isinf(lower), -inf, lower), np.where(np.isinf(upper), inf, upper),
                np.where(np.isinf(row_lower), -inf, row_lower),
                np.where(np.isinf(row_upper), inf, row_upper),
                A.indptr.astype(np.int32), A.indices.astype(np.int32),
                A.data.astype(np.float64), np.zeros(A.shape[1], dtype=np.int32))
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        raise SolverError(f"HiGHS did not complete a restricted tree: "
                          f"{h.modelStatusToString(h.getModelStatus())}")
    return np.asarray(h.getSolution().col_value)


def _lift(model: HandModel, small: HandModel, strategy: Strategy,
          completions: dict[tuple[int, int, str], np.ndarray]) -> Strategy:
    """The restricted strategy on the full model: the restricted play where the decision
    is kept (0 on the raises left out), the completion where one was found, and the first
    action elsewhere (decisions their actor never reaches)."""
    betting: dict[tuple[int, int, str], np.ndarray] = {}
    n = model.num_hands
    for public in model.public_states:
        tc, to = public
        full, kept = model.tree(public), small.tree(public)
        for node in full.nodes:
            key = (tc, to, node.history)
            if key in completions:
                betting[key] = completions[key]
                continue
            probs = np.zeros((len(node.edges), n))
            try:
                restricted = kept.node(node.history)
            except KeyError:
                probs[0] = 1.0
            else:
                where = {action: a for a, action in enumerate(node.actions)}
                for a, action in enumerate(restricted.actions):
                    probs[where[action]] = strategy.betting[key][a]
            betting[key] = probs
    return Strategy((strategy.throw[0].copy(), strategy.throw[1].copy()), betting)


def default_start(model: HandModel) -> frozenset[str]:
    """The decisions a restricted tree starts from: each root and the decisions its first
    and last actions lead to (Le Bidou: proposing 1 or the most)."""
    kept = set()
    for tree in model.trees.values():
        kept.add(tree.root.history)
        for edge in (tree.root.edges[0], tree.root.edges[-1]):
            if edge.node is not None:
                kept.add(tree.nodes[edge.node].history)
    return frozenset(kept)


@dataclasses.dataclass(frozen=True)
class DoubleOracle:
    """A restricted solve: the LP solution lifted to the full model, the decisions kept
    and how many LPs it took."""

    solution: LPSolution
    kept: frozenset[str]
    rounds: int
    decisions: int               # of the restricted trees, all first bettors
    full_decisions: int
    restricted: Strategy         # the last LP's strategy, on the restricted model
    basis: KeyedBasis | None = None   # the last LP's final basis by name (HiGHS's solves)


def double_oracle(model: HandModel, start: Iterable[str] | None = None,
                  method: str | None = None, progress: Step | None = None,
                  parallel: bool | None = None,
                  basis: KeyedBasis | None = None) -> DoubleOracle:
    """Solve `model` on restricted trees grown from `start` (`default_start`) by the raises
    that gain against the completed restricted equilibrium, until none does (module
    docstring); `progress("restricted LP: 12 decisions", round, 0)` before each LP. Each LP
    starts from the last one's basis (`solver.hand.lp.warm`), the first from `basis` (the final
    basis of an LP of the same game with other leaf values: a stage game solved again),
    unless `method` names a scipy method (then each is solved cold by it). Each round's
    check runs the two players' sides at once (`_check_frontier`) when `parallel` (default:
    on trees too large for one LP, where the check takes seconds; the result is the same).
    Raises SolverError if an LP fails or MAX_ROUNDS are not enough."""
    begin = time.perf_counter()
    progress = progress or quiet
    kept = frozenset(start if start is not None else default_start(model))
    parallel = too_large_for_one_lp(model) if parallel is None else parallel
    lp_seconds, iterations = 0.0, 0
    leaves = best_response.leaf_matrices(model)
    guide: Guide | None = None
    for rounds in range(1, MAX_ROUNDS + 1):
        trees = {first: restrict(tree, kept) for first, tree in model.trees.items()}
        small = build_model(model.description, trees)
        progress(f"restricted LP: {sum(len(t.nodes) for t in trees.values())} decisions",
                 rounds, 0)
        if method is None:          # HiGHS's dual simplex from the last LP's basis
            lp, basis = solve_grown(small, basis, guide)
        else:
            lp = solve_lp(small, method)
        lp_seconds += lp.seconds
        iterations += lp.iterations
        strategy, added = _check_frontier(model, small, lp.strategy, lp.value, leaves,
                                          parallel)
        if not added:
            decisions = sum(len(t.nodes) for t in trees.values())
            message = (f"restricted LP ({rounds} rounds, {decisions} of "
                       f"{sum(len(t.nodes) for t in model.trees.values())} decisions, "
                       f"LP {lp_seconds:.2f} s); {lp.message}")
            solution = dataclasses.replace(lp, strategy=strategy, message=message,
                                           iterations=iterations,
                                           seconds=time.perf_counter() - begin)
            return DoubleOracle(solution, kept, rounds, decisions,
                                sum(len(t.nodes) for t in model.trees.values()), lp.strategy,
                                basis)
        kept = kept | added
        guide = lifted_guide(model, strategy)     # the new decisions' play: the next start
    raise SolverError(f"the restricted tree was still growing after {MAX_ROUNDS} LPs "
                      f"({len(kept)} decisions)")


def _check_frontier(model: HandModel, small: HandModel, strategy: Strategy, value: float,
                    leaves: dict, parallel: bool = False) -> tuple[Strategy, frozenset[str]]:
    """The restricted equilibrium lifted to the full model (every raise left out completed
    by the mix that leaves the raiser least to gain), and the decisions to add: where a
    best response in the full game against the lifted strategy raises out of the
    restricted tree, if it gains over `value` at all, with the last raises their
    completions play. Each completion is computed on its own, and each player's best
    response reads only the other's play, so with `parallel` a forked child computes every
    other completion, then the opponent's best response (solver/common/side_by_side.py): the
    same result either way."""
    spots = _spots(model, small, strategy)
    (ours, our_raises), (theirs, their_raises) = side_by_side(
        lambda: _completions(model, spots[0::2]), lambda: _completions(model, spots[1::2]),
        parallel)
    lifted = _lift(model, small, strategy, {**ours, **theirs})
    captain, opponent = side_by_side(
        lambda: _gainful_deviations(model, small, lifted, value, leaves, CAPTAIN),
        lambda: _gainful_deviations(model, small, lifted, value, leaves, OPPONENT), parallel)
    added = captain | opponent
    # a decision brought in comes with the raises its completion needed: the LP would
    # otherwise meet them one round later
    for history in list(added):
        for raised_to in (our_raises, their_raises):
            added |= raised_to.get(history, set())
    return lifted, frozenset(added)


def _spots(model: HandModel, small: HandModel, strategy: Strategy
           ) -> list[tuple[Role, _Frontier]]:
    """Every raise the restricted trees leave out, public state by public state, with the
    first bettor of its tree."""
    out: list[tuple[Role, _Frontier]] = []
    payoffs: dict[Role, list[np.ndarray]] = {}
    for public in model.public_states:
        first = model.description.betting.first_bettor(*public)
        tree = small.tree(public)
        if first not in payoffs:
            payoffs[first] = leaf_payoffs(model, tree)
        for raiser in (CAPTAIN, OPPONENT):
            out.extend((first, spot) for spot in _frontier(
                model, tree, model.tree(public), strategy, public, payoffs[first], raiser))
    return out


def _completions(model: HandModel, spots: list[tuple[Role, _Frontier]]
                 ) -> tuple[dict[tuple[int, int, str], np.ndarray], dict[str, set[str]]]:
    """The completing player's mix at each spot (`_complete`), keyed (tc, to, history of
    the decision completed), and the last raises each plays, by that history."""
    completions: dict[tuple[int, int, str], np.ndarray] = {}
    raised_to: dict[str, set[str]] = {}
    full_payoffs: dict[Role, dict[int, np.ndarray]] = {}
    for first, spot in spots:
        full = model.tree(spot.public)
        mix, _ = _complete(model, full, spot, full_payoffs.setdefault(first, {}))
        if mix is None:
            continue
        completions[(*spot.public, spot.target.history)] = mix
        for a, edge in enumerate(spot.target.edges):
            if edge.node is not None and (mix[a] * spot.reach).max() > 0:
                raised_to.setdefault(spot.target.history, set()).add(
                    full.nodes[edge.node].history)
    return completions, raised_to


def _gainful_deviations(model: HandModel, small: HandModel, lifted: Strategy, value: float,
                        leaves: dict, player: Role) -> set[str]:
    """`player`'s best response in the full game against `lifted`: if it gains over the
    restricted `value`, the decisions out of the tree it raises to (`_deviations`)."""
    br = best_response.best_response(model, lifted, player, leaves)
    if br.value - (value if player == CAPTAIN else -value) > GAIN_TOLERANCE:
        return _deviations(model, small, lifted, br)
    return set()


def _deviations(model: HandModel, small: HandModel, lifted: Strategy,
                br: best_response.BestResponse) -> set[str]:
    """The decisions out of the restricted tree that the best response `br` raises to
    with some hand, where the other player's strategy reaches."""
    player = Role(br.player)
    found: set[str] = set()
    for public in model.public_states:
        tc, to = public
        full, kept = model.tree(public), small.tree(public)
        if player == CAPTAIN:
            own = end_mass(model, br.throw[0])[tc - 1]
        else:
            own = end_mass(model, br.throw[tc - 1])[to - 1]

        def mine(node: Node, a: int, r: np.ndarray) -> np.ndarray:
            if node.actor != player:
                return r
            return r * br.betting[(tc, to, node.history)][a]

        def theirs(node: Node, a: int, r: np.ndarray) -> np.ndarray:
            if node.actor == player:
                return r
            return r * lifted.betting[(tc, to, node.history)][a]

        reach_own, _ = full.push(own, mine)
        reach_other, _ = full.push(_ends(model, lifted, player.other, public), theirs)
        for node in full.nodes:
            if node.actor != player or not reach_other[node.index].any():
                continue
            try:
                actions = set(kept.node(node.history).actions)
            except KeyError:
                continue
            for a, edge in enumerate(node.edges):
                if (edge.node is not None and edge.action not in actions
                        and (reach_own[node.index] * br.betting[(tc, to, node.history)][a]
                             ).any()):
                    found.add(full.nodes[edge.node].history)
    return found


# Above this many betting rows (public states x decisions x hands) one LP of the whole tree
# is slower than the double oracle: max_stake 5 with the default dice (9 x 32 x 56) took
# 30-50 s whole, max_stake 9 (16 times as many) had not finished after 14 minutes; up to it
# the full LP was the faster (docs/le-bidou.md, "Measured").
ONE_LP_ROWS = 9 * 2**5 * 56


def betting_rows(model: HandModel) -> int:
    """Public states x betting decisions x hands: the size ONE_LP_ROWS bounds."""
    return sum(len(model.tree(public).nodes) for public in model.public_states) \
        * model.num_hands


def too_large_for_one_lp(model: HandModel) -> bool:
    """Whether `solve_restricted` beats one LP of the whole tree for `model`."""
    return betting_rows(model) > ONE_LP_ROWS


def solve_restricted(model: HandModel, method: str | None = None,
                     progress: Step | None = None) -> LPSolution:
    """What `solver.hand.lp.sequence_form.solve_lp` returns for `model` (its value and both
    strategies on the
    full model), by the double oracle: for betting trees too large for one LP. `reach` and
    `size` are those of the last restricted LP; `seconds` counts every round."""
    return double_oracle(model, method=method, progress=progress).solution


def restricted_model(model: HandModel, kept: Iterable[str]) -> HandModel:
    """The model of `model`'s game on its trees restricted to `kept`."""
    kept = frozenset(kept)
    return build_model(model.description,
                       {first: restrict(tree, kept) for first, tree in model.trees.items()})


def exact_lift(model: HandModel, oracle: DoubleOracle,
               progress: Step | None = None) -> Recovery:
    """The exact value of the full game from a restricted solve: the exact equilibrium
    recovered on the restricted model (an LP vertex there), lifted to the full model with
    the completions read as exact binary fractions, proved by `prove_fractions` on the full
    model. The bounds meet when the completions deter every raise with room to spare;
    otherwise they are an interval (and `reason` says so). No certificate, and the reason,
    when nothing is recovered or the proof's common denominator passes the certificate's
    bound (`strategy.MAX_COMMON_DENOMINATOR_BITS`: the default Le Bidou hand)."""
    from solver.hand.exact import (
        equilibrium as exact_equilibrium,  # scipy.linalg: only when an exact value is asked
    )

    small = restricted_model(model, oracle.kept)
    try:
        found = exact_equilibrium.recover(small, oracle.restricted, progress)
    except StrategyFileError as error:       # the proof's common denominator is too large
        return exact_equilibrium.Recovery(None, f"on the restricted model: {error}")
    if found.exact is None or found.strategy is None:
        return exact_equilibrium.Recovery(None, f"on the restricted model: {found.reason}")
    lifted = oracle.solution.strategy
    fractions: dict[tuple, list[Fraction]] = {}
    for where, probs, _ in certificate.decisions(model, lifted):
        if where[0] == "throw":
            fractions[where] = found.exact[where]
            continue
        _, (tc, to, history), hand = where
        try:
            node = small.tree((tc, to)).node(history)
        except KeyError:
            fractions[where] = _exact_row(probs)
            continue
        position = {action: a for a, action in
                    enumerate(model.tree((tc, to)).node(history).actions)}
        row = [Fraction(0)] * len(probs)
        for a, share in zip((position[action] for action in node.actions),
                            found.exact[where]):
            row[a] = share
        fractions[where] = row
    try:
        proof = certificate.prove_fractions(model, lifted, fractions)
    except StrategyFileError as error:
        return exact_equilibrium.Recovery(None, f"on the full model: {error}")
    reason = None if proof.exact is not None else (
        f"the lifted exact strategies prove an interval of width {float(proof.width):.2g}")
    return exact_equilibrium.Recovery(proof, reason, fractions if reason is None else None,
                                      lifted)


def _exact_row(probs: np.ndarray) -> list[Fraction]:
    """Float probabilities as exact binary fractions summing to 1 (the largest takes up
    the rest)."""
    row = [Fraction(float(p)) if p > 0 else Fraction(0) for p in probs]
    top = int(np.argmax(probs))
    row[top] = 1 - sum(row[:top] + row[top + 1:], Fraction(0))
    return row
