"""`bidou multi`: solve one hand of multi-hand Bidou (three or four players) with CFR and
certify every seat's gain from deviating (docs/multi.md)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Callable, Optional, Sequence

import click

from games.bidou_multi.params import MultiParams, ParameterError
from solver.app.commands.group import guarded
from solver.app.commands.options import FiniteFloat
from solver.common.errors import SolverError

# solver.multi.cfr.METHODS' names, here so that the command line loads without numpy
# (tests/test_multi_solver.py checks they are the same).
METHODS = ("alt-cfr+2", "cfr+", "cfr", "alt-cfr+", "dcfr", "pcfr+")


@click.command("multi", short_help="Multi-hand Bidou: CFR and each seat's certified epsilon.",
               epilog="""\b
Examples:
  bidou multi                       the default three-player game, from its published
                                    solution (outputs/multi/multi-solution.json)
  bidou multi --json                the same as one JSON object
  bidou multi --faces 2 --throws 1  a small variant, solved (a few seconds)
  bidou multi --faces 3 --throws 1 --poor-fish --iterations 2000 --out multi-out
  bidou multi --faces 2 --throws 1 --chips 2 --check-openspiel
  bidou multi --solve --iterations 880 --out DIR   the default game solved again""")
@guarded
@click.option("--players", type=int, default=3, show_default=True, help="3 or 4.")
@click.option("--chips", type=int, default=6, show_default=True,
              help="Each player's store when the hand starts.")
@click.option("--faces", type=int, default=6, show_default=True, help="Sides of each die.")
@click.option("--throws", type=int, default=3, show_default=True, help="Most throws a turn.")
@click.option("--poor-fish", is_flag=True, help="Everyone passes: the highest hand receives "
              "a chip from each other player.")
@click.option("--no-discard", is_flag=True, help="Turn off situation 7's discard.")
@click.option("--iterations", type=int, default=1000, show_default=True,
              help="Most CFR iterations.")
@click.option("--target", type=FiniteFloat(min=0, min_open=True), default=None,
              help="Stop once every seat's gain is at most this; exit 1 if not reached.")
@click.option("--check-openspiel", is_flag=True,
              help="Also measure the strategy with OpenSpiel on the faithful game (small "
              "variants); exit 1 if the numbers disagree.")
@click.option("--method", type=click.Choice(METHODS), default=None,
              help="The CFR method (docs/multi.md, \"Methods\"; default alt-cfr+2: "
              "alternating CFR+, the average weighted by t^2).")
@click.option("--engine", type=click.Choice(["auto", "c", "numpy"]), default="auto",
              show_default=True, help="The CFR iterations in the C kernel (auto: if built) "
              "or in numpy; the certificate is always numpy's best response.")
@click.option("--exact", is_flag=True,
              help="Also round the strategy to exact fractions and compute every seat's gain "
              "in exact arithmetic (small variants).")
@click.option("--simulate", "games", type=int, default=None, metavar="GAMES",
              help="Also simulate this many whole games (--chips each, to the last player "
              "holding chips), every distinct chip situation's hand solved with --iterations "
              "and --target (a pcfr+ retry if missed).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="The simulation's random seed.")
@click.option("--two-player", "two_player", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Instead of solving: every seat plays this two-hand "
              "strategy file by the two-player map (docs/multi.md), and each seat's "
              "certified gain from deviating is printed.")
@click.option("--redraw", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Instead of solving: redraw the charts of this multi-strategy.json into "
              "--out, with its summary figures (multi-play.json).")
@click.option("--cache", "cache_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="With --simulate: keep each solved chip situation here "
              "(one JSON file each) and reuse it when the rules and settings are the same.")
@click.option("--checkpoint", "checkpoint_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Save the CFR state here (.npz, atomically) as it runs.")
@click.option("--checkpoint-every", type=int, default=100, show_default=True,
              help="Save every this many iterations.")
@click.option("--checkpoint-seconds", type=float, default=None,
              help="Also save after this many seconds of iterating since the last save.")
@click.option("--resume", "resume_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Continue from this checkpoint (same rules); --iterations "
              "counts the saved iterations too.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Write multi-strategy.json, its summary "
              "(multi-solution.json) and the charts here.")
@click.option("--solve", "force_solve", is_flag=True,
              help="Solve even when these rules have a published solution (outputs/multi/; "
              "any option of the solver solves too).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def multi(players: int, chips: int, faces: int, throws: int, poor_fish: bool,
          no_discard: bool, iterations: int, target: Optional[float], check_openspiel: bool,
          method: Optional[str], engine: str, exact: bool, games: Optional[int], seed: int,
          two_player: Optional[Path], redraw: Optional[Path], cache_dir: Optional[Path],
          checkpoint_file: Optional[Path], checkpoint_every: int,
          checkpoint_seconds: Optional[float],
          resume_file: Optional[Path], out_dir: Optional[Path], force_solve: bool,
          as_json: bool) -> None:
    """Values by seat and each seat's certified epsilon: the most it could gain, in chips
    per hand, by deviating alone from the solver's strategy (an exact best response against
    the others' fixed strategies). With three or more players this certifies an
    epsilon-equilibrium, not a unique value. Solved on the compact public tree, reroll=all;
    rules with a published solution (outputs/multi/) are answered from it, not solved."""
    if redraw is not None:
        _redraw(redraw, out_dir)
        return
    params = MultiParams(players=players, chips=chips, faces=faces, throws=throws,
                         poor_fish=poor_fish, discard=not no_discard)
    if iterations < 1:
        raise ParameterError(f"--iterations must be at least 1, got {iterations}")
    if games is not None and games < 1:
        raise ParameterError(f"--simulate must be at least 1 game, got {games}")
    if target is not None and not target > 0:
        raise ParameterError(f"--target must be positive, got {target}")
    if not force_solve and not _asks_to_solve(click.get_current_context()):
        published = _published(params)
        if published is not None:
            _answer(*published, as_json)
            return
    # a solve's modules (numpy, the tree, CFR) loaded only once a solve is asked for
    from solver.app.progress import Progress
    from solver.multi.solve import DEFAULT_METHOD, check_with_openspiel, solve
    from solver.multi.strategy_file import summary

    say = _silent if as_json else click.echo
    method = method or DEFAULT_METHOD
    if cache_dir is not None:
        if games is None:
            raise ParameterError("--cache keeps the chip situations of --simulate; give both")
        _check_cache(cache_dir)
    counted, engine = _check_size(params, engine, check_openspiel, exact)
    if two_player is not None:
        _two_player(params, two_player, counted, out_dir, as_json)
        return
    keep = _checkpointing(params, method, out_dir, checkpoint_file, checkpoint_every,
                          checkpoint_seconds, resume_file, say)
    say(f"{params.to_game_string()}: {counted['public_nodes']:,} public nodes, "
        f"{counted['hands']} hands each")
    with Progress(enabled=False if as_json else None) as bar:
        solution = solve(params, iterations, method, target=target,
                         every=max(iterations // 10, 1), checkpoints=keep, engine=engine,
                         progress=bar)
    say(f"{solution.variant} ({solution.engine}), {solution.iterations} iterations, "
        f"{solution.seconds:.1f} s")
    agree = check_with_openspiel(solution) if check_openspiel else True
    if check_openspiel:
        assert solution.openspiel is not None
        say("OpenSpiel on the faithful game: values "
            + " ".join(f"{v:+.6f}" for v in solution.openspiel["values"])
            + ", gains " + " ".join(f"{g:.2e}" for g in solution.openspiel["gains"])
            + (" (agrees)" if agree else " (DISAGREES)"))
    rational = _exact(solution, say) if exact else None
    whole = _simulate(params, games, seed, engine, _Settings(iterations, method, target),
                      cache_dir, say, as_json) if games is not None else None
    doc = summary(solution)
    doc.update(exact=rational, whole_game=whole)
    if out_dir is not None:
        _write(solution, doc, out_dir, say)
    if as_json:
        click.echo(json.dumps(dict(doc, source="solved", meaning=MEANING), indent=1,
                              allow_nan=False))
    else:
        _print_answer(doc)
    _vouch(solution, agree, target, rational, whole)


def _write(solution, doc: dict, out_dir: Path, say: Callable[[str], None]) -> None:
    """The strategy file, its summary (what outputs/multi/ publishes) and the charts, as
    one set (`files.write_set`)."""
    from solver.common.files import write_set
    from solver.multi.charts import figures
    from solver.multi.charts import summary as play_summary
    from solver.multi.solution_file import NAME, STRATEGY_NAME, solution_of_text
    from solver.multi.strategy_file import document

    doc["play"] = play_summary(solution.tree, solution.strategy)
    full = dict(document(solution), play=doc["play"], exact=doc["exact"],
                whole_game=doc["whole_game"])
    text = (json.dumps(full, indent=1, allow_nan=False) + "\n").encode()
    del full
    brief = solution_of_text(text)
    files = {out_dir / STRATEGY_NAME: text,
             out_dir / NAME: (json.dumps(brief, indent=1, allow_nan=False) + "\n").encode()}
    files.update({out_dir / name: data for name, data in figures(
        solution.tree, solution.strategy, _short(solution.params)).items()})
    write_set(files)
    say("wrote " + ", ".join(str(path) for path in files))


# What a seat's numbers mean, printed and put in --json's object.
MEANING = {
    "values": "the chips a seat gets rid of in a hand, on average (chips are penalties: "
              "more is better), when every seat plays the solution",
    "gains": "the most a seat could add to its value by changing its own play alone (an "
             "exact best response against the others' fixed strategies)",
}


def _silent(text: str) -> None:
    """--json: the lines a run prints are in the object instead."""


# The options that only matter to a solve: given any, the rules are solved, not looked up.
SOLVING = ("iterations", "target", "check_openspiel", "method", "engine", "exact", "games",
           "seed", "two_player", "cache_dir", "checkpoint_file", "checkpoint_every",
           "checkpoint_seconds", "resume_file", "out_dir")


def _asks_to_solve(ctx: click.Context) -> bool:
    from click.core import ParameterSource

    return any(ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None)
               for name in SOLVING)


def _published(params: MultiParams) -> Optional[tuple[dict, Path]]:
    """The published summary of these rules (outputs/multi/), or None if none is; a
    published file that cannot be read or whose numbers disagree is bad input (exit 2):
    solving instead would take half an hour without saying why."""
    from solver.app.saved_rounds import outputs_root
    from solver.common.files import read_input_file, strict_json
    from solver.multi.solution_file import MAX_BYTES, NAME, check_solution

    path = outputs_root() / "multi" / NAME
    try:
        doc = strict_json(read_input_file(path, MAX_BYTES, "a multi-hand solution summary"))
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ParameterError(f"cannot read {path}: {error.strerror or error}; pass --solve "
                             "to solve instead") from None
    except ValueError as error:
        raise ParameterError(f"{path} is not JSON ({error}); pass --solve to solve "
                             "instead") from None
    if not isinstance(doc, dict) or doc.get("rules") != params.to_dict():
        return None
    try:
        return check_solution(doc, params.to_dict()), path
    except ValueError as error:
        raise ParameterError(f"{path}: {error}; pass --solve to solve instead") from None


def _answer(doc: dict, path: Path, as_json: bool) -> None:
    """The published solution's numbers, said to come from it."""
    if as_json:
        click.echo(json.dumps(dict(doc, source="published", file=str(path), meaning=MEANING),
                              indent=1, allow_nan=False))
        return
    how = doc["solver"]
    click.echo(doc.get("game", ""))
    click.echo(f"the published solution ({path}): {how['method']}, {how['iterations']} "
               f"iterations, certified then by numpy's exact best response against its "
               f"strategy (not published: `bidou multi --solve --iterations "
               f"{how['iterations']} --out DIR` writes it again)")
    _print_answer(doc)


