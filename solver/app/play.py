"""Play hands against the equilibrium strategy, and learn from each one.

The engine is a pure function of the strategy, a random generator and two callbacks (`ask`
for the person's choices, `tell` for what he sees), so tests can script a whole hand.
After each hand it says, for every choice the person made, what the equilibrium does with
his hand there and what his choice cost in expectation: the best action's value minus the
chosen one's, each the expected chips against the equilibrium opponent, everybody playing
the equilibrium afterwards (`Advisor`, over solver/analysis/action_values.py). At spots the
equilibrium opponent never lets happen, the values are against his smallest slips, and the
review says so.

Betting decisions and leaves are named by their `history` (as in strategies); the tree's
API (`games/bidou/betting.py`) says where a name and an action lead.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT, ROLE_NAMES, BettingTree
from games.bidou.betting import Leaf as BettingLeaf
from games.bidou.betting import Node as BettingNode
from games.bidou.rules import STOP, throw_action_name
from solver.analysis.action_values import action_values
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy

Ask = Callable[[str, Sequence[str]], str]
COST_SHOWN = 5e-4        # chips: a smaller cost prints as none (3 decimals are printed)
Tell = Callable[[str], None]


# --- betting decisions by name -------------------------------------------------------------

def node_at(tree: BettingTree, history: str) -> BettingNode | None:
    """The decision at `history`, or None at a leaf."""
    found = tree.at(history)
    return found if isinstance(found, BettingNode) else None


def leaf_at(tree: BettingTree, history: str) -> BettingLeaf:
    found = tree.at(history)
    assert isinstance(found, BettingLeaf)
    return found


def child_history(tree: BettingTree, history: str, action: str) -> str:
    return tree.child(tree.node(history), action).history


# --- words ----------------------------------------------------------------------------------

def throw_choice_name(action) -> str:
    """"stop", "throw again" (all three dice, as on the charts), "keep 6-6"."""
    name = throw_action_name(action)
    return "throw again" if name == "reroll" else name


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _signed_chips(x: float) -> str:
    """"+2 chips", "-1 chip", "0 chips": a score, never "+0"."""
    if x == 0:
        return "0 chips"
    return ("+" if x > 0 else "-") + _chips(abs(x))


def _chips(x: float | Fraction) -> str:
    return _plural(int(x), "chip") if float(x).is_integer() else f"{float(x):g} chips"


def bet_choice_text(tree: BettingTree, node: BettingNode, me: int) -> str:
    """The question at a betting decision, in words, with what each answer costs."""
    k = node.level
    if k == 0:
        return "Pass, or bet one chip?"
    folded = tree.payoff(leaf_at(tree, tree.child(node, "fold").history), 0)   # to the captain
    fold = folded if me == CAPTAIN else -folded
    showdown = tree.payoff(leaf_at(tree, tree.child(node, "call").history), 1)
    facing = "a bet" if k == 1 else f"a raise to {k}"
    text = (f"You face {facing}. Fold (you take {_chips(-fold)}), call (showdown: the weaker "
            f"hand takes {_chips(showdown)})")
    if "raise" in node.actions:
        text += f", or raise to {k + 1}"
    return text + "?"


def match_choice(answer: str, options: Sequence[str]) -> str | None:
    """The option a typed answer means: the option itself or a unique beginning of it
    (`s` for stop, `t` for throw again), "?" for the ranking, None if unclear."""
    text = " ".join(answer.strip().lower().split())
    if text in ("?", "help", "ranking"):
        return "?"
    if text in options:
        return text
    starts = [o for o in options if text and o.startswith(text)]
    return starts[0] if len(starts) == 1 else None


def ranking_text(model: HandModel) -> str:
    """The ranking of hands, strongest first (what `bidou stats` prints)."""
    from games.bidou.stats import stats_text

    return stats_text(model.params)


def introduction(model: HandModel, summary: dict | None = None) -> str:
    """The rules in a few lines, before the first hand."""
    p = model.params
    keep = ("throw again all three dice, or keep some aside and throw the others"
            if p.reroll == "keep" else "throw all three dice again")
    lines = [
        f"Bidou, {p.describe()}.",
        f"Each player throws three {p.faces}-sided dice under a cup, up to "
        f"{_plural(p.throws, 'time')}; after each throw he may stop or {keep}.",
        "Only the number of throws is shown: the captain throws first, then the opponent, "
        "knowing how many times the captain threw.",
        "Then the betting, one chip at a time: pass or bet; facing a bet, fold, call or "
        f"raise (up to {p.max_level}). The captain bets first unless he threw more times.",
        "Chips are penalties: whoever folds or loses the showdown takes them.",
        "Type the first letters of your choice; ? shows the ranking of hands; Ctrl-D stops.",
    ]
    return "\n".join(lines)


# --- expected values against the equilibrium -------------------------------------------------

class Advisor:
    """Expected payoff of each action at a person's decision, to him, against the
    equilibrium opponent, both playing the equilibrium afterwards: the action values of
    `solver/analysis/action_values.py`, computed once for every decision. At a spot the
    equilibrium opponent never lets happen they are the values against his smallest slips
    (`off_path`), never a made-up 0.
    """

    def __init__(self, model: HandModel, strategy: Strategy):
        self.model, self.strategy = model, strategy
        self.values = action_values(model, strategy)

    def bet_values(self, public: tuple[int, int], history: str, me: int, hand: int
                   ) -> dict[str, float]:
        """Expected payoff to me of each action at my decision `history` with `hand`."""
        decision = self.values.bet(*public, history)
        assert decision.player == me, "the person decides here"
        return {a: float(v) for a, v in zip(decision.actions, decision.values[hand])
                if v is not None}

    def bet_off_path(self, public: tuple[int, int], history: str) -> bool:
        return self.values.bet(*public, history).off_path

    def throw_values(self, me: int, context: int, throw: int, hand: int) -> dict[str, float]:
        """Expected payoff to me of each legal throw action after `throw` (1-based) with
        `hand`, named as `play` asks ("stop", "throw again", "keep 6-6")."""
        decision = self.values.throw(me, context, throw - 1)
        return {throw_choice_name(action): float(v) for action, v in
                zip(self.model.throw_actions, decision.values[hand]) if v is not None}

    def throw_off_path(self, me: int, context: int, throw: int) -> bool:
        return self.values.throw(me, context, throw - 1).off_path


# --- one hand -------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Review:
    """One of the person's choices, beside what the equilibrium does there."""

    situation: str
    chosen: str
    equilibrium: dict[str, float]        # the strategy's probabilities
    values: dict[str, float]             # expected payoff of each action to the person
    off_path: bool = False               # the equilibrium opponent never lets this happen

    @property
    def cost(self) -> float:
        """Expected chips the choice gave up against the best action here (0 for a best
        one; never clamped: the values are exact best-minus-chosen differences)."""
        return max(self.values.values()) - self.values[self.chosen]

    def best(self) -> list[str]:
        top = max(self.values.values())
        return [a for a, v in self.values.items() if v >= top - COST_SHOWN]

    def text(self) -> str:
        mix = ", ".join(f"{a} {percent_text(p)}" for a, p in sorted(
            self.equilibrium.items(), key=lambda item: -item[1]) if p > 5e-4)
        cost = self.cost
        if cost >= COST_SHOWN:
            verdict = (f"cost {cost:.3f} chips in expectation; best here: "
                       f"{' or '.join(self.best())}")
        elif self.equilibrium.get(self.chosen, 0.0) > 5e-4:
            verdict = "as the equilibrium does, no cost"
        else:
            verdict = "no cost: as good as the best action here"
        where = (" (a spot the equilibrium opponent never lets happen: valued against his "
                 "smallest slips)" if self.off_path else "")
        return (f"{self.situation}: you chose {self.chosen} ({verdict}){where}; "
                f"equilibrium: {mix}.")


