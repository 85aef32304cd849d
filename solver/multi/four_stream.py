"""Every seat's exact gain from deviating in a multi-hand Bidou hand too big to hold as one
tree, one throw-count combination at a time (docs/multi.md, "Four players at the default
dice").

Why: four players at the default dice (faces 6, throws 3) have a compact tree of 13,160,313
public nodes x 56 hands x 4 seats, 2.9e9 range cells (71 GB as the kernel's arrays): neither
CFR nor `best_response.gains` can hold it. But it has a shape that lets a best response be
taken in pieces. The throwing comes first; once every seat has stopped, the four public
counts (3^4 = 81 combinations) start a betting subtree of their own, which depends on the
counts only through the leader (M3: four distinct subtrees, `tree.build_betting_tree`). A
profile is then (a) each seat's reroll rule, the chance of stopping with each hand after k
throws, knowing the earlier seats' counts (`Profile.stop`) and (b) a betting strategy for
each combination (`Profile.betting`). In combination c, seat s's range at the first bet is
`count_ranges(...)[c_s - 1]`: his own dice and stops, nothing of the others'.

The exact best response of seat q against the others decomposes:
  1. in each combination, his best-response value W_c[h] at the first bet for each hand h
     (the others' ranges and betting fixed; `best_response.root_values`, the bottom-up
     maximum of the full tree's walk, on one subtree, ~1 GB at the default dice);
  2. a small dynamic program over his own stops: after k throws with hand h, knowing the
     earlier seats' counts e, stopping is worth S_k[h] = sum over the later seats' counts
     of W_(e, k, later)[h] (the later seats' counts are chance to him, their chance already
     in their ranges, which never depend on his hand), throwing again the mean over a fresh
     hand of the best at k + 1; his value is the sum over e of base @ V_1.
His value when nobody deviates is the sum over combinations of his root range times his own
values there (the same walk, his strategy instead of the maximum). Nothing is approximated:
tests/test_multi_four_stream.py checks the gains against `best_response.gains` on the built
tree of small four-player variants to 1e-9.
"""

from __future__ import annotations

import dataclasses
import itertools
import resource
import time
from typing import Callable, Optional

import numpy as np

from games.bidou_multi import betting
from games.bidou_multi.params import MultiParams
from solver.common.progress import Step
from solver.multi.best_response import Gains, root_values
from solver.multi.tree import STOP, PublicTree, build_betting_tree
from solver.multi.values import terminal_values

Counts = tuple[int, ...]
# stop(seat, k, earlier): the seat's chance of stopping with each hand after k throws
# (1 <= k < throws), knowing the earlier seats' counts `earlier`.
StopRule = Callable[[int, int, Counts], np.ndarray]
# betting(counts, tree): everybody's betting sigma[e, h] on `tree`, the betting tree of
# these counts (`build_betting_tree(params, counts)`, or one with the same leader).
BettingRule = Callable[[Counts, PublicTree], np.ndarray]


@dataclasses.dataclass(frozen=True)
class Profile:
    """A strategy profile of a several-throw hand, in the two parts the stream walks."""

    stop: StopRule
    betting: BettingRule


@dataclasses.dataclass(frozen=True)
class StreamResult:
    """`gains`: every seat's value and exact best response (the certificate); `reroll_only`:
    each seat's best value changing only his stops, his betting kept (what `best_stops`
    plays); `combinations`: betting subtrees walked; time and the process's peak memory."""

    gains: Gains
    reroll_only: tuple[float, ...]
    combinations: int
    seconds: float
    cpu_seconds: float
    peak_bytes: int
    stops: dict[tuple[int, Counts, int], np.ndarray]


def combinations(params: MultiParams) -> list[Counts]:
    """Every combination of the seats' public throw counts, the captain's first."""
    return list(itertools.product(range(1, params.throws + 1), repeat=params.players))


