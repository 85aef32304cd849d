"""`bidou solve --game bidu`: the two-player vuelta of Bidú, its value proved in exact
arithmetic (`solver.bidu.solve`). Rules with a published solution (outputs/bidu/) are
answered from its strategies, the value proved again from them now; --fresh solves."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Optional

import click

from games.bidou.params import ParameterError
from games.bidu.params import BiduParams
from solver.app.commands.printing import gain

MEANING = ("value: chips the captain wins per vuelta, replays included (the other player "
           "wins its opposite). A vuelta nobody bets on is played again, so the value is the "
           "fixed point V = G(V) of the one-vuelta game whose replay pays V. Exploitability: "
           "what a best reply over the whole vuelta gains against a seat's strategy, beyond "
           "the middle of the proved interval.")


def published_path() -> Path:
    from solver.app.saved_rounds import outputs_root
    from solver.bidu.solution_file import NAME

    return outputs_root() / "bidu" / NAME


def solve_bidu_command(params: BiduParams, as_json: bool, out: Optional[str], method: str,
                       exact: bool, plain: bool, fresh: bool, other_options: bool) -> None:
    """Solve (or prove again the published solution), print and, with `out`, save."""
    from solver.app.progress import Progress
    from solver.bidu.solution_file import (
        load_json,
        read_solution,
        rules_of,
        solution_text,
        summary,
    )
    from solver.bidu.solve import solve_bidu
    from solver.common.files import check_file_destination, write_text_atomic

    if params.players != 2:
        raise ParameterError(f"--players {params.players}: Bidú is solved for two players "
                             f"only (docs/bidu.md)")
    if method != "lp" or other_options:
        raise ParameterError("--game bidu is solved by the LP only: --method, --iterations "
                             "and --target-exploitability do not apply")
    if exact or plain:
        raise ParameterError(f"{'--exact' if exact else '--plain'} does not apply to --game "
                             f"bidu: its value is always proved in an interval, from the plain "
                             f"LP vertex")
    if out is not None:
        check_file_destination(out)
    begin = time.perf_counter()
    path = published_path()
    source = "solved now"
    with Progress(enabled=False if as_json else None) as progress:
        published = load_json(path) if not fresh and path.is_file() else None
        if isinstance(published, dict) and published.get("rules") == rules_of(params):
            progress("proving the published solution again")
            solution = read_solution(path, params, published)
            source = f"published strategies ({path.name}), value proved again now"
        else:
            solution = solve_bidu(params, report=lambda what: progress(what))
    seconds = time.perf_counter() - begin
    result = {**summary(solution), "source": source, "seconds": seconds, "meaning": MEANING}
    if as_json:
        click.echo(json.dumps(result, indent=1))
    else:
        _print(solution, source, seconds)
    if out is not None:
        write_text_atomic(out, solution_text(solution))
        if not as_json:
            click.echo(f"strategy:       {out}")


def _print(solution: Any, source: str, seconds: float) -> None:
    from solver.hand.exact.certificate import Certificate

    proof = Certificate(solution.lower, solution.upper)
    lower, upper = proof.decimals(16)
    certified = (f"value = {proof.exact} exactly" if proof.exact is not None else
                 f"{lower} <= value <= {upper} (exact arithmetic; width "
                 f"{float(proof.width):.1e})")
    click.echo("\n".join([
        f"rules:          {solution.params.describe()}",
        f"method:         lp (optimal), plain LP vertex equilibrium; Newton's method on the "
        f"replay's worth, {solution.steps} LPs",
        f"source:         {source}",
        f"value:          {solution.estimate:+.12f} chips per vuelta to the captain, "
        f"replays included",
        f"exploitability: captain {gain(solution.captain_exploitability)}, other player "
        f"{gain(solution.other_exploitability)} (best replies over the whole vuelta, "
        f"replays included, in exact arithmetic)",
        f"certified:      {certified}",
        f"replay:         {float(solution.replay_probability):.6f} (the chance nobody bets)",
        f"seconds:        {seconds:.3f}",
    ]))
