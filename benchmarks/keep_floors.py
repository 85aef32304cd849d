"""Where the keep sheet's cost is (issue 24): the refined equilibrium of reroll=keep with one
part of its play put in the rule family, the rest exact, measured by the exact best response.

    python benchmarks/keep_floors.py [--strategy outputs/keep/strategy.json]

Each line replaces, decision by decision (every decision its own rule: what the family can
state at best before any rules are shared), one part of the equilibrium:

* the betting, by the family's closest open and face rules (`bench_cheatsheet.
  family_references`: bluffs "or worse", and with bluff bands);
* the stop decisions, by a staircase cut fitted to P(stop) (least squares weighted by the
  player's own reach), the dice kept when throwing again as the equilibrium keeps them;
* the keeps, by a list of preferences (the stops exact): the published book's one list for
  every throw, or each decision's own list (the one agreeing most with the equilibrium's
  keeps, weighted by reach), or each hand's most likely keep (what any list could reach);
* both, each decision by the whole-hand cut, list and flag agreeing most with the
  equilibrium: with the old family (six preferences, no flag), with the flag "if it keeps
  nothing, stop", with "two dice of 4 or more" too, and the new family with one list for
  every throw.

A floor here is no bound on a sheet (a sheet's betting adapts to its own throws: the
published 12-rule keep book, 0.0846, costs less than the old family's throw floor, 0.13),
but it says which part of the family holds the sheet back.
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from solver.cheatsheet import rulebook
from solver.cheatsheet.compress import shape_fit
from solver.hand import best_response
from solver.hand.reach import own_reach
from solver.hand.strategy import Strategy, load_strategy_file

OLD = ("21", "pair", "run", "ace", "deuce", "high")
NEW = OLD + ("high2",)
PUBLISHED_LIST = ("21", "pair", "ace", "deuce")       # the 12-rule book's, before issue 24's


class Floors:
    """The equilibrium, its reach and the family's keep lists as arrays."""

    def __init__(self, path: Path):
        self.model, self.eq, summary = load_strategy_file(path)
        self.value = float(summary["value"])
        self.leaves = best_response.leaf_matrices(self.model)
        self.pos = rulebook.positions(self.model)
        self.order = np.argsort(self.pos)
        self.reach = {p: own_reach(self.model, self.eq, p)[0] for p in (0, 1)}
        self.none = self.model.throw_actions.index(())

    def cost(self, s: Strategy) -> str:
        e = best_response.exploitability(self.model, s, self.leaves)
        return (f"{e.exploitability:.4f} (captain {e.captain_loss(self.value):.4f}, "
                f"opponent {e.opponent_loss(self.value):.4f})")

    def decisions(self) -> list[tuple[int, int, int]]:
        return [(p, c, t) for p in (0, 1) for c in range(self.eq.throw[p].shape[0])
                for t in range(self.eq.throw[p].shape[1])]

    def weight(self, p: int, c: int, t: int) -> np.ndarray:
        return self.reach[p][c, t].max(axis=0)

    def lists(self, patterns: Sequence[str]) -> list[np.ndarray]:
        return [rulebook.keep_actions(self.model, o) for k in range(5)
                for o in itertools.permutations(patterns, k)]

    def throws(self, play: Callable[[int, int, int], np.ndarray]) -> Strategy:
        """The equilibrium with each throw decision's (actions, n) play replaced."""
        s = self.eq.copy()
        for p, c, t in self.decisions():
            s.throw[p][c, t] = play(p, c, t)
        return s

    def keep_with(self, stop: np.ndarray, keep: np.ndarray) -> np.ndarray:
        q = np.zeros(self.model.throw_legal.shape)
        q[0] = stop
        q[keep, np.arange(len(stop))] += 1 - stop
        return q

    def stop_cut(self, p: int, c: int, t: int) -> np.ndarray:
        """The staircase stop fitted to the equilibrium's, its keeps kept."""
        P = self.eq.throw[p][c, t]
        w = self.weight(p, c, t)[self.order] + 1e-5
        stop = shape_fit(P[0][self.order], w, "d")[np.argsort(self.order)]
        again = P[1:].sum(axis=0)
        q = np.zeros_like(P)
        q[0] = stop
        q[1:] = np.where(again > 1e-12, P[1:] / np.maximum(again, 1e-300), 0.0) * (1 - stop)
        q[self.none] += np.where(again > 1e-12, 0.0, 1 - stop)   # never rethrown: all dice
        return q

    def agreement(self, p: int, c: int, t: int, act: np.ndarray) -> tuple[float, int]:
        """The best whole-hand stop cut before the play `act` (action index by hand; 0
        stops): its agreement with the equilibrium, weighted by reach, and the cut."""
        P, w = self.eq.throw[p][c, t], self.weight(p, c, t)
        n = len(act)
        go = (w * P[act, np.arange(n)])[self.order]
        stop = (w * P[0])[self.order]
        total = np.concatenate([[0.0], np.cumsum(stop)]) + np.concatenate(
            [np.cumsum(go[::-1])[::-1], [0.0]])
        k = int(np.argmax(total))
        return float(total[k]), k

    def fitted(self, lists: list[np.ndarray], flags: Sequence[bool],
               one_list: np.ndarray | None = None) -> Strategy:
        """Each decision's cut, list and flag agreeing most (or `one_list` everywhere)."""
        def play(p: int, c: int, t: int) -> np.ndarray:
            best = (-1.0, 0, lists[0])
            for keep in (lists if one_list is None else [one_list]):
                for flag in flags:
                    act = np.where(flag & (keep == self.none), 0, keep)
                    score, k = self.agreement(p, c, t, act)
                    if score > best[0]:
                        best = (score, k, act)
            _, k, act = best
            stop = np.where((self.pos < k) | (act == 0), 1.0, 0.0)
            return self.keep_with(stop, np.where(act == 0, self.none, act))
        return self.throws(play)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", type=Path,
                        default=Path(__file__).resolve().parents[1] / "outputs" / "keep"
                        / "strategy.json")
    f = Floors(parser.parse_args().strategy)
    from bench_cheatsheet import family_references

    print("the equilibrium with, in the rule family, decision by decision:")
    for name, cost in family_references(f.model, f.eq).items():
        print(f"  its betting ({name}): {cost:.4f}")
    print(f"  its stops (staircase cuts, its keeps): {f.cost(f.throws(f.stop_cut))}")
    book = rulebook.keep_actions(f.model, PUBLISHED_LIST)
    print("  its keeps, stops exact: the book's one list "
          + f.cost(f.throws(lambda p, c, t: f.keep_with(f.eq.throw[p][c, t][0], book))))
    old = f.lists(OLD)
    per = {d: max(old, key=lambda k: float((f.weight(*d) * f.eq.throw[d[0]][d[1], d[2]][
        k, np.arange(len(k))]).sum())) for d in f.decisions()}
    print("    each decision's own list "
          + f.cost(f.throws(lambda p, c, t: f.keep_with(f.eq.throw[p][c, t][0],
                                                         per[(p, c, t)]))))
    likely = {d: np.argmax(np.where(np.arange(len(f.model.throw_actions))[:, None] > 0,
                                    f.eq.throw[d[0]][d[1], d[2]], -1), axis=0)
              for d in f.decisions()}
    print("    each hand's most likely keep "
          + f.cost(f.throws(lambda p, c, t: f.keep_with(f.eq.throw[p][c, t][0],
                                                         likely[(p, c, t)]))))
    new = f.lists(NEW)
    print("  its throws, whole-hand cuts and each decision's list (betting exact):")
    print(f"    six preferences, no flag: {f.cost(f.fitted(old, [False]))}")
    print(f"    with the flag: {f.cost(f.fitted(old, [False, True]))}")
    print(f"    with the flag and 'two dice of 4 or more': "
          f"{f.cost(f.fitted(new, [False, True]))}")
    print(f"    'two dice of 4 or more', no flag: {f.cost(f.fitted(new, [False]))}")
    one = min(new, key=lambda k: best_response.exploitability(
        f.model, f.fitted(new, [False, True], k), f.leaves).exploitability)
    print(f"    the new family, one list for every throw: "
          f"{f.cost(f.fitted(new, [False, True], one))}")


if __name__ == "__main__":
    main()
