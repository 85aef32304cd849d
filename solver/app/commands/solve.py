"""`bidou solve`: one hand solved, certified and, with --exact, proved exactly
(`solver.pipeline.hand.solve_hand`)."""

from __future__ import annotations

import json
import math
from typing import Any

import click

from games.bidou.params import ParameterError
from games.bidu.params import BiduParams
from games.catalog import GameParams, params_from_rules
from solver.app.commands.group import EXIT_CANNOT_VOUCH, fail, guarded
from solver.app.commands.options import game_options
from solver.app.commands.printing import gain, proved

# What a CFR method stops at when the command line says neither --iterations nor
# --target-exploitability. Vanilla CFR converges like 1/sqrt(T): it reaches 1e-3 on the
# default game in about 3 600 iterations (0.6 s) but 1e-6 in no reasonable time, so its
# default target is 1e-3; the others reach 1e-6 in a second or two.
CFR_DEFAULT_TARGET = {"cfr": 1e-3, "cfr+": 1e-6, "dcfr": 1e-6, "pcfr+": 1e-6}
CFR_DEFAULT_CAP = 100_000


def _print_solution(summary: dict[str, Any]) -> None:
    rules = params_from_rules(summary["rules"])
    lines = [
        f"rules:          {rules.describe()}",
        f"method:         {summary['method']} ({summary['status']})"
        + (f", {summary['equilibrium']} equilibrium" if summary.get("equilibrium") else ""),
        f"value:          {summary['value']:+.12f} chips per hand to the captain",
        f"exploitability: {gain(summary['exploitability'])} "
        f"(captain {gain(summary['captain_exploitability'])}, "
        f"opponent {gain(summary['opponent_exploitability'])}; "
        f"NashConv {gain(summary['nash_conv'])})",
    ]
    if summary.get("certified_value"):
        lines.append(f"certified:      {proved(summary['certified_value'], 'value')}")
    if summary.get("message"):
        lines.append(f"solver says:    {summary['message']}")
    if summary.get("iterations") is not None:
        lines.append(f"iterations:     {summary['iterations']}")
    lines.append(f"seconds:        {summary['seconds']:.3f}")
    click.echo("\n".join(lines))


def _stopping(method: str, iterations: int | None, target_exploitability: float | None
              ) -> tuple[int | None, float | None, bool]:
    """(iterations, target, whether the user capped the run) after the defaults."""
    if method == "lp" and (iterations is not None or target_exploitability is not None):
        raise ParameterError("--iterations and --target-exploitability apply to CFR methods")
    if target_exploitability is not None and not math.isfinite(target_exploitability):
        raise ParameterError(f"--target-exploitability must be a finite number above 0, "
                             f"got {target_exploitability}")
    if method != "lp" and iterations is None and target_exploitability is None:
        target_exploitability = CFR_DEFAULT_TARGET[method]
    if method != "lp" and iterations is None:
        return CFR_DEFAULT_CAP, target_exploitability, False
    return iterations, target_exploitability, iterations is not None


@click.command("solve", short_help="Solve one hand: value, exploitability, strategies.",
               epilog="""\b
Examples:
  bidou solve                                  the default game: its refined equilibrium
  bidou solve --out s.json                     ... saved, with its exact probabilities
  bidou solve --plain --exact                  the plain LP vertex, its value proved
  bidou solve --method pcfr+                   CFR family: stops at exploitability 1e-6
  bidou solve --method cfr+ --iterations 500   the strategy after 500 iterations
  bidou solve --faces 4 --throws 2 --json
  bidou solve --game le-bidou --max-stake 3    Le Bidou, stakes up to 3: its value exact
  bidou solve --game le-bidou --faces 4 --half-stake down --exact
  bidou solve --game bidu --stack 3            Bidú, the Spanish pot game, proved""")
@guarded
@game_options(games=True, bidu=True)
@click.option("--method", type=click.Choice(["lp", "cfr", "cfr+", "dcfr", "pcfr+"]),
              default="lp", show_default=True,
              help="The exact sequence-form LP, or a CFR variant (cfr: vanilla, cfr+, "
                   "dcfr: discounted, pcfr+: predictive).")
@click.option("--iterations", type=click.IntRange(min=1), default=None,
              help=f"CFR: run this many iterations and keep that strategy, labelled with "
                   f"its measured exploitability (with a target too: stop at whichever "
                   f"comes first). Without it CFR stops at the target, or fails after "
                   f"{CFR_DEFAULT_CAP:,} iterations.")
@click.option("--target-exploitability", type=click.FloatRange(min=0, min_open=True),
              default=None,
              help="CFR: stop once the exact exploitability is this low; exit 1 if it is "
                   "not reached. Default 1e-6 (vanilla cfr: 1e-3, as it converges slowly).")
