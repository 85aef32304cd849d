"""The options several commands share: the rules (one `params` argument) and --strategy."""

from __future__ import annotations

import functools
import inspect
import math
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

import click

from games.bidou.params import MAX_LEVEL_LIMIT, RANKINGS, REROLL_MODES, BidouParams, ParameterError
from games.bidu.params import STACK_LIMIT as BIDU_STACK_LIMIT
from games.bidu.params import THROWING as BIDU_THROWING
from games.bidu.params import BiduParams
from games.catalog import BIDOU, GAMES, LE_BIDOU, GameParams, game_name, params_class
from games.le_bidou.params import LeBidouParams
from games.le_bidou.stakes import HALF_STAKE_ROUNDING, STAKE_LIMIT
from games.parameters import GameParameters
from solver.hand.strategy import StrategyFileError

if TYPE_CHECKING:
    from solver.pipeline.hand import Source

RULES = ("faces", "throws", "max_level", "reroll", "ranking", "aces_beat_bidou")
# The rules of one game only: two-hand Bidou's one-chip ladder, Le Bidou's stakes.
ONE_CHIP_RULES = ("max_level",)
STAKES_RULES = ("max_stake", "half_stake")
# Bidú's own rules (docs/bidu.md), for `bidou solve --game bidu`, and the options of the
# other games it refuses.
BIDU = "bidu"
BIDU_RULES = ("players", "stack", "ante", "throwing")
NOT_BIDU_RULES = ("max_level", "reroll", "aces_beat_bidou") + STAKES_RULES


def option_name(name: str) -> str:
    return "--" + name.replace("_", "-")


def option_error(error: ParameterError, names: Iterable[str] = RULES + STAKES_RULES
                 ) -> ParameterError:
    """The library's message naming the command-line option (--max-level, not max_level)
    when it names one of `names`: the parameters' one parser speaks of parameters."""
    text = str(error)
    for name in names:
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


def _game_option_list(bidu: bool = False) -> list[Callable[[Callable], Callable]]:
    """--game and Le Bidou's own rules, for the commands that solve either game (with
    `bidu`, Bidú too and its own rules)."""
    spanish = [
        click.option("--players", type=int, default=None,
                     help=f"Bidú: players (2; the game plays 2..4, the solver two), default "
                          f"{BiduParams().players}."),
        click.option("--stack", type=int, default=None,
                     help=f"Bidú: most chips a player puts in one vuelta beyond his ante "
                          f"(1..{BIDU_STACK_LIMIT}), default {BiduParams().stack}."),
        click.option("--ante", type=int, default=None,
                     help=f"Bidú: each player's ante (1..10), default {BiduParams().ante}."),
        click.option("--throwing", type=click.Choice(BIDU_THROWING), default=None,
                     help="Bidú: everyone throws at once (together, the rules), or the "
                          "captain throws his whole turn first (captain-first, a variant "
                          "to compare with). Default together."),
    ] if bidu else []
    return [
        click.option("--game", type=click.Choice(GAMES + ((BIDU,) if bidu else ())),
                     default=BIDOU, show_default=True,
                     help="Two-hand Bidou (one-chip bets) or Le Bidou, the French game of "
                          "stakes (docs/le-bidou.md; its defaults: --reroll keep --ranking "
                          "french)" + (", or Bidú, the Spanish pot game (docs/bidu.md; "
                                       "its ranking: encyclopedia)" if bidu else "") + "."),
        *spanish,
        click.option("--max-stake", type=int, default=None,
                     help=f"Le Bidou: the highest stake a player may propose (1..{STAKE_LIMIT}"
                          f", default {LeBidouParams().max_stake}: the pool)."),
        click.option("--half-stake", type=click.Choice(HALF_STAKE_ROUNDING), default=None,
                     help="Le Bidou: the fine for withdrawing from the first stake: half "
                          "of it, an odd one rounded up (the default) or down (at least one "
                          "chip), or full: the whole stake (a rule to compare with)."),
    ]


def given_options(names: tuple[str, ...]) -> tuple[str, ...]:
    """The options of `names` the command line gave (not left at their defaults)."""
    context = click.get_current_context()
    return tuple(name for name in names
                 if context.get_parameter_source(name) != click.core.ParameterSource.DEFAULT)


def _game_params(game: str, rules: dict[str, Any], given: tuple[str, ...]) -> GameParams:
    """The parameters of `game` from the options given (the others: the game's defaults);
    ParameterError naming an option that belongs to the other game."""
    foreign = ONE_CHIP_RULES if game == LE_BIDOU else STAKES_RULES
    wrong = [name for name in foreign if name in given]
    if wrong:
        owner = "two-hand Bidou's one-chip bets" if game == LE_BIDOU else "Le Bidou's stakes"
        raise ParameterError(f"{option_name(wrong[0])} applies to {owner}, not to --game "
                             f"{game}")
    kind = params_class(game)
    values = {name: rules[name] for name in given
              if name in rules and hasattr(kind(), name)}
    try:
        params = kind.parse(values)
    except ParameterError as error:
        raise option_error(error) from None
    refuse_idle(params, given, rules)
    return params


def refuse_idle(params: GameParameters, given: Iterable[str], values: Mapping[str, Any]
                ) -> None:
    """ParameterError naming the option given (as typed: `values`) that changes nothing
    under these rules, such as --no-aces-beat-bidou under --ranking encyclopedia: as
    --max-stake is refused without --game le-bidou, it is not dropped without a word."""
    idle = params.idle_rule(given)
    if idle is not None:
        name, rule, needed = idle
        raise ParameterError(f"{_option_value(name, values[name])} applies to "
                             f"{option_name(rule)} {needed} only, not to {option_name(rule)} "
                             f"{getattr(params, rule)}")