def count_ranges(base: np.ndarray, throws: int, stop: StopRule, seat: int,
                 earlier: Counts) -> np.ndarray:
    """ranges[k - 1, h]: the chance that the seat stops after k throws holding h (the full
    tree's range at the first bet, from his own dice and stops only)."""
    out = np.zeros((throws, len(base)))
    left = 1.0
    for k in range(1, throws + 1):
        here = left * base
        p = stop(seat, k, earlier) if k < throws else np.ones(len(base))
        out[k - 1] = here * p
        left = float((here * (1.0 - p)).sum())
    return out


def betting_ranges(tree: PublicTree, sigma: np.ndarray, root: np.ndarray) -> np.ndarray:
    """values.ranges on a betting tree (no rethrows) whose root ranges are `root[q, h]`."""
    if tree.edge_again.any():
        raise ValueError("betting_ranges walks a betting tree, which has no rethrow")
    out = np.zeros((tree.num_nodes, tree.players, len(tree.hands)))
    out[0] = root
    for depth in tree.depth_edges:
        parent, child, player = (tree.edge_parent[depth], tree.edge_child[depth],
                                 tree.edge_player[depth])
        rows = np.arange(len(parent))
        reach = out[parent]
        reach[rows, player] = reach[rows, player] * sigma[depth]
        out[child] = reach
    return out


