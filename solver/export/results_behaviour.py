"""docs/results.md, section 2: how the refined equilibrium of the featured games plays
(outcomes, bluffs, when each hand stops, the public states)."""

from __future__ import annotations

from typing import Any, Mapping

from solver.export.results_wording import pct


def behaviour_section(g: Mapping[str, Any]) -> list[str]:
    """Section 2: how the equilibrium plays (outcomes, bluffs, stopping, public states)."""
    d = g["default"]
    o = d["outcomes"]
    lines = [
        "## 2. Behaviour at equilibrium",
        "",
        "*These numbers depend on the equilibrium chosen.* They describe the refined "
        "equilibrium `bidou solve` gives (exact; its float rounding; the certificate proves "
        "its value; `--plain` gives an arbitrary LP vertex instead). Other equilibria may "
        "behave differently where the game leaves a choice; the numbers describe this one.",
        "",
        "| | default | `--reroll keep` | `--ranking french` |",
        "|---|---|---|---|",
    ]
    names = ("default", "keep", "french")
    rows = [("hands ending with both passing", lambda x: pct(x["outcomes"]["passed"])),
            ("hands ending in a fold", lambda x: pct(x["outcomes"]["folded"])),
            ("hands ending in a showdown", lambda x: pct(x["outcomes"]["showdown"])),
            ("chips changing hands per hand, E\\|payoff\\|",
             lambda x: f"{x['outcomes']['chips_moved']:.4f}"),
            ("captain's expected throws", lambda x: f"{x['outcomes']['captain_throws']:.4f}"),
            ("opponent's expected throws", lambda x: f"{x['outcomes']['opponent_throws']:.4f}"),
            ("bets and raises per hand",
             lambda x: f"{sum(v['per_hand'] for v in x['bluffs'].values()):.4f}"),
            ("share of bets and raises that are bluffs", lambda x: pct(x["bluff_share"]))]
    for label, get in rows:
        lines.append(f"| {label} | " + " | ".join(get(g[n]) for n in names) + " |")
    lines += [
        "",
        "Bluffs by player and action (default game; per hand played, and the share of that "
        "action that is a bluff):",
        "",
        "| who, action | per hand | bluffs per hand | bluff share |",
        "|---|---|---|---|",
    ]
    for key, v in d["bluffs"].items():
        lines.append(f"| {key} | {v['per_hand']:.4f} | {v['bluffs_per_hand']:.4f} | "
                     f"{pct(v['bluff_share'])} |")
    lines += [
        "",
        "*Bluff*, precisely: at a bet or raise to level L, the bettor's range is the "
        "distribution of his hand given that he makes it; the responder's *indifference "
        "point* is the weakest hand (lowest in the ranking table) with which calling, a "
        "showdown at level L against that range, is worth at least folding (the option to "
        "raise left out). The bet is a bluff when the bettor's hand loses a showdown to that "
        "hand (every bet, if no hand should call). `solver/analysis/behaviour.py` computes it; "
        "`tests/test_behaviour.py` checks it against brute-force enumeration.",
        "",
        "When each hand stops throwing (default game). `P(stop)`: the probability that the "
        "turn ends by stopping after that throw (the opponent's, given the captain's count); "
        "then the hands that always stop: every hand from the one named up (how many), and "
        "any weaker ones; then the hands that mix, with their probability of stopping. All "
        "other hands throw again.",
        "",
        "| player | captain's throws | throw | P(stop) | stops with every hand from | "
        "also stops with | mixes |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in d["stops"]:
        mixed = ", ".join(f"{h} {pct(p)}" for h, p in row["mixed"].items()) or "none"
        top = f"{row['stops_from']} ({row['stops_from_count']} of {row['hands']})" \
            if row["stops_from"] else "none"
        lines.append(f"| {row['player']} | {row['captain_throws'] or ''} | {row['throw']} | "
                     f"{pct(row['stop_overall'])} | {top} | "
                     f"{', '.join(row['also_stops']) or 'none'} | {mixed} |")
    lines += [
        "",
        "How often each public state (captain's throws, opponent's throws) occurs, default "
        "game: " + ", ".join(f"({k}) {pct(v)}" for k, v in o["by_public"].items()) + ".",
        "",
        "The full strategies are in `outputs/` (`bidou outputs`); `bidou export` draws them.",
        "",
    ]
    return lines
