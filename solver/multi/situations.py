"""The hand strategies a whole game needs (docs/multi.md, "The whole game"): one solved hand
for every chip situation that occurs.

Later in a game the stores differ (6, 6, 6 becomes 4, 9, 5, then one player is out). The
hand's legal bets, who can go all in and what a call costs all depend on the stores, so a
six-chip strategy with its bets capped would be a strategy for another game, with no
certificate for the one played. Instead every distinct situation (the stores of the players
still holding chips, the captain first) is solved on its own, the first time a simulated
game reaches it, by the same CFR and best response as `bidou multi`, and its certified
epsilon is kept. Two players left (situation 8) play on under the multi-hand betting rules
with two players (`TwoLeftParams`, rule M19).

Situations that are the same game are solved once (`canonical_stores`: a store deeper than
any bet can reach is as good as one just deep enough), and each solved situation can be kept
in a cache directory (`SituationCache`, one JSON file each) for the next run.

The strategies are myopic: each hand is played to get rid of the most chips in that hand,
not to lower the chance of losing the game (the game-level stochastic game, as the two-hand
round is solved in solver/round/, is not done for three players).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import time
from pathlib import Path
from typing import Any, Optional

import numpy as np

from games.bidou import rules
from games.bidou_multi.params import MultiParams, ParameterError, TwoLeftParams
from solver.common.files import read_input_file, strict_json, write_set
from solver.common.progress import Step, quiet
from solver.multi import best_response, cfr
from solver.multi.solve import DEFAULT_METHOD, pick_engine, solve
from solver.multi.tree import PublicTree, build_tree

Stores = tuple[int, ...]

CACHE_SCHEMA = "bidou-multi-situation"
CACHE_SCHEMA_VERSION = 1


def canonical_stores(stores: Stores, max_bet: int, max_raise: int) -> Stores:
    """The stores of the same hand with the deepest store cut to what matters.

    Why it is the same game. Let p hold the largest store and S the largest of the others'.
    (1) Nobody still in the hand ever gains chips (takes and penalty chips go to a player who
    has just dropped out), so any other player's level, and so the bet p faces when he
    speaks, is at most S; p's own level is at most max(max_bet, S + max_raise) =: R.
    (2) p's store leaves only by his own bets (<= R) and by penalty chips taken from it when
    the pot is empty (one per other player's drop-out, <= n - 1). (3) The rules read p's
    store only while he is in, and only as: "store >= bet size" (opening, bets <= max_bet),
    "need + raise <= store" (need + raise <= S + max_raise - level), "store >= need" (a full
    call), "store > 0" (all in, who speaks, who can answer a raise, a penalty or a discard
    from it). With p's store at least R + n, every one of these is true at every history,
    whatever his store beyond: the legal actions, hence the public tree, are the same, and
    every chip movement is the same, hence every payoff (store at the start minus at the
    end). So the stores with p's cut to R + n (when larger) give the identical tree and
    payoffs: the same game, the same strategy, the same certificate.
    tests/test_multi_situations.py builds both trees for every small situation and compares
    them label by label and payoff by payoff."""
    n = len(stores)
    if n < 2:
        return tuple(stores)
    top = max(range(n), key=lambda s: stores[s])
    second = max(stores[s] for s in range(n) if s != top)
    cut = max(max_bet, second + max_raise) + n
    if stores[top] <= cut:
        return tuple(stores)
    return tuple(stores[:top]) + (cut,) + tuple(stores[top + 1:])


class HandStrategy:
    """One solved hand's strategy by public history (the tree's node labels, the keys of the
    strategy file): `probabilities(label, hand)` gives the actions there and the chance of
    each for that hand (an index into `rules.all_hands(faces)`)."""

    def __init__(self, by_label: dict[str, tuple[list[str], np.ndarray]]):
        self.by_label = by_label

    @classmethod
    def of_tree(cls, tree: PublicTree, sigma: np.ndarray) -> "HandStrategy":
        by_label: dict[str, tuple[list[str], np.ndarray]] = {}
        ends = list(tree.edge_starts[1:]) + [tree.num_edges]
        for start, end in zip(tree.edge_starts, ends):
            label = tree.node_label[int(tree.edge_parent[start])]
            by_label[label] = (tree.edge_name[start:end], sigma[start:end].copy())
        return cls(by_label)

    def probabilities(self, label: str, hand: int) -> tuple[list[str], np.ndarray]:
        names, probs = self.by_label[label]
        return names, probs[:, hand]


@dataclasses.dataclass
class Solved:
    strategy: HandStrategy
    epsilon: float
    values: tuple[float, ...]
    iterations: int = 0
    seconds: float = 0.0
    method: str = DEFAULT_METHOD


def hand_params(params: MultiParams, players: int) -> MultiParams:
    """The rules of a hand among `players` of the game's players (2: situation 8)."""
    fields = {**params.to_dict(), "players": players}
    return TwoLeftParams.from_mapping(fields) if players == 2 else MultiParams.from_mapping(
        fields)