def _print_answer(doc: dict) -> None:
    """Each seat's value, best-response value and certified gain, and what they mean."""
    _print_gains(doc["values"], doc["best_response_values"], doc["gains"], "certified epsilon")
    click.echo(f"NashConv {doc['nash_conv']:.3e}; epsilon-equilibrium with epsilon "
               f"{doc['epsilon']:.3e} (no seat gains more by deviating alone; values not "
               f"unique)")
    click.echo(f"value: {MEANING['values']}.")
    click.echo(f"certified epsilon: {MEANING['gains']}.")


def _vouch(solution, agree: bool, target: Optional[float], rational: Optional[dict],
           whole: Optional[dict]) -> None:
    """Exit 1 (SolverError) for any number the run cannot vouch for."""
    if not agree:
        raise SolverError("OpenSpiel's best response disagrees with the solver's")
    if target is None:
        return
    if rational is not None and rational["epsilon_float"] > target:
        raise SolverError(f"the exact epsilon {rational['epsilon_float']:.3g} of the rounded "
                          f"strategy is above --target {target:g}")
    if solution.gains.epsilon > target:
        raise SolverError(f"the certified epsilon {solution.gains.epsilon:.3g} is above "
                          f"--target {target:g} after {solution.iterations} iterations")
    if whole is not None and whole["worst_situation_epsilon"] > target:
        raise SolverError(f"a chip situation's certified epsilon "
                          f"{whole['worst_situation_epsilon']:.3g} is above --target {target:g}")


