"""What the solved multi-hand strategy does, as numbers and charts (docs/multi.md,
"Results"): when each seat stops throwing, the leader's first bet, how a bet is answered,
and the bluff share of the bets.

Every figure is a weighted average over public histories: at each public node the weight
of a hand is the chance that the node is reached with it (the others' ranges, which are
independent of it, times the actor's own range). So "P(stop | hand)" of a seat is over all
the throw counts of the seats before him, as often as the strategy produces them.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from games.bidou import rules
from solver.multi.tree import STOP, PublicTree
from solver.multi.values import ranges

ByHand = dict[str, np.ndarray]              # action name -> probability per hand

# The charts are shown in the docs about 900 pixels wide (docs/multi.md), drawn at DPI: as
# narrow as the 56 hands of the default game allow (HAND_INCHES each, beside the axis and the
# legend), so that their type, at these sizes, stays readable once the page scales them.
DPI = 110
HAND_INCHES = 0.14
MARGIN_INCHES = 1.9
PANEL_INCHES = 3.0
TICK_PT = 8.5               # the hands under the bars
LABEL_PT = 10               # the axes' names, the legend
TITLE_PT = 11


def hand_order(tree: PublicTree) -> list[int]:
    """Hands from the weakest to the strongest (by how many hands each beats)."""
    return list(np.argsort(tree.beats.sum(axis=1), kind="stable"))


def policy_by_hand(tree: PublicTree, sigma: np.ndarray, reach: np.ndarray,
                   keep: Callable[[int], bool]) -> tuple[ByHand, np.ndarray]:
    """The actions' probabilities per hand averaged over the decision nodes `keep` accepts,
    each weighted by its chance of being reached with that hand; and those weights' sum."""
    n, h = tree.players, len(tree.hands)
    sums: dict[str, np.ndarray] = {}
    weight = np.zeros(h)
    ends = list(tree.edge_starts[1:]) + [tree.num_edges]
    for start, end in zip(tree.edge_starts, ends):
        node = int(tree.edge_parent[start])
        if not keep(node):
            continue
        actor = int(tree.node_player[node])
        totals = reach[node].sum(axis=1)
        others = float(np.prod([totals[j] for j in range(n) if j != actor]))
        w = others * reach[node, actor]
        weight += w
        for e in range(start, end):
            name = tree.edge_name[e]
            sums[name] = sums.get(name, np.zeros(h)) + w * sigma[e]
    with np.errstate(invalid="ignore", divide="ignore"):
        return {a: np.where(weight > 0, s / weight, np.nan) for a, s in sums.items()}, weight


def stopping(tree: PublicTree, sigma: np.ndarray, reach: np.ndarray, seat: int) -> np.ndarray:
    """P(stop after the first throw | hand) of `seat`."""
    def first(node: int) -> bool:
        return (int(tree.node_player[node]) == seat
                and tree.node_label[node].endswith(f"t{seat}:1?"))
    by_hand, _ = policy_by_hand(tree, sigma, reach, first)
    return by_hand[STOP]


def opening(tree: PublicTree, sigma: np.ndarray, reach: np.ndarray) -> tuple[ByHand, np.ndarray]:
    """The betting leader's first action, per hand."""
    return policy_by_hand(tree, sigma, reach, lambda node: tree.node_label[node].endswith("b:"))


def answering(tree: PublicTree, sigma: np.ndarray, reach: np.ndarray, bet: int
              ) -> tuple[ByHand, np.ndarray]:
    """The next player's answer to an opening bet of `bet` chips, per hand."""
    return policy_by_hand(tree, sigma, reach,
                          lambda node: tree.node_label[node].endswith(f"b:bet {bet},"))


def bluff_share(tree: PublicTree, by_hand: ByHand, weight: np.ndarray) -> float:
    """Of the leader's opening bets (all sizes), the share made with a hand that a random
    hand beats more often than not."""
    beaten = tree.base @ tree.beats                 # P(a random hand beats h)
    bets = sum(np.nan_to_num(p) for a, p in by_hand.items() if a.startswith("bet "))
    mass = np.asarray(bets) * weight
    total = float(mass.sum())
    return float(mass[beaten > 0.5].sum() / total) if total > 0 else 0.0


