"""The stakes cheat sheet of a Le Bidou hand: rules read off the equilibrium
(`solver.cheatsheet.stakes_rules`), what they cost by the exact best response, and a check
that no advice is weakly dominated; then its files (cheatsheet.md, cheatsheet.png,
cheatsheet_strategy.json), as `bidou outputs` publishes them in outputs/le-bidou/.

The stakes are merged into bands at a few thresholds (MERGE_LOSSES), and the book kept is
the one whose cost below is least (`build_sheet`): not a search over cuts, four books.
The cost is measured on the whole Le Bidou model, every decision reached or not: each
player's loss against a best-responding adversary who knows the rules
(`best_response.exploitability`), and against the equilibrium (the sheet seated against the
solved strategy, `best_response.policy_value`). The dominance check is
`solver.hand.refined.check.dominated_actions` on the sheet's strategy, for both players: at no
decision does an action the rules advise do no better than another against every hand and
every later play of the adversary, and worse against one (his own later play being the
rules'). A sheet with such advice is refused (ValueError), not published.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Sequence

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.cheatsheet import rulebook
from solver.cheatsheet import stakes_rules as stakes_sheet
from solver.cheatsheet.search import mix
from solver.cheatsheet.stakes_rules import StakeRule
from solver.hand import best_response
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy, strategy_to_json

SHEET, CHART, STRATEGY = "cheatsheet.md", "cheatsheet", "cheatsheet_strategy.json"
CHART_FORMATS = ("png",)
METHOD = "stakes cheatsheet"
# The greedy merge's thresholds tried (`stakes_sheet.MERGE_LOSS`'s meaning: a share of the
# lighter band's agreement), from a band for nearly every stake to one band a kind.
MERGE_LOSSES = (0.02, 0.05, 0.2, 1.0)


@dataclasses.dataclass(frozen=True)
class StakesSheet:
    """The rules, the strategy they state, and what it costs (chips a hand)."""

    rules: tuple[StakeRule, ...]
    texts: tuple[str, ...]
    strategy: Strategy
    game_value: float
    captain_loss: float                 # against a best reply, beyond the game value
    opponent_loss: float
    captain_loss_vs_equilibrium: float
    opponent_loss_vs_equilibrium: float
    on_policy_value: float              # both players following the rules
    dominated: int                      # (decision, hand) pairs with dominated advice

    @property
    def exploitability(self) -> float:
        return (self.captain_loss + self.opponent_loss) / 2

    def result(self) -> dict[str, Any]:
        """The strategy file's result: the rules in words and as data, and their cost."""
        return {"method": METHOD, "status": f"{len(self.rules)} stakes rules",
                "rules_count": len(self.rules), "rules": list(self.texts),
                "rule_list": [rule.to_dict() for rule in self.rules],
                "game_value": self.game_value, "exploitability": self.exploitability,
                "captain_loss": self.captain_loss, "opponent_loss": self.opponent_loss,
                "captain_loss_vs_equilibrium": self.captain_loss_vs_equilibrium,
                "opponent_loss_vs_equilibrium": self.opponent_loss_vs_equilibrium,
                "equilibrium_loss": (self.captain_loss_vs_equilibrium
                                     + self.opponent_loss_vs_equilibrium) / 2,
                "on_policy_value": self.on_policy_value,
                "dominated_advice": self.dominated}


def measure_rules(model: HandModel, rules: Sequence[StakeRule], equilibrium: Strategy,
                  game_value: float, check_dominance: bool = True) -> StakesSheet:
    """The strategy `rules` state (the throwing the equilibrium's) and its cost; with
    `check_dominance`, how many of its (decision, hand) pairs advise a weakly dominated
    action (else -1: not checked)."""
    names = stakes_sheet.ranked_names(model)
    strategy = stakes_sheet.book_strategy(model, rules, equilibrium)
    leaves = best_response.leaf_matrices(model)
    e = best_response.exploitability(model, strategy, leaves)
    as_captain = best_response.policy_value(model, mix(strategy, equilibrium, model), leaves)
    as_opponent = best_response.policy_value(model, mix(equilibrium, strategy, model), leaves)
    dominated = -1
    if check_dominance:
        from solver.hand.refined.check import dominated_actions

        dominated = sum(len(dominated_actions(model, strategy, player))
                        for player in (CAPTAIN, OPPONENT))
    return StakesSheet(tuple(rules), tuple(stakes_sheet.rule_text(r, names) for r in rules),
                       strategy, float(game_value),
                       float(game_value - e.captain_guaranteed),
                       float(e.captain_best - game_value),
                       float(game_value - as_captain), float(as_opponent - game_value),
                       float(e.value), dominated)


