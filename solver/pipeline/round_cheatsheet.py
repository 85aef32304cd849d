"""The round cheat sheet: a hand's play that ignores the chips (the base), at most a dozen
chip rules in words (`solver.cheatsheet.round_rules`), and what playing it costs in win probability
from the round's start, proved.

The round's start is all chips in the centre, the first captain drawn by a die: a person's
chance to win from there is the mean of his chances as captain and as opponent, 1/2 for
the equilibrium. A sheet's cost is 1/2 minus the sheet player's chance:

* against a best reply: the other person best-replies at every state to the sheet played
  at every state, a one-player decision process over the chip states; the round's
  certificate (`solver.round.certify.certify_round`, run on the sheet's strategies) proves
  an upper bound (its super-solution) and that every reply ends the round;
* against the equilibrium: the other person plays the round's solved strategies; the
  chance is a fixed chain, proved in an exact interval (`solver.cheatsheet.round_exact`).

The chip rules are searched greedily from the base: at each step every candidate rule
(a chip scope of the family `chip_scopes` times a hand scope: the base book's rules and one
per kind of decision and player; its thresholds fitted to the round's equilibrium where it
applies) is scored by a first-order estimate (the change of the deviator's one-step value
at each state it touches, weighted by how often his current best reply visits it); the
best-estimated is measured by the deviator's floating-point best-reply values and added if
it lowers that cost (else the next, up to MEASURED), while one does and time is left
(`seconds`; a search the time limit stops says so, `SearchOutcome.stopped`). The final
sheet and the two baselines (the base alone, the hand equilibrium alone) are then proved.

The sheet's back prints what a player needs beside the rules, from the same solved round:
the hand ranking, when to stop in each open throw (`solver.round.open_throw_table`) and
the chance to win from each chip state (`back_data`).
"""

from __future__ import annotations

import dataclasses
import time
from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

from games.bidou.betting import CAPTAIN, OPPONENT
from solver.cheatsheet import rulebook
from solver.cheatsheet.round_exact import PairProofError, exact_rows, prove_pair
from solver.cheatsheet.round_rules import (
    Base,
    ChipRule,
    ChipScope,
    SheetPlay,
    chip_rule_text,
    sheet_strategies,
    strategy_in_stage,
)
from solver.cheatsheet.rulebook import STEPS, Rule
from solver.common.errors import SolverError
from solver.common.progress import Step, quiet
from solver.hand.model import HandModel, build_model
from solver.hand.strategy import Strategy
from solver.round.certify import (
    FIRST,
    SECOND,
    RoundCertificateError,
    certify_round,
    deviator_moves,
    deviator_stage,
    deviator_step,
    deviator_values,
)
from solver.round.solve import OpenStage, RoundSolution, Stage
from solver.round.states import ChipState, OpenThrowState, State, start

# The document's kind and version (solver/schemas/round-cheatsheet.schema.json).
SCHEMA, SCHEMA_VERSION = "bidou-round-cheatsheet", 2
MAX_RULES = 12
SECONDS: float | None = None   # a wall-clock bound on the search (None: only the work's)
# The search's clock, read at each candidate: a module attribute so that a test can make
# the time limit stop a search at a known candidate (never by measuring time).
CLOCK: Callable[[], float] = time.perf_counter
# Why a search ended: no candidate lowered the cost; MAX_RULES rules found; the time limit.
FINISHED, FULL, TIME_LIMIT = "finished", "max_rules", "time_limit"
MEASURED = 2              # candidates of a step measured, best estimate first, until one helps
IMPROVEMENT = 1e-7        # win probability a rule must save to be added
Key = tuple[State, int]


# --- a round from its saved files ------------------------------------------------------------