# Tried on a situation whose target the first method misses: on small three-player hands
# alternating CFR+ can stall well above 1e-3 (1-1-1: 2.2e-3 after 20 000 iterations, 2-2-3:
# 5.6e-3), where predictive CFR+ reaches 1e-7 in 1 000 (measured, faces=2, throws=1).
FALLBACK = "pcfr+"


@dataclasses.dataclass(frozen=True)
class SolveSettings:
    """How each situation is solved: up to `iterations` of `method`, stopping once every
    seat's gain is at most `target` (checked every `every` iterations); if the target is
    missed, again with FALLBACK, and the better certified strategy kept."""

    iterations: int
    method: str = DEFAULT_METHOD
    target: Optional[float] = None
    every: int = 100
    fallback: Optional[str] = FALLBACK

    def methods(self) -> tuple[str, ...]:
        if self.fallback is None or self.fallback == self.method:
            return (self.method,)
        return (self.method, self.fallback)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class Situations:
    """Solved hands by stores, each distinct game (`canonical_stores`) solved once with
    `settings`; each one's certificate by numpy's best response whatever the engine."""

    def __init__(self, params: MultiParams, iterations: int, engine: str = "auto",
                 method: str = DEFAULT_METHOD, target: Optional[float] = None,
                 cache: Optional["SituationCache"] = None, progress: Step = quiet):
        self.params = params
        every = min(100, iterations) if target is not None else iterations
        self.settings = SolveSettings(iterations, method, target, every)
        self.engine = pick_engine(engine)     # "c": the iterations in solver/multi/kernel.py
        self.cache = cache
        self.progress = progress
        self.solved: dict[Stores, Solved] = {}        # by canonical stores
        self.used: dict[Stores, int] = {}             # by the stores met
        self.loaded = 0                               # of `solved`, read from the cache
        # why the cache stopped being written (a full disk: the situations are still
        # solved and used, as the round goes on without its saved file), and how many
        # solved situations it did not keep
        self.unsaved: Optional[str] = None
        self.not_kept = 0

    def key(self, stores: Stores) -> Stores:
        return canonical_stores(stores, self.params.max_bet, self.params.max_raise)

    def strategy(self, stores: Stores) -> HandStrategy:
        key = self.key(stores)
        if key not in self.solved:
            self.solved[key] = self._get(key)
        self.used[stores] = self.used.get(stores, 0) + 1
        return self.solved[key].strategy

    def _get(self, stores: Stores) -> Solved:
        params = hand_params(self.params, len(stores))
        if self.cache is not None:
            found = self.cache.load(params, stores, self.settings)
            if found is not None:
                self.loaded += 1
                return reproved(found, build_tree(params, stores), self.cache.path(
                    params, stores, self.settings))
        self.progress(f"solving chip situation {'-'.join(map(str, stores))} "
                      f"({len(self.solved)} solved)", 0, 0)
        tree = build_tree(params, stores)
        started = time.perf_counter()
        s = self.settings
        best = None
        for method in s.methods():
            solution = solve(params, s.iterations, method, target=s.target, every=s.every,
                             engine=self.engine, tree=tree)
            if best is None or solution.gains.epsilon < best.gains.epsilon:
                best = solution
            if s.target is None or best.gains.epsilon <= s.target:
                break
        assert best is not None
        solved = Solved(HandStrategy.of_tree(tree, best.strategy), best.gains.epsilon,
                        best.gains.values, best.iterations, time.perf_counter() - started,
                        best.variant)
        if self.cache is not None and self.unsaved is None:
            try:
                self.cache.save(params, stores, self.settings, solved)
            except OSError as error:          # DestinationError too: one line naming the file
                self.unsaved = str(error)
        if self.unsaved is not None:
            self.not_kept += 1
        return solved

    def worst_epsilon(self) -> float:
        """The largest certified epsilon among the situations solved."""
        return max((s.epsilon for s in self.solved.values()), default=0.0)


