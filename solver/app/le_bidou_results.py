"""docs/results.md's Le Bidou section: what stakes change against one-chip betting.

    bidou results --le-bidou     # solves the hands below, keeps their numbers in
                                 # docs/data/results.json ("le_bidou"), renders the page

The headline is the default hand (`LeBidouParams()`: 6 faces, 3 throws, keep, french,
stakes up to 9, half stake rounded up) against the one-chip game with the same dice and
ranking (`BidouParams(reroll="keep", ranking="french")`, its value read from the sweep
table `docs/data/sweep.csv`, proved there). The penalty rules, `half_stake` up, down and
full, are compared on the default hand itself (stakes up to 9: the restricted LP's warm
double oracle solves each in seconds; the rounding up is the headline, solved once). Each hand is
solved by the LP (the restricted LP above 16 128 rows, `solver/hand/lp/restricted.py`) and its
value proved by the certificate; the behaviour (how often each stake is proposed, the
bluffs) is that of the LP's vertex: Le Bidou has no refined equilibrium on its stakes trees
(docs/le-bidou.md), so these numbers depend on the equilibrium chosen, and the page says so.

*Bluff*, as for the one-chip game (`solver.analysis.behaviour`, reused): a proposal of the
stake s (a first stake or a raise to s) is a bluff when the proposer's hand loses a showdown
to the responder's indifference hand, the weakest hand with which calling s against the
proposer's range (his hands, as the equilibrium brings them there and proposes s with them)
is worth at least withdrawing; every proposal is a bluff when no hand should call.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from games.bidou.betting import CAPTAIN, FOLD, Node
from games.bidou.params import BidouParams
from games.le_bidou.params import LeBidouParams
from games.le_bidou.stakes import CALL, WITHDRAW
from solver.analysis import behaviour
from solver.common.progress import Step
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy

COMMAND = "bidou results --le-bidou"
HEADLINE = LeBidouParams()
# The hand under each withdrawal penalty: the source's half stake, rounded up (the default)
# or down, and the full stake it is measured against; at the default stakes up to 9 (one LP
# over the whole tree is practical only up to 5: at 9 the cold restricted LP takes over 25
# minutes for the rounding down; the warm double oracle takes seconds).
COMPARE_MAX_STAKE = HEADLINE.max_stake
PENALTIES: dict[str, LeBidouParams] = {
    rule: LeBidouParams(max_stake=COMPARE_MAX_STAKE, half_stake=rule)
    for rule in ("up", "down", "full")}
ONE_CHIP = BidouParams(reroll="keep", ranking="french")


# --- what one solved hand says ----------------------------------------------------------------

def proposals(model: HandModel, strategy: Strategy) -> dict[str, dict[int, dict[str, float]]]:
    """Per stake s: how often it is proposed per hand played, first ("first": "stake s")
    and as a raise ("raise": "raise to s"), and the bluffs among those proposals."""
    params = model.game_params
    assert isinstance(params, LeBidouParams), "a Le Bidou hand"
    stakes = range(1, params.max_stake + 1)
    out = {kind: {s: {"per_hand": 0.0, "bluffs_per_hand": 0.0} for s in stakes}
           for kind in ("first", "raise")}
    for kind, (tc, to), node, rc, ro in behaviour.walk(model, strategy):
        if kind != "node":
            continue
        tree = model.tree((tc, to))
        mine, theirs = (rc, ro)[node.actor], (rc, ro)[node.actor.other]
        probs = strategy.betting[(tc, to, node.history)]
        for i, edge in enumerate(node.edges):
            if edge.node is None:
                continue                                  # withdraw, call: not a proposal
            facing = tree.nodes[edge.node]
            bettor_range = mine * probs[i]
            mass = bettor_range * theirs.sum()            # P(this proposal, with hand h)
            if mass.sum() <= 0:
                continue
            cell = out["first" if node.history == "" else "raise"][facing.level]
            cell["per_hand"] += float(mass.sum())
            cell["bluffs_per_hand"] += float(mass[_bluffing(model, tree, facing,
                                                            bettor_range)].sum())
    return out


def _bluffing(model: HandModel, tree, facing: Node, bettor_range: np.ndarray) -> np.ndarray:
    """The proposer's hands that are bluffs at the proposal `facing` answers (module
    docstring): those that lose a showdown to the responder's indifference hand."""
    called, withdrawn = tree.child(facing, CALL), tree.child(facing, WITHDRAW)
    assert withdrawn.kind == FOLD
    r = behaviour.indifference_between(model, tree, facing.actor, called, withdrawn,
                                       bettor_range)
    if r is None:
        return np.ones(model.num_hands, dtype=bool)
    if facing.actor.other == CAPTAIN:
        return model.compare[:, r] < 0
    return model.compare[r, :] > 0


