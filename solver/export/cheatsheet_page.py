"""The one-page cheat sheet: numbered rules in words, their thresholds against the hand
ranking, the ranking itself, and what the rules cost (A4 and Letter PDF, PNG, Markdown).

Everything printed comes from one rule list (`solver.cheatsheet.rulebook`): the rule texts are
`rule_text`, the picture is `action_probs` of each rule, and the strategy file written beside
the page is `build_strategy` of the same list, measured by `cheatsheet.measure`.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from games.bidou import rules
from solver.cheatsheet import rulebook
from solver.cheatsheet.search import FrontPoint
from solver.common.files import write_bytes_atomic, write_json_atomic, write_text_atomic
from solver.export.charts import (
    A4_PORTRAIT,
    BET_STYLES,
    INK,
    THROW_STYLES,
    Canvas,
    Cell,
    Segment,
    draw_cell,
    draw_legend,
    figure_bytes,
    signed,
    styled,
)
from solver.export.tables import hand_label
from solver.hand.model import HandModel
from solver.hand.strategy import Strategy, strategy_to_json

LETTER = (8.5, 11.0)
PAGES = {"a4": A4_PORTRAIT, "letter": LETTER}
FILES = ("cheatsheet_a4.pdf", "cheatsheet_letter.pdf", "cheatsheet.png", "cheatsheet.md",
         "cheatsheet_strategy.json")
# Who does what first, said on the page and in the Markdown (docs/rules.md section 3).
WHO_FIRST = ("The captain throws first; the opponent sees how many times he threw, then "
             "throws. Then the betting: the captain bets first, unless he threw more times "
             "than the opponent.")
_KIND_TITLE = {"throw": "stop?", "open": "open", "face": "facing a bet", "keep": "keep"}


def _money(x: float) -> str:
    """Three decimals, and no "-0.000" for a float-noise negative zero."""
    return f"{x:.3f}" if round(x, 3) != 0 else "0.000"


def cost_lines(point: FrontPoint) -> list[str]:
    """What the rules cost, in chips per hand, in words."""
    e = point.exploitability
    cap_eq, opp_eq = point.versus_equilibrium
    return [
        f"Against a perfect adversary who knows these rules: exploitability "
        f"{_money(e.exploitability)} chips per hand (the captain following them loses "
        f"{_money(point.captain_loss)} more than the game value, the opponent "
        f"{_money(point.opponent_loss)} more).",
        f"Against the equilibrium (exact play): the captain following them loses "
        f"{_money(cap_eq)} chips per hand, the opponent {_money(opp_eq)} (mean "
        f"{_money(point.equilibrium_loss)}).",
        f"The game is worth {signed(point.game_value, 4)} chips per hand to the captain.",
    ] + ([f"Among all cuts (mixing in quarters) for these rules' situations, "
          f"{point.proof.words(e.exploitability)}."] if point.proof else [])


def notes(model: HandModel, rule_list: Sequence[rulebook.Rule]) -> list[str]:
    """Why a rule bets with some hands and passes with stronger ones (its bluffs), for the
    rules that do: the one place a sheet's ranges are not monotone in the ranking."""
    top = rulebook.STEPS * model.num_hands
    bluffing = [i for i, r in enumerate(rule_list, 1)
                if r.kind == "open" and r.params[1] != top and r.params[0] != top]
    if not bluffing:
        return []
    return [f"Bluffs ({rulebook.rule_numbers(bluffing)}): weaker hands bet while stronger "
            "ones pass, as the equilibrium does: a bet then does not tell the other player "
            "that you are strong, so he cannot simply fold to every bet, and the middling "
            "hands that pass keep their chance of winning the showdown cheaply."]


def cheatsheet_markdown(model: HandModel, point: FrontPoint) -> str:
    """The rules as text: numbered lines that `rulebook.parse_rules` reads back."""
    ranked = rules.ranked_hands(model.params.faces, model.params.ranking)
    lines = [f"# Bidou cheat sheet: {point.size} rules", "",
             f"Rules of the game: {model.params.describe()}", "",
             f"{WHO_FIRST} \"X or better\" counts in the hand ranking below (1 = "
             "strongest). Each decision is covered by exactly one rule.", "",
             "## The rules", ""]
    lines += [f"{i}. {rulebook.rule_text(model, r)}." for i, r in enumerate(point.rules, 1)]
    said = notes(model, point.rules)
    lines += [""] + said if said else []
    lines += ["", "## What they cost", ""] + [f"- {line}" for line in cost_lines(point)]
    lines += ["", "`cheatsheet_strategy.json` is the strategy these rules state; "
              "`bidou evaluate --strategy cheatsheet_strategy.json` measures it.", "",
              "## Hand ranking (strongest first)", ""]
    lines += [f"- {i}: {hand_label(h, model.params.ranking)}" for i, h in enumerate(ranked, 1)]
    lines += [f"- Exception: {w} beats {lo}." for w, lo in _exceptions(model)]
    return "\n".join(lines) + "\n"


