"""The betting of one hand of multi-hand Bidou as pure functions (docs/rules.md, "Multi-hand
Bidou", rules M1-M17): who leads, what is legal, what each action does to the chips, and who
takes what when the betting closes. No dice and no OpenSpiel here, so that every one of the
source's nine betting situations can be tested on a hand-made deal.

A `Table` holds every chip of the hand: each player's `store` (chips in front of him, which he
wants to be rid of), each player's `share` of the common pot (chips of his still in it) and his
`level` (how much he has bet this hand, what a call must match). Chips move between stores and
the pot; only the rules that the source says remove chips (a tie, situation 6; a lone bettor's
discard, situation 7) take any out of the game. A hand's payoff to a player is the chips he
received, negated: his store at the start minus his store at the end.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional, Sequence

PASS = "pass"
CALL = "call"
BET_SIZES = (1, 2, 3)        # action names "bet 1" .. "bet 3" (max_bet limits which are legal)
RAISE_SIZES = (1, 2)         # "raise 1", "raise 2" (max_raise limits which are legal)
ACTIONS = ((PASS,) + tuple(f"bet {s}" for s in BET_SIZES) + (CALL,)
           + tuple(f"raise {r}" for r in RAISE_SIZES))

# Kinds of terminal table (how `settle` shares out the pot).
ALL_PASSED, ONE_LEFT, SHOWDOWN = "all passed", "one left", "showdown"

Compare = Callable[[int, int], int]      # compare(seat a, seat b): +1 if a's hand beats b's


@dataclasses.dataclass(frozen=True)
class Table:
    """The chips of one hand while it is bet. Tuples are indexed by seat."""

    start: tuple[int, ...]           # each store at the start of the hand
    order: tuple[int, ...]           # seats in betting order: the leader, then clockwise
    stores: tuple[int, ...]
    shares: tuple[int, ...]
    levels: tuple[int, ...]
    out: tuple[bool, ...]            # dropped out of this hand
    acted: tuple[bool, ...]          # has spoken since the standing bet was made
    to_act: Optional[int]            # seat to speak, None once the betting has closed
    opened: bool = False             # a bet has been made (situation 9: a pass now drops out)
    standing: Optional[int] = None   # who made the standing bet or raise
    raiser: Optional[int] = None     # who made the last raise (situation 4)
    first_drop: bool = False         # the first drop-out after betting has been settled

    @property
    def players(self) -> int:
        return len(self.stores)

    @property
    def bet(self) -> int:
        """The standing bet: the highest level."""
        return max(self.levels)

    @property
    def pot(self) -> int:
        return sum(self.shares)

    def all_in(self, seat: int) -> bool:
        """M6: he has bet his last chips and stays in for the showdown without speaking."""
        return not self.out[seat] and self.stores[seat] == 0 and self.levels[seat] > 0

    def in_hand(self) -> tuple[int, ...]:
        return tuple(s for s in range(self.players) if not self.out[s])

    def closed(self) -> bool:
        return self.to_act is None

    def kind(self) -> str:
        """How a closed table is settled."""
        assert self.closed()
        if not self.opened:
            return ALL_PASSED
        return ONE_LEFT if len(self.in_hand()) == 1 else SHOWDOWN


def leader(counts: Sequence[int]) -> int:
    """M3: the player with the fewest throws nearest the captain's left, the captain (seat 0)
    himself counting as nearest; so with equal counts the captain leads."""
    fewest = min(counts)
    return next(seat for seat, count in enumerate(counts) if count == fewest)


def new_table(players: int, chips: int, counts: Sequence[int],
              stores: Optional[Sequence[int]] = None) -> Table:
    """The table before the first bet: betting starts with the leader and goes clockwise.
    Every store holds `chips` unless `stores` says otherwise (later in a game they differ)."""
    first = leader(counts)
    order = tuple((first + k) % players for k in range(players))
    zeros = (0,) * players
    start = tuple(stores) if stores is not None else (chips,) * players
    assert len(start) == players and min(start) > 0
    return Table(start=start, order=order, stores=start, shares=zeros,
                 levels=zeros, out=(False,) * players, acted=(False,) * players, to_act=first)


def legal_actions(table: Table, max_bet: int = 3, max_raise: int = 2) -> list[str]:
    """M4-M6: with no bet standing, pass or bet 1..max_bet (no more than his store); facing a
    bet, pass (drop out), call (with his last chips if he has fewer than the call needs) or
    raise 1..max_raise (if he can pay it in full and someone else can still answer)."""
    seat = table.to_act
    if seat is None:
        return []
    store = table.stores[seat]
    if not table.opened:
        return [PASS] + [f"bet {s}" for s in BET_SIZES if s <= min(max_bet, store)]
    need = table.bet - table.levels[seat]
    answer = any(not table.out[s] and table.stores[s] > 0 for s in range(table.players)
                 if s != seat)
    raises = [f"raise {r}" for r in RAISE_SIZES if r <= max_raise and need + r <= store
              and answer]
    return [PASS, CALL] + raises


def apply(table: Table, action: str) -> Table:
    """The table after the player to act does `action` (one of `legal_actions`)."""
    seat = table.to_act
    assert seat is not None, "the betting has closed"
    if action == PASS:
        table = _drop_out(table, seat) if table.opened else _replace(table, seat, acted=True)
    elif action == CALL:
        need = table.bet - table.levels[seat]
        table = _replace(_put(table, seat, min(need, table.stores[seat])), seat, acted=True)
    elif action.startswith("bet "):
        table = _open(_put(table, seat, int(action[4:])), seat, raised=False)
    elif action.startswith("raise "):
        need = table.bet - table.levels[seat]
        table = _open(_put(table, seat, need + int(action[6:])), seat, raised=True)
    else:
        raise ValueError(f"unknown betting action {action!r}")
    return dataclasses.replace(table, to_act=_next_to_act(table, seat))


def _replace(table: Table, seat: int, **changes: bool) -> Table:
    """One seat's entry of the tuple fields named in `changes` set to the given values."""
    fields: dict[str, Any] = {name: _set(getattr(table, name), seat, value)
                              for name, value in changes.items()}
    return dataclasses.replace(table, **fields)