def _check_size(params: MultiParams, engine: str, check_openspiel: bool, exact: bool
                ) -> tuple[dict[str, int], str]:
    """Before any work: the tree, the engine, and what --check-openspiel and --exact walk."""
    from solver.multi import faithful
    from solver.multi.exact import check_work_bound
    from solver.multi.solve import check_size, pick_engine

    engine = pick_engine(engine)
    counted = check_size(params, engine)
    if check_openspiel:
        histories = _faithful_histories(params)
        if histories > faithful.MAX_HISTORIES:
            raise ParameterError(
                f"--check-openspiel walks the faithful game's {histories:,} histories, above "
                f"the limit of {faithful.MAX_HISTORIES:,} (try fewer --faces or --chips)")
    if exact:
        check_work_bound(counted["public_nodes"], params.players, counted["hands"])
    return counted, engine


def _checkpointing(params: MultiParams, method: str, out_dir: Optional[Path],
                   checkpoint_file: Optional[Path], every: int, seconds: Optional[float],
                   resume_file: Optional[Path], say: Callable[[str], None]):
    """Before any work: the destinations and the checkpoint to resume from."""
    from solver.common.files import check_directory_destination, check_file_destination
    from solver.multi import checkpoint
    from solver.multi.solve import Checkpointing

    if out_dir is not None:
        check_directory_destination(out_dir)
    if every < 1 or (seconds is not None and not seconds > 0):
        raise ParameterError("--checkpoint-every and --checkpoint-seconds must be positive")
    if checkpoint_file is not None:
        check_file_destination(checkpoint_file)
    if resume_file is not None:
        saved = checkpoint.check(resume_file, params, method)
        say(f"resuming from {resume_file} at {saved} iterations")
    return Checkpointing(path=checkpoint_file, iterations=every, seconds=seconds,
                         resume=resume_file)