def solution_from_saved(saved: Any) -> RoundSolution:
    """The round a saved round (`solver.round.store.SavedRound`) describes: every chip
    state's stage game built again from the saved values, with its saved strategy; every
    open throw solved again exactly (`open_throw_table.open_throw_policies`)."""
    from solver.hand.strategy import StrategyFileError, check_strategy
    from solver.round.advice import strategy_from_json
    from solver.round.open_throw_table import open_throw_policies
    from solver.round.stage import stage_model
    from solver.round.states import solve_order, state_graph

    params = saved.params
    values: dict[State, float] = {}
    for s in saved.report["states"]:
        kind = OpenThrowState if s["open_throw"] else ChipState
        values[kind(s["centre"], s["captain"], s["opponent"])] = s["value"]
    base = build_model(params.hand)
    kept = saved.stages()
    stages = {}
    for state in sorted(s for s in values if isinstance(s, ChipState)):
        model = stage_model(base, state, lambda nxt: nxt.value(values))
        try:
            strategy = strategy_from_json(kept[state.label()], model)
            check_strategy(model, strategy)
        except (KeyError, TypeError, ValueError, StrategyFileError) as error:
            raise SolverError(f"the saved round's strategy of {state.label()} does not fit "
                              f"its stage game ({error})") from None
        stages[state] = Stage(model, strategy, values[state])
    opens = {p.state: OpenStage(float(p.solved.value), float(p.solved.p_l_wins), p.solved)
             for p in open_throw_policies(params, saved.report)}
    graph = state_graph(params.chips, params.hand.max_level)
    components = tuple(tuple(c) for c in solve_order(graph))
    return RoundSolution(params, values, stages, opens, components, {}, 0.0)


def replaced(solution: RoundSolution, strategies: dict[ChipState, Strategy]) -> RoundSolution:
    """The round with these stage strategies (the others kept)."""
    stages = {s: dataclasses.replace(stage, strategy=strategies.get(s, stage.strategy))
              for s, stage in solution.stages.items()}
    return dataclasses.replace(solution, stages=stages)


# --- costs -----------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Cost:
    """A way of playing the round and its proved cost from the start, in win probability:
    against a best reply at most `best_reply_upper` (and at least the cost against the
    equilibrium), against the equilibrium in [equilibrium_lower, equilibrium_upper]."""

    name: str
    best_reply_upper: Fraction
    equilibrium_lower: Fraction
    equilibrium_upper: Fraction
    best_reply_estimate: float

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "best_reply": float(self.best_reply_upper),
                "best_reply_upper": str(self.best_reply_upper),
                "best_reply_lower": str(self.equilibrium_lower),
                "best_reply_estimate": self.best_reply_estimate,
                "equilibrium": float(self.equilibrium_upper),
                "equilibrium_lower": str(self.equilibrium_lower),
                "equilibrium_upper": str(self.equilibrium_upper)}


def start_cost(solution: RoundSolution, W: dict[Key, float]) -> float:
    """1/2 minus the sheet player's chance from the start when the other best-replies (W:
    the deviator's values, in floating point)."""
    s = start(solution.params.chips)
    return (W[(s, FIRST)] + W[(s, SECOND)]) / 2 - 0.5


def prove_cost(solution: RoundSolution, strategies: dict[ChipState, Strategy],
               name: str) -> Cost:
    """The proved costs of playing `strategies` at every chip state (open throws as
    solved). SolverError if the certificate cannot prove them."""
    sheet = replaced(solution, strategies)
    try:
        proof = certify_round(sheet)
    except RoundCertificateError as error:
        raise SolverError(f"the cost of {name} could not be proved: {error}") from None
    s = start(solution.params.chips)
    at = proof.states[s]
    # the sheet as captain guarantees `lower`; as opponent it concedes at most `upper`
    upper = (at.upper - at.lower) / 2
    try:
        pair = prove_pair(exact_rows(solution, lambda state: strategies[state]))
    except PairProofError as error:
        raise SolverError(f"the cost of {name} against the equilibrium could not be "
                          f"proved: {error}") from None
    chance_low = (pair.lower[(s, 0)] + pair.lower[(s, 1)]) / 2
    chance_high = (pair.upper[(s, 0)] + pair.upper[(s, 1)]) / 2
    estimate = (at.first_exploitability + at.second_exploitability) / 2
    return Cost(name, upper, Fraction(1, 2) - chance_high, Fraction(1, 2) - chance_low,
                estimate)


# --- the candidates ---------------------------------------------------------------------------

def chip_scopes(solution: RoundSolution) -> list[ChipScope]:
    """The chip scopes tried: the centre empty or one chip in it, with any pile or the
    acting player's pile at most 2 or 3, or at least chips - 4 or chips - 3; and two or
    more chips in the centre, any pile (the round's equilibrium differs little from the
    hand game's there: docs/round.md)."""
    total = solution.params.chips
    owns = [(0, total)] + sorted({(0, k) for k in (2, 3) if 0 < k < total - 1}
                                 | {(k, total) for k in (total - 4, total - 3) if k > 1})
    out = [ChipScope(centre, own) for centre in ((0, 0), (1, 1)) for own in owns]
    return out + [ChipScope((2, total), (0, total))]