def _set(values: tuple, seat: int, value) -> tuple:
    return values[:seat] + (value,) + values[seat + 1:]


def _put(table: Table, seat: int, amount: int) -> Table:
    """Seat moves `amount` chips from his store into the pot."""
    assert 0 < amount <= table.stores[seat]
    return dataclasses.replace(
        table, stores=_set(table.stores, seat, table.stores[seat] - amount),
        shares=_set(table.shares, seat, table.shares[seat] + amount),
        levels=_set(table.levels, seat, table.levels[seat] + amount))


def _open(table: Table, seat: int, raised: bool) -> Table:
    """After a bet or a raise everybody else must speak again."""
    acted = tuple(s == seat for s in range(table.players))
    return dataclasses.replace(table, opened=True, acted=acted, standing=seat,
                               raiser=seat if raised else table.raiser)


def _next_to_act(table: Table, seat: int) -> Optional[int]:
    """M7: the next player clockwise who is in, is not all in and has still to speak; None
    when there is none (the betting closes) or only one player is left in."""
    if table.opened and len(table.in_hand()) == 1:
        return None
    n = table.players
    for k in range(1, n + 1):
        s = (seat + k) % n
        if table.out[s] or table.stores[s] == 0:
            continue
        if not table.acted[s] or (table.opened and table.levels[s] < table.bet):
            return s
    return None


def _drop_out(table: Table, seat: int) -> Table:
    """Situations 2, 3 and 9: a pass after the betting has begun drops out of the hand.
    Without a bet of his own he takes nothing (2). The first to drop out after betting takes
    from the pot his own chips, as much again from each player still in (what that player has
    in the pot, if less) and one penalty chip (3); each later one takes one penalty chip."""
    table = _replace(table, seat, out=True, acted=True)
    if table.levels[seat] == 0:
        return table
    if not table.first_drop:
        amount = table.shares[seat]
        table = _take(table, seat, seat, amount)
        for other in table.in_hand():
            table = _take(table, seat, other, min(amount, table.shares[other]))
        table = dataclasses.replace(table, first_drop=True)
    return _penalty(table, seat)


def _take(table: Table, taker: int, owner: int, amount: int) -> Table:
    """`taker` takes `amount` of `owner`'s chips out of the pot into his store."""
    if amount == 0:
        return table
    assert amount <= table.shares[owner]
    shares = _set(table.shares, owner, table.shares[owner] - amount)
    stores = _set(table.stores, taker, table.stores[taker] + amount)
    return dataclasses.replace(table, shares=shares, stores=stores)