def percent_text(p: float) -> str:
    return "always" if p > 1 - 5e-4 else f"{100 * p:.0f}%"


@dataclasses.dataclass(frozen=True)
class HandResult:
    """A hand's payoff to the person (to the captain when nobody is seated), his seat,
    and his choices reviewed."""

    payoff: float
    seat: int | None
    reviews: tuple[Review, ...] = ()

    @property
    def cost(self) -> float:
        return sum(r.cost for r in self.reviews)


def draw(rng: np.random.Generator, probs: np.ndarray) -> int:
    probs = np.maximum(probs, 0.0)
    return int(rng.choice(len(probs), p=probs / probs.sum()))


def throw_turn(model: HandModel, strategy: Strategy, role: int, context: int,
                human: int | None, rng: np.random.Generator, ask: Ask | None, tell: Tell,
                advisor: Advisor | None, reviews: list[Review]) -> tuple[int, int]:
    """One throwing turn; returns (throws made, final hand index)."""
    hand = draw(rng, model.prior)
    for t in range(1, model.throws + 1):
        mine = role == human
        if mine:
            tell(f"Throw {t}: you have {rules.format_hand(model.hands[hand])} "
                 f"({rules.hand_name(model.hands[hand], model.params.ranking)}).")
        if t == model.throws:
            if mine:
                tell("That was your last throw.")
            return t, hand
        legal = np.nonzero(model.throw_legal[:, hand])[0]
        probs = strategy.throw[role][context, t - 1, :, hand]
        if mine:
            names = [throw_choice_name(model.throw_actions[a]) for a in legal]
            assert ask is not None
            question = ("Stop, keep some dice, or throw all three again?" if len(names) > 2
                        else "Stop, or throw again?")
            chosen = ask(f"{question} [{'/'.join(names)}]", names)
            choice = legal[names.index(chosen)]
            if advisor is not None:
                reviews.append(Review(
                    f"after throw {t} with {rules.format_hand(model.hands[hand])}", chosen,
                    {names[i]: float(probs[a]) for i, a in enumerate(legal)},
                    advisor.throw_values(role, context, t, hand),
                    advisor.throw_off_path(role, context, t)))
        else:
            choice = draw(rng, probs)
        if model.throw_actions[choice] == STOP:
            return t, hand
        hand = draw(rng, model.outcome[choice])
    raise AssertionError("unreachable")


