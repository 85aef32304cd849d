"""Chip-state rules: how to change a hand's play with the chips, in words that read back.

A round cheat sheet is a *base*, a way to play a hand that ignores the chips (the hand cheat
sheet's rule book, or the hand game's equilibrium), and a short list of *chip rules*. A
chip rule is a hand rule of the rule book (`solver.cheatsheet.rulebook`: a scope of decisions
and a threshold action) behind a *chip scope*, what the acting player sees of the chips:
how many are in the centre, and how many he holds:

    With the centre empty and you holding 7 chips or more: Either player, facing a bet:
    call with 6-3-3 or better, otherwise fold.

At a chip state a player's decision follows the first chip rule that covers it (its chip
scope holds for him and its hand scope covers the decision), else the base. `chip_rule_text`
writes a rule and `parse_chip_rule` reads it back, so the page and the strategies come from
one list. A hand strategy is played at a chip state as the chips allow
(`strategy_in_stage`): a raise the chips forbid is a call, a bet they forbid a pass.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Iterable, Mapping, Sequence

import numpy as np

from games.bidou.betting import CAPTAIN
from solver.cheatsheet import rulebook
from solver.cheatsheet.rulebook import Rule, RuleTextError
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy
from solver.round.stage import hand_play_in_stage
from solver.round.states import ChipState

# an action the chips forbid at a decision, and the one played instead
INSTEAD = {"raise": "call", "bet": "pass"}


@dataclasses.dataclass(frozen=True, order=True)
class ChipScope:
    """Chip states as the acting player sees them: chips in the centre, in his own pile
    (both closed intervals)."""

    centre: tuple[int, int]
    own: tuple[int, int]

    def covers(self, centre: int, own: int) -> bool:
        return (self.centre[0] <= centre <= self.centre[1]
                and self.own[0] <= own <= self.own[1])


@dataclasses.dataclass(frozen=True)
class ChipRule:
    """A hand rule that applies where its chip scope holds for the acting player."""

    chips: ChipScope
    rule: Rule

    def covers(self, atom: rulebook.Atom, state: ChipState) -> bool:
        own = state.captain if atom.player == CAPTAIN else state.opponent
        return self.chips.covers(state.centre, own) and self.rule.covers(atom)

    def to_dict(self) -> dict:
        return {"centre": list(self.chips.centre), "own": list(self.chips.own),
                "rule": self.rule.to_dict()}


@dataclasses.dataclass(frozen=True)
class Base:
    """How the sheet plays where no chip rule applies: a hand strategy (of the hand game's
    model), the rule book that states it when there is one, and its name in words."""

    name: str
    strategy: Strategy
    rules: tuple[Rule, ...] | None = None


# --- words ----------------------------------------------------------------------------------

def _chips(k: int) -> str:
    return f"{k} chip" + ("" if k == 1 else "s")


def _centre_words(iv: tuple[int, int], total: int) -> str | None:
    lo, hi = iv
    if (lo, hi) == (0, total):
        return None
    if (lo, hi) == (0, 0):
        return "the centre empty"
    if lo == hi:
        return f"{_chips(lo)} in the centre"
    if hi == total:
        return f"{lo} or more chips in the centre"
    if lo == 0:
        return f"{_chips(hi)} or fewer in the centre"
    return f"{lo} to {hi} chips in the centre"


def _own_words(iv: tuple[int, int], total: int) -> str | None:
    lo, hi = iv
    if (lo, hi) == (0, total):
        return None
    if lo == hi:
        return f"you holding {_chips(lo)}"
    if lo == 0:
        return f"you holding {_chips(hi)} or fewer"
    if hi == total:
        return f"you holding {lo} chips or more"
    return f"you holding {lo} to {hi} chips"


def scope_text(scope: ChipScope, total: int) -> str:
    """"With the centre empty and you holding 7 chips or more" (total: the round's chips)."""
    parts = [p for p in (_centre_words(scope.centre, total), _own_words(scope.own, total))
             if p is not None]
    return "With " + (" and ".join(parts) if parts else "any chips")


def chip_rule_text(model: HandModel, total: int, chip_rule: ChipRule) -> str:
    """One line: the chip scope, then the hand rule in the rule book's words."""
    return f"{scope_text(chip_rule.chips, total)}: {rulebook.rule_text(model, chip_rule.rule)}"


def _phrases(total: int) -> dict[str, tuple[str, tuple[int, int]]]:
    """Every chip phrase `scope_text` can write, with the feature and interval it means."""
    table: dict[str, tuple[str, tuple[int, int]]] = {}
    for lo in range(total + 1):
        for hi in range(lo, total + 1):
            for feature, words in (("centre", _centre_words), ("own", _own_words)):
                phrase = words((lo, hi), total)
                if phrase is not None:
                    table[phrase] = (feature, (lo, hi))
    return table


def parse_chip_rule(model: HandModel, total: int, line: str) -> ChipRule:
    """The chip rule a line of `chip_rule_text` states (RuleTextError if it is not one)."""
    line = re.sub(r"^\s*(\d+\.\s*)?", "", line.strip()).rstrip(".")
    if not line.startswith("With ") or ": " not in line:
        raise RuleTextError(f"a chip rule reads 'With ...: <a hand rule>', not {line!r}")
    head, hand_rule = line.split(": ", 1)
    found = {"centre": (0, total), "own": (0, total)}
    body = head.removeprefix("With ")
    if body != "any chips":
        table = _phrases(total)
        for phrase in body.split(" and "):
            if phrase not in table:
                raise RuleTextError(f"unknown chip condition {phrase!r} in {line!r}")
            feature, iv = table[phrase]
            found[feature] = iv
    chip_rule = ChipRule(ChipScope(found["centre"], found["own"]),
                         rulebook.parse_rule(model, hand_rule))
    if chip_rule_text(model, total, chip_rule) != line:
        raise RuleTextError(f"chip rule does not read back the same: {line!r}")
    return chip_rule


def parse_chip_rules(model: HandModel, total: int, lines: Iterable[str]) -> list[ChipRule]:
    """The chip rules of every numbered line ("3. With ...") among `lines`."""
    return [parse_chip_rule(model, total, line) for line in lines
            if re.match(r"^\s*\d+\.\s+With ", line)]


# --- the strategy the sheet states ---------------------------------------------------------

class SheetPlay:
    """The sheet's play at every chip state: the base where no chip rule applies."""

    def __init__(self, model: HandModel, base: Base):
        self.model = model
        self.base = base
        self.atoms = [a for a in rulebook.atoms(model) if a.kind != "keep"]
        self.pos = rulebook.positions(model)
        self.keeps: dict[tuple[int, tuple], np.ndarray] = {}
        if base.rules is not None and model.params.reroll == "keep":
            every = rulebook.atoms(model)
            self.keeps = rulebook.keep_plan(model, base.rules, every,
                                            rulebook.assign(base.rules, every))

    def hand_strategy(self, state: ChipState, chip_rules: Sequence[ChipRule]) -> Strategy:
        """The hand strategy (of the hand game's model) the sheet plays at `state`."""
        out = self.base.strategy.copy()
        for atom in self.atoms:
            for chip_rule in chip_rules:
                if chip_rule.covers(atom, state):
                    rulebook.set_atom(self.model, out, atom, rulebook.action_probs(
                        self.model, chip_rule.rule, atom, self.pos,
                        self.keeps.get((atom.player, atom.key))))
                    break
        return out

    def touched(self, state: ChipState, chip_rule: ChipRule) -> set[int]:
        """The players (CAPTAIN, OPPONENT) some of whose decisions at `state` the rule
        covers."""
        return {a.player for a in self.atoms if chip_rule.covers(a, state)}


def strategy_in_stage(stage: HandModel, hand: HandModel, strategy: Strategy) -> Strategy:
    """A hand strategy played at a chip state: the same throwing, the same betting where
    the chips allow it; an action they forbid is played as the one named in INSTEAD (a
    raise as a call, a bet as a pass: what a player who cannot supply the chips does)."""
    return hand_play_in_stage(stage, hand, strategy, _instead)


def _instead(actions: tuple[str, ...], theirs: tuple[str, ...], probs: np.ndarray
             ) -> np.ndarray:
    """The hand's probabilities moved onto the actions the chips allow: each forbidden
    action's onto the one INSTEAD names."""
    rows = np.zeros((len(actions), probs.shape[1]))
    for a, action in enumerate(theirs):
        played = action if action in actions else INSTEAD[action]
        rows[actions.index(played)] += probs[a]
    return rows


def sheet_strategies(stages: Mapping[ChipState, HandModel], play: SheetPlay,
                     chip_rules: Sequence[ChipRule]) -> dict[ChipState, Strategy]:
    """The sheet's stage strategy at every chip state (`stages`: each state's stage model)."""
    return {state: strategy_in_stage(model, play.model, play.hand_strategy(state, chip_rules))
            for state, model in stages.items()}


def base_from_sheet(model: HandModel, text: str, name: str = "the hand cheat sheet") -> Base:
    """The base a hand cheat sheet's Markdown states (its numbered rules, read back with
    `rulebook.parse_rules`); RuleTextError if a line does not read or they do not cover
    every decision once."""
    book = rulebook.parse_rules(model, text.splitlines())
    if not book:
        raise RuleTextError("no numbered rule in the hand cheat sheet")
    try:
        strategy = rulebook.build_strategy(model, book)
    except ValueError as error:
        raise RuleTextError(f"the hand cheat sheet's rules do not cover every decision once "
                            f"({error})") from None
    return Base(name, strategy, tuple(book))