def hand_scopes(model: HandModel, base: Base) -> list[Rule]:
    """The hand scopes tried (params are placeholders): each rule of the base book and
    one per kind of decision for either player; without a book, one per kind for the
    captain, the opponent and either player."""
    dom = rulebook.domains(model)
    kinds = ["open", "face"]
    if model.throws > 1 and (model.params.reroll == "all" or base.rules is not None):
        kinds.insert(0, "throw")
    out = [r for r in base.rules or () if r.kind != "keep"]
    players = ((0, 1),) if base.rules is not None else ((0, 0), (1, 1), (0, 1))
    for kind in kinds:
        for player in players:
            scope = [player] + [dom[kind][f] for f in rulebook.FEATURES[kind][1:]]
            out.append(Rule(kind, rulebook.normalize_scope(model, kind, scope), ()))
    unique: dict[tuple, Rule] = {}
    for rule in out:
        unique.setdefault((rule.kind, rule.scope), rule)
    return list(unique.values())


class _Targets:
    """The round's equilibrium at each chip state, as the weights and choices a threshold
    rule is fitted to: for every decision of either player, P(each action) by hand and
    how often the decision is met with each hand (both playing the stage equilibrium)."""

    def __init__(self, solution: RoundSolution, hand: HandModel):
        from solver.hand.reach import own_reach

        self.hand = hand
        self.reach: dict[tuple[ChipState, int], Any] = {}
        for s, stage in solution.stages.items():
            for player in (CAPTAIN, OPPONENT):
                self.reach[(s, player)] = own_reach(stage.model, stage.strategy, player)
        self.solution = solution

    def decision(self, s: ChipState, atom: rulebook.Atom) -> tuple[np.ndarray, dict[str, Any]]:
        """(weight by hand, {action: P(action) by hand}) at one decision of a stage."""
        stage = self.solution.stages[s]
        throw_reach, bet_reach = self.reach[(s, atom.player)]
        if atom.kind == "throw":
            c, t = atom.key
            probs = stage.strategy.throw[atom.player][c, t - 1]
            return throw_reach[c, t - 1].sum(axis=0), {"stop": probs[0]}
        key = atom.key
        node = stage.model.tree(key[:2]).node(key[2]) if key in stage.strategy.betting \
            else None
        if node is None:
            return np.zeros(self.hand.num_hands), {}
        probs = stage.strategy.betting[key]
        return bet_reach[key][0], {a: probs[i] for i, a in enumerate(node.actions)}


def _best_cuts(costs: np.ndarray) -> tuple[int, int]:
    """argmin over i <= j of costs[i, j] (whole hands)."""
    masked = np.where(np.triu(np.ones(costs.shape, dtype=bool)), np.round(costs, 12), np.inf)
    i, j = np.unravel_index(np.argmin(masked), costs.shape)
    return int(i), int(j)


def fit_params(model: HandModel, kind: str, weighted: list[tuple[np.ndarray, dict]],
               ) -> tuple | None:
    """The threshold action (whole hands) disagreeing least with the equilibrium's
    choices, weighted by how often each hand meets each decision; None if never met."""
    n = model.num_hands
    order = np.argsort(rulebook.positions(model))       # strongest first
    total = np.zeros((3, n))                            # weighted disagreement per class
    for weight, probs in weighted:
        w = weight[order]
        if kind == "throw":
            stop = probs["stop"][order]
            total[0] += w * (1 - stop)
            total[1] += w * stop
        elif kind == "open":
            bet = probs.get("bet", np.zeros(n))[order]
            total[0] += w * (1 - bet)
            total[1] += w * bet
        else:
            call = probs["call"][order]
            up = probs["raise"][order] if "raise" in probs else call
            total[0] += w * (1 - up)
            total[1] += w * (1 - call)
            total[2] += w * (1 - probs["fold"][order])
    if total.sum() <= 0:
        return None
    prefix = np.concatenate([np.zeros((3, 1)), np.cumsum(total, axis=1)], axis=1)
    if kind == "throw":
        cost = prefix[0] + prefix[1, -1] - prefix[1]
        return (int(np.argmin(np.round(cost, 12))) * STEPS,)
    i, j = np.arange(n + 1)[:, None], np.arange(n + 1)[None, :]
    if kind == "open":       # bet with the i strongest and, as a bluff, from j on
        cost = prefix[0][i] + (prefix[1][j] - prefix[1][i]) + (prefix[0, -1] - prefix[0][j])
    else:                    # raise with the i strongest, call to j, fold the rest
        cost = prefix[0][i] + (prefix[1][j] - prefix[1][i]) + (prefix[2, -1] - prefix[2][j])
    a, b = _best_cuts(cost)
    return (a * STEPS, b * STEPS)


