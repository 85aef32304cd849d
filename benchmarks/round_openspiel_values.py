"""Values of tiny capped rounds (`python_bidou_round`) by OpenSpiel's sequence-form LP.

    python benchmarks/round_openspiel_values.py [--max-nodes 60000] [--json]

For each variant, start state and cap (`max_hands`, stages = hands and open-throw attempts),
prints the game tree's size, the LP's time and the value to player 0 (the first hand's
captain; when the start is an open throw, whichever player `start` makes him: "1;0;2" the
low one, L, "1;2;0" the high one) with his win probability (1 + value) / 2, so the round
solver's finite-horizon solve of the same capped game can be compared with them and the
values' movement with the cap can be seen. Trees
above `--max-nodes` are skipped (the LP walks the tree in Python: ~20k nodes/s, and its
memory grows with the tree). A game without any decision (one throw, open throws only) is
evaluated by `expected_game_score` instead of the LP.
"""

from __future__ import annotations

import argparse
import json
import time

import pyspiel
from open_spiel.python import policy
from open_spiel.python.algorithms import expected_game_score, sequence_form_lp

import games.bidou.round_game  # noqa: F401  (registers python_bidou_round)

VARIANTS = [
    ("chips=3,faces=2,throws=1,max_level=1", ["", "1;1;1", "2;1;0", "2;0;1", "1;2;0", "1;0;2"]),
    ("chips=4,faces=2,throws=1,max_level=2", ["", "2;1;1", "0;2;2"]),
    ("chips=3,faces=2,throws=2,max_level=1", ["", "1;1;1", "0;1;2"]),
]
CAPS = (1, 2, 3, 4)

# Values measured with this script (value to player 0; LP accuracy ~1e-8). The cap-3 rows
# take 1-3 minutes each and ~1 GB: run with --max-nodes 300000 to recompute them.
TINY = "chips=3,faces=2,throws=1,max_level=1"
RECORDED = {
    f"python_bidou_round({TINY},max_hands=1,start=1;1;1)": 0.0,
    f"python_bidou_round({TINY},max_hands=2,start=1;1;1)": -0.021835327,
    f"python_bidou_round({TINY},max_hands=3,start=1;1;1)": -0.011374655,
    f"python_bidou_round({TINY},max_hands=1,start=2;1;0)": 0.0,
    f"python_bidou_round({TINY},max_hands=2,start=2;1;0)": -0.116699219,
    f"python_bidou_round({TINY},max_hands=3,start=2;1;0)": -0.208592169,
    f"python_bidou_round({TINY},max_hands=2,start=2;0;1)": 0.116699219,
    f"python_bidou_round({TINY},max_hands=1,start=1;2;0)": -0.343750000,
    f"python_bidou_round({TINY},max_hands=2,start=1;2;0)": -0.451171875,
    f"python_bidou_round({TINY},max_hands=3,start=1;2;0)": -0.492247105,
    f"python_bidou_round({TINY},max_hands=3,start=1;0;2)": 0.492247105,
    f"python_bidou_round({TINY},max_hands=1)": 0.0,
    f"python_bidou_round({TINY},max_hands=2)": 0.0,
    "python_bidou_round(chips=4,faces=2,throws=1,max_level=2,max_hands=2)": 0.0,
    "python_bidou_round(chips=3,faces=2,throws=2,max_level=1,max_hands=1,start=0;1;2)":
        0.275390625,
}


def tree_size(state, limit: int) -> tuple[int, bool]:
    """Nodes of the tree below `state`, stopping past `limit`; and whether any player acts."""
    count, decisions, stack = 0, False, [state]
    while stack and count <= limit:
        node = stack.pop()
        count += 1
        if node.is_terminal():
            continue
        if node.is_chance_node():
            stack.extend(node.child(a) for a, _ in node.chance_outcomes())
        else:
            decisions = True
            stack.extend(node.child(a) for a in node.legal_actions())
    return count, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-nodes", type=int, default=60000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for variant, starts in VARIANTS:
        for start in starts:
            for cap in CAPS:
                text = f"python_bidou_round({variant},max_hands={cap}" + \
                    (f",start={start})" if start else ")")
                game = pyspiel.load_game(text)
                nodes, decisions = tree_size(game.new_initial_state(), args.max_nodes)
                if nodes > args.max_nodes:
                    print(f"{text}: more than {args.max_nodes} nodes, skipped", flush=True)
                    break
                began = time.perf_counter()
                if decisions:
                    value, _, _, _ = sequence_form_lp.solve_zero_sum_game(game)
                else:
                    uniform = policy.UniformRandomPolicy(game)
                    value = expected_game_score.policy_value(
                        game.new_initial_state(), [uniform, uniform])[0]
                seconds = time.perf_counter() - began
                row = {"game": text, "nodes": nodes, "seconds": round(seconds, 2),
                       "value": round(float(value), 9),
                       "win_probability": round((1 + float(value)) / 2, 9)}
                rows.append(row)
                if text in RECORDED:
                    row["recorded"] = RECORDED[text]
                if not args.json:
                    check = f" (recorded {RECORDED[text]:+.9f})" if text in RECORDED else ""
                    print(f"{text}: nodes {nodes}, {seconds:.1f} s, value {value:+.9f}, "
                          f"win {(1 + value) / 2:.9f}{check}", flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
