"""When to stop in an open throw, as tables: for every open throw of a round, the first
thrower's choice by throw and hand, and the second's by the hand to beat (CSV, Markdown).

An open throw's optimal policies depend on one number, what losing the throw is worth to
the first thrower (the value of the chip state it leads to), so they are computed again
exactly from a round's report (`open_throw.solve_open_throw`, perfect information, less
than a second each): `bidou outputs` writes them beside round.json and
`bidou round --open-throw` prints them from the saved round.
"""

from __future__ import annotations

import csv
import dataclasses
import io
from fractions import Fraction
from typing import Any, Mapping, Sequence

from games.bidou import rules
from games.bidou.round_params import RoundParams
from solver.round.open_throw import Action, SolvedOpenThrow, solve_open_throw
from solver.round.states import ChipState, OpenThrowState, State, after_open_throw

_KEEPING = "throw again, keeping the dice the CSV names"
COLUMNS = ("centre", "first_thrower_chips", "second_thrower_chips", "player", "hand_to_beat",
           "after_throw", "hand", "action")


@dataclasses.dataclass(frozen=True)
class OpenThrowPolicy:
    """One open throw of the round, its value to the first thrower, and its solution."""

    state: OpenThrowState
    value: float
    solved: SolvedOpenThrow


def open_throw_policies(params: RoundParams, report: Mapping[str, Any]
                        ) -> list[OpenThrowPolicy]:
    """Every open throw of the round whose report this is, solved with the continuation
    the report's values give (the first thrower's value if he loses the throw)."""
    values: dict[State, float] = {}
    for s in report["states"]:
        kind = OpenThrowState if s["open_throw"] else ChipState
        values[kind(s["centre"], s["captain"], s["opponent"])] = s["value"]
    out = []
    for state in sorted(s for s in values if isinstance(s, OpenThrowState)):
        continuation = Fraction(after_open_throw(state).value(values))
        out.append(OpenThrowPolicy(state, values[state],
                                   solve_open_throw(params.hand, continuation)))
    return out


def action_word(action: Action) -> str:
    if isinstance(action, str):
        return action                      # rules.STOP
    return f"keep {rules.format_hand(action)}" if action else "throw all again"


def open_throw_rows(params: RoundParams, policies: Sequence[OpenThrowPolicy]) -> list[dict]:
    """One row per decision: the first thrower's by (throw, hand), the second's by (hand
    to beat, throw, hand); hands strongest first."""
    ranked = rules.ranked_hands(params.hand.faces, params.hand.ranking)
    rows = []
    for policy in policies:
        s = policy.state
        where = {"centre": s.centre, "first_thrower_chips": s.low,
                 "second_thrower_chips": s.high}
        for throw in range(1, params.hand.throws):
            rows += [{**where, "player": "first", "hand_to_beat": "", "after_throw": throw,
                      "hand": rules.format_hand(g),
                      "action": action_word(policy.solved.l_policy[(throw, g)])}
                     for g in ranked]
        for beat in ranked:
            for throw in range(1, params.hand.throws):
                rows += [{**where, "player": "second", "hand_to_beat": rules.format_hand(beat),
                          "after_throw": throw, "hand": rules.format_hand(g),
                          "action": action_word(policy.solved.h_policy[(beat, throw, g)])}
                         for g in ranked]
    return rows