# --- the search --------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class SearchStep:
    rules: int
    cost: float        # the deviator's floating-point best-reply cost


@dataclasses.dataclass(frozen=True)
class SearchOutcome:
    """What the greedy search found and why it ended: `stopped` is TIME_LIMIT when the
    clock ran out first, so that a sheet never claims that no more rule would help when the
    search did not look (the rules found keep their proved costs all the same)."""

    chip_rules: list[ChipRule]
    steps: list[SearchStep]
    seconds: float
    candidates: int                    # candidates scored, over every step
    stopped: str                       # FINISHED, FULL or TIME_LIMIT


@dataclasses.dataclass(frozen=True)
class Sheet:
    """A searched round cheat sheet and its proved costs, with the baselines'."""

    model: HandModel
    params: Any                        # the round's rules (RoundParams)
    base: Base
    chip_rules: tuple[ChipRule, ...]
    costs: tuple[Cost, ...]            # the sheet, the base alone, the hand equilibrium
    steps: tuple[SearchStep, ...]
    seconds: float                     # the search's, measured
    bound: float | None                # its wall-clock bound, if any
    candidates: int = 0                # candidates the search scored
    stopped: str = FINISHED            # why it ended: FINISHED, FULL or TIME_LIMIT

    @property
    def chips(self) -> int:
        return self.params.chips

    def lines(self) -> list[str]:
        """The chip rules in words, one line each (`parse_chip_rule` reads them back)."""
        return [chip_rule_text(self.model, self.chips, r) for r in self.chip_rules]


class _Search:
    def __init__(self, solution: RoundSolution, base: Base):
        self.solution = solution
        self.hand = build_model(solution.params.hand)
        self.play = SheetPlay(self.hand, base)
        self.stages = {s: stage.model for s, stage in solution.stages.items()}
        self.targets = _Targets(solution, self.hand)
        self.atoms = self.play.atoms

    def strategies(self, chip_rules: Sequence[ChipRule]) -> dict[ChipState, Strategy]:
        return sheet_strategies(self.stages, self.play, chip_rules)

    def measure(self, strategies: dict[ChipState, Strategy]) -> tuple[float, dict]:
        W = deviator_values(replaced(self.solution, strategies))
        return start_cost(self.solution, W), W

    def candidates(self, chip_rules: Sequence[ChipRule]) -> list[ChipRule]:
        """Every new rule of the family, its thresholds fitted where it would apply (the
        decisions no earlier chip rule takes)."""
        out = []
        have = {(r.chips, r.rule.kind, r.rule.scope) for r in chip_rules}
        taken = {(s, i) for s in self.solution.stages for i, atom in enumerate(self.atoms)
                 if any(r.covers(atom, s) for r in chip_rules)}
        for chips in chip_scopes(self.solution):
            seats = [(s, player) for s in self.solution.stages for player in (CAPTAIN, OPPONENT)
                     if chips.covers(s.centre, s.captain if player == CAPTAIN else s.opponent)]
            for scope in hand_scopes(self.hand, self.play.base):
                if (chips, scope.kind, scope.scope) in have:
                    continue
                mine = [i for i, atom in enumerate(self.atoms) if scope.covers(atom)]
                weighted = [self.targets.decision(s, self.atoms[i]) for s, player in seats
                            for i in mine if self.atoms[i].player == player
                            and (s, i) not in taken]
                weighted = [(w, probs) for w, probs in weighted if probs]
                params = fit_params(self.hand, scope.kind, weighted) if weighted else None
                if params is None:
                    continue
                rule = rulebook.canonical(self.hand, dataclasses.replace(scope, params=params))
                out.append(ChipRule(chips, rule))
        return out

    def estimate(self, chip_rules: Sequence[ChipRule], candidate: ChipRule, W: dict,
                 visits: dict, cache: dict) -> float:
        """First-order change of the cost if `candidate` were added: at every (state,
        deviator's role) it changes, the deviator's one-step gain, weighted by his visits.
        `cache` holds the one-step values of this step's rules by (state, role, rule)."""
        change = 0.0
        trial = list(chip_rules) + [candidate]
        for s in self.solution.stages:
            keys = [(s, SECOND if p == CAPTAIN else FIRST)
                    for p in sorted(self.play.touched(s, candidate))]
            keys = [k for k in keys if visits.get(k, 0.0) > 1e-9]
            missing = [k for k in keys if (k, candidate.rule) not in cache]
            if missing:
                new = strategy_in_stage(self.stages[s], self.hand,
                                        self.play.hand_strategy(s, trial))
                for key in missing:
                    if key not in cache:         # the stage paying W, built once a step
                        cache[key] = deviator_stage(self.solution, s, key[1], W)
                    cache[(key, candidate.rule)] = deviator_step(cache[key], new,
                                                                 key[1]) - W[key]
            change += sum(visits[k] * cache[(k, candidate.rule)] for k in keys)
        return change


