"""The betting of one round of Montevideo as pure functions (docs/rules.md section 8, rules
V4 and V7-V14): the antes, who leads, what is legal, what each action does, when the betting
closes, the main pot and the side pots, and who takes each. No dice and no OpenSpiel here, so
that every rule can be tested on a hand-made deal, and a solver can walk the same rules the
OpenSpiel game plays.

A `Betting` holds each player's chips behind (`stores`), his ante and his `level` (what he has
bet this round beyond his ante: what a call must match), who has folded and who has spoken
since the highest bet was made. Bets and raises name totals ("raise to 4": his level becomes
4). Chips are whole numbers and never leave the game: every chip put in goes to a pot, and
every pot to the highest hand among the players who may win it (V12, V13), so the players' net
results add up to zero.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional, Sequence

from games.bidou_multi.betting import leader
from games.montevideo.params import ALL_IN, POT

__all__ = ["Betting", "Pot", "CHECK", "FOLD", "CALL", "ONE_LEFT", "SHOWDOWN", "actions",
           "amount_of", "bet_action", "raise_action", "leader", "new_betting",
           "legal_actions", "apply", "pots", "winners", "settle", "odd_chip_order",
           "next_captain", "max_level", "max_betting_actions"]

CHECK, FOLD, CALL = "check", "fold", "call"

# How a closed betting ends (`Betting.kind`).
ONE_LEFT, SHOWDOWN = "one left", "showdown"

Compare = Callable[[int, int], int]      # compare(seat a, seat b): +1 if a's hand beats b's
Sizes = Optional[Sequence[int | str]]    # a restricted game's sizes, None for every amount


def bet_action(total: int) -> str:
    """The opening bet of `total` chips."""
    return f"bet {total}"


def raise_action(total: int) -> str:
    """A raise to `total` chips bet this round."""
    return f"raise to {total}"


def amount_of(action: str) -> int:
    """The total a bet or raise names (`bet 3`, `raise to 3`: 3)."""
    return int(action.rsplit(" ", 1)[1])


def max_level(stacks: Sequence[int], ante: int) -> int:
    """The most any player can bet in a round: what the second largest stack holds beyond
    its ante (nobody can be made to match more, V9)."""
    second = sorted(stacks)[-2]
    return max(0, second - ante)


def actions(top: int) -> tuple[str, ...]:
    """Every betting action of a game whose largest bet is `top`, in the order the OpenSpiel
    game numbers them: check, fold, call, bet 1 .. bet top, raise to 2 .. raise to top."""
    return ((CHECK, FOLD, CALL) + tuple(bet_action(a) for a in range(1, top + 1))
            + tuple(raise_action(t) for t in range(2, top + 1)))


def max_betting_actions(players: int, top: int) -> int:
    """Betting actions in a round at most: the checks before the first bet, then at each of at
    most `top` bet levels the bettor and everyone else's answer."""
    return (players - 1) + top * players


@dataclasses.dataclass(frozen=True)
class Betting:
    """The betting of one round while it is played. Tuples are indexed by seat, seat 0 the
    captain, seat 1 on his left, and so on clockwise."""

    first: int                       # the leader (V7)
    stores: tuple[int, ...]          # chips behind: not yet put in the pot
    antes: tuple[int, ...]           # what each antes (all he holds if fewer, V4)
    levels: tuple[int, ...]          # what each has bet this round beyond his ante
    folded: tuple[bool, ...]
    acted: tuple[bool, ...]          # has spoken since the highest bet was made
    to_act: Optional[int]            # seat to speak, None once the betting has closed
    opened: bool = False             # a bet has been made

    @property
    def players(self) -> int:
        return len(self.stores)

    @property
    def bet(self) -> int:
        """The highest bet: what a call must match."""
        return max(self.levels)

    @property
    def put(self) -> tuple[int, ...]:
        """What each player has put in the pot: his ante and his bets."""
        return tuple(a + b for a, b in zip(self.antes, self.levels))

    @property
    def pot(self) -> int:
        """Every chip in the middle: the antes and the bets."""
        return sum(self.put)

    def in_hand(self) -> tuple[int, ...]:
        return tuple(seat for seat in range(self.players) if not self.folded[seat])

    def all_in(self, seat: int) -> bool:
        """He has put in all his chips and stays in to the showdown without speaking (V10)."""
        return not self.folded[seat] and self.stores[seat] == 0

    def closed(self) -> bool:
        return self.to_act is None

    def kind(self) -> str:
        """How a closed betting ends: ONE_LEFT (everyone else folded) or SHOWDOWN."""
        assert self.closed(), "the betting is still open"
        return ONE_LEFT if len(self.in_hand()) == 1 else SHOWDOWN