def open_throw_csv(params: RoundParams, policies: Sequence[OpenThrowPolicy]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(open_throw_rows(params, policies))
    return out.getvalue()


def _stops_in_words(ranked: Sequence[rules.Hand], stops: set[rules.Hand]) -> str:
    """"6-5-3 or better (19 hands)" when the hands stopped with are the strongest ones,
    else the list."""
    if not stops:
        return "never"
    if set(ranked[:len(stops)]) == stops:
        weakest = ranked[len(stops) - 1]
        n = len(stops)
        return f"{rules.format_hand(weakest)} or better ({n} hand{'s' * (n != 1)})"
    return ", ".join(rules.format_hand(g) for g in ranked if g in stops)


def _second_exceptions(params: RoundParams, solved: SolvedOpenThrow) -> int:
    """Decisions where the second thrower does not simply stop when ahead and throw again
    when behind (0 in every round solved: he never stops behind, nor throws ahead)."""
    hand = params.hand
    count = 0
    for (beat, _, g), action in solved.h_policy.items():
        sign = rules.compare(g, beat, hand.ranking, hand.aces_beat_bidou)
        if (sign > 0 and action != rules.STOP) or (sign < 0 and action == rules.STOP):
            count += 1
    return count


def first_rows(params: RoundParams, solved: SolvedOpenThrow) -> list[dict[str, Any]]:
    """The first thrower's policy by throw: the hands he stops with, in words, and what
    he does with the others."""
    ranked = rules.ranked_hands(params.hand.faces, params.hand.ranking)
    return [_row(throw, ranked, {g: solved.l_policy[(throw, g)] for g in ranked})
            for throw in range(1, params.hand.throws)]


def tie_rows(params: RoundParams, solved: SolvedOpenThrow) -> list[dict[str, Any]]:
    """The second thrower's policy when tied after each throw, by the hand tied."""
    ranked = rules.ranked_hands(params.hand.faces, params.hand.ranking)
    return [_row(throw, ranked, {b: solved.h_policy[(b, throw, b)] for b in ranked})
            for throw in range(1, params.hand.throws)]


def _row(throw: int, ranked: Sequence[rules.Hand], actions: Mapping[rules.Hand, Action]
         ) -> dict[str, Any]:
    stops = {g for g in ranked if actions[g] == rules.STOP}
    again = sorted({action_word(actions[g]) for g in ranked if g not in stops})
    return {"after_throw": throw, "stop_with": _stops_in_words(ranked, stops),
            "else": ", ".join(again) if len(again) <= 3 else _KEEPING}


def open_throw_advice(params: RoundParams, solved: SolvedOpenThrow) -> dict[str, Any]:
    """An open throw's policies in words, JSON-ready (kept in the saved round, printed by
    `bidou round --state` at an open throw)."""
    return {"open_throw": True, "first": first_rows(params, solved),
            "second_tied": tie_rows(params, solved),
            "second_exceptions": _second_exceptions(params, solved)}


def open_throw_markdown(params: RoundParams, policies: Sequence[OpenThrowPolicy]) -> str:
    """The open throw's tables in words: per open throw, when the first thrower stops,
    and when the second stops on a tie (ahead he stops, behind he throws again)."""
    hand = params.hand
    lines = [f"# Bidou: when to stop in an open throw ({params.describe()})", "",
             f"A player holding {params.chips - 1} chips faces an open throw: the other "
             f"(one chip or none) throws first, in the open, up to {hand.throws} times, "
             f"then he throws knowing the hand to beat. The first thrower's hand beating "
             f"the second's wins him the round; the second's beating it costs the first "
             f"thrower a chip and play resumes; a tie is thrown again. Both see "
             f"everything, so these policies are exactly optimal (docs/round.md); "
             f"`open_throw.csv` (or `bidou round --open-throw --json`) lists every decision"
             + (", with the dice to keep." if hand.reroll == "keep" else ".")]
    for policy in policies:
        s = policy.state
        lines += ["", f"## Centre {s.centre}: {s.low} chip{'s' * (s.low != 1)} against "
                  f"{s.high}", "",
                  f"The first thrower wins the round with probability "
                  f"**{policy.value:.9f}** (losing the throw leaves him "
                  f"{float(policy.solved.continuation):.9f}).", "",
                  "| first thrower, after throw | stop with | else |", "|---|---|---|"]
        lines += [f"| {r['after_throw']} | {r['stop_with']} | {r['else']} |"
                  for r in first_rows(params, policy.solved)]
        exceptions = _second_exceptions(params, policy.solved)
        lines += ["", "The second thrower stops as soon as his hand beats the hand to beat "
                  "and throws again while it loses"
                  + (" (always)." if not exceptions else
                     f", but for {exceptions} decisions (see the CSV).")
                  + " On a tie (the throw is thrown again if he stops):", "",
                  "| second thrower, tied after throw | stops with a tie of | else |",
                  "|---|---|---|"]
        lines += [f"| {r['after_throw']} | {r['stop_with']} | {r['else']} |"
                  for r in tie_rows(params, policy.solved)]
    return "\n".join(lines) + "\n"