def build_sheet(model: HandModel, equilibrium: Strategy, game_value: float,
                merge_losses: Sequence[float] = MERGE_LOSSES) -> StakesSheet:
    """The sheet of a solved hand: its rules fitted to `equilibrium` with each merge
    threshold of `merge_losses` (`stakes_sheet.fit_book`), the book kept the one whose
    exploitability plus mean loss against the equilibrium is least (the fewer rules on a
    tie), measured and checked; ValueError if any advice is weakly dominated."""
    best: StakesSheet | None = None
    for loss in merge_losses:
        rules = stakes_sheet.fit_book(model, equilibrium, loss)
        if best is not None and list(rules) == list(best.rules):
            continue
        found = measure_rules(model, rules, equilibrium, game_value, check_dominance=False)
        if best is None or (_objective(found), len(found.rules)) < (_objective(best),
                                                                    len(best.rules)):
            best = found
    assert best is not None
    sheet = measure_rules(model, best.rules, equilibrium, game_value)
    if sheet.dominated:
        raise ValueError(f"the stakes cheat sheet advises a weakly dominated action at "
                         f"{sheet.dominated} (decision, hand) pairs")
    return sheet


def _objective(sheet: StakesSheet) -> float:
    """What the choice of a merge threshold minimises: the exploitability plus the mean
    loss against the equilibrium (chips a hand)."""
    return sheet.exploitability + (sheet.captain_loss_vs_equilibrium
                                   + sheet.opponent_loss_vs_equilibrium) / 2


def sheet_files(model: HandModel, sheet: StakesSheet) -> dict[str, bytes]:
    """cheatsheet.md, cheatsheet.png and cheatsheet_strategy.json, by name."""
    from solver.export.charts import figure_bytes
    from solver.export.stakes_sheet_page import sheet_figure

    text = sheet_markdown(model, sheet)
    document = strategy_to_json(model, sheet.strategy, sheet.result())
    files = {SHEET: text.encode(),
             STRATEGY: (json.dumps(document, separators=(",", ":")) + "\n").encode()}
    figure = sheet_figure(f"Le Bidou cheat sheet: {len(sheet.rules)} stakes rules",
                          model.game_params.describe(), sheet.texts, cost_lines(sheet),
                          stakes_sheet.ranked_names(model), band_notes(sheet.rules))
    for fmt in CHART_FORMATS:
        files[f"{CHART}.{fmt}"] = figure_bytes(figure, fmt)
    return files


def band_notes(rules: Sequence[StakeRule]) -> list[str]:
    """Why some rules play the strong action with weaker hands than others that call or
    withdraw (their bands "and also with B to E"): the sheet's ranges that are not
    monotone in the ranking."""
    banded = [i for i, r in enumerate(rules, 1)
              if r.bluff is not None and (r.kind == "propose" or r.stake)]
    if not banded:
        return []
    return [f"Bluff bands ({rulebook.rule_numbers(banded)}, \"and also with B to E\"): "
            "weaker hands that raise, or propose the high stake, while some stronger ones "
            "call or withdraw. Taken together, weighted by how often each is met, the "
            "equilibrium raises with them more often than it withdraws (proposes high more "
            "often than low): so a high stake does not tell the other player that you are "
            "strong."]