def walk_combination(tree: PublicTree, sigma: np.ndarray, root: np.ndarray,
                     seats: list[int]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """{q: (best, own)}: seat q's best-response and own values at the first bet, per hand,
    in one betting subtree whose root ranges are `root`."""
    reach = betting_ranges(tree, sigma, root)
    values = terminal_values(tree, reach, seats)
    del reach
    out = {}
    for q in seats:
        best = root_values(tree, sigma, values[q].copy(), q, deviate=True).copy()
        own = root_values(tree, sigma, values.pop(q), q, deviate=False).copy()
        out[q] = (best, own)
    return out


def _deviation(base: np.ndarray, throws: int, seat: int,
               stopping: dict[tuple[Counts, int], np.ndarray]
               ) -> tuple[float, dict[tuple[int, Counts, int], np.ndarray]]:
    """The seat's best value over his own stops, `stopping[(earlier, k)]` his value of
    stopping after k throws per hand (summed over the later seats' counts), and where he
    stops (1.0) or throws again (0.0)."""
    zero = np.zeros(len(base))
    total, stops = 0.0, {}
    for earlier in itertools.product(range(1, throws + 1), repeat=seat):
        best = stopping.get((earlier, throws), zero)
        for k in range(throws - 1, 0, -1):
            here = stopping.get((earlier, k), zero)
            again = float(base @ best)
            stops[(seat, earlier, k)] = (here >= again).astype(float)
            best = np.maximum(here, again)
        total += float(base @ best)
    return total, stops


def stream_gains(params: MultiParams, profile: Profile,
                 progress: Step | None = None,
                 trees: Optional[dict[int, PublicTree]] = None) -> StreamResult:
    """Every seat's value and exact best response under `profile`, walking one betting
    subtree at a time (built once per leader and kept in `trees`, by leader: four at four
    players; pass the same dict to the next call to build them once)."""
    started, cpu = time.perf_counter(), time.process_time()
    n, t = params.players, params.throws
    trees = {} if trees is None else trees
    value = [0.0] * n
    best_sums: list[dict] = [{} for _ in range(n)]
    own_sums: list[dict] = [{} for _ in range(n)]
    walked = 0
    base = None
    every = list(combinations(params))
    for done, counts in enumerate(every, 1):
        lead = betting.leader(counts)
        if lead not in trees:
            trees[lead] = build_betting_tree(params, counts)
        tree = trees[lead]
        base = tree.base
        root = np.array([count_ranges(base, t, profile.stop, s, counts[:s])[counts[s] - 1]
                         for s in range(n)])
        empty = [s for s in range(n) if root[s].sum() == 0.0]
        seats = [q for q in range(n) if not [s for s in empty if s != q]]
        if not seats:
            continue                          # nobody's values: two seats never get here
        walked += 1
        for q, (best, own) in walk_combination(
                tree, profile.betting(counts, tree), root, seats).items():
            value[q] += float(root[q] @ own)
            key = (counts[:q], counts[q])
            best_sums[q][key] = best_sums[q].get(key, 0.0) + best
            own_sums[q][key] = own_sums[q].get(key, 0.0) + own
        if progress is not None:
            progress(f"counts {counts}: {time.perf_counter() - started:.0f} s", done, len(every))
    assert base is not None
    best_values, reroll_only, stops = [], [], {}
    for q in range(n):
        best_values.append(_deviation(base, t, q, best_sums[q])[0])
        kept, rule = _deviation(base, t, q, own_sums[q])
        reroll_only.append(kept)
        stops.update(rule)
    return StreamResult(
        gains=Gains(values=tuple(value), best=tuple(best_values)),
        reroll_only=tuple(reroll_only), combinations=walked,
        seconds=time.perf_counter() - started, cpu_seconds=time.process_time() - cpu,
        peak_bytes=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, stops=stops)


def _prefix(counts: Counts) -> str:
    """The public label of the throws (tree.py's): "t0:2 t1:1 ..."."""
    return "".join(f"t{s}:{c} " for s, c in enumerate(counts))


def _edge_index(tree: PublicTree) -> dict[tuple[str, str], int]:
    return {(tree.node_label[p], name): e
            for e, (p, name) in enumerate(zip(tree.edge_parent.tolist(), tree.edge_name))}


def relabelled_betting(source: PublicTree, sigma: np.ndarray,
                       prefix: Callable[[Counts], Counts]) -> BettingRule:
    """Betting read from `source`'s strategy `sigma`: at a betting node, the strategy of the
    node of `source` with the same actions after the throws `prefix(counts)`. The seats are
    relabelled from the leader: when the two betting rounds have different leaders, the
    k-th seat to speak after the target's leader plays what the k-th after the source's
    plays (checked: one rotation of the seats maps every edge's player)."""
    index = _edge_index(source)
    maps: dict[tuple[Counts, int], np.ndarray] = {}

    def rule(counts: Counts, tree: PublicTree) -> np.ndarray:
        key = (prefix(counts), id(tree))
        if key not in maps:
            head = _prefix(key[0])
            edges = np.array([index[(head + tree.node_label[p], name)] for p, name in
                              zip(tree.edge_parent.tolist(), tree.edge_name)])
            shift = (tree.edge_player - source.edge_player[edges]) % tree.players
            if len(set(shift.tolist())) != 1:
                raise ValueError(f"the betting after {counts} is not a rotation of the "
                                 f"source's after {key[0]}")
            maps[key] = edges
        return sigma[maps[key]]
    return rule


def profile_from_tree(tree: PublicTree, sigma: np.ndarray) -> Profile:
    """The profile `sigma` of the whole built tree, in the stream's two parts (for the tests:
    the stream's gains must equal `best_response.gains(tree, sigma)`)."""
    index = _edge_index(tree)

    def stop(seat: int, k: int, earlier: Counts) -> np.ndarray:
        return sigma[index[(f"{_prefix(earlier)}t{seat}:{k}?", STOP)]]
    return Profile(stop=stop, betting=relabelled_betting(tree, sigma, lambda c: c))


def threshold_stop(tree: PublicTree, share: float = 0.5) -> StopRule:
    """A folk reroll rule: stop as soon as the hand beats at least `share` of fresh hands
    (by chance), whatever the throws and the others' counts."""
    strength = tree.beats @ tree.base
    mask = (strength >= share).astype(float)
    return lambda seat, k, earlier: mask


def rule_of(stops: dict[tuple[int, Counts, int], np.ndarray]) -> StopRule:
    """A StopRule from a table (seat, earlier counts, k) -> stop (1.0) or not, such as
    `StreamResult.stops`."""
    return lambda seat, k, earlier: stops[(seat, earlier, k)]
