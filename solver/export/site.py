"""The browser view (`bidou site`): static pages that open from the file system.

Four pages, each one self-contained HTML file (its style, script and data inline: no
server, no network, nothing fetched, so `file://` works and a page can be mailed alone):

* ``index.html`` — the betting: pick the rules, both throw counts and the betting so far;
  every hand of the player to act, strongest first as on the charts, with each action's
  frequency (bars coloured like the charts) and its value (`analysis.action_values`);
* ``reroll.html`` — the throwing: what to keep, by throw and hand, as the reroll chart says;
* ``round.html`` — the round's win-probability map (from a published ``round.json``); a
  click on a state shows its numbers and what each way the next hand can end leads to;
* ``montevideo.html`` — Montevideo's heads-up end (from a published ``heads-up.json``, checked
  by the caller): its win-probability map; a click on a state shows its numbers and its
  push-or-fold play, hand by hand.

The pages are made of templates shipped as package data (``site_files/``: one HTML
skeleton, one style sheet, plain scripts without a framework or a build step) and of the
numbers, embedded as JSON. Every number shown is measured here from the strategy
(`bundle.measure`: a strategy file is never trusted), as in every other export.
"""

from __future__ import annotations

import dataclasses
import html
import json
import os
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, OPPONENT, ROLE_NAMES
from games.bidou.rules import STOP
from solver.analysis.action_values import ActionValues, action_values, bet_where, throw_where
from solver.common.files import write_set
from solver.common.types import Exact, Reach
from solver.export import numbers
from solver.export.bundle import measure
from solver.export.charts import BET_STYLES, OFF_PATH_BAND, OFF_PATH_EDGE, THROW_STYLES, Style
from solver.export.tables import REACH_TOL, facing, hand_label, ranked_indices, spell_history
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy, StrategyFileError

SCHEMA = "bidou-site"
SCHEMA_VERSION = 1
PAGES = ("index.html", "reroll.html", "round.html", "montevideo.html")
DIGITS = 6              # probabilities and values as embedded: enough for any display
ROUND_SCHEMA = ("bidou-round", 1)


@dataclasses.dataclass(frozen=True)
class HandView:
    """One rule set as the pages show it: measured, with its own reach (to fade what a
    player's own strategy never reaches, as the charts do) and each action's value."""

    name: str
    model: HandModel
    strategy: Strategy
    summary: dict[str, Any]
    reach: Reach
    values: ActionValues | None = None


def hand_view(name: str, source: Any, exact: Exact | None = None, values: bool = True
              ) -> HandView:
    """Measure a solved hand (a Solution or a strategy file's (model, strategy, summary)):
    its value, both players' exploitability from the exact best response, and the interval
    the certificate proves (the value itself with `exact`); with `values`, the expected
    chips of every action (`analysis.action_values`, in floats: the pages print four
    decimals)."""
    model, strategy, summary, evaluation = measure(source, exact)
    found = action_values(model, strategy) if values else None
    return HandView(name, model, strategy, summary, evaluation.reach, found)


# --- the numbers the pages show -------------------------------------------------------------

def _rounded(array: Any) -> list:
    return np.round(np.asarray(array, dtype=float), DIGITS).tolist()


def _style(style: Style) -> dict[str, str]:
    return {"color": style.color, "hatch": style.hatch, "label": style.label}


def summary_document(view: HandView) -> dict[str, Any]:
    """What every page says of a rule set first: its value, each player's exploitability,
    what is proved and how it was solved."""
    s = view.summary
    proof = s.get("certified_value") or {}
    return {
        "rules": view.model.params.describe(),
        "value": numbers.stable(s["value"]),
        "exact": proof.get("exact"),
        "interval": [proof.get("lower_decimal"), proof.get("upper_decimal")],
        "captain_exploitability": numbers.measured(s.get("captain_exploitability")),
        "opponent_exploitability": numbers.measured(s.get("opponent_exploitability")),
        "quality": numbers.quality(s),
        "status": s.get("status") or "not recorded",
        "method": s.get("method") or "not recorded",
        "claimed": s.get("source") == "strategy file",
    }


def _hands(model: HandModel) -> tuple[list[int], list[str], list[int]]:
    """Model indices strongest first, their labels, and where a group of hands begins
    (bidou, triples, straights, 6 high ...: the lines the charts draw)."""
    order = ranked_indices(model)
    ranking = model.params.ranking
    labels = [hand_label(model.hands[h], ranking) for h in order]
    keys = [_group_key(model.hands[h], ranking) for h in order]
    starts = [r for r in range(1, len(order)) if keys[r] != keys[r - 1]]
    return order, labels, starts