def _exceptions(model: HandModel) -> list[tuple[str, str]]:
    """(winner, loser) pairs that beat the ranking's order (french: 1-1-1 beats 2-1-1)."""
    return [(rules.format_hand(model.hands[w]), rules.format_hand(model.hands[lo]))
            for w, lo in model.exceptions]


def wrap(text: str, per_line: int) -> list[str]:
    """`text` in lines of at most `per_line` characters, broken between words."""
    lines, current = [], ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > per_line:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    return lines + ([current] if current else [])


def rule_cells(model: HandModel, rule: rulebook.Rule, atom: rulebook.Atom,
               pos: np.ndarray, keep: np.ndarray | None = None) -> list[Cell]:
    """What `rule` does with each hand (strongest first), as chart cells (mixed hands split);
    `keep`: the dice the player's keep rule keeps (a throw rule may stop the hands it keeps
    nothing of)."""
    probs = rulebook.action_probs(model, rule, atom, pos, keep)
    if atom.kind == "throw":
        names = ["stop" if a == 0 else "reroll" for a in range(probs.shape[0])]
    else:
        names = list(model.tree(atom.key[:2]).node(atom.key[2]).actions)
    cells = []
    for h in np.argsort(pos):
        segments: dict[str, float] = {}
        for a, name in enumerate(names):
            if probs[a, h] > 0:
                segments[name] = segments.get(name, 0.0) + float(probs[a, h])
        cells.append(Cell(tuple(Segment(f, name) for name, f in segments.items()), True))
    return cells


def _keep_note(skipped: Sequence[int]) -> list[str]:
    """Why the keep rules have no column, in lines that fit under the picture."""
    if len(skipped) == 1:
        return [f"Rule {skipped[0]} (which dice to keep) has no column: it picks dice, "
                "not hands."]
    return [f"{rulebook.rule_numbers(skipped).capitalize()} (which dice to keep) have no "
            "column:",
            "they pick dice, not hands."]


def _face_atom(model: HandModel, rule: rulebook.Rule, atom_list) -> rulebook.Atom:
    """A decision of the rule where raising is allowed if any (so the picture shows it)."""
    mine = [a for a in atom_list if rule.covers(a)]
    if rule.kind == "face":
        mine.sort(key=lambda a: a.features[1])
    return mine[0]


def _text_column(canvas: Canvas, model: HandModel, point: FrontPoint, x: float, y: float,
                 width: float, size: float, draw: bool) -> float:
    """The numbered rules and their cost at type `size`; returns the y below them."""
    per_line = int(width / (0.55 * size / 72))
    line_h = size / 72 * 1.32

    def put(xx: float, text: str, **kw) -> None:
        if draw:
            canvas.text(xx, y, text, **kw)

    put(x, "The rules", size=size + 2.3, weight="bold")
    y += 0.25
    intro = (f"{WHO_FIRST} \"X or better\" counts down the ranking on the right (1 = "
             "strongest). Find the one rule for your decision:")
    for line in wrap(intro, per_line):
        put(x, line, size=size - 0.5, style="italic")
        y += line_h
    y += 0.08
    for i, rule in enumerate(point.rules, 1):
        put(x, f"{i}.", size=size, weight="bold")
        for line in wrap(rulebook.rule_text(model, rule) + ".", per_line - 4):
            put(x + 0.25, line, size=size)
            y += line_h
        y += 0.06
    for note in notes(model, point.rules):
        y += 0.04
        for line in wrap(note, per_line):
            put(x, line, size=size - 0.5, style="italic")
            y += line_h
    y += 0.15
    put(x, "What it costs", size=size + 2.3, weight="bold")
    y += 0.22
    for sentence in cost_lines(point):
        for line in wrap(sentence, per_line):
            put(x, line, size=size - 0.4)
            y += line_h
        y += 0.04
    y += 0.1
    for line in wrap("The strategy these rules state is cheatsheet_strategy.json; "
                      "\u201cbidou evaluate --strategy cheatsheet_strategy.json\u201d measures "
                      "it exactly.", per_line):
        put(x, line, size=max(6.5, size - 1), color="#555555")
        y += line_h
    return y


