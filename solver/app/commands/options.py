"""The options several commands share: the rules (one `params` argument) and --strategy."""

from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Any, Callable

import click

from games.bidou.params import MAX_LEVEL_LIMIT, RANKINGS, REROLL_MODES, BidouParams, ParameterError
from solver.strategy import StrategyFileError

if TYPE_CHECKING:
    from solver.pipeline.hand import Source

RULES = ("faces", "throws", "max_level", "reroll", "ranking", "aces_beat_bidou")


def option_name(name: str) -> str:
    return "--" + name.replace("_", "-")


def _rules_error(error: ParameterError) -> ParameterError:
    """The library's message, naming the command-line option (--max-level, not max_level)."""
    text = str(error)
    for name in RULES:
        if text.startswith(name + " "):
            return ParameterError(option_name(name) + text[len(name):])
    return error


def _rule_options(defaults: BidouParams) -> dict[str, Callable[[Callable], Callable]]:
    return {
        "faces": click.option("--faces", type=int, default=defaults.faces, show_default=True,
                              help="Sides of each die (2..6)."),
        "throws": click.option("--throws", type=int, default=defaults.throws,
                               show_default=True, help="Most throws in a turn (1..3)."),
        "max_level": click.option(
            "--max-level", type=int, default=defaults.max_level, show_default=True,
            help=f"Highest bet level a raise may reach (1..{MAX_LEVEL_LIMIT}; the nine "
                 "chips of a real game allow 4)."),
        "reroll": click.option(
            "--reroll", type=click.Choice(REROLL_MODES), default=defaults.reroll,
            show_default=True, help="Throw all three dice again, or keep some aside."),
        "ranking": click.option(
            "--ranking", type=click.Choice(RANKINGS), default=defaults.ranking,
            show_default=True, help="Ranking of hands (`bidou stats` lists it)."),
        "aces_beat_bidou": click.option(
            "--aces-beat-bidou/--no-aces-beat-bidou", default=defaults.aces_beat_bidou,
            show_default=True, help="French ranking only: 1-1-1 beats the bidou 2-1-1."),
    }


def game_options(func: Callable | None = None, *, only: tuple[str, ...] = RULES) -> Callable:
    """The rules options shared by every command; they become one `params` argument.

    `only` keeps the options that matter to a command (stats needs no betting rules);
    the others keep their defaults.
    """
    if func is None:
        return functools.partial(game_options, only=only)
    defaults = BidouParams()
    options = _rule_options(defaults)
    command = func

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        rules = {name: kwargs.pop(name) for name in only}
        if rules.get("ranking", defaults.ranking) != "french":    # the flag means nothing
            rules["aces_beat_bidou"] = defaults.aces_beat_bidou  # there: one spelling
        try:
            params = BidouParams(**rules)
        except ParameterError as error:
            raise _rules_error(error) from None
        if "rules_given" in inspect.signature(command).parameters:
            context = click.get_current_context()
            kwargs["rules_given"] = tuple(
                name for name in only
                if context.get_parameter_source(name) != click.core.ParameterSource.DEFAULT)
        return command(*args, params=params, **kwargs)

    decorated: Callable = wrapper
    for name in reversed(RULES):
        if name in only:
            decorated = options[name](decorated)
    return decorated


STRATEGY_OPTION = click.option(
    "--strategy", "strategy_file", type=click.Path(dir_okay=False), default=None,
    help="A strategy file from `bidou solve --out` (default: solve now).")


PLAIN_OPTION = click.option(
    "--plain", is_flag=True,
    help="Solved now: the plain LP vertex (an arbitrary equilibrium), not the refined one "
         "(the default; docs/refined.md).")


def strategy_source(params: BidouParams, strategy_file: str | None,
                    rules_given: tuple[str, ...], plain: bool = False) -> Source:
    """A solved hand: read from a strategy file, or solved now with the LP (its refined
    equilibrium unless `plain`).

    Rules options given beside a strategy file must agree with the rules it was solved for.
    """
    from solver.pipeline.hand import hand_source

    if plain and strategy_file is not None:
        raise ParameterError("--plain applies to a hand solved now, not to --strategy")
    source = hand_source(params, strategy_file, plain)
    if strategy_file is None or not isinstance(source, tuple):
        return source
    model = source[0]
    context = click.get_current_context(silent=True)
    given = context.params if context else {}            # as typed, before normalizing
    clashes = [f"{_option_value(name, getattr(model.params, name))}, not "
               f"{_option_value(name, given.get(name, getattr(params, name)))}"
               for name in rules_given
               if given.get(name, getattr(params, name)) != getattr(model.params, name)
               and (name != "aces_beat_bidou" or model.params.ranking == "french")]
    if clashes:
        raise StrategyFileError(
            f"{strategy_file} was solved for other rules ({'; '.join(clashes)}): its rules "
            f"are {model.params.describe()}; leave out the rules options to use them")
    return source


def _option_value(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return option_name(name) if value else "--no-" + option_name(name)[2:]
    return f"{option_name(name)} {value}"