def captain_payoff(model: HandModel, history: str, hands: tuple[int, int],
                   public: tuple[int, int]) -> float:
    """The captain's payoff at a betting leaf, from the rules' `compare`."""
    tree = model.tree(public)
    outcome = rules.compare(model.hands[hands[0]], model.hands[hands[1]],
                            model.params.ranking, model.params.aces_beat_bidou)
    return float(tree.payoff(leaf_at(tree, history), outcome))


SAYS = {"pass": "passes", "bet": "bets one chip", "fold": "folds", "call": "calls",
         "raise": "raises"}


def play_hand(model: HandModel, strategy: Strategy, human: int | None,
              rng: np.random.Generator, ask: Ask | None, tell: Tell,
              advisor: Advisor | None = None) -> HandResult:
    """Play one hand with the person in role `human` (None: the strategy plays both seats).

    With an `advisor` (`Advisor(model, strategy)`), each of the person's choices is
    reviewed. `ask` raising EOFError ends the hand at once (the caller stops the game).
    """
    reviews: list[Review] = []
    if human is not None:
        tell(f"You are the {ROLE_NAMES[human]}"
             + (": you throw first." if human == CAPTAIN else ": the captain throws first."))
    tc, captain_hand = throw_turn(model, strategy, CAPTAIN, 0, human, rng, ask, tell,
                                   advisor, reviews)
    if human == OPPONENT:
        tell(f"The captain threw {_plural(tc, 'time')}.")
    to, opponent_hand = throw_turn(model, strategy, OPPONENT, tc - 1, human, rng, ask, tell,
                                    advisor, reviews)
    if human == CAPTAIN:
        tell(f"The opponent threw {_plural(to, 'time')}.")
    hands = (captain_hand, opponent_hand)
    public = (tc, to)
    tree = model.tree(public)
    if human is not None:
        first = ROLE_NAMES[tree.first]
        why = ("the captain bets first unless he threw more times than the opponent"
               if tree.first == CAPTAIN else "the captain threw more times, so the opponent "
               "bets first")
        tell(f"Betting: {'you bet' if tree.first == human else f'the {first} bets'} first "
             f"({why}).")
    history = ""
    while (node := node_at(tree, history)) is not None:
        probs = strategy.betting[(tc, to, history)][:, hands[node.actor]]
        if node.actor == human and ask is not None:
            action = ask(bet_choice_text(tree, node, human) + f" [{'/'.join(node.actions)}]",
                         list(node.actions))
            if advisor is not None:
                hand = rules.format_hand(model.hands[hands[human]])
                reviews.append(Review(
                    f"betting with {hand}, " + ("opening" if not history else
                                                f"facing level {node.level}"
                                                if node.level else "after a pass"),
                    action, {a: float(p) for a, p in zip(node.actions, probs)},
                    advisor.bet_values(public, history, human, hands[human]),
                    advisor.bet_off_path(public, history)))
        else:
            action = node.actions[draw(rng, probs)]
            if human is not None:
                tell(f"The {ROLE_NAMES[node.actor]} {SAYS[action]}.")
        history = child_history(tree, history, action)
    payoff = captain_payoff(model, history, hands, public)
    leaf = leaf_at(tree, history)
    if leaf.kind == "showdown" and human is not None:
        tell(f"Showdown: captain {rules.format_hand(model.hands[captain_hand])}, "
             f"opponent {rules.format_hand(model.hands[opponent_hand])}.")
    if human is None:
        return HandResult(payoff, None)
    mine = payoff if human == CAPTAIN else -payoff
    if mine > 0:
        tell(f"You win: your opponent takes {_chips(mine)}.")
    elif mine < 0:
        tell(f"You lose: you take {_chips(-mine)}.")
    else:
        tell("Nobody takes a chip.")
    for review in reviews:
        tell("  " + review.text())
    return HandResult(mine, human, tuple(reviews))