def new_betting(stacks: Sequence[int], ante: int, counts: Sequence[int]) -> Betting:
    """The betting before anyone speaks: everyone has anted (all he holds if fewer than
    `ante`, V4), the leader is the player with the fewest throws nearest the captain (V7,
    multi-hand Bidou's rule). Nobody speaks if fewer than two players have chips behind."""
    antes = tuple(min(ante, chips) for chips in stacks)
    players = len(stacks)
    none = (False,) * players
    betting = Betting(first=leader(counts), stores=tuple(s - a for s, a in zip(stacks, antes)),
                      antes=antes, levels=(0,) * players, folded=none, acted=none, to_act=None)
    return dataclasses.replace(betting, to_act=_next_to_act(betting, betting.first - 1))


def _cap(betting: Betting, seat: int) -> int:
    """The largest total `seat` can bet: all he holds, but no more than another player still
    in could match (more would only come back to him, V9, V12)."""
    others = [betting.levels[s] + betting.stores[s] for s in betting.in_hand() if s != seat]
    return min(betting.levels[seat] + betting.stores[seat], max(others, default=0))


def _targets(betting: Betting, seat: int, sizes: Sizes) -> list[int]:
    """The totals `seat` may bet or raise to (V8, V9), ascending: every whole amount above
    the highest bet up to his cap, or a restricted game's sizes (a number n: bet n, or raise
    by n; "pot": bet the pot, or call and raise by the pot; "all": all in), each beyond the
    cap read as the cap."""
    cap, bet = _cap(betting, seat), betting.bet
    if sizes is None:
        return list(range(bet + 1, cap + 1))
    call = bet - betting.levels[seat]
    wanted = set()
    for size in sizes:
        if size == POT:
            wanted.add(bet + betting.pot + call)
        elif size == ALL_IN:
            wanted.add(cap)
        elif isinstance(size, int):
            wanted.add(bet + size)
        else:
            raise ValueError(f"unknown bet size {size!r}")
    return sorted({min(total, cap) for total in wanted if min(total, cap) > bet})


def legal_actions(betting: Betting, sizes: Sizes = None) -> list[str]:
    """V8-V10: with no bet made, check or bet; facing a bet, fold, call (all in with what he
    has if he cannot match it) or raise to a larger total he can pay and another player can
    answer. `sizes` restricts the amounts (`MontevideoParams.sizes`; None: every amount)."""
    seat = betting.to_act
    if seat is None:
        return []
    targets = _targets(betting, seat, sizes)
    if not betting.opened:
        return [CHECK] + [bet_action(t) for t in targets]
    return [FOLD, CALL] + [raise_action(t) for t in targets]


def apply(betting: Betting, action: str, sizes: Sizes = None) -> Betting:
    """The betting after the player to act does `action` (one of `legal_actions`)."""
    seat = betting.to_act
    if seat is None or action not in legal_actions(betting, sizes):
        raise ValueError(f"{action!r} is not legal here (seat to act: {seat})")
    if action == CHECK:
        betting = _set_seat(betting, seat, acted=True)
    elif action == FOLD:
        betting = _set_seat(betting, seat, acted=True, folded=True)
    elif action == CALL:
        paid = min(betting.bet - betting.levels[seat], betting.stores[seat])
        betting = _pay(_set_seat(betting, seat, acted=True), seat, paid)
    else:
        total = amount_of(action)
        betting = _pay(betting, seat, total - betting.levels[seat])
        # V11: any bet or raise, even all in for one chip more, reopens the betting.
        betting = dataclasses.replace(betting, opened=True,
                                      acted=tuple(s == seat for s in range(betting.players)))
    return dataclasses.replace(betting, to_act=_next_to_act(betting, seat))


