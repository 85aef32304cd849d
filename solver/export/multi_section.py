"""docs/results.md's multi-hand section (section 7): three and four players against two,
rendered from the document's "multi" part (`solver.pipeline.multi_results`): the numbers
of `bidou multi` runs, each named in the section, and the four-player numbers of
docs/multi.md."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

NUMBER = 7               # the section's number when Le Bidou's section comes before it
# The commands of the runs whose numbers the section gives, which it prints.
DEFAULT_COMMAND = "bidou multi --faces 6 --throws 3 --iterations 880 --target 1e-3 --out DIR"
POOR_FISH_COMMAND = ("bidou multi --faces 6 --throws 3 --poor-fish --iterations 880 "
                     "--target 1e-3 --out DIR")
# The default game's charts are those its solve writes (`--out DIR`): its strategy file is
# above the size `--redraw` reads (docs/multi.md).
CHARTS_SOURCE = "its solve, `--out DIR`, copied to docs/img"
TWO_PLAYER_COMMAND = ("bidou multi --faces 6 --throws 3 --two-player "
                      "outputs/default/strategy.json")
# The two-hand values of results.md section 1, beside which the section puts its own.
TWO_HAND_DEFAULT = -0.036896       # the captain's value, 6 faces, 3 throws (section 1)
TWO_HAND_ONE_THROW = -0.08183      # 6 faces, 1 throw (section 1)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%" if x == 0 or x >= 0.001 else f"{100 * x:.2f}%"


def _seats(values: Sequence[float]) -> str:
    names = ["captain"] + [f"seat {k}" for k in range(1, len(values))]
    return ", ".join(f"{n} {v:.4f}" for n, v in zip(names, values))


def _name(values: Sequence[float], pick) -> str:
    """The seat whose value `pick` (max or min) chooses, by name."""
    seat = values.index(pick(values))
    return "the captain" if seat == 0 else f"seat {seat}"


def _play_line(play: Mapping[str, Any]) -> str:
    opens, answer = play["leader_opens"], play["answer_to_bet_1"]
    return (f"the leader opens {_pct(1 - opens['pass'])} of the time (bet 1 "
            f"{_pct(opens['bet 1'])}, bet 2 {_pct(opens.get('bet 2', 0))}, bet 3 "
            f"{_pct(opens.get('bet 3', 0))}), **{_pct(play['bluff_share'])} of his bets with a "
            "hand that a random hand beats more often than not**; facing a bet of one the next "
            f"player passes {_pct(answer['pass'])}, calls {_pct(answer['call'])}, raises 1 "
            f"{_pct(answer['raise 1'])} and raises 2 {_pct(answer.get('raise 2', 0))}; "
            "stops after one throw: " + ", ".join(
                f"{n} {_pct(p)}" for n, p in zip(("captain", "seat 1", "seat 2"),
                                                 play["stop_after_one_throw"])))


def render(part: Mapping[str, Any], number: int = NUMBER) -> list[str]:
    """Section `number` of docs/results.md from the "multi" part of the document."""
    d = part["default"]
    v = d["values"]
    lines = [
        f"## {number}. Multi-hand Bidou: three and four players",
        "",
        "The source's main game (docs/multi.md; rules M1-M19 in docs/rules.md section 6): "
        "three or more players, six chips each, bets of up to 3 chips into a common pot, the "
        "lowest hand at a showdown collects it. Solved by CFR on the compact public tree "
        "(`solver/multi/`), each seat's gain from deviating alone measured by an exact best "
        "response: the profile is an **epsilon-equilibrium**, no seat gains more than epsilon "
        "chips per hand by changing his own play. With three players that is all it says: "
        "other equilibria may give other values and other play (*every number below but the "
        "epsilons depends on the equilibrium found*). Values are chips got rid of per hand "
        "(higher is better; positive for everybody, ties and discards removing chips).",
        "",
        f"**The default game** (6 faces, 3 throws, three players; `{DEFAULT_COMMAND}`: "
        f"{d['solver']['iterations']} iterations of {d['solver']['method']}, published as "
        f"outputs/multi/multi-solution.json, which `bidou multi` answers from): values "
        f"{_seats(v)}; each seat's certified gain " + ", ".join(
            f"{g:.2e}" for g in d["gains"]) + f", so **epsilon {d['epsilon']:.2e}** "
        f"(NashConv {d['nash_conv']:.2e}).",
        "",
    ]
    lines += _disadvantage(part)
    lines += _play(part)
    lines += _two_player(part)
    lines += _whole(part)
    return lines


def _disadvantage(part: Mapping[str, Any]) -> list[str]:
    v, four = part["default"]["values"], part["four"]
    others = sum(v[1:]) / (len(v) - 1)
    fv = four["values"]
    return [
        "**The captain's disadvantage, two players against three and four.** In two-hand "
        f"Bidou the captain loses {TWO_HAND_DEFAULT:+.6f} chips per hand (section 1), so he "
        f"is {2 * abs(TWO_HAND_DEFAULT):.4f} behind his opponent. With three players on the "
        f"same dice he is **ahead**: {v[0]:.4f} against {v[1]:.4f} and {v[2]:.4f}, "
        f"{v[0] - others:+.4f} above the others' mean, and the order is the seats' (the "
        "later a player throws, the worse he does). The difference is about "
        f"{(v[0] - others) / part['default']['epsilon']:.0f} times the epsilon. With four "
        "players the default dice are too big to solve (2.9e9 range cells, docs/multi.md); "
        "one profile of them, the one-throw betting relabelled from the leader with every "
        "seat's best stops, is certified only at epsilon "
        f"{four['default_dice']['epsilon']:.3f} (`{four['default_dice']['command']}`): "
        f"no equilibrium, no values to compare. On {four['faces']} "
        f"faces and {four['throws']} throw each (`{four['command']}`, epsilon "
        f"{four['epsilon']:.1e}) the captain is the worst seat again: " + ", ".join(
            f"{x:.4f}" for x in fv) + f", {fv[0] - sum(fv[1:]) / 3:+.4f} against the others' "
        f"mean, the last seat best (two-hand, one throw: the captain {TWO_HAND_ONE_THROW:+.5f})."
        " Why the captaincy helps with three throws and three players is not measured "
        "(the captain, counted nearest by M3, leads whenever he ties the fewest throws, and "
        "he alone also stops with weak hands, chart 1).",
        "",
    ]


def _play(part: Mapping[str, Any]) -> list[str]:
    d, pf = part["default"], part.get("poor_fish")
    lines = [
        "**How they play** (the charts, drawn from the default game's strategy by "
        f"{CHARTS_SOURCE}; hands weakest to strongest): " + _play_line(d["play"]) + ".",
        "",
        "![When to stop, by seat](img/multi-stop.png)",
        "![The leader's first bet](img/multi-open.png)",
        "![Calling a bet](img/multi-answer.png)",
        "",
    ]
    if pf is not None:
        v, w = pf["values"], d["values"]
        lines += [
            f"**Poor Fish** (everyone passes: the highest hand receives a chip from each "
            f"other player; `{POOR_FISH_COMMAND}`: {pf['solver']['iterations']} iterations, "
            f"epsilon {pf['epsilon']:.2e}"
            + (": the target was not reached, the command exits 1, and these numbers are "
               "certified only to that epsilon" if pf["epsilon"] > 1e-3 else "")
            + f"): values {_seats(v)}, against the default's: "
            + ", ".join(f"{n} {a - b:+.4f}" for n, a, b in zip(
                ("captain", "seat 1", "seat 2"), v, w))
            + f" (the best seat now {_name(v, max)} and the worst {_name(v, min)}; without "
            f"Poor Fish the best is {_name(w, max)}, the worst {_name(w, min)}); "
            + _play_line(pf["play"]) + "."
            " Why is not analysed; each number is one equilibrium's.",
            "",
        ]
    return lines


def _two_player(part: Mapping[str, Any]) -> list[str]:
    two = part.get("two_player")
    if two is None:
        return []
    return [
        "**The two-player equilibrium played by all three** (the published two-hand "
        "strategy, outputs/default/strategy.json, read by the two-player map of "
        f"docs/multi.md; `{TWO_PLAYER_COMMAND}`): values {_seats(two['values'])}; each seat's "
        "certified gain from deviating " + ", ".join(f"{g:.4f}" for g in two["gains"])
        + f", so it is an epsilon-equilibrium only with **epsilon {two['epsilon']:.4f}**, "
        f"{two['epsilon'] / part['default']['epsilon']:.0f} times the solver's. The map is a "
        "choice (docs/multi.md says where): this measures that reading of the two-hand "
        "strategy, not every one.",
        "",
    ]


def _whole(part: Mapping[str, Any]) -> list[str]:
    w = part.get("whole")
    if w is None:
        return []
    chances = ", ".join(f"{n} {p:.3f} +- {se:.4f}" for n, p, se in zip(
        ("captain", "seat 1", "seat 2"), w["chance_to_lose"], w["standard_error"]))
    return [
        f"**The whole game** (six chips each to the last player holding chips, "
        f"`{w['command']}`; the small dice, every chip situation's hand solved on its own): "
        f"chance to lose {chances} over {w['games']} games ({w['mean_hands']:.1f} hands a "
        f"game; {w['situations']} distinct chip situations solved, worst certified epsilon "
        f"{w['worst_situation_epsilon']:.1e}). " + _whole_reading(w) + " Each hand is "
        "played myopically (to get rid of "
        "the most chips in that hand), so these are the chances of players who each play "
        "every hand well, not of a game-level equilibrium.",
        "",
    ]


def _whole_reading(w: Mapping[str, Any]) -> str:
    """The largest difference between two seats' chances, in standard errors."""
    p, se = w["chance_to_lose"], w["standard_error"]
    pairs = [(abs(p[a] - p[b]), a, b) for a in range(len(p)) for b in range(a + 1, len(p))]
    gap, a, b = max(pairs)
    errors = gap / (se[a] ** 2 + se[b] ** 2) ** 0.5
    names = ["the captain"] + [f"seat {k}" for k in range(1, len(p))]
    return (f"The largest difference, {names[a]} against {names[b]}, is {gap:.3f}: "
            f"{errors:.1f} standard errors" + (", probably real." if errors >= 2 else
                                                ", within chance."))