def _bidu_params(rules: dict[str, Any], given: tuple[str, ...]) -> BiduParams:
    """Bidú's parameters from the options given; ParameterError naming an option of
    another game, or a ranking Bidú does not play."""
    wrong = [name for name in NOT_BIDU_RULES if name in given]
    if wrong:
        raise ParameterError(f"{option_name(wrong[0])} applies to two-hand Bidou or Le Bidou, "
                             f"not to --game {BIDU}")
    values = {name: rules[name] for name in given if hasattr(BiduParams(), name)}
    try:
        return BiduParams.parse(values)
    except ParameterError as error:
        raise option_error(error, ("faces", "throws", "ranking") + BIDU_RULES) from None


def game_options(func: Callable | None = None, *, only: tuple[str, ...] = RULES,
                 games: bool = False, bidu: bool = False) -> Callable:
    """The rules options shared by every command; they become one `params` argument.

    `only` keeps the options that matter to a command (stats needs no betting rules);
    the others keep their defaults. With `games`, --game chooses two-hand Bidou or Le
    Bidou (with --max-stake and --half-stake): `params` is then BidouParams or
    LeBidouParams, and an option of the other game is refused in one line.
    """
    if func is None:
        return functools.partial(game_options, only=only, games=games, bidu=bidu)
    defaults = BidouParams()
    options = _rule_options(defaults)
    command = func
    names = only + (("game",) + STAKES_RULES if games else ()) + (BIDU_RULES if bidu else ())

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        rules = {name: kwargs.pop(name) for name in names}
        given = given_options(names)
        game = rules.pop("game", BIDOU)
        spanish = [name for name in BIDU_RULES if name in given]
        if game == BIDU:
            params: Any = _bidu_params(rules, given)
        elif spanish:
            raise ParameterError(f"{option_name(spanish[0])} applies to --game {BIDU}, not "
                                 f"to --game {game}")
        else:
            params = _game_params(game, {k: v for k, v in rules.items()
                                         if k not in BIDU_RULES}, given)
        if "rules_given" in inspect.signature(command).parameters:
            kwargs["rules_given"] = given
        return command(*args, params=params, **kwargs)

    decorated: Callable = wrapper
    for option in reversed(_game_option_list(bidu) if games else []):
        decorated = option(decorated)
    for name in reversed(RULES):
        if name in only:
            decorated = options[name](decorated)
    return decorated


class FiniteFloat(click.FloatRange):
    """A FloatRange that also refuses nan and inf (click's range lets nan through, and
    inf passes an open upper end): such a number would fail deep inside the work."""

    name = "finite float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


def format_option(help_text: str) -> Callable[[Callable], Callable]:
    """--format, repeatable; a format given twice counts once (its files would be staged
    and published twice, and the second move finds the first gone)."""
    return click.option("--format", "formats", type=click.Choice(["pdf", "png", "svg"]),
                        multiple=True, help=help_text,
                        callback=lambda ctx, param, value: tuple(dict.fromkeys(value)))


STRATEGY_OPTION = click.option(
    "--strategy", "strategy_file", type=click.Path(dir_okay=False), default=None,
    help="A strategy file from `bidou solve --out` (default: solve now).")


PLAIN_OPTION = click.option(
    "--plain", is_flag=True,
    help="Solved now: the plain LP vertex (an arbitrary equilibrium), not the refined one "
         "(the default; docs/refined.md).")


def strategy_source(params: GameParams, strategy_file: str | None,
                    rules_given: tuple[str, ...], plain: bool = False,
                    games: tuple[str, ...] = (BIDOU,)) -> Source:
    """A solved hand: read from a strategy file, or solved now with the LP (its refined
    equilibrium unless `plain`).

    Rules options given beside a strategy file must agree with the rules it was solved for;
    a file of a game the command does not read (`games`) is refused in one line.
    """
    from solver.pipeline.hand import hand_source

    if plain and strategy_file is not None:
        raise ParameterError("--plain applies to a hand solved now, not to --strategy")
    source = hand_source(params, strategy_file, plain)
    if strategy_file is None or not isinstance(source, tuple):
        return source
    solved = source[0].game_params
    if game_name(solved) not in games:
        raise StrategyFileError(f"{strategy_file} is a strategy of {solved.describe()}; this "
                                f"command reads two-hand Bidou's only")
    context = click.get_current_context(silent=True)
    given = context.params if context else {}            # as typed, before normalizing
    clashes = [f"{_option_value(name, _rule(solved, name))}, not "
               f"{_option_value(name, given.get(name, _rule(params, name)))}"
               for name in rules_given
               if given.get(name, _rule(params, name)) != _rule(solved, name)
               and (name != "aces_beat_bidou" or solved.ranking == "french")]
    if clashes:
        raise StrategyFileError(
            f"{strategy_file} was solved for other rules ({'; '.join(clashes)}): its rules "
            f"are {solved.describe()}; leave out the rules options to use them")
    return source


def _rule(params: GameParams, name: str) -> Any:
    """A rule's value as the options name it (`game`: "bidou" or "le-bidou")."""
    return game_name(params) if name == "game" else getattr(params, name, None)


def _option_value(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return option_name(name) if value else "--no-" + option_name(name)[2:]
    return f"{option_name(name)} {value}"
