"""The games of the family a user can name, and their rules as files write them.

Two-hand Bidou (`BidouParams`) and Le Bidou (`LeBidouParams`) are two games of one family
(games/family.py): each solver reads only a `HandDescription`. A file, a command line or a
summary names the rules of one of them; this module is the one place that turns such rules
into parameters and a description, and back. A Bidou file's rules are the six parameters
as they always were (no "game" key, so every file written before Le Bidou reads the same);
a Le Bidou file's rules carry `"game": "le-bidou"` beside its seven parameters.
"""

from __future__ import annotations

from typing import Any, Mapping, Union

from games.bidou.params import BidouParams, ParameterError
from games.family import HandDescription, describe
from games.le_bidou.params import LeBidouParams
from games.le_bidou.stakes import FrenchStakes, StakePenalties

BIDOU, LE_BIDOU = "bidou", "le-bidou"
GAMES = (BIDOU, LE_BIDOU)

GameParams = Union[BidouParams, LeBidouParams]


def game_name(params: GameParams) -> str:
    """"bidou" or "le-bidou": the name `--game` and a file's rules use."""
    return LE_BIDOU if isinstance(params, LeBidouParams) else BIDOU


def params_class(game: str) -> type[BidouParams] | type[LeBidouParams]:
    if game not in GAMES:
        raise ParameterError(f"game must be one of {', '.join(GAMES)}, got {game!r}")
    return LeBidouParams if game == LE_BIDOU else BidouParams


def params_from_rules(rules: Mapping[str, Any]) -> GameParams:
    """The parameters a file's (or a summary's) rules name; ParameterError naming the
    parameter at fault, as every entry point reports it."""
    values = dict(rules)
    game = values.pop("game", BIDOU)
    return params_class(game).from_mapping(values)


def rules_of(params: GameParams) -> dict[str, Any]:
    """The rules a file records for `params` (read back by `params_from_rules`)."""
    if isinstance(params, LeBidouParams):
        return {"game": LE_BIDOU, **params.to_dict()}
    return params.to_dict()


def description_of(params: GameParams | HandDescription) -> HandDescription:
    """The hand as a game of the family: what the solvers read."""
    if isinstance(params, HandDescription):
        return params
    if isinstance(params, LeBidouParams):
        return params.description()
    return describe(params)


def params_of(description: HandDescription) -> GameParams:
    """The parameters a description states: Le Bidou's when its betting is the French
    stakes, else two-hand Bidou's (ParameterError for a description of neither game)."""
    betting, settlement = description.betting, description.settlement
    if isinstance(betting, FrenchStakes) and isinstance(settlement, StakePenalties):
        dice, ranking = description.dice, description.ranking
        params = LeBidouParams(faces=dice.faces, throws=dice.throws, reroll=dice.reroll,
                               ranking=ranking.name, aces_beat_bidou=ranking.aces_beat_bidou,
                               max_stake=betting.max_stake,
                               half_stake=settlement.half_stake)
        if params.description() != description:
            raise ParameterError(f"not a Le Bidou description: {description.to_dict()}")
        return params
    return description.params()