def _group_key(hand: rules.Hand, ranking: str) -> tuple:
    key = rules.rank_key(hand, ranking)
    return key[:2] if key[0] == 1 else key[:1]


def betting_document(view: HandView) -> dict[str, Any]:
    """Every betting decision of every public state, hands in the charts' order."""
    model, strategy = view.model, view.strategy
    order, labels, starts = _hands(model)
    states = {}
    for tc, to in model.public_states:
        tree = model.tree((tc, to))
        nodes = []
        for node in tree.nodes:
            key = (tc, to, node.history)
            reach = view.reach[node.actor][1][key][0]
            nodes.append({
                "history": node.history, "actor": ROLE_NAMES[node.actor],
                "level": node.level, "actions": list(node.actions),
                "so_far": spell_history(node.history, tree.first),
                "facing": facing(node.history, node.level),
                "p": _rounded(strategy.betting[key][:, order]),
                "reached": [bool(reach[h] > REACH_TOL) for h in order],
                **_values(view, bet_where(*key), order)})
        states[f"{tc},{to}"] = {"first": ROLE_NAMES[tree.first], "nodes": nodes}
    return {"name": view.name, "summary": summary_document(view), "hands": labels,
            "groups": starts, "throws": model.throws, "states": states,
            "values_known": view.values is not None}


def _values(view: HandView, where: tuple, order: list[int]) -> dict[str, Any]:
    """A decision's action values as the page reads them: [action][hand] in the charts'
    order (None where the action is not legal with the hand), and whether the other
    player's strategy ever comes here."""
    if view.values is None:
        return {"values": None, "off_path": False}
    decision = view.values[where]
    rows = [[_number(decision.values[h][a]) for h in order] for a in range(len(decision.actions))]
    return {"values": rows, "off_path": decision.off_path}


def _number(value: Any) -> float | None:
    return None if value is None else round(float(value), DIGITS)


def _throw_style(action: rules.ThrowAction) -> str:
    if action == STOP:
        return "stop"
    if action == ():
        return "reroll"
    return f"keep{len(action)}"


def throw_document(view: HandView) -> dict[str, Any]:
    """Every throwing decision: the captain's by throw, the opponent's by the captain's
    throw count and his own throw; per action its style and the dice it keeps."""
    model, strategy = view.model, view.strategy
    order, labels, starts = _hands(model)
    actions = [{"style": _throw_style(a),
                "dice": "" if a in (STOP, ()) else rules.format_hand(a),     # type: ignore
                "name": rules.throw_action_name(a)} for a in model.throw_actions]
    # in a cell: stop first, then more dice kept before fewer, all three thrown last
    shown = sorted(range(len(actions)), key=lambda a: (
        -3 if model.throw_actions[a] == STOP else -len(model.throw_actions[a])))
    columns = []
    for player in (CAPTAIN, OPPONENT):
        contexts = strategy.throw[player].shape[0]
        for context in range(contexts):
            for throw in range(model.throws - 1):
                probs = strategy.throw[player][context, throw]
                reach = view.reach[player][0][context, throw, 0]
                columns.append({
                    "player": ROLE_NAMES[player],
                    "captain_throws": None if player == CAPTAIN else context + 1,
                    "throw": throw + 1,
                    "p": _rounded(probs[:, order]),
                    "reached": [bool(reach[h] > REACH_TOL) for h in order],
                    **_values(view, throw_where(player, context, throw), order)})
    return {"name": view.name, "summary": summary_document(view), "hands": labels,
            "groups": starts, "throws": model.throws, "keep": model.params.reroll == "keep",
            "actions": actions, "order": shown, "columns": columns}


def round_document(name: str, report: Mapping[str, Any]) -> dict[str, Any]:
    """A published round (`round.json`) as the map shows it, each state with its stakes:
    where each way the next hand can end leads, and the captain's chance there."""
    from games.bidou.round_params import RoundParams
    from solver.round.states import ChipState

    values = check_round(name, report)
    states = []
    for entry in report["states"]:
        shown = {key: entry[key] for key in ("centre", "captain", "opponent", "open_throw",
                                             "value", "lower", "upper", "p_end")}
        shown["captain_exploitability"] = numbers.measured(entry["captain_exploitability"])
        shown["opponent_exploitability"] = numbers.measured(entry["opponent_exploitability"])
        if not entry["open_throw"]:
            state = ChipState(entry["centre"], entry["captain"], entry["opponent"])
            shown["stakes"] = stakes(state, report["rules"]["max_level"], values)
        states.append(shown)
    rules_text = RoundParams.from_mapping(report["rules"]).describe()
    return {"name": name, "rules": rules_text, "chips": report["rules"]["chips"],
            "start_value": report["start_value"], "start_lower": report["start_lower"],
            "start_upper": report["start_upper"], "max_width": report["max_width"],
            "states": states, "colours": _cividis()}


