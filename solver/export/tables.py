"""Tables of a strategy: one row per (decision, hand), as CSV and Markdown.

Two tables describe a whole strategy:

* **reroll** — the throwing decisions: after throw `t` (1 .. throws-1), with `hand`, the
  probability of stopping or throwing again (under ``reroll="keep"``: of each set of dice
  kept). The captain has one set of these decisions; the opponent one per captain's throw
  count, since he throws knowing it.
* **betting** — for each public state (captain's throws, opponent's throws), each decision
  point of the betting (its history spelled out, e.g. "captain bets, opponent raises"), and
  each hand of the player to act: the probability of each action.

Hands are listed strongest first (`rules.ranked_hands`), with their names. The column
`reached` is the probability, counting only the player's own dice and own choices, that he
stands at this decision with this hand: 0 marks a decision his own strategy never reaches
(the solver still fills it with sensible play; nothing depends on it).

Each row also holds the worth of each action (`solver/analysis/action_values.py`):
`chips_<action>` is the expected chips of that action to the player deciding, with that
hand, against the other player's strategy (the equilibrium opponent), his own later play
being the strategy's; `chips_play` is the worth of the strategy's own play there; `off_path`
says the other player's strategy never leads there, and the values are then those against
his smallest uniform slips (docs/charts.md, "What each action is worth").

The functions building rows are pure; `write_table` writes the files (CSV, Markdown, JSON)
atomically.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from games.bidou import rules
from games.bidou.betting import ACTIONS, CAPTAIN, OPPONENT, ROLE_NAMES
from games.bidou.rules import throw_action_name
from solver.analysis.action_values import ActionValues, action_values
from solver.common.files import write_text_atomic
from solver.common.types import Reach
from solver.hand.evaluate import reach_of
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy

BETTING_ACTIONS = tuple(action.value for action in ACTIONS)
TABLE_SCHEMA = "bidou-table"
TABLE_SCHEMA_VERSION = 1
VALUE_PREFIX = "chips_"
REACH_TOL = 1e-12        # own-reach at or below this: the decision is never reached
PURE_TOL = 5e-4          # a probability this close to 0 or 1 prints as a pure action

_VERBS = {"p": "passes", "b": "bets", "r": "raises"}


@dataclasses.dataclass(frozen=True)
class Table:
    """Rows of one table, with their column order; `name` is the file stem."""

    name: str
    title: str
    columns: tuple[str, ...]
    probability_columns: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]


# --- naming ---------------------------------------------------------------------------------

def ranked_indices(model: HandModel) -> list[int]:
    """Model hand indices, strongest hand first (the ranking's table order)."""
    index = {h: i for i, h in enumerate(model.hands)}
    game = model.game_params
    return [index[h] for h in rules.ranked_hands(game.faces, game.ranking)]


def short_name(hand: rules.Hand, ranking: str) -> str:
    """The hand's name without repeating its dice: "bidou", "three 6s", "straight", "6 high"."""
    text = rules.format_hand(hand)
    name = rules.hand_name(hand, ranking)
    if name == text:
        return ""
    name = name.replace(f"({text})", "").replace(text, "").strip()
    return name


def hand_label(hand: rules.Hand, ranking: str) -> str:
    """`"6-6-6 three 6s"`, `"6-5-4 straight"`, `"2-2-1"`: dice, then the name if it adds one."""
    name = short_name(hand, ranking)
    return f"{rules.format_hand(hand)} {name}".strip()


def is_stakes(history: str) -> bool:
    """Whether a history is Le Bidou's (one digit per stake proposed: "35")."""
    return history.isdigit()


def spell_stakes(history: str) -> str:
    """Le Bidou's history in words, by its stakes: "35" -> "stake 3, raise to 5"."""
    return ", ".join(f"stake {d}" if i == 0 else f"raise to {d}"
                     for i, d in enumerate(history))


def spell_history(history: str, first: int) -> str:
    """Betting history in words: "pb" with the captain first -> "captain passes, opponent
    bets"; Le Bidou's by its stakes (`spell_stakes`: "stake 3, raise to 5")."""
    if not history:
        return "opening"
    if is_stakes(history):
        return spell_stakes(history)
    words = []
    for i, letter in enumerate(history):
        actor = ROLE_NAMES[first if i % 2 == 0 else 1 - first]
        words.append(f"{actor} {_VERBS[letter]}")
    return ", ".join(words)


def facing(history: str, level: int) -> str:
    """What the player to act faces: "opens", "after a pass", "a bet", "a raise to 3"."""
    if not history:
        return "opens"
    if is_stakes(history):
        return f"faces {spell_stakes(history)}"
    if level == 0:
        return "after a pass"
    if level == 1:
        return "faces a bet"
    return f"faces a raise to {level}"


def format_mix(names: Sequence[str], probs: Iterable[float | None], percent: bool = True) -> str:
    """"bet" for a pure action, else "pass 70% bet 30%" (largest first, zeros dropped)."""
    pairs = [(n, float(p)) for n, p in zip(names, probs) if p is not None and p > PURE_TOL]
    if not pairs:
        return ""
    if len(pairs) == 1:
        return pairs[0][0]
    pairs.sort(key=lambda np_: -round(np_[1], 9))      # ties keep the action order
    return " ".join(f"{n} {_percent(p)}" for n, p in pairs) if percent else \
        ", ".join(f"{n} {p:.3f}" for n, p in pairs)


def _percent(p: float) -> str:
    from solver.export.numbers import percent

    value = percent(p)
    if value == 0:
        return "<1%"
    if value == 100:
        return ">99%"
    return f"{value}%"


# --- rows -----------------------------------------------------------------------------------

def value_column(action: str) -> str:
    """The column of an action's expected chips: "chips_bet", "chips_keep 6-6"."""
    return VALUE_PREFIX + action


def _value_columns(actions: Sequence[str]) -> tuple[str, ...]:
    return ("off_path", "chips_play") + tuple(value_column(a) for a in actions)


def reroll_columns(model: HandModel) -> tuple[tuple[str, ...], tuple[str, ...]]:
    actions = tuple(throw_action_name(a) for a in model.throw_actions)
    head = ("player", "captain_throws", "throw", "rank", "hand", "name", "reached", "play")
    return head + actions + _value_columns(actions), actions


def _values_of(row: dict[str, Any], decision: Any, h: int) -> None:
    """Add a decision's action values with hand `h` to `row` (see the module docstring)."""
    row["off_path"] = decision.off_path
    row["chips_play"] = _clean(decision.mix[h])
    for name, value in zip(decision.actions, decision.values[h]):
        row[value_column(name)] = None if value is None else _clean(value)


def reroll_rows(model: HandModel, strategy: Strategy, reach: Reach | None = None,
                values: ActionValues | None = None) -> list[dict[str, Any]]:
    """One row per (player, captain's throw count for the opponent, throw, hand).

    `throw` is the throw just made (the decision is whether and how to throw again);
    `captain_throws` is empty for the captain. Action columns hold P(action), empty when
    the action is not allowed with that hand (keeping dice one does not hold); the
    `chips_` columns their expected chips (`values`: measured here if not given).
    """
    names = [throw_action_name(a) for a in model.throw_actions]
    order = ranked_indices(model)
    rows: list[dict[str, Any]] = []
    T = model.throws
    both = reach or reach_of(model, strategy)
    worth = values or action_values(model, strategy)
    for player in (CAPTAIN, OPPONENT):
        throw_reach = both[player][0]
        contexts = strategy.throw[player]
        for c in range(contexts.shape[0]):
            for t in range(T - 1):
                probs = contexts[c, t]                    # (A, n)
                for rank, h in enumerate(order, start=1):
                    hand = model.hands[h]
                    legal = model.throw_legal[:, h]
                    row: dict[str, Any] = {
                        "player": ROLE_NAMES[player],
                        "captain_throws": "" if player == CAPTAIN else c + 1,
                        "throw": t + 1,
                        "rank": rank,
                        "hand": rules.format_hand(hand),
                        "name": rules.hand_name(hand, model.game_params.ranking),
                        "reached": _clean(throw_reach[c, t, 0, h]),
                        "play": format_mix(
                            [n for n, ok in zip(names, legal) if ok],
                            [probs[a, h] for a in range(len(names)) if legal[a]]),
                    }
                    for a, name in enumerate(names):
                        row[name] = _clean(probs[a, h]) if legal[a] else None
                    _values_of(row, worth.throw(player, c, t), h)
                    rows.append(row)
    return rows


def betting_actions(model: HandModel | None = None) -> tuple[str, ...]:
    """The betting table's action columns: two-hand Bidou's five (pass, bet, fold, call,
    raise), or every action of the model's trees in the order the trees first name them
    (Le Bidou: "stake 1" .. "stake S", "withdraw", "call", "raise to 2" .. "raise to S")."""
    if model is None:
        return BETTING_ACTIONS
    seen = dict.fromkeys(action for tree in model.trees.values() for node in tree.nodes
                         for action in node.actions)
    return BETTING_ACTIONS if set(seen) <= set(BETTING_ACTIONS) else tuple(seen)


def betting_columns(model: HandModel | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    head = ("captain_throws", "opponent_throws", "first_bettor", "history", "situation",
            "actor", "level", "rank", "hand", "name", "reached", "play")
    actions = betting_actions(model)
    return head + actions + _value_columns(actions), actions


def betting_decisions(model: HandModel, public: tuple[int, int]) -> list[str]:
    """Decision histories of one public state in reading order: opening, the line where the
    first player bets (bet, raise, ...), then the line where he passes."""
    tree = model.tree(public)
    histories = [node.history for node in tree.nodes]
    return sorted(histories, key=lambda h: (h != "", h.startswith("p"), len(h)))


def betting_rows(model: HandModel, strategy: Strategy, reach: Reach | None = None,
                 values: ActionValues | None = None) -> list[dict[str, Any]]:
    """One row per (public state, decision point, hand of the player to act); the `chips_`
    columns hold each legal action's expected chips (`values`: measured if not given)."""
    order = ranked_indices(model)
    both = reach or reach_of(model, strategy)
    worth = values or action_values(model, strategy)
    columns = betting_actions(model)
    reach_by = {player: both[player][1] for player in (CAPTAIN, OPPONENT)}
    rows: list[dict[str, Any]] = []
    for tc, to in model.public_states:
        tree = model.tree((tc, to))
        for history in betting_decisions(model, (tc, to)):
            node = tree.node(history)
            probs = strategy.betting[(tc, to, history)]
            node_reach = reach_by[node.actor][(tc, to, history)][0]
            for rank, h in enumerate(order, start=1):
                hand = model.hands[h]
                row: dict[str, Any] = {
                    "captain_throws": tc,
                    "opponent_throws": to,
                    "first_bettor": ROLE_NAMES[tree.first],
                    "history": history,
                    "situation": spell_history(history, tree.first),
                    "actor": ROLE_NAMES[node.actor],
                    "level": node.level,
                    "rank": rank,
                    "hand": rules.format_hand(hand),
                    "name": rules.hand_name(hand, model.game_params.ranking),
                    "reached": _clean(node_reach[h]),
                    "play": format_mix(node.actions, probs[:, h]),
                }
                for action in columns:
                    row[action] = (_clean(probs[node.actions.index(action), h])
                                   if action in node.actions else None)
                    row[value_column(action)] = None
                _values_of(row, worth.bet(tc, to, history), h)
                rows.append(row)
    return rows


def reroll_table(model: HandModel, strategy: Strategy, reach: Reach | None = None,
                 values: ActionValues | None = None) -> Table:
    columns, probability = reroll_columns(model)
    return Table("reroll", "Throwing decisions", columns, probability,
                 tuple(reroll_rows(model, strategy, reach, values)))


def betting_table(model: HandModel, strategy: Strategy, reach: Reach | None = None,
                  values: ActionValues | None = None) -> Table:
    columns, probability = betting_columns(model)
    return Table("betting", "Betting decisions", columns, probability,
                 tuple(betting_rows(model, strategy, reach, values)))


def _clean(x: Any) -> float:
    """Round away float noise (1e-17, 0.9999999999999998) so files are stable."""
    value = round(float(x), 12)
    return 0.0 if value == 0 else value


# --- CSV ------------------------------------------------------------------------------------

def format_number(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("tables hold finite numbers only")
        text = f"{value:.9f}".rstrip("0").rstrip(".")
        return "0" if text in ("", "-0") else text
    return str(value)


def table_to_csv(table: Table) -> str:
    """CSV text: a header row, then the rows; empty cells for actions not available."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.columns)
    for row in table.rows:
        writer.writerow([format_number(row.get(c)) for c in table.columns])
    return buffer.getvalue()


def read_csv(path: str | os.PathLike) -> list[dict[str, str]]:
    """Read a table back (all values as strings, as CSV keeps them)."""
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


# --- Markdown -------------------------------------------------------------------------------

def _md_escape(text: str) -> str:
    return str(text).replace("|", "\\|")


def _md_table(header: Sequence[str], body: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(_md_escape(h) for h in header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_md_escape(c) for c in row) + " |" for row in body]
    return lines


def _cell(row: Mapping[str, Any], actions: Sequence[str]) -> str:
    """The play (in brackets where the player never gets with that hand), then each
    legal action's expected chips, marked † off the path."""
    text = row["play"] or "—"
    text = text if row["reached"] > REACH_TOL else f"({text})"
    worth = ", ".join(f"{a} {row[value_column(a)]:+.3f}" for a in actions
                      if row.get(value_column(a)) is not None)
    return f"{text} [{worth}]{'†' * bool(row['off_path'])}" if worth else text


def summary_lines(model: HandModel, summary: Mapping[str, Any] | None) -> list[str]:
    """Rules, value and exploitability as Markdown bullet lines."""
    summary = summary or {}
    lines = [f"- Rules: {model.game_params.describe()}"]
    if "value" in summary:
        lines.append(f"- Value of the hand to the captain: {summary['value']:+.6f} chips per hand")
    if "exploitability" in summary:
        from solver.export.numbers import measured, quality

        lines.append(f"- Exploitability of this strategy: {measured(summary['exploitability'])} "
                     "chips per hand")
        if summary.get("certified_value"):
            lines.append(f"- Quality: {quality(summary)}")
    if summary.get("method"):
        claim = (" (as the strategy file records it)"
                 if summary.get("source") == "strategy file" else "")
        lines.append(f"- Solved by{claim}: {summary['method']} ({summary.get('status', '')})")
    return lines


_REACH_NOTE = ("In parentheses: a decision the player never reaches with that hand under his "
               "own strategy (off the path of play); the play shown there is only a sensible "
               "default. In square brackets: each legal action's expected chips to the player "
               "deciding with that hand, against the other player's strategy, everybody "
               "playing the strategy afterwards (positive: chips the other player takes); "
               "† marks a decision the other player's strategy never lets happen, where the "
               "values are those against his smallest slips (docs/charts.md, \"What each "
               "action is worth\").")


def reroll_markdown(model: HandModel, strategy: Strategy,
                    summary: Mapping[str, Any] | None = None,
                    table: Table | None = None) -> str:
    """The throwing decisions laid out like the chart: hands down, throws across."""
    table = table or reroll_table(model, strategy)
    T = model.throws
    lines = ["# Throwing decisions (when to stop, what to keep)", ""]
    lines += summary_lines(model, summary)
    lines += ["", "Each cell: what to do after that throw with that hand "
              "(\"stop\", \"reroll\" all three dice, or \"keep\" the dice named and throw the "
              "others); a mixed strategy lists each action's frequency. " + _REACH_NOTE, ""]
    if T == 1:
        return "\n".join(lines + ["With one throw allowed there is no throwing decision.", ""])
    cells = {(r["player"], r["captain_throws"], r["throw"], r["rank"]): r for r in table.rows}
    ranked = rules.ranked_hands(model.game_params.faces, model.game_params.ranking)
    panels = [("captain", "", "Captain")] + [
        ("opponent", tc, f"Opponent, after the captain made {tc} throw{'s' * (tc > 1)}")
        for tc in range(1, T + 1)]
    for player, context, title in panels:
        lines += [f"## {title}", ""]
        header = ["Rank", "Hand", "Name"] + [f"After throw {t}" for t in range(1, T)]
        body = []
        for rank, hand in enumerate(ranked, start=1):
            body.append([str(rank), rules.format_hand(hand),
                         rules.hand_name(hand, model.game_params.ranking)]
                        + [_cell(cells[(player, context, t, rank)], table.probability_columns)
                           for t in range(1, T)])
        lines += _md_table(header, body) + [""]
    return "\n".join(lines)


def decision_header(model: HandModel, public: tuple[int, int], history: str) -> str:
    """Short column title: "captain opens", "opponent faces a raise to 2 (pbr)"."""
    node = model.tree(public).node(history)
    text = f"{ROLE_NAMES[node.actor]} {facing(history, node.level)}"
    return f"{text} ({history})" if history else text


def betting_markdown(model: HandModel, strategy: Strategy,
                     summary: Mapping[str, Any] | None = None,
                     table: Table | None = None) -> str:
    """The betting laid out like the charts: a table per public state, hands down,
    decision points across."""
    table = table or betting_table(model, strategy)
    lines = ["# Betting decisions", ""]
    lines += summary_lines(model, summary)
    lines += ["", "One table per public state (throws made by each player, known to both). "
              "Columns are the decision points, named by who acts and what happened before; "
              "each cell is the action (or the mix of actions) of the player to act with "
              "that hand. In brackets, the betting so far, first bettor first: "
              + ("each stake proposed (\"35\": stake 3, raise to 5). "
                 if not set(betting_actions(model)) <= set(BETTING_ACTIONS)
                 else "p pass, b bet, r raise. ") + _REACH_NOTE, ""]
    cells = {(r["captain_throws"], r["opponent_throws"], r["history"], r["rank"]): r
             for r in table.rows}
    ranked = rules.ranked_hands(model.game_params.faces, model.game_params.ranking)
    for tc, to in model.public_states:
        first = ROLE_NAMES[model.tree((tc, to)).first]
        lines += [f"## Captain {tc} throw{'s' * (tc > 1)}, opponent {to} "
                  f"throw{'s' * (to > 1)} — the {first} bets first", ""]
        # a table of reached rows only (write_tables, reached_only) shows the decisions
        # someone reaches, and "–" for the hands that do not
        histories = [h for h in betting_decisions(model, (tc, to))
                     if any((tc, to, h, rank) in cells for rank in range(1, len(ranked) + 1))]
        header = ["Rank", "Hand"] + [decision_header(model, (tc, to), h) for h in histories]
        body = []
        for rank, hand in enumerate(ranked, start=1):
            body.append([str(rank), hand_label(hand, model.game_params.ranking)]
                        + [_cell(cells[(tc, to, h, rank)], table.probability_columns)
                           if (tc, to, h, rank) in cells else "–" for h in histories])
        lines += _md_table(header, body) + [""]
    return "\n".join(lines)


# --- writing --------------------------------------------------------------------------------

def table_to_json(table: Table, model: HandModel) -> dict[str, Any]:
    """The table as a JSON document: schema and version, the rules, what the columns mean,
    then the rows, each a list in the order of `columns` (null where an action is not
    available)."""
    return {
        "schema": TABLE_SCHEMA,
        "schema_version": TABLE_SCHEMA_VERSION,
        "table": table.name,
        "title": table.title,
        "rules": model.game_rules,
        "columns": list(table.columns),
        "probability_columns": list(table.probability_columns),
        "about": {
            "reached": "probability, counting the player's own dice and choices only, that "
                       "he meets this decision with this hand",
            "chips_<action>": "expected chips of the action to the player deciding, with "
                              "this hand, against the other player's strategy, both playing "
                              "the strategy afterwards, per unit of the other's reach",
            "chips_play": "the same for the strategy's own play here",
            "off_path": "the other player's strategy never leads here: the chips are the "
                        "limit against his vanishing uniform slips",
        },
        "rows": [[row.get(c) for c in table.columns] for row in table.rows],
    }


def json_text(document: Mapping[str, Any]) -> str:
    """A table document as JSON text with one row per line (a 5000-row table stays a
    file one can read and diff)."""
    head = {k: v for k, v in document.items() if k != "rows"}
    text = json.dumps(head, indent=1, allow_nan=False)
    rows = ",\n  ".join(json.dumps(row, allow_nan=False) for row in document["rows"])
    return f'{text[:-2]},\n "rows": [\n  {rows}\n ]\n}}\n'


def write_table(table: Table, out_dir: str | os.PathLike, markdown: str | None = None,
                model: HandModel | None = None) -> list[Path]:
    """Write `<name>.csv`, `<name>.md` if markdown text is given and `<name>.json` if the
    model is, atomically."""
    out = Path(out_dir)
    paths = [out / f"{table.name}.csv"]
    write_text_atomic(paths[0], table_to_csv(table))
    if markdown is not None:
        paths.append(out / f"{table.name}.md")
        write_text_atomic(paths[-1], markdown)
    if model is not None:
        paths.append(out / f"{table.name}.json")
        write_text_atomic(paths[-1], json_text(table_to_json(table, model)))
    return paths


def write_tables(model: HandModel, strategy: Strategy, out_dir: str | os.PathLike,
                 summary: Mapping[str, Any] | None = None, reach: Reach | None = None,
                 reached_only: bool = False) -> list[Path]:
    """reroll.csv, .md, .json and betting.csv, .md, .json in `out_dir` (`reach`: both
    players' own reach, from the solution's `Evaluation`; measured here only if not given;
    the action values are measured once for both tables). With `reached_only` the betting
    table keeps only the rows its player reaches (Le Bidou's default hand: 4 208 of its
    258 048 rows, 168 MB of tables otherwise; strategy.json still holds every decision)."""
    reach = reach or reach_of(model, strategy)
    values = action_values(model, strategy)
    reroll = reroll_table(model, strategy, reach, values)
    betting = betting_table(model, strategy, reach, values)
    if reached_only:
        betting = dataclasses.replace(betting, rows=tuple(
            row for row in betting.rows if row["reached"] > REACH_TOL))
    return (write_table(reroll, out_dir, reroll_markdown(model, strategy, summary, reroll),
                        model)
            + write_table(betting, out_dir,
                          betting_markdown(model, strategy, summary, betting), model))


def probabilities(row: Mapping[str, Any], table: Table) -> np.ndarray:
    """The row's action probabilities (available actions only)."""
    return np.array([row[c] for c in table.probability_columns if row.get(c) is not None],
                    dtype=float)