def answers(model: HandModel, strategy: Strategy) -> dict[str, float]:
    """How the other answers the first stake, per hand played: withdraw, call or raise."""
    out = {"withdraw": 0.0, "call": 0.0, "raise": 0.0}
    for kind, (tc, to), node, rc, ro in behaviour.walk(model, strategy):
        if kind != "node" or len(node.history) != 1:
            continue
        probs = strategy.betting[(tc, to, node.history)]
        for i, action in enumerate(node.actions):
            name = action if action in (WITHDRAW, CALL) else "raise"
            out[name] += float(rc.sum() * (ro @ probs[i]))
    return out


def hand_numbers(solution) -> dict[str, Any]:
    """One Le Bidou hand: its proved value, both exploitabilities by the exact best
    response, the solver's status, how hands end and the stakes proposed."""
    from solver.hand.exact.certificate import decimal

    model, strategy, proof = solution.model, solution.strategy, solution.certificate
    e = solution.exploitability
    found = proposals(model, strategy)
    outcomes = behaviour.outcomes(model, strategy)
    return {"rules": model.game_rules, "value": float((proof.lower + proof.upper) / 2),
            "lower": decimal(proof.lower, 15, up=False),
            "upper": decimal(proof.upper, 15, up=True), "exact": proof.exact and str(
                proof.exact),
            "captain_exploitability": e.captain_exploitability,
            "opponent_exploitability": e.opponent_exploitability,
            "status": solution.status,
            "folded": outcomes.folded, "showdown": outcomes.showdown,
            "chips_moved": outcomes.chips_moved,
            "first": {str(s): v for s, v in found["first"].items()},
            "raise": {str(s): v for s, v in found["raise"].items()},
            "answers": _first_answers(model, strategy)}


def _first_answers(model: HandModel, strategy: Strategy) -> dict[str, float]:
    """`answers` as fractions of the first stakes (they sum to 1)."""
    got = answers(model, strategy)
    total = sum(got.values())
    return {k: v / total for k, v in got.items()}