def check_round(name: str, report: Any) -> dict:
    """Each state's value, by state; StrategyFileError (one line) unless `report` is a
    round report this page can show."""
    if not isinstance(report, Mapping) or \
            (report.get("schema"), report.get("schema_version")) != ROUND_SCHEMA:
        raise StrategyFileError(f"{name}: not a {ROUND_SCHEMA[0]} file of version "
                                f"{ROUND_SCHEMA[1]}")
    from games.bidou.round_params import RoundParams
    from solver.round.states import state_graph

    try:
        params = RoundParams.from_mapping(report["rules"])
        chips = params.chips
        for entry in report["states"]:
            piles = (entry["centre"], entry["captain"], entry["opponent"])
            if sum(piles) != chips or not 0 <= float(entry["value"]) <= 1:
                raise StrategyFileError(f"{name}: the state {piles} is not a state of a "
                                        f"{chips}-chip round with a probability")
            low, high = float(entry["lower"]), float(entry["upper"])   # printed as given
            if not low <= float(entry["value"]) <= high:
                raise StrategyFileError(f"{name}: the state {piles}'s value lies outside "
                                        f"its proved interval [{low}, {high}]")
        listed = _round_values(report)
    except (KeyError, TypeError, ValueError) as error:      # ParameterError: a ValueError
        raise StrategyFileError(f"{name}: a round report's field is missing or malformed "
                                f"({error})") from None
    # each state once, none missing: the map looks up where every hand can lead
    expected = set(state_graph(chips, params.hand.max_level))
    if len(listed) != len(report["states"]) or set(listed) != expected:
        missing = sorted(expected - set(listed), key=repr)
        what = (f"{len(missing)} of its {len(expected)} states are missing (first "
                f"{missing[0].label()})" if missing else
                "a state is listed twice or is no state of the round")
        raise StrategyFileError(f"{name}: not the whole round: {what}")
    return listed


def _round_values(report: Mapping[str, Any]) -> dict:
    from solver.round.states import ChipState, OpenThrowState

    values: dict = {}
    for entry in report["states"]:
        state = (OpenThrowState if entry["open_throw"] else ChipState)(
            entry["centre"], entry["captain"], entry["opponent"])
        values[state] = float(entry["value"])
    return values


def stakes(state: Any, max_level: int, values: Mapping) -> list[dict[str, Any]]:
    """Each way a hand at `state` can end (a showdown won or lost at each level, a tie, two
    passes, a fold), the chips it leaves (the captain's pile first) and the captain's chance
    to win the round from there: the betting trees of both first bettors, limited by the
    chips each player can supply (`round.states.after_leaf`, the rules of the round)."""
    from games.bidou.betting import SHOWDOWN, build_tree, settle
    from solver.round.states import after_leaf

    seen: dict[str, dict[str, Any]] = {}
    for first in (CAPTAIN, OPPONENT):
        tree = build_tree(first, max_level, state.supply())
        for leaf in tree.leaves:
            for outcome in ((1, 0, -1) if leaf.kind == SHOWDOWN else (0,)):
                after = settle(state.supply(), leaf.pot, leaf.kind, outcome, leaf.folder)
                where = after_leaf(state, leaf, outcome)
                what = _ending(leaf, outcome)
                seen.setdefault(what, {
                    "what": what, "centre": after.centre, "captain": after.piles[CAPTAIN],
                    "opponent": after.piles[OPPONENT],
                    "next": _next_words(where, after.next_captain),
                    "value": numbers.stable(where.value(values)),
                    "sort": (leaf.kind != SHOWDOWN or outcome == 0, leaf.level, -outcome)})
    rows = sorted(seen.values(), key=lambda r: (r["sort"], r["what"]))
    return [{k: v for k, v in row.items() if k != "sort"} for row in rows]


_OUTCOME_WORDS = {1: "wins", -1: "loses"}


def _ending(leaf: Any, outcome: int) -> str:
    """How a hand ended, in words: "showdown at level 2: the captain wins"; a tie, two
    passes or a fold whatever the level (they move the same chips)."""
    from games.bidou.betting import PASS, SHOWDOWN

    if leaf.kind == SHOWDOWN and outcome:
        return f"showdown at level {leaf.level}: the captain {_OUTCOME_WORDS[outcome]}"
    if leaf.kind == SHOWDOWN:
        return "a tie at the showdown"
    if leaf.kind == PASS:
        return "both pass"
    return f"the {ROLE_NAMES[leaf.folder]} folds"