def visits(solution: RoundSolution, W: dict) -> dict[Key, float]:
    """Expected visits of each (state, role) from the start (each seat half the time) when
    the deviator plays his best reply to W against the current strategies."""
    moves = deviator_moves(solution, W)
    keys = list(moves)
    index = {k: i for i, k in enumerate(keys)}
    M = np.zeros((len(keys), len(keys)))
    for k, row in moves.items():
        for target, p in row.items():
            if target is not None:
                M[index[k], index[target]] += p
    e = np.zeros(len(keys))
    s = start(solution.params.chips)
    e[index[(s, FIRST)]] = e[index[(s, SECOND)]] = 0.5
    mu = np.linalg.solve(np.eye(len(keys)) - M.T, e)
    return {k: float(mu[i]) for i, k in enumerate(keys)}


def search(solution: RoundSolution, base: Base, max_rules: int = MAX_RULES,
           seconds: float | None = SECONDS, progress: Step | None = None,
           clock: Callable[[], float] | None = None) -> SearchOutcome:
    """The chip rules found greedily (module docstring), the cost after each step, the
    seconds the search took (by `clock`, default CLOCK) and why it ended."""
    step = progress or quiet
    clock = clock or CLOCK
    begin = clock()
    s = _Search(solution, base)
    chip_rules: list[ChipRule] = []
    current = s.strategies(chip_rules)
    cost, W = s.measure(current)
    steps = [SearchStep(0, cost)]
    scored_total = 0
    stopped = FULL

    def late() -> bool:
        return seconds is not None and clock() - begin > seconds

    while len(chip_rules) < max_rules:
        if late():
            stopped = TIME_LIMIT
            break
        step(f"{len(chip_rules)} chip rules: cost {cost:.5f}", len(chip_rules), max_rules)
        mu = visits(replaced(solution, current), W)
        scored: list[tuple[float, ChipRule]] = []
        cache: dict = {}
        cut = False
        for candidate in s.candidates(chip_rules):
            if late():
                cut = True
                break
            scored.append((s.estimate(chip_rules, candidate, W, mu, cache), candidate))
        scored_total += len(scored)
        scored.sort(key=lambda item: item[0])
        best = None
        for estimate, candidate in scored[:MEASURED]:
            if estimate >= 0:
                break
            trial = chip_rules + [candidate]
            strategies = s.strategies(trial)
            trial_cost, trial_W = s.measure(strategies)
            if trial_cost < cost - IMPROVEMENT:
                best = (trial_cost, trial_W, trial, strategies)
                break
        if best is None:
            stopped = TIME_LIMIT if cut else FINISHED
            break
        cost, W, chip_rules, current = best
        steps.append(SearchStep(len(chip_rules), cost))
    return SearchOutcome(chip_rules, steps, clock() - begin, scored_total, stopped)


def round_cheatsheet(solution: RoundSolution, base: Base, equilibrium: Strategy,
                     max_rules: int = MAX_RULES, seconds: float | None = SECONDS,
                     progress: Step | None = None) -> Sheet:
    """Search the chip rules, then prove the sheet's costs and the baselines': the base
    alone, and the hand game's equilibrium alone (`equilibrium`), at every state."""
    step = progress or quiet
    found = search(solution, base, max_rules, seconds, progress)
    chip_rules = found.chip_rules
    hand = build_model(solution.params.hand)
    stages = {st: stage.model for st, stage in solution.stages.items()}
    plays = [("the round cheat sheet", SheetPlay(hand, base), chip_rules),
             (base.name + " regardless of chips", SheetPlay(hand, base), [])]
    if base.rules is not None:
        plays.append(("the hand game's equilibrium regardless of chips",
                      SheetPlay(hand, Base("the hand game's equilibrium", equilibrium)), []))
    costs = []
    for done, (name, play, rules) in enumerate(plays):
        step(f"proving the cost of {name}", done, len(plays))
        costs.append(prove_cost(solution, sheet_strategies(stages, play, rules), name))
    return Sheet(hand, solution.params, base, tuple(chip_rules), tuple(costs),
                 tuple(found.steps), found.seconds, seconds, found.candidates, found.stopped)


