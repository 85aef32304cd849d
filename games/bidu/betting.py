"""The betting of one vuelta of Bidú as pure functions (docs/rules.md section 7, rules
B7-B14): who bets first, what is legal, what each action does, when the betting closes and
who takes the pot. No dice and no OpenSpiel here, so that every rule can be tested on a
hand-made deal, and the solvers can walk the same rules the OpenSpiel game plays.

A `Betting` holds what each player has put in the pot this vuelta beyond his ante (`put`,
at most `stack`), who has dropped out and who has spoken since the highest bet was made.
Bets and raises name totals ("raise to 3": his `put` becomes 3). Chips never leave the
game: the pot (every ante and every `put`) goes to the highest hand, shared in equal
fractions on a tie (B13), or stays on the table for the vuelta played again when nobody
bets (B12), so each player's net result is what he received minus what he put in.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Callable, Optional, Sequence

PASS = "pass"
CALL = "call"

# How a closed betting ends (`Betting.kind`).
REPLAY, ONE_LEFT, SHOWDOWN = "replay", "one left", "showdown"

Compare = Callable[[int, int], int]      # compare(seat a, seat b): +1 if a's hand beats b's


def bet_action(amount: int) -> str:
    """The opening bet of `amount` chips."""
    return f"bet {amount}"


def raise_action(total: int) -> str:
    """A raise to `total` chips put in this vuelta."""
    return f"raise to {total}"


def actions(stack: int) -> tuple[str, ...]:
    """Every betting action under `stack`, in the order the OpenSpiel game numbers them:
    pass, call, bet 1 .. bet stack, raise to 2 .. raise to stack."""
    return ((PASS, CALL) + tuple(bet_action(a) for a in range(1, stack + 1))
            + tuple(raise_action(t) for t in range(2, stack + 1)))


def amount_of(action: str) -> int:
    """The total a bet or raise names (`bet 3`, `raise to 3`: 3)."""
    return int(action.rsplit(" ", 1)[1])


def first_bettor(stands: Sequence[int]) -> int:
    """B7, B8: the player who stood at the earliest throw; on a tie the captain (seat 0) if
    he is among them, else the first of them clockwise from the captain."""
    earliest = min(stands)
    return next(seat for seat, stand in enumerate(stands) if stand == earliest)


@dataclasses.dataclass(frozen=True)
class Betting:
    """The betting of one vuelta while it is played. Tuples are indexed by seat."""

    stack: int
    first: int                       # the first bettor (B7, B8)
    put: tuple[int, ...]             # chips put in this vuelta beyond the ante
    out: tuple[bool, ...]            # dropped out (a pass facing a bet, B10)
    acted: tuple[bool, ...]          # has spoken since the highest bet was made
    to_act: Optional[int]            # seat to speak, None once the betting has closed
    opened: bool = False             # a bet has been made

    @property
    def players(self) -> int:
        return len(self.put)

    @property
    def bet(self) -> int:
        """The highest bet: what a call must match."""
        return max(self.put)

    def in_hand(self) -> tuple[int, ...]:
        return tuple(seat for seat in range(self.players) if not self.out[seat])

    def closed(self) -> bool:
        return self.to_act is None

    def kind(self) -> str:
        """How a closed betting ends: REPLAY (nobody bet, B12), ONE_LEFT (everyone else
        dropped out, B11) or SHOWDOWN (B13)."""
        assert self.closed(), "the betting is still open"
        if not self.opened:
            return REPLAY
        return ONE_LEFT if len(self.in_hand()) == 1 else SHOWDOWN


def new_betting(stands: Sequence[int], stack: int) -> Betting:
    """The betting before anyone speaks, given each seat's stand throw (B6)."""
    players = len(stands)
    zeros = (0,) * players
    no = (False,) * players
    return Betting(stack=stack, first=first_bettor(stands), put=zeros, out=no, acted=no,
                   to_act=first_bettor(stands))


def legal_actions(betting: Betting) -> list[str]:
    """B9, B10: with no bet made, pass or bet 1..stack; facing a bet, pass (drop out), call,
    or raise to any larger total up to `stack`."""
    if betting.to_act is None:
        return []
    if not betting.opened:
        return [PASS] + [bet_action(a) for a in range(1, betting.stack + 1)]
    return [PASS, CALL] + [raise_action(t) for t in range(betting.bet + 1, betting.stack + 1)]


def apply(betting: Betting, action: str) -> Betting:
    """The betting after the player to act does `action` (one of `legal_actions`)."""
    seat = betting.to_act
    if seat is None or action not in legal_actions(betting):
        raise ValueError(f"{action!r} is not legal here (seat to act: {seat})")
    if action == PASS:
        # B9: a pass before any bet only speaks; B10: facing a bet it drops out.
        betting = _set_seat(betting, seat, acted=True, out=betting.opened)
    elif action == CALL:
        betting = _set_seat(betting, seat, acted=True, put=betting.bet)
    else:
        total = amount_of(action)
        betting = dataclasses.replace(
            _set_seat(betting, seat, put=total), opened=True,
            acted=tuple(s == seat for s in range(betting.players)))
    return dataclasses.replace(betting, to_act=_next_to_act(betting, seat))


def _set_seat(betting: Betting, seat: int, **values: object) -> Betting:
    """One seat's entry of the tuple fields named in `values` set to the given values."""
    changed = {name: tuple(value if s == seat else old
                           for s, old in enumerate(getattr(betting, name)))
               for name, value in values.items()}
    return dataclasses.replace(betting, **changed)   # type: ignore[arg-type]


def _next_to_act(betting: Betting, seat: int) -> Optional[int]:
    """B11: the next player clockwise who is in and has still to speak or to match the
    highest bet; None when there is none, or when only one player is left in."""
    if betting.opened and len(betting.in_hand()) == 1:
        return None
    n = betting.players
    for k in range(1, n + 1):
        s = (seat + k) % n
        if not betting.out[s] and (not betting.acted[s] or betting.put[s] < betting.bet):
            return s
    return None


def pot(betting: Betting, ante: int) -> int:
    """Every chip on the table: each player's ante and what he put in (B3, B4)."""
    return ante * betting.players + sum(betting.put)


def winners(betting: Betting, compare: Compare) -> tuple[int, ...]:
    """B13: the players still in whose hand no other player still in beats (the highest
    hand, or every hand tied for highest); the one player left, if the others dropped."""
    seats = betting.in_hand()
    return tuple(s for s in seats if all(compare(o, s) <= 0 for o in seats if o != s))


def settle(betting: Betting, compare: Compare, ante: int) -> tuple[Fraction, ...]:
    """Each player's net chips for the vuelta once the betting has closed: his equal part of
    the pot if he wins it, minus his ante and what he put in. They add up to zero. After
    REPLAY (B12) nobody has won the pot yet: zero for everyone, the solvers replace it by the
    value of the vuelta played again."""
    if betting.kind() == REPLAY:
        return tuple(Fraction(0) for _ in range(betting.players))
    top = winners(betting, compare)
    part = Fraction(pot(betting, ante), len(top))
    return tuple((part if seat in top else Fraction(0)) - ante - betting.put[seat]
                 for seat in range(betting.players))
