"""`bidou lp`: the sequence-form LP of any small OpenSpiel game
(`solver.checks.openspiel_lp`); the only command that imports pyspiel."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from typing import TYPE_CHECKING, Any, Iterator, Sequence

import click

from games.bidou.params import ParameterError
from solver.app.commands.group import guarded

if TYPE_CHECKING:
    from solver.checks.openspiel_exact import ExactValue
    from solver.checks.openspiel_lp import LPRun


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence native code writing to file descriptor 2 for the duration."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


@click.command("lp", short_help="Sequence-form LP of a small OpenSpiel game, value proved.",
               epilog="""\b
Examples:
  bidou lp kuhn_poker                       value -1/18 to player 0, proved exact
  bidou lp "python_bidou(faces=3,throws=1)"
  bidou lp leduc_poker --json               no small fraction: a proved interval
  bidou lp kuhn_poker --out kuhn.json       both strategies, per information state

The LP's strategies are rationalised and measured by exact best responses in
Fractions: when the bounds meet the value is proved exact, otherwise the proved
interval is printed. --out writes an OpenSpiel policy file (docs/exports.md).""")
@click.argument("game_string")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--out", "out_file", type=click.Path(dir_okay=False), default=None,
              help="Write both players' strategies (JSON policy file, docs/exports.md).")
@guarded
def lp(game_string: str, as_json: bool, out_file: str | None) -> None:
    """Sequence-form LP of any small two-player zero-sum OpenSpiel game (e.g. kuhn_poker),
    with its value proved exact when the LP's strategies rationalise to an equilibrium."""
    from solver.checks.openspiel_exact import prove
    from solver.common.files import check_file_destination

    if out_file is not None:
        check_file_destination(out_file)
    run = _solve(game_string)
    started = time.perf_counter()
    proof = prove(run)
    summary = _summary(game_string, run, proof)
    summary["proof_seconds"] = time.perf_counter() - started
    if as_json:
        click.echo(json.dumps(summary, indent=1))
    else:
        click.echo(_line(game_string, run, proof))
    if out_file is not None:
        from solver.export.policy import PlayerPolicy, policy_document, write_policy

        exact = proof.policies if proof.value is not None else None
        players: Sequence[PlayerPolicy] = exact or run.solution.policies
        write_policy(out_file, policy_document(game_string, players, summary))
        if not as_json:
            click.echo(f"wrote {out_file} (both players' strategies, an OpenSpiel policy "
                       f"file{', exact fractions' if exact else ''})")


def _solve(game_string: str) -> LPRun:
    """The LP run of the game, with its payoffs in Fractions; every failure one line."""
    import pyspiel

    import games.bidou.game  # noqa: F401  (registers python_bidou)
    from solver.checks.openspiel_lp import solve_run

    try:
        with _quiet_stderr():         # OpenSpiel prints every known game name on failure
            game = pyspiel.load_game(game_string)
    except (pyspiel.SpielError, ValueError, RuntimeError) as error:
        first_line = (str(error).splitlines() or [""])[0].split(". Available")[0]
        raise ParameterError(f"cannot load game {game_string!r}: {first_line}") from None
    try:
        with _quiet_stderr():         # OpenSpiel also prints its exceptions on stderr itself
            return solve_run(game, exact=True)
    except ValueError as error:
        raise ParameterError(str(error)) from None
    except pyspiel.SpielError as error:       # the game's own code failed on a state
        first_line = (str(error).splitlines() or [""])[0]
        raise ParameterError(f"game {game_string!r} failed while being walked: "
                             f"{first_line}") from None


def _summary(game_string: str, run: LPRun, proof: ExactValue) -> dict[str, Any]:
    """The --json object (and the policy file's `result`)."""
    from solver.hand.exact.certificate import float_down, float_up

    solution = run.solution
    # the same words as `bidou solve`: a solution that is returned is optimal (any other
    # linprog status raises); scipy's own code is kept beside it
    return {"game": game_string, "value": solution.value,
            "exact": None if proof.value is None else str(proof.value),
            "proved": _proved(proof),
            "lower": None if proof.lower is None else float_down(proof.lower),
            "upper": None if proof.upper is None else float_up(proof.upper),
            "why_not": proof.why_not, "status": "optimal",
            "linprog_status": solution.status, "message": solution.message,
            "seconds": solution.seconds, "num_sequences": list(solution.num_sequences)}


def _proved(proof: ExactValue) -> str:
    if proof.value is not None:
        return "exact"
    return "interval" if proof.lower is not None else "float check only"


def _line(game_string: str, run: LPRun, proof: ExactValue) -> str:
    from solver.hand.exact.certificate import float_down, float_up

    solution = run.solution
    tail = f"({solution.message}, {solution.seconds:.3f} s)"
    if proof.value is not None:
        return (f"{game_string}: value {proof.value} (= {float(proof.value):.10f}) to "
                f"player 0, proved exact {tail}")
    if proof.lower is not None and proof.upper is not None:
        width = float(proof.upper - proof.lower)
        return (f"{game_string}: value {solution.value:+.12f} to player 0, proved in "
                f"[{float_down(proof.lower)!r}, {float_up(proof.upper)!r}] (width "
                f"{width:.1e}); no exact fraction recovered: {proof.why_not} {tail}")
    return (f"{game_string}: value {solution.value:+.12f} to player 0 (LP and float best "
            f"responses agree to 1e-7); no exact fraction recovered: {proof.why_not} {tail}")