@click.option("--exact", is_flag=True,
              help="Also recover the exact rational equilibrium and prove the value itself "
                   "(with --out the file keeps the exact probabilities); exit 1 if it "
                   "cannot, saying why. The refined equilibrium (the LP's default) is "
                   "always exact.")
@click.option("--plain", is_flag=True,
              help="LP: the plain LP vertex (an arbitrary equilibrium, faster), not the "
                   "refined one (the default: the same value, proved exactly, and play that "
                   "is a best reply at every decision, reached or not). See "
                   "docs/refined.md.")
@click.option("--fresh", is_flag=True,
              help="--game bidu: solve now, even when these rules have a published solution "
                   "(outputs/bidu/, whose value is otherwise proved again from its "
                   "strategies).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the strategy file (versioned JSON) here.")
def solve(params: GameParams, method: str, iterations: int | None,
          target_exploitability: float | None, exact: bool, plain: bool, fresh: bool,
          as_json: bool, out: str | None) -> None:
    """Solve one hand: the value to the captain, each side's exploitability measured by an
    exact best response, a value interval proved in exact arithmetic, and the strategies.

    The LP's default is its refined equilibrium (docs/refined.md: the same value, proved
    exactly, and play that is a best reply at every decision); --plain gives the plain LP
    vertex, faster (README.md, "How long things take"). The CFR methods stop at
    --target-exploitability (default 1e-6; vanilla cfr 1e-3) or after --iterations; a run
    that misses its target exits 1, and writes a strategy file only if --iterations asked
    for that run.

    --game le-bidou solves Le Bidou (docs/le-bidou.md) by the plain LP vertex (its refined
    equilibrium is not recovered on the stakes trees): one LP up to max_stake 5's size with
    the default dice, above it a double oracle of warm LPs on a restricted stakes tree, the
    value proved on the full game. CFR on a large hand needs --iterations.

    --game bidu solves the two-player vuelta of Bidú (docs/bidu.md; --players, --stack,
    --ante): Newton's method on the replay's worth over the LP, the value proved in exact
    arithmetic over the whole vuelta, replays included. Rules with a published solution
    (outputs/bidu/: the default rules) are answered from its strategies, the value proved
    again from them; --fresh solves them now.
    """
    from solver.app.progress import Progress
    from solver.common.files import check_file_destination, write_json_atomic
    from solver.common.progress import within
    from solver.pipeline.hand import check_solvable, solve_hand

    if isinstance(params, BiduParams):
        from solver.app.commands.bidu_solve import solve_bidu_command

        solve_bidu_command(params, as_json, out, method, exact, plain, fresh,
                           other_options=iterations is not None
                           or target_exploitability is not None)
        return
    if fresh:
        raise ParameterError("--fresh applies to --game bidu")
    if plain and method != "lp":
        raise ParameterError(f"--plain applies to the LP (--method lp), not {method}")
    check_solvable(params, method, iterations)
    iterations, target_exploitability, capped_by_user = _stopping(
        method, iterations, target_exploitability)
    if out is not None:
        check_file_destination(out)             # before the work, not after it
    with Progress(enabled=False if as_json else None) as progress:
        result = solve_hand(params, method, iterations=iterations,
                            target_exploitability=target_exploitability, exact=exact,
                            progress=progress, exact_progress=within(
                                progress, "recovering the exact rational equilibrium"),
                            plain=plain)
    solution = result.solution
    # an explicit --iterations asks for that run's strategy, whatever its exploitability
    keep = solution.converged or capped_by_user
    summary = solution.summary()
    if result.equilibrium is not None:
        summary["equilibrium"] = result.equilibrium
    vouched = not exact or result.proved
    if as_json:
        click.echo(json.dumps(summary, indent=1))
    else:
        _print_solution(summary)
    if out and keep and vouched:
        write_json_atomic(out, result.document())   # failure: printed, exit 2
        if not as_json:
            click.echo(f"strategy:       {out}"
                       + (" (with its exact probabilities)" if result.exact is not None else ""))
    not_written = ", no strategy file written" if out and not (keep and vouched) else ""
    if target_exploitability is not None and not solution.converged:
        fail(f"{method} stopped after {solution.iterations} iterations, before reaching "
             f"exploitability {target_exploitability:g} ({solution.status}): the value above "
             f"is approximate" + ("" if not out else
                                  ", strategy file written" if keep and vouched else
                                  ", no strategy file written")
             + ("" if capped_by_user else "; pass a larger --iterations or a looser "
                "--target-exploitability"), EXIT_CANNOT_VOUCH)
    if not vouched:
        fail(f"no exact equilibrium could be recovered from these strategies: "
             f"{result.why_not}; the interval above is proved, the value itself is "
             f"not{not_written}", EXIT_CANNOT_VOUCH)