def _penalty(table: Table, seat: int) -> Table:
    """M10: a penalty chip comes from the pot, out of the share of the player whose bet was
    refused first, then of the others clockwise; from that player's store if the pot is
    empty (as two-hand Bidou's penalty comes from the opponent's pile once the centre is
    empty), and not at all if neither holds a chip."""
    standing = table.standing if table.standing is not None else seat
    n = table.players
    owners = [standing] + [(standing + k) % n for k in range(1, n)]
    for owner in owners:
        if table.shares[owner] > 0:
            return _take(table, seat, owner, 1)
    if table.stores[standing] > 0 and standing != seat:
        stores = _set(table.stores, standing, table.stores[standing] - 1)
        return dataclasses.replace(table, stores=_set(stores, seat, stores[seat] + 1))
    return table


def loser(seats: Sequence[int], compare: Compare) -> Optional[int]:
    """M11: the lowest hand, the one every other hand in `seats` beats; None if there is none
    (a tie for lowest, or, under a ranking that is not transitive, a cycle)."""
    for s in seats:
        if all(compare(o, s) > 0 for o in seats if o != s):
            return s
    return None


def highest(seats: Sequence[int], compare: Compare) -> Optional[int]:
    """M14: the highest hand, the one that beats every other; None on a tie for highest."""
    for s in seats:
        if all(compare(s, o) > 0 for o in seats if o != s):
            return s
    return None


def settle(table: Table, compare: Compare, poor_fish: bool = False,
           discard: bool = True) -> tuple[int, ...]:
    """Each player's final store once the betting has closed (situations 1, 4-7, Poor Fish).
    The payoff of the hand is `payoffs(table, settle(...))`."""
    kind = table.kind()
    if kind == ALL_PASSED:
        return _all_passed(table, compare, poor_fish)
    if kind == ONE_LEFT:
        return _one_left(table, discard)
    return _showdown(table, compare)


def payoffs(table: Table, stores: Sequence[int]) -> tuple[int, ...]:
    """Chips received, negated: what each store held at the start minus what it holds now.
    They add up to the number of chips the hand removed from the game."""
    return tuple(a - b for a, b in zip(table.start, stores))


def _all_passed(table: Table, compare: Compare, poor_fish: bool) -> tuple[int, ...]:
    """Everyone passed: nothing moves (the two-hand rule), or, under Poor Fish, the highest
    hand receives one chip from each other player (none on a tie for highest, M14)."""
    stores = list(table.stores)
    fish = highest(range(table.players), compare) if poor_fish else None
    if fish is not None:
        for other in range(table.players):
            if other != fish and stores[other] > 0:
                stores[other] -= 1
                stores[fish] += 1
    return tuple(stores)


def _one_left(table: Table, discard: bool) -> tuple[int, ...]:
    """Everyone else dropped out. Situation 4: after a raise the chips left in the pot go to
    the raiser (the one player left made the last raise). Without a raise they go back to
    whoever bet them (M12). Situation 7 (M15): if he alone bet, he discards a chip."""
    (last,) = table.in_hand()
    stores = list(table.stores)
    if table.raiser == last:
        stores[last] += table.pot
    else:
        for seat, share in enumerate(table.shares):
            stores[seat] += share
    alone = all(table.levels[s] == 0 for s in range(table.players) if s != last)
    if discard and alone and stores[last] > 0:
        stores[last] -= 1
    return tuple(stores)


def _showdown(table: Table, compare: Compare) -> tuple[int, ...]:
    """Situations 1, 5 and 6 (M11, M13, M16) among the players still in."""
    seats = table.in_hand()
    stores = list(table.stores)
    low = loser(seats, compare)
    if low is not None and not table.all_in(low):
        stores[low] += table.pot                                   # situation 1
        return tuple(stores)
    shares = list(table.shares)
    if low is not None:                                            # situation 5
        own = shares[low]
        for other in seats:
            if other != low:
                amount = min(own, shares[other])
                shares[other] -= amount
                stores[low] += amount
        stores[low] += own
        shares[low] = 0
        for seat in range(table.players):
            stores[seat] += shares[seat]
        return tuple(stores)
    allin = any(table.all_in(s) for s in seats)                    # situation 6
    for seat in seats:
        back = shares[seat] if table.all_in(seat) else (
            max(shares[seat] - 1, 0) if allin else min(shares[seat], 1))
        stores[seat] += back
    return tuple(stores)