def _short(params: MultiParams) -> str:
    """The chart titles' name of the rules: what differs from the defaults."""
    default = MultiParams().to_dict()
    changed = [f"{k}={v}" for k, v in params.to_dict().items() if v != default[k]]
    return ", ".join(changed) or "default game"


def _exact(solution, say: Callable[[str], None]) -> dict:
    """The rational bound (docs/multi.md, "The rational bound"), printed and returned."""
    import time

    from solver.multi.exact import exact_gains

    started = time.perf_counter()
    got = exact_gains(solution.tree, solution.strategy)
    seconds = time.perf_counter() - started
    say(f"exact, strategy rounded to multiples of 1/{got.denominator}: gains "
               + " ".join(f"{float(g):.6e}" for g in got.gains)
               + f"; the rounded profile is an epsilon-equilibrium with epsilon exactly "
               f"{float(got.epsilon):.6e} ({len(str(got.epsilon.denominator))}-digit "
               f"denominator; {seconds:.1f} s)")
    return {"denominator": got.denominator, "values": [str(v) for v in got.values],
            "best_response_values": [str(b) for b in got.best],
            "gains": [str(g) for g in got.gains], "epsilon": str(got.epsilon),
            "epsilon_float": float(got.epsilon), "seconds": round(seconds, 1)}