# --- the score ------------------------------------------------------------------------------

@dataclasses.dataclass
class Score:
    """Payoffs so far, their mean and its standard error, and what the choices cost."""

    payoffs: list[float] = dataclasses.field(default_factory=list)
    seats: list[int | None] = dataclasses.field(default_factory=list)
    cost: float = 0.0

    def add(self, result: HandResult) -> None:
        self.payoffs.append(result.payoff)
        self.seats.append(result.seat)
        self.cost += result.cost

    @property
    def total(self) -> float:
        return float(sum(self.payoffs))

    def standard_error(self) -> float | None:
        """Standard error of the total (None before two hands)."""
        n = len(self.payoffs)
        if n < 2:
            return None
        return float(np.std(self.payoffs, ddof=1) * math.sqrt(n))

    def line(self) -> str:
        """The score after each hand: the total, its standard error in words, the cost."""
        n = len(self.payoffs)
        se = self.standard_error()
        spread = (f" (± {se:.1f}: one standard error of that total, about how far the "
                  f"luck of the dice alone moves it)" if se is not None else "")
        return (f"Score after {_plural(n, 'hand')}: {_signed_chips(self.total)}{spread}, "
                f"chips your opponent took minus chips you took; your choices cost "
                f"{self.cost:.3f} chips in expectation so far.")

    def final(self, summary: dict | None) -> str:
        """The closing words: what the hands were worth in expectation (the score itself
        was printed after the last hand, and is not repeated)."""
        if not self.payoffs:
            return "No hand played."
        summary = summary or {}
        value = summary.get("value")
        lines: list[str] = []
        if value is not None:
            expected = sum(value if seat == CAPTAIN else -value for seat in self.seats)
            equilibrium = (summary.get("exploitability") or 0.0) < 1e-6
            what = ("the equilibrium is worth" if equilibrium else
                    "this strategy pair is worth (it is not an equilibrium)")
            lines.append(f"In your seats {what} {expected:+.3f} chips over "
                         f"{_plural(len(self.payoffs), 'hand')} in expectation "
                         f"({value:+.4f} a hand to the captain); the rest is the dice.")
        return "\n".join(lines) or f"{_plural(len(self.payoffs), 'hand')} played."
