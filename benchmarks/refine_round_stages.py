"""Refine every stage game of a saved round from its saved continuation values, one stage
after another in this process, and say what each cost: what regenerating a published round
refined costs beyond its plain solve (docs/round.md, "What it costs").

    nice -n 5 python benchmarks/refine_round_stages.py outputs/round-keep/solved_round.json \
        [--only 9,0,0 5,2,2] [--log FILE]

Each stage runs `round_stages.refine_stage` as the round's worker processes do (the exact
recovery's two systems one after the other: a pool's worker cannot fork). A line per stage
(wall and CPU seconds, the tremble that worked, `verify`'s violations, the pairs
`undominated` moved, the largest common denominator a proof computed over), then the totals
and the worst stage. The values come from the saved round's report, so no round is solved.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.bidou.round_params import RoundParams  # noqa: E402
from solver.common.errors import SolverError  # noqa: E402
from solver.hand.exact import recovery  # noqa: E402
from solver.hand.model import build_model  # noqa: E402
from solver.hand.refined import quasi_perfect  # noqa: E402
from solver.hand.strategy import StrategyFileError  # noqa: E402
from solver.pipeline import round_stages  # noqa: E402
from solver.round import store  # noqa: E402
from solver.round.states import ChipState, OpenThrowState  # noqa: E402

BITS: list[int] = []


def _measured_prove(real):
    """`prove_fractions` that also notes the common denominator's size (its bits)."""
    def prove(model, strategy, fractions, *args, **kwargs):
        common = 1
        for row in fractions.values():
            for f in row:
                if common % f.denominator:
                    common = math.lcm(common, f.denominator)
        BITS.append(common.bit_length())
        return real(model, strategy, fractions, *args, **kwargs)
    return prove


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("saved", help="a saved round (solved_round.json)")
    parser.add_argument("--only", nargs="*", default=None, help="these stages (C,A,B)")
    parser.add_argument("--log", default=None, help="also append each line here")
    args = parser.parse_args()
    rules = json.loads(Path(args.saved).read_text())["rules"]
    params = RoundParams.from_mapping(rules)
    saved = store.load(args.saved, params)
    values: dict = {}
    for s in saved.report["states"]:
        kind = OpenThrowState if s["open_throw"] else ChipState
        values[kind(s["centre"], s["captain"], s["opponent"])] = s["value"]
    states = sorted(s for s in values if isinstance(s, ChipState))
    if args.only:
        states = [ChipState(*map(int, label.split(","))) for label in args.only]
    recovery.can_fork = lambda: False          # as in the round's (daemonic) workers
    quasi_perfect.prove_fractions = _measured_prove(quasi_perfect.prove_fractions)
    round_stages.prove_fractions = _measured_prove(round_stages.prove_fractions)
    base = build_model(params.hand)

    def say(line: str) -> None:
        print(line, flush=True)
        if args.log:
            with open(args.log, "a") as out:
                out.write(line + "\n")

    say(f"# {params.describe()}: {len(states)} stages from {args.saved}")
    rows = []
    for state in states:
        BITS.clear()
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            found = round_stages.refine_stage(base, state, values)
            what = (f"eta {found.eta:g} gap {found.support_gap:g} "
                    f"violations {found.violations} "
                    f"moved {found.undominated}")
            ok = found.violations == 0
        except (SolverError, StrategyFileError) as error:
            what, ok = f"FAILED {str(error)[:400]}", False
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        rows.append((state.label(), wall, cpu, ok))
        say(f"{state.label():>6}  {wall:7.1f} s wall  {cpu:7.1f} s CPU  "
            f"denominator {max(BITS, default=0)} bits  {what}")
    worst = max(rows, key=lambda r: r[2])
    say(f"# total {sum(r[1] for r in rows):.0f} s wall, {sum(r[2] for r in rows):.0f} s CPU; "
        f"{sum(r[3] for r in rows)} of {len(rows)} refined and verified; worst stage "
        f"{worst[0]} ({worst[1]:.0f} s wall, {worst[2]:.0f} s CPU)")
    return 0 if all(r[3] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