def _pay(betting: Betting, seat: int, amount: int) -> Betting:
    assert 0 <= amount <= betting.stores[seat]
    return _set_seat(betting, seat, stores=betting.stores[seat] - amount,
                     levels=betting.levels[seat] + amount)


def _set_seat(betting: Betting, seat: int, **values: object) -> Betting:
    """One seat's entry of the tuple fields named in `values` set to the given values."""
    changed = {name: tuple(value if s == seat else old
                           for s, old in enumerate(getattr(betting, name)))
               for name, value in values.items()}
    return dataclasses.replace(betting, **changed)   # type: ignore[arg-type]


def _must_speak(betting: Betting, seat: int) -> bool:
    """A player still in with chips behind speaks if he has a bet to answer, or has not
    spoken yet and another player still in could answer a bet of his."""
    if betting.folded[seat] or betting.stores[seat] == 0:
        return False
    if betting.levels[seat] < betting.bet:
        return True
    return not betting.acted[seat] and _cap(betting, seat) > betting.bet


def _next_to_act(betting: Betting, seat: int) -> Optional[int]:
    """V11: the next player clockwise after `seat` who must speak; None when there is none,
    or when only one player is left in."""
    if len(betting.in_hand()) == 1:
        return None
    n = betting.players
    return next((s % n for s in range(seat + 1, seat + n + 1) if _must_speak(betting, s % n)),
                None)


@dataclasses.dataclass(frozen=True)
class Pot:
    """The main pot or a side pot: its chips and the players who may win it."""

    chips: int
    eligible: tuple[int, ...]


def pots(betting: Betting) -> tuple[Pot, ...]:
    """V12: the main pot, then the side pots, by contribution levels: each level takes from
    every player up to that level, and may be won by the players still in who put in at
    least as much. A folded player's chips stay in the pots; he wins none. Every level has a
    player who may win it: the player who put in the most never folded (whoever made him
    fold put in more)."""
    put, levels = betting.put, sorted(set(betting.put) - {0})
    found: list[Pot] = []
    below = 0
    for level in levels:
        chips = sum(min(p, level) - min(p, below) for p in put)
        eligible = tuple(s for s in betting.in_hand() if put[s] >= level)
        assert eligible, "the largest contributor never folds"
        if found and found[-1].eligible == eligible:     # one pot, however many levels
            found[-1] = Pot(found[-1].chips + chips, eligible)
        else:
            found.append(Pot(chips, eligible))
        below = level
    return tuple(found)


def winners(eligible: Sequence[int], compare: Compare) -> tuple[int, ...]:
    """V13: the players of `eligible` whose hand none of the others beats (the highest hand,
    or every hand tied for highest)."""
    return tuple(s for s in eligible if all(compare(o, s) <= 0 for o in eligible if o != s))


def odd_chip_order(players: int) -> tuple[int, ...]:
    """V13: who takes a pot's odd chips first: the player on the captain's left, then
    clockwise, the captain last."""
    return tuple(range(1, players)) + (0,)


def settle(betting: Betting, compare: Compare) -> tuple[int, ...]:
    """Each player's net chips for the round once the betting has closed: what he takes from
    the pots minus what he put in. Tied winners share a pot equally, its odd chips one each
    to the tied players nearest the captain's left (V13). They add up to zero."""
    assert betting.closed(), "the betting is still open"
    taken = [0] * betting.players
    for pot in pots(betting):
        top = winners(pot.eligible, compare)
        share, odd = divmod(pot.chips, len(top))
        for seat in top:
            taken[seat] += share
        for seat in [s for s in odd_chip_order(betting.players) if s in top][:odd]:
            taken[seat] += 1
    return tuple(t - p for t, p in zip(taken, betting.put))


def next_captain(betting: Betting, compare: Compare) -> int:
    """V14: the winner of the main pot (the one player left, if everyone else folded); on a
    tie for it, the tied player nearest the captain's left, who took its odd chip."""
    main = pots(betting)[0]
    top = winners(main.eligible, compare)
    return next(s for s in odd_chip_order(betting.players) if s in top)
