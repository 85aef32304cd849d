"""The `bidou` command: the group of thin commands in `solver/app/commands/`, one module
each over a library pipeline (`solver/pipeline/`), which the tests also call directly.

Every failure a user can cause (bad parameters, unreadable files, unusable destinations) is
one line on stderr and exit status 2; a solver that cannot vouch for its answer exits 1;
Ctrl-C exits 130 and SIGTERM 143, leaving no temporary file behind (`commands/group.py`).
A command imports what it needs (pyspiel, matplotlib, scipy, dask) when it runs, so that
`bidou solve` loads no plotting nor OpenSpiel code.
"""

from __future__ import annotations

import click

from solver.app.commands import (
    cheatsheet,
    convergence,
    evaluate,
    exploit,
    export,
    export_efg,
    export_policy,
    lp,
    manche,
    montevideo,
    multi,
    outputs,
    play,
    results,
    round,
    site,
    solve,
    stats,
    sweep,
)
from solver.app.commands.group import Bidou
from solver.app.commands.solve import CFR_DEFAULT_CAP, CFR_DEFAULT_TARGET

__all__ = ["main", "CFR_DEFAULT_TARGET", "CFR_DEFAULT_CAP"]

COMMANDS = (stats.stats, solve.solve, export.export, export.charts, convergence.convergence,
            outputs.outputs, evaluate.evaluate, play.play, cheatsheet.cheatsheet, lp.lp,
            round.round_command, sweep.sweep, results.results, site.site,
            export_policy.export_policy, export_efg.export_efg, exploit.exploit,
            multi.multi, manche.manche, montevideo.montevideo)


@click.group(cls=Bidou, commands=COMMANDS, epilog="""\b
Examples:
  bidou solve                          value and exploitability of the default game
  bidou solve --exact --out s.json     prove the exact value, save the exact strategy
  bidou charts --strategy s.json --out charts
  bidou play                           play five hands against the equilibrium
  bidou stats --faces 4                the ranking of hands with four-sided dice

The commands that solve or read a hand take the rules options (--faces, --throws,
--max-level, --reroll, --ranking); stats, multi and manche take those that apply to
them, and lp, results and outputs none. `bidou COMMAND --help` lists each command's
options with their ranges.""")
@click.version_option(package_name="bidou-solver")
def main() -> None:
    """Exact equilibria of two-hand Bidou, the bluffing dice game."""


if __name__ == "__main__":
    main()
