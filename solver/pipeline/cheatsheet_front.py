"""The Pareto front of cheat sheets: number of rules against exploitability, per rule set,
the published outputs/cheatsheet-front/ (`python -m solver.app.cheatsheet_front`, whose help
lists its options).

For each game: solve it (LP), grow the rule book (solver/cheatsheet/search.py) up to
a number of rules, and keep every Pareto point: rules, exploitability (chips per hand, exact
best response), each side's loss against a best response, and the loss when the rules play
against the equilibrium; then the targets (<= 12 rules with exploitability
<= 0.02; the fewest rules within 0.005) and, against them, references that show where the
cost comes from: the equilibrium with every betting decision rounded to its most likely action
(pure betting, exact throws), with every throw decision rounded (pure throws, exact betting),
and with every betting probability rounded to a quarter. With an output folder, every front
point is written as a strategy file (`front_<game>_<rules>.json`, measured by `bidou
evaluate`) and the best book of at most 12 rules as a cheat sheet (`<out>/<game>/`).
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from games.bidou.params import BidouParams
from solver.cheatsheet import compress as cheatsheet_compress
from solver.cheatsheet import rulebook, simplify
from solver.cheatsheet import search as cheatsheet
from solver.common.files import write_json_atomic
from solver.hand import best_response
from solver.hand.strategy import strategy_to_json

GAMES = {"default": BidouParams(), "keep": BidouParams(reroll="keep"),
         "french": BidouParams(ranking="french")}


def references(model, eq) -> dict[str, float]:
    """Exploitability of the equilibrium with its betting made pure (each decision's most
    likely action), with its throws made pure, and with its betting probabilities rounded to
    quarters: where the cost of simple play comes from."""
    rounded = simplify.round_strategy(model, eq)
    pure_betting = eq.copy()
    pure_betting.betting.update(rounded.betting)
    pure_throws = eq.copy()
    for role in (0, 1):
        pure_throws.throw[role][...] = rounded.throw[role]
    quarters = eq.copy()
    for key, probs in eq.betting.items():
        q = np.round(probs * 4) / 4
        q[q.argmax(axis=0), np.arange(q.shape[1])] += 1 - q.sum(axis=0)
        quarters.betting[key] = q
    return {name: best_response.exploitability(model, s).exploitability
            for name, s in (("pure betting", pure_betting), ("pure throws", pure_throws),
                            ("betting in quarters", quarters))}


shape_fit = cheatsheet_compress.shape_fit


def family_references(model, eq) -> dict[str, float]:
    """Exploitability of the equilibrium with every betting decision replaced by the
    closest decision of the rule family (each decision its own cuts, quarters, weighted by
    the player's own reach): with "or worse" bluffs (the family before bands) and with
    bluff bands. What the family can state at best, before any sharing of rules."""
    from games.bidou.betting import CAPTAIN, OPPONENT
    from solver.hand.reach import own_reach

    order = np.argsort(rulebook.positions(model))
    reach: dict = {}
    for player in (CAPTAIN, OPPONENT):
        reach.update(own_reach(model, eq, player)[1])
    out = {}
    for name, pieces in (("family per decision", "di"), ("with bluff bands", "diz")):
        fitted = eq.copy()
        for key, probs in eq.betting.items():
            actions = model.tree(key[:2]).node(key[2]).actions
            w, P = reach[key][0][order] + 1e-5, probs[:, order]
            q = np.zeros_like(P)
            if "bet" in actions:
                bet = shape_fit(P[actions.index("bet")], w, pieces)
                q[actions.index("bet")], q[actions.index("pass")] = bet, 1 - bet
            else:
                go = shape_fit(1 - P[actions.index("fold")], w, "d")
                up = (np.where(go >= 1, shape_fit(P[actions.index("raise")], w, "d"), 0.0)
                      if "raise" in actions else np.zeros(len(go)))
                if "raise" in actions:
                    q[actions.index("raise")] = up
                q[actions.index("call")], q[actions.index("fold")] = go - up, 1 - go
            fitted.betting[key] = q[:, np.argsort(order)]
        out[name] = best_response.exploitability(model, fitted).exploitability
    return out


def equilibrium(name: str):
    """The published (refined) equilibrium of `name`, read from outputs/ if it is there,
    else solved now: the cheat sheets' "against the equilibrium" is measured against it."""
    from solver.hand.strategy import load_strategy_file
    from solver.pipeline.hand import refined_hand

    published = Path(__file__).resolve().parents[2] / "outputs" / name / "strategy.json"
    if published.is_file():
        model, strategy, summary = load_strategy_file(published)
        return model, strategy, float(summary["value"])
    solution = refined_hand(GAMES[name]).solution
    return solution.model, solution.strategy, solution.value


def start_books(folder: Path, name: str) -> list[tuple[rulebook.Rule, ...]]:
    """The rule books of the front files front_<name>_*.json in `folder`, smallest first."""
    import json

    return [tuple(rulebook.Rule.from_dict(d) for d in json.loads(path.read_text())
                  ["result"]["rule_list"])
            for path in sorted(folder.glob(f"front_{name}_*.json"))]


def start_origins(folder: Path, name: str) -> list[str]:
    """The search each front file of `start_books` records (smallest first)."""
    import json

    return [json.loads(path.read_text())["result"].get("search", "bottom-up")
            for path in sorted(folder.glob(f"front_{name}_*.json"))]


def run(name: str, rules_max: int, out: Path | None, beam: int = 1,
        milp_seconds: float = 0.0, start_folder: Path | None = None,
        milp_sizes: list[int] | None = None, family: bool = False,
        polish: bool = False, top_down: bool = False, local: int = 0,
        source_max: int = 16, sheets: Path | None = None, blocks: bool = True,
        split_keep: Sequence[int] = (), raises: bool = False) -> None:
    """One game's front (the module's docstring); with `raises`, every book raising where
    the equilibrium (nearly) always does (`cheatsheet.RaiseFloors`): the start books lifted
    to their floors, and every search, descent and MILP kept there."""
    model, strategy, value = equilibrium(name)
    floors = cheatsheet.RaiseFloors(model, strategy) if raises else None
    start = time.perf_counter()

    def progress(what: str, done: int, total: int) -> None:
        print(f"    {what}  ({time.perf_counter() - start:.0f} s)", flush=True)

    print(f"== {name}: {model.params.describe()}; value {value:+.6f}")
    if start_folder is not None:
        books = [b for b in start_books(start_folder, name) if len(b) <= rules_max]
    else:
        books = list(cheatsheet.pareto_front(model, rules_max, progress, beam=beam,
                                             floors=floors))
    if floors is not None:                      # the start books raising where it does
        books = [tuple(cheatsheet.Book(model, b, floors=floors).rules) for b in books]
    if polish:                                  # as `bidou cheatsheet` does: the rich moves
        books[-1] = cheatsheet.polish(model, books[-1], floors=floors)
    origins = ({len(b): o for b, o in zip(start_books(start_folder, name),
                                          start_origins(start_folder, name))}
               if start_folder is not None else {len(b): "bottom-up" for b in books})
    if split_keep:                              # the keep rules split by throw: sources
        books = books + keep_seeds(model, [b for b in books if len(b) in split_keep],
                                   progress)
    if top_down and local:                      # the chain, then the front's local search
        books, origins = local_front(model, strategy, books, rules_max, local, source_max,
                                     progress, floors)
    elif local:                                 # the local search from the books alone
        from solver.cheatsheet import local_search as cheatsheet_local

        smallest = min(len(b) for b in books)
        front = cheatsheet_local.improve_front(model, strategy, books, smallest, rules_max,
                                               beam=local, progress=progress, floors=floors)
        books, origins = list(front.values()), {size: "local" for size in front}
    elif top_down:                              # the best of both searches at each size
        smallest = min(len(b) for b in books)
        compressed = cheatsheet_compress.compress(
            model, strategy, rules_max, cheatsheet_compress.keep_rules_of(books[-1]),
            progress, rules_min=smallest, floors=floors)
        chosen = cheatsheet_compress.best_of(model, books, list(compressed.values()))
        books = [rules for rules, _ in chosen]
        origins = {len(rules): ("bottom-up", "top-down")[o] for rules, o in chosen}
    if milp_seconds > 0:
        from solver.cheatsheet import milp as cheatsheet_milp

        points = cheatsheet_milp.proved_front(model, strategy, value, books, milp_seconds,
                                              progress, milp_sizes, blocks, floors)
    else:
        points = [cheatsheet.measure(model, b, strategy, value) for b in books]
    points = [dataclasses.replace(p, origin=origins[p.size]) for p in points]
    seconds = time.perf_counter() - start
    print(f"  {'rules':>5} {'exploit.':>9} {'captain':>8} {'opponent':>8} "
          f"{'vs eq. C':>8} {'vs eq. O':>8}")
    for p in points:
        print(f"  {p.size:>5} {p.exploitability.exploitability:9.4f} {p.captain_loss:8.4f} "
              f"{p.opponent_loss:8.4f} {p.versus_equilibrium[0]:8.4f} "
              f"{p.versus_equilibrium[1]:8.4f}"
              + (f"  {p.proof.words(p.exploitability.exploitability)}" if p.proof else ""))
    within12 = [p for p in points if p.size <= 12]
    best12 = within12[-1]
    close = [p for p in points if p.exploitability.exploitability <= 0.005]
    print(f"  search: {seconds:.0f} s")
    print(f"  target <= 12 rules with exploitability <= 0.02: best with <= 12 rules "
          f"{best12.exploitability.exploitability:.4f} ({best12.size} rules) -> "
          f"{'met' if best12.exploitability.exploitability <= 0.02 else 'NOT met'}")
    print("  fewest rules within 0.005: "
          + (f"{close[0].size}" if close else f"none up to {points[-1].size} rules"))
    print("  references (the equilibrium with): " + ", ".join(
        f"{kind} {cost:.4f}" for kind, cost in references(model, strategy).items()))
    if family:
        print("  the equilibrium's betting in the rule family: " + ", ".join(
            f"{kind} {cost:.4f}" for kind, cost in family_references(model, strategy).items()))
    if out is not None:
        bounds = start_bounds(model, start_folder, name) if start_folder is not None else {}
        for p in points:
            result = p.to_dict(model)
            scopes = tuple((r.kind, r.scope) for r in p.rules)
            if scopes in bounds:
                result["lower_bound"] = _regapped(bounds[scopes],
                                                  p.exploitability.exploitability)
            write_json_atomic(out / f"front_{name}_{p.size:02d}.json", strategy_to_json(
                model, rulebook.build_strategy(model, p.rules), result))
        from solver.export.cheatsheet_page import write_cheatsheet

        write_cheatsheet(model, best12, (sheets or out) / name,
                         {"equilibrium_value": value,
                          "front": [{"rules_count": p.size,
                                     "exploitability": p.exploitability.exploitability,
                                     "equilibrium_loss": p.equilibrium_loss} for p in points]})


def start_bounds(model, folder: Path, name: str) -> dict[tuple, dict]:
    """The proved lower bounds (`add_bounds`) of the front files in `folder`, by their
    books' scopes: a bound over every book with some scopes (and over every book of its
    size) holds for any cuts, so a book of the same scopes keeps it."""
    import json

    out = {}
    for path in sorted(folder.glob(f"front_{name}_*.json")):
        result = json.loads(path.read_text())["result"]
        if "lower_bound" in result:
            rules = [rulebook.canonical(model, rulebook.Rule.from_dict(d))
                     for d in result["rule_list"]]
            out[tuple((r.kind, r.scope) for r in rules)] = result["lower_bound"]
    return out


def _regapped(entry: dict, cost: float) -> dict:
    """A front file's `lower_bound` entry with its gaps to `cost`."""
    out = {key: dict(value) if isinstance(value, dict) else value
           for key, value in entry.items()}
    for key in ("scopes", "all_scopes"):
        if key in out:
            out[key]["gap"] = max(0.0, cost - out[key]["bound"])
    return out


def keep_seeds(model, books, progress) -> list:
    """Each book with its keep rule split by throw and descended
    (`cheatsheet_local.keep_split`): one rule more, sources for the local search."""
    from solver.cheatsheet import local_search as cheatsheet_local

    out = []
    for rules in books:
        seed = cheatsheet_local.keep_split(model, rules)
        if seed is not None:
            out.append(seed)
            progress(f"{len(rules)} rules, keep split by throw: {len(seed)} rules, "
                     f"exploitability {cheatsheet_compress.cost(model, seed):.4f}",
                     len(out), len(books))
    return out


def local_front(model, strategy, books, rules_max: int, beam: int, source_max: int,
                progress, floors=None) -> tuple[list, dict[int, str]]:
    """The top-down chain from the fitted book down to the smallest size (its books above
    `rules_max`, up to `source_max`, kept as sources), then every size's book improved by
    the front's local search (solver/cheatsheet/local_search.py) from those and `books`:
    one book of every size from the smallest to `rules_max`, each no worse than the one
    below it."""
    from solver.cheatsheet import local_search as cheatsheet_local

    smallest = min(len(b) for b in books)
    keep = cheatsheet_compress.keep_rules_of(books[-1])
    compressed = cheatsheet_compress.compress(model, strategy, source_max, keep, progress,
                                              rules_min=smallest, descend_max=0,
                                              floors=floors)
    front = cheatsheet_local.improve_front(model, strategy,
                                           list(books) + list(compressed.values()),
                                           smallest, rules_max, beam=beam, progress=progress,
                                           floors=floors)
    return list(front.values()), {size: "local" for size in front}


def add_bounds(folder: Path, name: str, all_scopes_max: int, seconds: float = 120.0,
               progress=print) -> None:
    """Each front file front_<name>_*.json in `folder` given its proved lower bounds
    (solver/cheatsheet/bound.py): over every book with its scopes, and, up to
    `all_scopes_max` rules, over every book of at most that many rules; written back
    atomically, the rest of the file as it was."""
    import json

    from solver.cheatsheet import bound as cheatsheet_bound

    model, _, _ = equilibrium(name)
    for path in sorted(folder.glob(f"front_{name}_*.json")):
        document = json.loads(path.read_text())
        result = document["result"]
        rules = [rulebook.Rule.from_dict(d) for d in result["rule_list"]]
        book = cheatsheet_bound.book_bound(model, rules, seconds, integer=False)
        entry: dict[str, Any] = {"scopes": _bound_entry(book, result["exploitability"]),
                 "class": "book: every book with these rules' scopes (any cuts, any "
                          "keep rules)",
                 "method": "solver/cheatsheet/bound.py: the first throws and "
                           "the decisions a rule reaches through one sequence pinned"}
        if len(rules) <= all_scopes_max:
            least, results = cheatsheet_bound.all_scopes_bound(model, len(rules), seconds)
            entry["all_scopes"] = {"bound": least, "gap": max(0.0, result["exploitability"]
                                                               - least),
                                   "programs": len(results),
                                   "seconds": sum(r.seconds for r in results)}
        result["lower_bound"] = entry
        write_json_atomic(path, document)
        progress(f"  {path.name}: book bound {book.bound:.4f} ({book.status}, "
                 f"{book.seconds:.0f} s)" + (f", every book of at most {len(rules)} rules "
                                            f"{entry['all_scopes']['bound']:.4f}"
                                            if "all_scopes" in entry else ""))


def remeasure(folder: Path, name: str, sheets: Path | None, progress=print) -> None:
    """Each front file front_<name>_*.json in `folder`, and the published sheet of
    SHEETS/<name>/, measured again against the published equilibrium: what the rules lose
    seated against it moves when the equilibrium does (a change in the LP's path can move
    the default and french ones), their rules and costs do not (checked). Written back
    atomically with their rules in today's words, the rest of each file as it was; the
    sheet's page drawn again."""
    import json

    from solver.export.cheatsheet_page import write_cheatsheet

    model, strategy, value = equilibrium(name)
    leaves = best_response.leaf_matrices(model)

    def measured(result: dict) -> cheatsheet.FrontPoint:
        rules = [rulebook.canonical(model, rulebook.Rule.from_dict(d))
                 for d in result["rule_list"]]
        point = cheatsheet.measure(model, rules, strategy, value, leaves)
        if abs(point.exploitability.exploitability - result["exploitability"]) > 1e-9:
            raise SystemExit(f"{name}, {len(rules)} rules: the book costs "
                             f"{point.exploitability.exploitability} now, "
                             f"{result['exploitability']} in its file")
        return point

    front = []
    for path in sorted(folder.glob(f"front_{name}_*.json")):
        document = json.loads(path.read_text())
        point = measured(document["result"])
        measured_now = point.to_dict(model)
        document["result"].update({
            key: measured_now[key] for key in (
                "captain_loss_vs_equilibrium", "opponent_loss_vs_equilibrium",
                "equilibrium_loss", "rules", "rule_list")})
        write_json_atomic(path, document)
        front.append({"rules_count": point.size,
                      "exploitability": document["result"]["exploitability"],
                      "equilibrium_loss": point.equilibrium_loss})
        progress(f"  {path.name}: against the equilibrium {point.versus_equilibrium[0]:.4f}, "
                 f"{point.versus_equilibrium[1]:.4f}")
    if sheets is not None:
        result = json.loads((sheets / name / "cheatsheet_strategy.json").read_text())["result"]
        point = dataclasses.replace(
            measured(result), origin=result.get("search"),
            proof=cheatsheet.Proof.from_dict(result["milp"]) if "milp" in result else None)
        write_cheatsheet(model, point, sheets / name,
                         {"equilibrium_value": result["equilibrium_value"], "front": front})
        progress(f"  {sheets / name}/cheatsheet.*: against the equilibrium "
                 f"{point.versus_equilibrium[0]:.4f}, {point.versus_equilibrium[1]:.4f}")


def _bound_entry(found, cost: float) -> dict:
    return {"bound": found.bound, "gap": max(0.0, cost - found.bound), "status": found.status,
            "seconds": found.seconds}


def write_front_table(out: Path) -> Path:
    """`front.md` in `out`: one line per front strategy file there (its recorded costs)."""
    import json

    from solver.common.files import write_text_atomic

    lines = ["# Pareto fronts of cheat sheets", "",
             "Each file is a strategy that `bidou evaluate --strategy FILE` (with the game's "
             "rule options) measures and certifies; the bottom-up books were found by "
             "`python -m solver.app.cheatsheet_front --rules-max 12 --beam 3 --out DIR`, "
             "the top-down ones (solver/cheatsheet/compress.py) by `--start DIR "
             "--top-down`, which keeps the better book of the two searches at each size, "
             "the local ones (solver/cheatsheet/local_search.py: merges, splits and "
             "swaps with a beam of books per size, from both) by `--start DIR --top-down "
             "--local 3`; the keep front's (the keep family: keep rules per throw, "
             "\"two dice of 4 or more\", \"if it keeps nothing, stop\") by `--games keep "
             "--start DIR --split-keep 9,10,11,12 --local 2`, the local search from the "
             "published books and those of 9 to 12 rules with their keep rule split by "
             "throw; the default and french fronts then made to raise where the "
             "equilibrium does by `--games default,french --start DIR --raises --polish "
             "--milp-seconds 60 --milp-sizes 12` (solver/cheatsheet/search.py, "
             "`RaiseFloors`: every rule facing a bet or a raise raises with the strongest "
             "hands the equilibrium raises with nearly always there; the largest book "
             "polished and proved again; each book's \"search\" is its start's); "
             "measured and improved by `--milp-seconds S [--milp-sizes ...]` "
             "(the MILP, solver/cheatsheet/milp.py). \"search\": which search "
             "found the book. Chips per hand; "
             "exploitability is the mean of what a best response wins against each side "
             "beyond the game value; \"vs equilibrium\" is what the rules lose seated "
             "against the published (refined) equilibrium (captain, opponent). \"MILP\": "
             "the cost of the book it started from, and what it proved about the best "
             "staircase cuts for the book's scopes (not about other scopes): gap 0, a "
             "bound, or none within its time; where no bound is reached the gap is "
             "against the proved lower bound of the last column (the trivial bound 0, no "
             "strategy being exploitable by less, where none is computed; the "
             "MILP's root relaxation, which HiGHS did not finish in 600 s on the 3-rule "
             "default book, lets the plan be nearly anything: docs/charts.md).", "",
             "\"proved lower bound\" (solver/cheatsheet/bound.py, "
             "`--bounds K`): a relaxation of the family whose optimum HiGHS proves, so no "
             "book of the class named costs less. \"its scopes\": every book with these "
             "rules' scopes, any cuts and any keep rules; \"any k\": every book of at "
             "most that many rules, any scopes (computed up to K rules). The gap is the "
             "point's cost less the bound.", "",
             "| file | rules | search | exploitability | captain | opponent | vs equilibrium "
             "| MILP | proved lower bound |",
             "|---|---|---|---|---|---|---|---|---|"]
    for path in sorted(out.glob("front_*.json")):
        meta = json.loads(path.read_text())["result"]
        lines.append(f"| `{path.name}` | {meta['rules_count']} | "
                     f"{meta.get('search', 'bottom-up')} | {meta['exploitability']:.4f} "
                     f"| {meta['captain_loss']:.4f} | {meta['opponent_loss']:.4f} | "
                     f"{meta['captain_loss_vs_equilibrium']:.4f}, "
                     f"{meta['opponent_loss_vs_equilibrium']:.4f} | {_proof_cell(meta)} | "
                     f"{_bound_cell(meta)} |")
    path = out / "front.md"
    write_text_atomic(path, "\n".join(lines) + "\n")
    return path


def _proof_cell(meta: dict) -> str:
    """What the MILP proved of a front point's cuts (its scopes fixed), and the gap: where
    no bound is reached, against the proved lower bound of `add_bounds` if the file has
    one, else the trivial one, 0 (no strategy is exploitable by less): the point's cost."""
    proof = meta.get("milp")
    trivial = (f"trivial bound 0, gap {meta['exploitability']:.4f}"
               if "lower_bound" not in meta else "gap against the next column's bound")
    if proof is None:
        return f"not run; {trivial}"
    start = f"from {proof['start_exploitability']:.4f}"
    if proof["status"] == "optimal":
        return f"{start}; optimal for its scopes (gap 0)"
    if proof["bound"] is None:
        return f"{start}; no bound in {proof['seconds']:.0f} s: {trivial}"
    return f"{start}; bound {proof['bound']:.4f}, gap {proof['gap']:.4f}"


def _bound_cell(meta: dict) -> str:
    """The proved lower bounds of a front point (`add_bounds`), or the trivial one."""
    entry = meta.get("lower_bound")
    if entry is None:
        return "not computed: trivial bound 0"
    cell = (f"its scopes: {entry['scopes']['bound']:.4f} (gap {entry['scopes']['gap']:.4f})")
    if "all_scopes" in entry:
        cell += (f"; any {meta['rules_count']}: {entry['all_scopes']['bound']:.4f} "
                 f"(gap {entry['all_scopes']['gap']:.4f})")
    return cell