def figures(tree: PublicTree, sigma: np.ndarray, title: str) -> dict[str, bytes]:
    """Three PNG charts by file name: multi-stop.png (when to stop, by seat; only with two
    or more throws), multi-open.png (the leader's first bet), multi-answer.png (answering
    an opening bet of 1, 2 and 3 chips); the caller writes them (`files.write_set`)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    reach = ranges(tree, sigma)
    order = hand_order(tree)
    names = [rules.format_hand(tree.hands[i]) for i in order]
    x = np.arange(len(order))
    written: dict[str, bytes] = {}
    width = max(6.0, HAND_INCHES * len(order) + MARGIN_INCHES)
    if tree.params.throws > 1:
        fig, ax = plt.subplots(figsize=(width, PANEL_INCHES + 0.6))
        for seat in range(tree.players):
            label = "captain" if seat == 0 else f"seat {seat}"
            ax.plot(x, stopping(tree, sigma, reach, seat)[order], marker="o", label=label)
        _axes(ax, names, "P(stop after the first throw)", f"When to stop, by seat ({title})")
        _legend(ax)
        written["multi-stop.png"] = _png(fig)
    by_hand, _ = opening(tree, sigma, reach)
    fig, ax = plt.subplots(figsize=(width, PANEL_INCHES + 0.6))
    _stacked(ax, x, by_hand, order, ("pass", "bet 1", "bet 2", "bet 3"))
    _axes(ax, names, "probability", f"The leader's first bet ({title})")
    written["multi-open.png"] = _png(fig)
    # One panel under the other, each as wide as the other charts: side by side, 56 hands
    # made a figure 38 inches wide whose labels no page could show.
    fig, axes = plt.subplots(3, 1, figsize=(width, 3 * PANEL_INCHES + 0.5))
    for bet, ax in zip((1, 2, 3), axes):
        answer, _ = answering(tree, sigma, reach, bet)
        _stacked(ax, x, answer, order, ("pass", "call", "raise 1", "raise 2"))
        _axes(ax, names, "probability", f"answering an opening bet of {bet}")
        if bet < 3:
            ax.set_xlabel("")
    fig.suptitle(f"Calling a bet: the next player's answer ({title})", fontsize=TITLE_PT)
    written["multi-answer.png"] = _png(fig)
    return written


def _stacked(ax, x, by_hand: ByHand, order: list[int], actions: tuple[str, ...]) -> None:
    if not by_hand:
        ax.text(0.5, 0.5, "never reached", ha="center", transform=ax.transAxes)
        return
    bottom = np.zeros(len(order))
    for action in actions:
        if action in by_hand:
            p = np.nan_to_num(by_hand[action][order])
            ax.bar(x, p, bottom=bottom, label=action)
            bottom += p
    _legend(ax)


def _legend(ax) -> None:
    ax.legend(fontsize=LABEL_PT - 1, loc="upper left", bbox_to_anchor=(1.0, 1.0))   # beside


def _axes(ax, names: list[str], ylabel: str, title: str) -> None:
    ax.set_xticks(np.arange(len(names)))
    ax.set_xticklabels(names, rotation=90, fontsize=TICK_PT)
    ax.set_xlim(-0.7, len(names) - 0.3)
    ax.tick_params(axis="y", labelsize=TICK_PT)
    ax.set_xlabel("hand, weakest to strongest", fontsize=LABEL_PT)
    ax.set_ylabel(ylabel, fontsize=LABEL_PT)
    ax.set_ylim(0, 1.05)
    ax.set_title(title, fontsize=TITLE_PT - 0.5)


def _png(fig) -> bytes:
    import io

    import matplotlib.pyplot as plt

    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    plt.close(fig)
    return buffer.getvalue()


def summary(tree: PublicTree, sigma: np.ndarray) -> dict[str, object]:
    """The numbers docs/multi.md's results quote: how often the leader opens (and how much),
    the bluff share of his bets, how often a bet of 1 is answered by each action, and each
    seat's chance of stopping after one throw (with two or more throws)."""
    reach = ranges(tree, sigma)
    opening_by_hand, weight = opening(tree, sigma, reach)

    def mean(by_hand: ByHand, w: np.ndarray) -> dict[str, float]:
        return {a: round(float(np.nansum(p * w) / w.sum()), 4) for a, p in by_hand.items()}
    answer, answer_weight = answering(tree, sigma, reach, 1)
    out: dict[str, object] = {
        "leader_opens": mean(opening_by_hand, weight),
        "bluff_share": round(bluff_share(tree, opening_by_hand, weight), 4),
        "answer_to_bet_1": mean(answer, answer_weight) if answer else {},
    }
    if tree.params.throws > 1:
        out["stop_after_one_throw"] = [
            round(float(tree.base @ np.nan_to_num(stopping(tree, sigma, reach, seat))), 4)
            for seat in range(tree.players)]
    return out