# The largest cache file read: a situation of the default game (6 faces, 3 throws, 6 chips
# each) writes a few hundred MB; a file beyond this is refused from its size, unread.
MAX_ENTRY_BYTES = 2**30


def _write_private(path: Path, document: dict[str, Any]) -> None:
    """A cache file written as `write_json_atomic` writes it, over nothing but a regular
    file (files.write_set's `private`): a symlink or FIFO at its name is refused."""
    text = json.dumps(document, indent=1, allow_nan=False) + "\n"
    write_set({path: text.encode()}, private=True)


class SituationCache:
    """Solved situations kept as JSON files in `directory`, one a situation, named by a
    digest of the game's rules and the solve settings and by the stores; a file is read
    back only for exactly those rules, settings and stores, its probabilities checked (and
    its certificate measured again by `Situations`: `reproved`)."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)

    def path(self, params: MultiParams, stores: Stores, settings: SolveSettings) -> Path:
        game = {**params.to_dict(), "players": None}       # the same digest for 2 and 3 left
        text = json.dumps({"rules": game, "solver": settings.to_dict()}, sort_keys=True)
        digest = hashlib.sha256(text.encode()).hexdigest()[:12]
        return self.directory / f"{digest}-{'-'.join(map(str, stores))}.json"

    def save(self, params: MultiParams, stores: Stores, settings: SolveSettings,
             solved: Solved) -> None:
        hands = [rules.format_hand(h) for h in rules.all_hands(params.faces)]
        _write_private(self.path(params, stores, settings), {
            "schema": CACHE_SCHEMA, "schema_version": CACHE_SCHEMA_VERSION,
            "game": params.to_game_string(), "rules": params.to_dict(),
            "stores": list(stores), "solver": settings.to_dict(),
            "method": solved.method, "iterations": solved.iterations,
            "seconds": round(solved.seconds, 3),
            "values": list(solved.values), "epsilon": solved.epsilon, "hands": hands,
            "strategy": {label: {"actions": names, "probabilities": probs.tolist()}
                         for label, (names, probs) in solved.strategy.by_label.items()}})

    def load(self, params: MultiParams, stores: Stores, settings: SolveSettings
             ) -> Optional[Solved]:
        path = self.path(params, stores, settings)
        try:                       # never a symlink, a FIFO (would block) or a device
            data = read_input_file(path, MAX_ENTRY_BYTES, "a cached situation",
                                   follow_symlinks=False)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise ParameterError(f"cannot read {path}: {error.strerror or error}") from None
        try:
            doc = strict_json(data)
            return _solved_of(doc, params, stores, settings)
        except (ValueError, KeyError, TypeError) as error:
            raise ParameterError(f"{path} is not a solved situation of {stores} under these "
                                 f"rules and settings ({_shown(str(error), 300)[1:-1]})") from None


def reproved(found: Solved, tree: PublicTree, where: Path) -> Solved:
    """A situation read from the cache with its certificate measured again: its strategy
    must cover exactly the decisions of the situation's tree, with the tree's actions, and
    its epsilon and values are those of the best responses to it now (one pass over the
    tree, against the solve it spares), never the numbers the file states."""
    sigma = np.zeros((tree.num_edges, len(tree.hands)))
    ends = list(tree.edge_starts[1:]) + [tree.num_edges]
    labels = set()
    for start, end in zip(tree.edge_starts, ends):
        label = tree.node_label[int(tree.edge_parent[start])]
        labels.add(label)
        entry = found.strategy.by_label.get(label)
        if entry is None or list(entry[0]) != list(tree.edge_name[start:end]):
            raise ParameterError(f"{where}: the decision {_shown(label)} is missing or has "
                                 f"other actions than this situation's")
        sigma[start:end] = entry[1]
    extra = set(found.strategy.by_label) - labels
    if extra:
        raise ParameterError(f"{where}: the decision {_shown(min(extra))} is not one of this "
                             f"situation's")
    gains = best_response.gains(tree, sigma)
    return dataclasses.replace(found, epsilon=gains.epsilon, values=tuple(gains.values))


def _shown(text: str, most: int = 60) -> str:
    """A string read from a file, quoted with its control characters escaped, cut short."""
    return ascii(text[:most])


def _solved_of(doc: Any, params: MultiParams, stores: Stores, settings: SolveSettings
               ) -> Solved:
    """A cache file's contents, refused (ValueError) unless it is for exactly these rules,
    stores and settings and every decision's probabilities are a distribution."""
    if not isinstance(doc, dict):
        raise ValueError("the file is not a JSON object")
    expected = {"schema": CACHE_SCHEMA, "schema_version": CACHE_SCHEMA_VERSION,
                "rules": params.to_dict(), "stores": list(stores),
                "solver": settings.to_dict()}
    for field, value in expected.items():
        if doc.get(field) != value:
            raise ValueError(f"{field} is {doc.get(field)!r}, expected {value!r}")
    hands = len(rules.all_hands(params.faces))
    by_label: dict[str, tuple[list[str], np.ndarray]] = {}
    if not isinstance(doc.get("strategy"), dict):
        raise ValueError("its strategy is not an object of decisions")
    for label, entry in doc["strategy"].items():
        if not (isinstance(entry, dict) and isinstance(entry.get("actions"), list)
                and all(isinstance(a, str) for a in entry["actions"])):
            raise ValueError(f"the decision {_shown(label)} has no list of actions")
        names = list(entry["actions"])
        probs = np.array(entry.get("probabilities"))
        if probs.dtype.kind not in "iuf":        # strings ("1"), booleans, objects
            raise ValueError(f"the probabilities at {_shown(label)} are not numbers")
        probs = probs.astype(float)
        if probs.shape != (len(names), hands) or not np.all(np.isfinite(probs)) \
                or probs.min() < 0 or np.max(np.abs(probs.sum(axis=0) - 1)) > 1e-9:
            raise ValueError(f"the probabilities at {_shown(label)} are not a distribution")
        by_label[label] = (names, probs)
    epsilon = float(doc["epsilon"])
    if not math.isfinite(epsilon) or epsilon < 0:
        raise ValueError("epsilon is not a number, 0 or more")
    iterations, seconds, method = doc["iterations"], doc["seconds"], doc["method"]
    if not (isinstance(iterations, int) and not isinstance(iterations, bool)
            and 0 <= iterations <= 10**15):
        raise ValueError("iterations is not a whole number of iterations")
    if not (isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
            and 0 <= seconds <= 1e9):
        raise ValueError("seconds is not a time in seconds")
    if method not in cfr.VARIANTS:
        raise ValueError(f"method is not one of {', '.join(cfr.VARIANTS)}")
    return Solved(HandStrategy(by_label), epsilon, tuple(float(v) for v in doc["values"]),
                  iterations, float(seconds), method)