def one_chip(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The one-chip game with the same dice and ranking, from the sweep table."""
    from solver.app.sweep import rule_key

    row = {rule_key(r): r for r in rows}[rule_key(ONE_CHIP)]
    return {"rules": ONE_CHIP.to_dict(), "value": row["value"], "lower": row["lower"],
            "upper": row["upper"], "exact": row["exact"]}


def compute(rows: Sequence[Mapping[str, Any]], progress: Step | None = None) -> dict[str, Any]:
    """The Le Bidou part of docs/data/results.json: the HEADLINE hand and every hand of
    PENALTIES solved and proved."""
    from solver.common.errors import SolverError
    from solver.hand.solve import solve

    wanted = {"headline": HEADLINE, **PENALTIES}
    solved: dict[LeBidouParams, dict[str, Any]] = {}
    for done, (name, params) in enumerate(wanted.items(), start=1):
        if params in solved:
            continue
        if progress is not None:
            progress(f"solving Le Bidou: {params.describe()}", done, len(wanted))
        solution = solve(params)
        if solution.certificate is None or solution.certificate.width > 1e-9:
            raise SolverError(f"{params.describe()}: its value is not proved")
        solved[params] = hand_numbers(solution)
    return {"command": COMMAND, "equilibrium": "plain LP vertex", "one_chip": one_chip(rows),
            "headline": solved[HEADLINE],
            "hands": {rule: solved[params] for rule, params in PENALTIES.items()}}


# --- the Markdown ------------------------------------------------------------------------------

def _pct(x: float) -> str:
    return "<0.1%" if 0 < x < 0.0005 else f"{100 * x:.1f}%"


def _exploitability(x: float) -> str:
    """Kept to 12 decimals (results.FLOAT_DECIMALS): 0 means below 5e-13."""
    return "< 5e-13" if x == 0 else f"{x:.1e}"


def _share(cell: Mapping[str, float]) -> str:
    return _pct(cell["bluffs_per_hand"] / cell["per_hand"]) if cell["per_hand"] > 0 else "–"


def _mean_first(hand: Mapping[str, Any]) -> float:
    """The expected first stake (the first player always proposes one)."""
    return sum(int(s) * c["per_hand"] for s, c in hand["first"].items())


def _interval(hand: Mapping[str, Any]) -> str:
    if hand.get("exact"):
        return f"exactly {hand['exact']}"
    return f"proved in [{hand['lower']}, {hand['upper']}]"


def render(lb: Mapping[str, Any], number: int) -> list[str]:
    """Section `number` of docs/results.md from the "le_bidou" part of the document."""
    hands, chip = lb["hands"], lb["one_chip"]
    up = lb["headline"]
    lines = [
        f"## {number}. Le Bidou: stakes instead of one-chip bets",
        "",
        "Le Bidou (docs/le-bidou.md, docs/rules.md section 5) is the French game: the first "
        "player proposes a stake of 1 to 9 chips, the other withdraws (fined half of it), "
        "calls (the lower hand receives the stake) or raises, and so on. Its default hand "
        "(6 faces, 3 throws, `reroll keep`, `ranking french`, stakes up to 9, half stake "
        "rounded up) is solved by the restricted LP and its value proved on the full game; "
        "Le Bidou has no refined equilibrium on its stakes trees, so everything below but "
        "the values describes the LP's vertex, one equilibrium among many "
        "(*these numbers depend on the equilibrium chosen*). Reproduce: "
        f"`{lb['command']}` (it solves the {_count(lb)} hands of this section, each by "
        "the LP and its certificate).",
        "",
        f"**The first player's value.** With stakes he wins **{up['value']:+.6f}** chips per "
        f"hand ({_interval(up)}; exploitability by the exact best response: "
        f"{_exploitability(up['captain_exploitability'])} against him, "
        f"{_exploitability(up['opponent_exploitability'])} against the other; LP status "
        f"{up['status']}). The one-chip game with the same dice and ranking "
        f"(`--reroll keep --ranking french`, `--max-level 4`) is worth {chip['value']:+.6f} "
        f"to him ({_interval(chip)}, docs/data/sweep.csv): stakes move his value by "
        f"{up['value'] - chip['value']:+.6f} chips per hand. He must speak first in both "
        "games; with the whole range of stakes to choose from, speaking first is "
        + ("worth more to him than it costs" if up["value"] > 0 else "still a cost to him")
        + ". Chips received per hand, E\\|payoff\\|: "
        f"{up['chips_moved']:.4f}; hands ending in a withdrawal {_pct(up['folded'])}, in a "
        f"call {_pct(up['showdown'])}.",
        "",
    ]
    lines += _stakes_table(up)
    lines += _penalty_lines(hands)
    return lines + [f"![first stakes and their bluffs, by penalty](img/{PLOT})", ""]


def _count(lb: Mapping[str, Any]) -> str:
    """How many distinct hands the section solves, in words (the headline may be one of
    the penalties' hands)."""
    rules = {str(sorted(h["rules"].items())) for h in [lb["headline"], *lb["hands"].values()]}
    return {1: "one", 2: "two", 3: "three", 4: "four"}.get(len(rules), str(len(rules)))


def _stakes_table(up: Mapping[str, Any]) -> list[str]:
    answer = up["answers"]
    lines = [
        "**How often each stake is proposed, and the bluffs.** Per hand played, default hand: "
        "how often the first player proposes each first stake, the share of those proposals "
        "that are bluffs, and the same for raises to each stake (by either player). A "
        "*bluff*, as for the one-chip game (section 2, `solver/analysis/behaviour.py`): a "
        "proposal of s whose hand loses a showdown to the responder's indifference hand, "
        "the weakest hand with which calling s against the proposer's range is worth at "
        "least withdrawing (every proposal, when no hand should call). The other answers a "
        f"first stake by withdrawing {_pct(answer['withdraw'])} of the time, calling "
        f"{_pct(answer['call'])}, raising {_pct(answer['raise'])}.",
        "",
        "| stake | first stake, per hand | its bluff share | raise to it, per hand | "
        "its bluff share |",
        "|---|---|---|---|---|",
    ]
    for s in up["first"]:
        first, raised = up["first"][s], up["raise"][s]
        lines.append(f"| {s} | {_pct(first['per_hand'])} | {_share(first)} | "
                     f"{_pct(raised['per_hand'])} | {_share(raised)} |")
    return lines + [""]


def _penalty_lines(hands: Mapping[str, Any]) -> list[str]:
    up, down, full = hands["up"], hands["down"], hands["full"]
    top = up["rules"]["max_stake"]
    lines = [
        "**The half-stake rule against a full-stake penalty, and the rounding.** The hand "
        f"with stakes up to {top}"
        + (" (the default hand above)" if top == HEADLINE.max_stake else
           f" (`--max-stake {top}`)")
        + ", the fine for withdrawing from the first stake changed "
        f"(`bidou solve --game le-bidou --max-stake {top} --half-stake up|down|full`): "
        "half of it rounded up "
        "(the default), half rounded down (at least one chip), or the whole stake (not the "
        "source's rule: the penalty the half-stake rule is measured against). Values are "
        "proved; the stakes proposed are the LP vertex's.",
        "",
        "| penalty | value to the first player | exploitability (vs first, vs other) | "
        "mean first stake | hands ending in a withdrawal | in a call |",
        "|---|---|---|---|---|---|",
    ]
    for rule, label in (("up", "half, rounded up"), ("down", "half, rounded down"),
                        ("full", "full stake")):
        h = hands[rule]
        lines.append(f"| {label} | {h['value']:+.6f} ({_interval(h)}) | "
                     f"{_exploitability(h['captain_exploitability'])}, "
                     f"{_exploitability(h['opponent_exploitability'])} | "
                     f"{_mean_first(h):.3f} | {_pct(h['folded'])} | {_pct(h['showdown'])} |")
    lines += [
        "",
        "Against a full-stake penalty, the half-stake rule changes the first player's value "
        f"by {up['value'] - full['value']:+.6f} chips per hand (rounded up; rounded down: "
        f"{down['value'] - full['value']:+.6f}), the other's by the opposite; rounding the "
        f"half down instead of up changes it by {down['value'] - up['value']:+.6f}.",
        "",
        "First stakes proposed, per hand played, under each penalty (what the first player "
        "should propose; the LP vertex's choice where several are as good):",
        "",
        "| stake | half, up | half, down | full stake |",
        "|---|---|---|---|",
    ]
    for s in up["first"]:
        lines.append(f"| {s} | " + " | ".join(_pct(h["first"][s]["per_hand"])
                                              for h in (up, down, full)) + " |")
    return lines + [""]


# --- the plot ----------------------------------------------------------------------------------

PLOT = "results_le_bidou_stakes.png"


def plot(lb: Mapping[str, Any]) -> bytes:
    """The first stakes proposed under each penalty, and the bluff share of each (Agg
    canvas, no global state): docs/img/results_le_bidou_stakes.png."""
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    hands = lb["hands"]
    stakes = [int(s) for s in hands["up"]["first"]]
    figure = Figure(figsize=(10, 3.9), dpi=100)
    FigureCanvasAgg(figure)
    often, bluffs = figure.add_subplot(1, 2, 1), figure.add_subplot(1, 2, 2)
    width = 0.27
    for k, (rule, label) in enumerate((("up", "half, rounded up (default)"),
                                       ("down", "half, rounded down"), ("full", "full stake"))):
        cells = [hands[rule]["first"][str(s)] for s in stakes]
        x = [s + (k - 1) * width for s in stakes]
        shares = [100 * c["per_hand"] for c in cells]
        bars = often.bar(x, shares, width, label=label)
        often.bar_label(bars, [f"{v:.0f}" if v > 0 else "" for v in shares], fontsize=6)
        bluff = [100 * c["bluffs_per_hand"] / c["per_hand"] if c["per_hand"] > 0
                 else float("nan") for c in cells]                 # no bar: never proposed
        bars = bluffs.bar(x, bluff, width, label=label)
        bluffs.bar_label(bars, [f"{v:.0f}" if v == v else "" for v in bluff], fontsize=6)
    often.set_ylabel("first stakes proposed (% of hands)")
    bluffs.set_ylabel("bluffs among them (%)")
    for axes, title in ((often, "how often each first stake is proposed"),
                        (bluffs, "bluff share of each first stake proposed")):
        axes.set_xticks(stakes)
        axes.set_xlabel("first stake")
        axes.set_title(title, fontsize=9)
        axes.margins(y=0.12)
    often.legend(fontsize=7, title="withdrawal from the first stake", title_fontsize=7)
    figure.suptitle(f"Le Bidou, stakes up to {stakes[-1]}, by withdrawal penalty (the LP "
                    f"vertex's equilibrium)", fontsize=10)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()
