"""`python -m solver.app.cheatsheet_front`: the cheat sheets' Pareto fronts written, bounded or
measured again (outputs/cheatsheet-front/; solver/pipeline/cheatsheet_front.py does the work).

    python -m solver.app.cheatsheet_front [--games default,keep,french] [--rules-max 16]
                                          [--beam B] [--out DIR]
    python -m solver.app.cheatsheet_front --games keep --start outputs/cheatsheet-front \
        --rules-max 12 --split-keep 9,10,11,12 --local 2 [--out DIR]   (the keep front)
"""

from __future__ import annotations

import argparse
from pathlib import Path

from solver.pipeline.cheatsheet_front import add_bounds, remeasure, run, write_front_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="default,keep,french")
    parser.add_argument("--rules-max", type=int, default=16)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--beam", type=int, default=1,
                        help="books kept at each step of the search (slower, sometimes better)")
    parser.add_argument("--milp-seconds", type=float, default=0.0,
                        help="seconds per front point for the MILP (improve, then prove)")
    parser.add_argument("--milp-sizes", default=None,
                        help="comma-separated book sizes the MILP runs on (default: all)")
    parser.add_argument("--family", action="store_true",
                        help="also print the equilibrium's betting made the closest decisions "
                             "of the rule family (with and without bluff bands)")
    parser.add_argument("--polish", action="store_true",
                        help="descend the largest book with the rich moves (staircases, bluff "
                             "band ends) before measuring, as `bidou cheatsheet` does")
    parser.add_argument("--top-down", action="store_true",
                        help="also compress the equilibrium's fitted per-decision book down "
                             "to each size (solver/cheatsheet/compress.py) and keep "
                             "the better book of the two searches at each size")
    parser.add_argument("--local", type=int, default=0, metavar="B",
                        help="the front's local search with a beam of B books per size "
                             "(merges down, splits up; solver/cheatsheet/local_search.py): "
                             "with --top-down from the chain's books too, without it from "
                             "the start books (and --split-keep's) alone")
    parser.add_argument("--split-keep", default="", metavar="SIZES",
                        help="under reroll=keep: the start books of these sizes (comma-"
                             "separated), each with its keep rule split by throw and "
                             "descended (cheatsheet_local.keep_split), join the sources of "
                             "the search")
    parser.add_argument("--source-max", type=int, default=16,
                        help="with --local: the largest top-down books kept as sources")
    parser.add_argument("--milp-bound-only", action="store_true",
                        help="with --milp-seconds: the whole MILP alone on each point (its "
                             "bound and gap), without the block descent before it")
    parser.add_argument("--sheets", type=Path, default=None,
                        help="with --out: write each game's best sheet of at most 12 rules "
                             "into SHEETS/<game>/ (default: OUT/<game>/); --sheets outputs "
                             "publishes them as outputs/<game>/cheatsheet.*")
    parser.add_argument("--raises", action="store_true",
                        help="every book raises where the equilibrium (nearly) always does "
                             "(solver/cheatsheet/search.py, RaiseFloors): the start books "
                             "lifted, every search, descent and MILP kept there")
    parser.add_argument("--start", type=Path, default=None,
                        help="start from the front files in this folder instead of searching")
    parser.add_argument("--bounds", type=int, default=None, metavar="K",
                        help="with --start: give each front file there its proved lower "
                             "bounds (its scopes; any scopes up to K rules), write them "
                             "back and the table, and search nothing")
    parser.add_argument("--remeasure", action="store_true",
                        help="with --start: measure each front file there, and with --sheets "
                             "each published sheet, again against the published equilibrium "
                             "(outputs/<game>/strategy.json), write them back and the table, "
                             "and search nothing")
    args = parser.parse_args()
    if args.remeasure:
        for name in args.games.split(","):
            remeasure(args.start, name, args.sheets)
        write_front_table(args.start)
        return
    if args.bounds is not None:
        for name in args.games.split(","):
            add_bounds(args.start, name, args.bounds)
        write_front_table(args.start)
        return
    for name in args.games.split(","):
        sizes = [int(x) for x in args.milp_sizes.split(",")] if args.milp_sizes else None
        run(name, args.rules_max, args.out, args.beam, args.milp_seconds, args.start, sizes,
            args.family, args.polish, args.top_down, args.local, args.source_max,
            args.sheets, not args.milp_bound_only,
            [int(x) for x in args.split_keep.split(",") if x], args.raises)
    if args.out is not None:
        write_front_table(args.out)


if __name__ == "__main__":
    main()