def cost_lines(sheet: StakesSheet) -> list[str]:
    """What the rules cost, in words (the sheet and its picture print these)."""
    return [
        f"Against an adversary who knows these rules and answers them best (the exact best "
        f"response on the whole Le Bidou hand): the first player following them loses "
        f"{sheet.captain_loss:.3f} chips a hand more than the game value, the other "
        f"player {sheet.opponent_loss:.3f} (exploitability {sheet.exploitability:.3f}).",
        f"Against the equilibrium (exact play): the first player following them loses "
        f"{sheet.captain_loss_vs_equilibrium:.3f} chips a hand, the other player "
        f"{sheet.opponent_loss_vs_equilibrium:.3f}.",
        f"The game is worth {sheet.game_value:+.4f} chips a hand to the first player; "
        f"both following the rules, {sheet.on_policy_value:+.4f}.",
        _dominance_words(sheet.dominated),
    ]


def _dominance_words(dominated: int) -> str:
    if dominated < 0:
        return "Weak dominance not checked."
    if dominated:
        return f"Weakly dominated advice at {dominated} (decision, hand) pairs."
    return ("No advice is weakly dominated: at no decision does an advised action do no "
            "better than another against every hand and every later play of the adversary, "
            "and worse against one (solver/hand/refined/check.py, both players, every decision "
            "reached or not).")


def sheet_markdown(model: HandModel, sheet: StakesSheet) -> str:
    names = stakes_sheet.ranked_names(model)
    lines = [f"# Le Bidou cheat sheet: {len(sheet.rules)} stakes rules", "",
             f"Rules of the game: {model.game_params.describe()}.", "",
             "After both have thrown, the first player proposes a stake; the other "
             "withdraws (he receives half of it), calls (the lower hand receives the stake) "
             "or raises; facing a raise a player withdraws (he receives his own last "
             "stake), calls or raises again. \"X or better\" counts in the hand ranking "
             "below (1 = strongest); \"B to E\" is every hand from B down to E. Each "
             "decision is covered by exactly one rule, whatever the throw counts and the "
             "stakes before. Throw as the equilibrium does (reroll.md).", "",
             "## The rules", ""]
    lines += [f"{i}. {text}" for i, text in enumerate(sheet.texts, start=1)]
    said = band_notes(sheet.rules)
    lines += [""] + said if said else []
    lines += ["", "## What they cost", ""]
    lines += [f"- {line}" for line in cost_lines(sheet)]
    lines += ["", "How they were made: each rule's cuts agree most with the equilibrium's "
              "play (strategy.json), weighted by how often each decision is met with each "
              "hand; adjacent stakes were merged greedily into bands while a merge lost at "
              "most a share of the lighter band's weight in agreement, at the shares "
              f"{', '.join(f'{x:.0%}' for x in MERGE_LOSSES)}, and the book kept is the "
              "one whose exploitability plus mean loss against the equilibrium is least "
              "(solver/cheatsheet/stakes_rules.py, solver/pipeline/stakes_cheatsheet.py). "
              "The rules ignore the throw counts, which "
              "the equilibrium does not, and cut the ranking where the equilibrium's play "
              "is not monotone in it (it calls with some hands and withdraws with "
              "stronger ones): their cost against a best reply comes from both "
              "(docs/le-bidou.md, \"The stakes cheat sheet\").", "",
              f"`{STRATEGY}` is the strategy these rules state (a strategy file: `bidou "
              f"evaluate --strategy {STRATEGY}` measures it).", "",
              "## Hand ranking (strongest first)", ""]
    lines += [f"- {p}: {name}" for p, name in enumerate(names, start=1)]
    return "\n".join(lines) + "\n"


def parse_sheet(text: str, model: HandModel) -> list[StakeRule]:
    """The rules a sheet's words state (`sheet_markdown`'s numbered list)."""
    names = stakes_sheet.ranked_names(model)
    rules = []
    for line in text.split("## The rules", 1)[1].split("## ", 1)[0].splitlines():
        head, _, rest = line.partition(". ")
        if head.isdigit():
            rules.append(stakes_sheet.parse_rule(rest, names))
    return rules