def _next_words(where: Any, next_captain: int) -> str:
    """What follows a hand, for the captain: the end of the round, an open throw, or the
    next hand with him captain or not."""
    from solver.round.states import OpenThrowState

    if where.state is None:
        return "the captain wins the round" if where.end else "the captain loses the round"
    if isinstance(where.state, OpenThrowState):
        return "an open throw"
    return "he is captain again" if next_captain == CAPTAIN else "the opponent is captain"


def _cividis(steps: int = 101) -> list[str]:
    """The round chart's colour map (cividis), sampled: the page colours a cell by its
    value as the printed chart does."""
    import matplotlib
    from matplotlib.colors import to_hex

    cmap = matplotlib.colormaps["cividis"]
    return [to_hex(cmap(i / (steps - 1))) for i in range(steps)]


# --- the pages ------------------------------------------------------------------------------

def _template(name: str) -> str:
    return resources.files("solver.export").joinpath("site_files", name).read_text("utf-8")


def _embed(document: Any) -> str:
    """JSON that may sit inside a <script> element: no "</" can close it early."""
    return json.dumps(document, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")


def page(title: str, script: str, data: Any) -> str:
    """One self-contained page: the skeleton with its style, the shared script, the page's
    script and its data inline."""
    body = _template("page.html")
    parts = {
        "TITLE": html.escape(title),
        "STYLE": _template("site.css"),
        "DATA": _embed({"schema": SCHEMA, "schema_version": SCHEMA_VERSION, **data}),
        "SCRIPT": _template("common.js") + "\n" + _template(script),
    }
    for key, text in parts.items():
        body = body.replace(f"/*{key}*/", text)
    return body


def montevideo_document(report: Mapping[str, Any]) -> dict[str, Any]:
    """A heads-up report (`solver.montevideo.report`, checked by the caller) as the map
    shows it."""
    from games.montevideo.heads_up import MAX_ANTE, HeadsUpParams

    params = HeadsUpParams.from_dict(report["rules"])
    keys = ("captain", "opponent", "ante", "value", "lower", "upper", "chip_share",
            "push_fold")
    return {"rules": params.describe(), "total": params.total,
            "antes": list(range(params.first_ante, MAX_ANTE + 1)),
            "max_width": report["max_width"], "hands": report["hands"],
            "states": [{key: entry[key] for key in keys} for entry in report["states"]],
            "colours": _cividis()}


def render_pages(hands: Sequence[HandView], rounds: Mapping[str, Mapping[str, Any]],
                 selected: int = 0, montevideo: Mapping[str, Any] | None = None
                 ) -> dict[str, str]:
    """The four pages by file name; the hand pages open on `hands[selected]`."""
    styles = {"throw": {k: _style(v) for k, v in THROW_STYLES.items()},
              "bet": {k: _style(v) for k, v in BET_STYLES.items()},
              "off_path": {"edge": OFF_PATH_EDGE, "band": OFF_PATH_BAND}}
    return {
        "index.html": page("Bidou: betting", "betting.js", {
            "styles": styles, "selected": selected,
            "rule_sets": [betting_document(v) for v in hands]}),
        "reroll.html": page("Bidou: when to stop throwing", "reroll.js", {
            "styles": styles, "selected": selected,
            "rule_sets": [throw_document(v) for v in hands]}),
        "round.html": page("Bidou: the round", "round.js",
                           {"rounds": [round_document(n, r) for n, r in rounds.items()]}),
        "montevideo.html": page("Montevideo: the last two players", "montevideo.js", {
            "montevideo": None if montevideo is None else montevideo_document(montevideo)}),
    }


def write_site(out_dir: str | os.PathLike, hands: Sequence[HandView],
               rounds: Mapping[str, Mapping[str, Any]], selected: int = 0,
               montevideo: Mapping[str, Any] | None = None) -> list[Path]:
    """Write the pages into `out_dir`, all or none (`files.write_set`); the hand pages open
    on `hands[selected]`."""
    if not 0 <= selected < len(hands):
        raise ValueError("a site needs at least one rule set, and opens on one of them")
    out = Path(out_dir)
    pages = render_pages(hands, rounds, selected, montevideo)
    write_set({out / name: text.encode("utf-8") for name, text in pages.items()})
    return [out / name for name in pages]