@dataclasses.dataclass(frozen=True)
class _Settings:
    iterations: int
    method: str
    target: Optional[float]


def _check_cache(cache_dir: Path) -> None:
    """Before any work: the cache is a writable folder, or can be made one, that no other
    user could turn against us (files.private_folder: as ssh checks ~/.ssh)."""
    from solver.common.files import check_directory_destination, private_folder

    check_directory_destination(cache_dir)
    private_folder(cache_dir, create=False)


def _simulate(params: MultiParams, games: int, seed: int, engine: str, how: _Settings,
              cache_dir: Optional[Path], say: Callable[[str], None], as_json: bool) -> dict:
    """Whole games simulated from the rules, every distinct chip situation's hand solved
    once (docs/multi.md, "The whole game"); printed, and returned for the strategy file."""
    from solver.app.progress import Progress
    from solver.common.files import private_folder
    from solver.multi.situations import SituationCache, Situations
    from solver.multi.whole_game import simulate

    folder = private_folder(cache_dir) if cache_dir is not None else None     # made 0700
    cache = SituationCache(folder) if folder is not None else None
    with Progress(enabled=False if as_json else None) as bar:
        situations = Situations(params, how.iterations, engine, how.method, how.target,
                                cache, progress=bar)

        def step(what: str, done: int, total: int) -> None:
            bar(f"{what}, {len(situations.solved)} chip situations solved", done, total)
        estimate = simulate(params, situations.strategy, games, seed, progress=step)
    if situations.unsaved is not None:
        click.echo(f"bidou: note: the cache was not written: {situations.unsaved}; "
                   f"{situations.not_kept} solved chip situations not kept", err=True)
    solved = list(situations.solved.values())
    by_method = {m: sum(1 for s in solved if s.method == m) for m in sorted(
        {s.method for s in solved})}
    say(f"whole game, {games} games from {params.chips} chips each (seed {seed}), "
               f"{estimate.mean_hands:.1f} hands a game; {len(situations.used)} chip "
               f"situations met, {len(situations.solved)} distinct games among them "
               f"({situations.loaded} from the cache; solved by "
               + ", ".join(f"{m} {k}" for m, k in by_method.items())
               + f"), worst certified epsilon {situations.worst_epsilon():.2e}")
    say("seat     chance to lose   standard error")
    for seat, (p, se) in enumerate(zip(estimate.chance, estimate.standard_error)):
        name = "captain" if seat == 0 else f"seat {seat}"
        say(f"{name:8s} {p:.4f}           {se:.4f}")
    if estimate.no_loser:
        say(f"{estimate.no_loser} games ended with nobody holding chips")
    return {"games": games, "seed": seed, "iterations_per_situation": how.iterations,
            "method": how.method, "target": how.target,
            "chance_to_lose": list(estimate.chance),
            "standard_error": list(estimate.standard_error),
            "no_loser": estimate.no_loser, "mean_hands": estimate.mean_hands,
            "situations_met": len(situations.used),
            "situations": len(situations.solved),
            "situations_from_cache": situations.loaded, "situations_by_method": by_method,
            "solve_seconds": round(sum(s.seconds for s in solved), 1),
            "worst_situation_epsilon": situations.worst_epsilon()}