@styled
def cheatsheet_figure(model: HandModel, point: FrontPoint, page: str = "a4") -> Figure:
    """The printable page."""
    canvas = Canvas(PAGES[page])
    W, H = canvas.width, canvas.height
    margin = 0.45
    y = 0.5
    canvas.text(W / 2, y, f"Bidou cheat sheet: {point.size} rules", size=15, ha="center",
                weight="bold")
    y += 0.26
    canvas.text(W / 2, y, "Rules: " + model.params.describe(), size=8, ha="center")
    y += 0.18
    canvas.text(W / 2, y, f"Exploitability {_money(point.exploitability.exploitability)} "
                f"chips per hand · game value {signed(point.game_value, 4)} to the captain",
                size=8, ha="center")
    y += 0.3
    top = y
    ranked = rules.ranked_hands(model.params.faces, model.params.ranking)
    n = len(ranked)
    drawn = [(i, r) for i, r in enumerate(point.rules, 1) if r.kind != "keep"]
    col_w = min(0.2, 2.4 / max(1, len(drawn)))
    label_w = 1.25
    pic_w = label_w + col_w * len(drawn)
    pic_x = W - margin - pic_w
    text_w = pic_x - margin - 0.3
    # --- the rules, what they cost: the largest type that fits the page
    for size in np.arange(8.6, 6.9, -0.2):        # its grey line stays >= 6.5 pt
        if _text_column(canvas, model, point, margin, y, text_w, float(size), draw=False) \
                <= H - 0.35:
            break
    _text_column(canvas, model, point, margin, y, text_w, float(size), draw=True)
    # --- the picture: the ranking, one column per rule
    py = top
    canvas.text(pic_x, py, "Hand ranking and each rule", size=10.5, weight="bold")
    header_h = 0.55
    grid_top = py + header_h
    skipped = [i for i, r in enumerate(point.rules, 1) if r.kind == "keep"]
    notes_h = 0.15 * (len(_exceptions(model)) + (len(_keep_note(skipped)) if skipped else 0))
    legend_h = 0.75
    row_h = min(0.17, (H - grid_top - legend_h - notes_h - 0.4) / n)
    font = max(6.5, min(6.8, row_h * 72 * 0.78))
    for r, hand in enumerate(ranked):
        yy = grid_top + (r + 0.5) * row_h
        canvas.text(pic_x, yy, f"{r + 1:>2}", size=font, ha="left", color="#555555")
        canvas.text(pic_x + 0.2, yy, hand_label(hand, model.params.ranking), size=font)
    atom_list = rulebook.atoms(model)
    pos = rulebook.positions(model)
    x = pic_x + label_w
    styles = {**THROW_STYLES, **BET_STYLES}
    for number, rule in drawn:
        atom = _face_atom(model, rule, atom_list)
        keep = rulebook.keep_for(model, point.rules, atom)
        for r, cell in enumerate(rule_cells(model, rule, atom, pos, keep)):
            draw_cell(canvas, x, grid_top + r * row_h, col_w, row_h, cell, styles, font,
                      labels=False)
        canvas.text(x + col_w / 2, grid_top - 0.05, str(number), size=6.5, ha="center",
                    va="bottom", weight="bold")
        x += col_w
    for r in range(1, n):
        if rules.rank_key(ranked[r], model.params.ranking)[:1] != rules.rank_key(
                ranked[r - 1], model.params.ranking)[:1]:
            yy = grid_top + r * row_h
            canvas.line([pic_x, x], [yy, yy], color=INK, linewidth=0.4)
    canvas.text(pic_x + label_w + col_w * len(drawn) / 2, grid_top - 0.24, "rule",
                size=6.5, ha="center", va="bottom")
    bottom = grid_top + n * row_h
    if skipped:
        for line in _keep_note(skipped):
            canvas.text(pic_x, bottom + 0.12, line, size=6.5, style="italic")
            bottom += 0.15
    for winner, loser in _exceptions(model):
        canvas.text(pic_x, bottom + 0.12, f"Exception: {winner} beats {loser}.", size=6.5,
                    style="italic")
        bottom += 0.15
    again = THROW_STYLES["reroll"]
    if model.params.reroll == "keep":
        again = dataclasses.replace(again, label="throw again (keeping what the keep rule says)")
    entries = [THROW_STYLES["stop"], again] if model.throws > 1 else []
    entries += [BET_STYLES[k] for k in ("pass", "bet", "call", "fold")]
    draw_legend(canvas, pic_x, bottom + 0.2, entries, fontsize=6.5, off_path=None,
                max_width=pic_w)
    return canvas.finish()


def write_cheatsheet(model: HandModel, point: FrontPoint, out_dir: str | os.PathLike,
                     result: Mapping[str, Any] | None = None, dpi: float = 150) -> list[Path]:
    """cheatsheet_a4.pdf, cheatsheet_letter.pdf, cheatsheet.png, cheatsheet.md and
    cheatsheet_strategy.json (the strategy the rules state), written atomically."""
    out = Path(out_dir)
    paths = [out / name for name in FILES]
    a4 = cheatsheet_figure(model, point, "a4")
    write_bytes_atomic(paths[0], figure_bytes(a4, "pdf"))
    write_bytes_atomic(paths[1], figure_bytes(cheatsheet_figure(model, point, "letter"), "pdf"))
    write_bytes_atomic(paths[2], figure_bytes(a4, "png", dpi))
    write_text_atomic(paths[3], cheatsheet_markdown(model, point))
    strategy: Strategy = rulebook.build_strategy(model, point.rules)
    document = {**dict(result or {}), **point.to_dict(model)}
    write_json_atomic(paths[4], strategy_to_json(model, strategy, document))
    return paths