def sheet_document(sheet: Sheet) -> dict[str, Any]:
    """The sheet as JSON (`bidou round --cheatsheet --json`; its schema:
    solver/schemas/round-cheatsheet.schema.json): rules in words and as data, proved
    costs, the search."""
    return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION,
            "rules": sheet.params.to_dict(), "rules_text": sheet.params.describe(),
            "base": sheet.base.name,
            "base_rules": [rulebook.rule_text(sheet.model, r) for r in sheet.base.rules or ()],
            "chip_rules": sheet.lines(),
            "chip_rule_list": [r.to_dict() for r in sheet.chip_rules],
            "costs": [c.to_dict() for c in sheet.costs],
            "search": {"steps": [{"rules": st.rules, "best_reply_cost": st.cost}
                                 for st in sheet.steps],
                       "seconds": sheet.seconds, "seconds_bound": sheet.bound,
                       "candidates": sheet.candidates, "stopped": sheet.stopped}}


def back_data(solution: RoundSolution) -> dict[str, Any]:
    """What the sheet's back prints, from the solved round: the hand ranking (strongest
    first, with the ranking's exceptions), each open throw's stopping line
    (`open_throw_table.open_throw_advice`, solved again exactly from the round's values as
    open_throw.md is) and every state's value (the win-probability map)."""
    from games.bidou import rules
    from solver.export.tables import hand_label
    from solver.round.open_throw_table import open_throw_advice, open_throw_policies

    hand = solution.params.hand
    model = build_model(hand)
    states = []
    for state, value in solution.values.items():
        if isinstance(state, OpenThrowState):       # the first thrower's pile first
            piles, opening = (state.low, state.high), True
        else:
            piles, opening = (state.captain, state.opponent), False
        states.append({"centre": state.centre, "captain": piles[0], "opponent": piles[1],
                       "open_throw": opening, "value": float(value)})
    states.sort(key=lambda e: (e["centre"], e["captain"], e["opponent"]))
    opens = []
    for policy in open_throw_policies(solution.params, {"states": states}):
        advice = open_throw_advice(solution.params, policy.solved)
        opens.append({"centre": policy.state.centre, "first_thrower_chips": policy.state.low,
                      "second_thrower_chips": policy.state.high, "value": policy.value,
                      "lose_value": float(policy.solved.continuation),
                      "first": advice["first"], "second_tied": advice["second_tied"],
                      "second_exceptions": advice["second_exceptions"]})
    ranked = rules.ranked_hands(hand.faces, hand.ranking)
    return {"ranking": [hand_label(h, hand.ranking) for h in ranked],
            "ranking_exceptions": [f"{rules.format_hand(model.hands[w])} beats "
                                   f"{rules.format_hand(model.hands[lo])}"
                                   for w, lo in model.exceptions],
            "open_throws": opens, "states": states}


def hand_base(params: Any, sheet_text: str | None) -> tuple[Base, Strategy]:
    """The base (the hand cheat sheet `sheet_text` states, else the hand game's
    equilibrium) and the hand game's equilibrium (for the baseline), solved now."""
    from solver.cheatsheet.round_rules import base_from_sheet
    from solver.pipeline.hand import solve_hand

    hand = build_model(params.hand)
    base = base_from_sheet(hand, sheet_text) if sheet_text is not None else None
    equilibrium = solve_hand(params.hand).solution.strategy
    return base or Base("the hand game's equilibrium", equilibrium), equilibrium


def round_cheatsheet_files(solution: RoundSolution, sheet_text: str | None,
                           max_rules: int = MAX_RULES, seconds: float | None = SECONDS,
                           progress: Step | None = None) -> tuple[dict[str, Any],
                                                                   dict[str, bytes]]:
    """The round cheat sheet's document and its files (`export.round_cheatsheet_page`)."""
    from solver.export.round_cheatsheet_page import round_cheatsheet_files as page_files

    base, equilibrium = hand_base(solution.params, sheet_text)
    document = sheet_document(round_cheatsheet(solution, base, equilibrium, max_rules,
                                               seconds, progress))
    document["back"] = back_data(solution)
    return document, page_files(document)