def _two_player(params: MultiParams, path: Path, counted: dict[str, int],
                out_dir: Optional[Path], as_json: bool) -> None:
    """Every seat plays the two-hand strategy at `path` by the two-player map
    (solver/multi/two_player_profile.py): the values and each seat's certified gain."""
    import time

    from solver.common.files import check_directory_destination, write_json_atomic
    from solver.hand.strategy import load_strategy_file
    from solver.multi import best_response
    from solver.multi.tree import build_tree
    from solver.multi.two_player_profile import check_compatible, mapped_profile

    if out_dir is not None:
        check_directory_destination(out_dir)
    model, strategy, _ = load_strategy_file(path)
    check_compatible(params, model)
    say = _silent if as_json else click.echo
    say(f"{params.to_game_string()}: {counted['public_nodes']:,} public nodes, "
        f"{counted['hands']} hands each")
    started = time.perf_counter()
    tree = build_tree(params)
    sigma = mapped_profile(tree, model, strategy)
    g = best_response.gains(tree, sigma)
    doc = {"schema": "bidou-multi-two-player", "schema_version": 1,
           "game": params.to_game_string(), "rules": params.to_dict(),
           "two_player_file": str(path), "two_player_rules": model.game_rules,
           "map": "docs/multi.md, \"The two-player equilibrium played by all three\"",
           "values": list(g.values), "best_response_values": list(g.best),
           "gains": list(g.gains), "nash_conv": g.nash_conv, "epsilon": g.epsilon}
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        write_json_atomic(out_dir / "multi-two-player.json", doc)
    if as_json:
        click.echo(json.dumps(dict(doc, meaning=MEANING), indent=1, allow_nan=False))
        return
    click.echo(f"every seat plays {path} (two-hand {model.params.describe()}) by the "
               f"two-player map; {time.perf_counter() - started:.1f} s")
    _print_gains(g.values, g.best, g.gains, "certified gain")
    click.echo(f"NashConv {g.nash_conv:.3e}; the mapped profile is an epsilon-equilibrium "
               f"with epsilon {g.epsilon:.3e}")
    click.echo(f"value: {MEANING['values']}.")
    if out_dir is not None:
        click.echo(f"wrote {out_dir / 'multi-two-player.json'}")


def _redraw(path: Path, out_dir: Optional[Path]) -> None:
    """The charts and summary figures of a saved strategy file, without solving again."""
    from solver.common.files import (
        check_directory_destination,
        read_input_file,
        strict_json,
        write_set,
    )
    from solver.multi.charts import figures, summary
    from solver.multi.strategy_file import strategy_of_document
    from solver.multi.tree import build_tree

    if out_dir is None:
        raise ParameterError("--redraw writes the charts into --out; give it")
    check_directory_destination(out_dir)
    try:
        doc = strict_json(read_input_file(path))
        params = MultiParams.from_mapping(doc["rules"])
    except OSError as error:
        raise ParameterError(f"cannot read {path} as a multi-strategy file: "
                             f"{error.strerror or error}") from None
    except (ValueError, KeyError, TypeError) as error:
        raise ParameterError(f"cannot read {path} as a multi-strategy file: {error}") from None
    tree = build_tree(params)
    try:
        sigma = strategy_of_document(doc, tree)
    except (ValueError, KeyError, TypeError) as error:
        raise ParameterError(f"{path}: {error}") from None
    del doc
    play = summary(tree, sigma)
    files = {out_dir / name: data for name, data in figures(tree, sigma, _short(params)).items()}
    files[out_dir / "multi-play.json"] = (json.dumps(
        {"game": params.to_game_string(), "rules": params.to_dict(), "play": play},
        indent=1) + "\n").encode()
    write_set(files)
    click.echo(json.dumps(play))
    click.echo("wrote " + ", ".join(str(p) for p in files))


def _faithful_histories(params: MultiParams) -> int:
    """Histories of the faithful game: each player's throwing paths, times the betting."""
    from games.bidou import rules
    from solver.multi.solve import size

    hands = len(rules.all_hands(params.faces))
    paths = sum(hands ** k for k in range(1, params.throws + 1))
    return paths ** params.players * size(params)["betting_nodes"]


def _print_gains(values: Sequence[float], best: Sequence[float], gains: Sequence[float],
                 gain_column: str) -> None:
    """Each seat's value, best-response value and certified gain, one line a seat."""
    click.echo(f"seat  value (chips/hand)  best response  {gain_column}")
    for seat, (value, reply, gain) in enumerate(zip(values, best, gains)):
        name = "captain" if seat == 0 else f"seat {seat}"
        click.echo(f"{name:8s} {value:+.6f}        {reply:+.6f}      {gain:.3e}")
