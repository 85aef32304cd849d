"""`bidou play --round`: a whole round against the round's equilibrium, read from the saved
round (solver/round/store.py), with the chips and the person's chance to win the round
shown before every hand, and after each hand what each of his choices cost in win
probability.

A hand at a chip state is the stage game of that state: its leaves pay the captain's
chance to win the round from where the hand leads, so `play.Advisor` on the stage model
values each action in win probability directly. The hand is played by the engine of
`solver.app.play` (its throwing turn and betting walk); this module only follows the
chips from state to state (`solver.round.states`) and plays the open throws.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from games.bidou import rules
from games.bidou.betting import CAPTAIN, FOLD, OPPONENT, PASS, ROLE_NAMES, Leaf, Pot, Role, settle
from solver.app import play
from solver.hand.model import HandModel, build_model
from solver.hand.strategy import Strategy
from solver.round.advice import history_words, strategy_from_json
from solver.round.open_throw_table import action_word, open_throw_policies
from solver.round.stage import stage_model
from solver.round.states import ChipState, OpenThrowState, State, after_leaf, after_open_throw
from solver.round.states import start as round_start
from solver.round.store import SavedRound


class RoundGame:
    """The saved round's states, values, stage games and open-throw policies."""

    def __init__(self, saved: SavedRound) -> None:
        self.saved = saved
        self.params = saved.params
        self.values: dict[State, float] = {}
        for s in saved.report["states"]:
            kind = OpenThrowState if s["open_throw"] else ChipState
            self.values[kind(s["centre"], s["captain"], s["opponent"])] = s["value"]
        self.base = build_model(saved.params.hand)
        self.opens = {p.state: p.solved for p in open_throw_policies(saved.params,
                                                                     saved.report)}
        self._stages: dict[ChipState, tuple[HandModel, Strategy]] = {}

    def stage(self, state: ChipState) -> tuple[HandModel, Strategy]:
        if state not in self._stages:
            model = stage_model(self.base, state, lambda nxt: nxt.value(self.values))
            strategy = strategy_from_json(self.saved.stages()[state.label()], model)
            self._stages[state] = (model, strategy)
        return self._stages[state]


def _hand(model: HandModel, strategy: Strategy, human: int, rng: np.random.Generator,
          ask: play.Ask, tell: play.Tell) -> tuple[str, tuple[int, int], tuple[int, int],
                                                   list[play.Review]]:
    """One hand with the person in seat `human`: (betting history, both hands, throw
    counts, his choices reviewed in win probability)."""
    advisor = play.Advisor(model, strategy)
    reviews: list[play.Review] = []
    tc, captain_hand = play.throw_turn(model, strategy, CAPTAIN, 0, human, rng, ask, tell,
                                        advisor, reviews)
    if human == OPPONENT:
        tell(f"The captain threw {tc} time{'s' * (tc > 1)}.")
    to, opponent_hand = play.throw_turn(model, strategy, OPPONENT, tc - 1, human, rng, ask,
                                         tell, advisor, reviews)
    if human == CAPTAIN:
        tell(f"The opponent threw {to} time{'s' * (to > 1)}.")
    hands, tree, history = (captain_hand, opponent_hand), model.tree((tc, to)), ""
    while (node := play.node_at(tree, history)) is not None:
        probs = strategy.betting[(tc, to, history)][:, hands[node.actor]]
        if node.actor == human:
            action = ask(bet_choice_text(tree, node, human)
                         + f" [{'/'.join(node.actions)}]", list(node.actions))
            reviews.append(play.Review(
                f"betting with {rules.format_hand(model.hands[hands[human]])}"
                + (f" after {', '.join(history_words(history))}" if history
                   else ", opening"), action,
                {a: float(p) for a, p in zip(node.actions, probs)},
                advisor.bet_values((tc, to), history, human, hands[human])))
        else:
            action = node.actions[play.draw(rng, probs)]
            tell(f"The {ROLE_NAMES[node.actor]} {play.SAYS[action]}.")
        history = play.child_history(tree, history, action)
    return history, hands, (tc, to), reviews


def _pot(tree: Any, history: str) -> Pot:
    """The chips bet at a point of the hand (a decision's: those its fold would leave)."""
    point = tree.at(history)
    if isinstance(point, Leaf):
        return point.pot
    return tree.child(point, "fold").pot if "fold" in point.actions else Pot()


def _sources(centre: int, pile: int, whose: str) -> str:
    """Where chips come from: "from the centre", "1 from the centre, 1 from your pile"."""
    if not pile:
        return "from the centre"
    if not centre:
        return f"from {whose}"
    return f"{centre} from the centre, {pile} from {whose}"


def bet_choice_text(tree: Any, node: Any, me: int) -> str:
    """The question at a betting decision of the round, with what each answer puts in and
    what it risks in chips (the stage's payoffs are win probabilities, not chips): chips
    come from the centre, then from the bettor's pile; the weaker hand at a showdown takes
    every chip bet, a folder one chip from the centre (or, with none left there, from his
    opponent's pile)."""
    here = _pot(tree, node.history)

    def put_in(action: str) -> str:
        after = _pot(tree, tree.child(node, action).history)
        centre = after.from_centre[me] - here.from_centre[me]
        pile = after.from_pile[me] - here.from_pile[me]
        return f"you put in {_chips(centre + pile)}, {_sources(centre, pile, 'your pile')}"

    def called(action: str) -> str:
        """The showdown a call makes after `action`."""
        target = tree.child(node, action)
        leaf = target if isinstance(target, Leaf) else tree.child(target, "call")
        return f"the weaker hand takes {_chips(leaf.pot.total)}"

    choices = []
    for action in node.actions:
        if action == "pass":
            text = ("pass (if your opponent passes too, no chip moves)" if not node.history
                    else "pass (no chip moves)")
        elif action == "fold":
            folded = tree.child(node, "fold")
            settled = settle(tree.supply, folded.pot, FOLD, folder=Role(me))
            taken_centre = tree.supply.centre - settled.centre
            where = ("from the centre" if taken_centre else "from your opponent's pile")
            text = f"fold (you take {_chips(1)}, {where})"
        elif action == "call":
            text = f"call ({put_in(action)}; showdown: {called(action)})"
        else:
            level = node.level + 1
            name = "bet" if action == "bet" else f"raise to {level}"
            text = f"{name} ({put_in(action)}; if called, {called(action)})"
        choices.append(text)
    opening = ("" if node.level else "Your opponent passed. " if node.history else "")
    if node.level:
        facing = "a bet" if node.level == 1 else f"a raise to {node.level}"
        opening = f"You face {facing} ({_chips(here.total)} in the pot). "
    listed = ", ".join(choices[:-1]) + ", or " + choices[-1]
    return opening + listed[0].upper() + listed[1:] + "?"


def hand_result_text(state: ChipState, leaf: Leaf, outcome: int, me: int) -> str:
    """Who won the hand and the chips that moved (the loser takes them: chips are
    penalties), from the settlement of the leaf (`games.bidou.betting.settle`)."""
    supply = state.supply()
    settled = settle(supply, leaf.pot, leaf.kind, outcome, leaf.folder)
    gained = [settled.piles[p] - supply.piles[p] for p in (CAPTAIN, OPPONENT)]
    if not any(gained):
        return ("Both passed: no chip moves." if leaf.kind == PASS
                else "A tie: every chip bet goes back; no chip moves.")
    loser = CAPTAIN if gained[CAPTAIN] > 0 else OPPONENT
    winner = OPPONENT if loser == CAPTAIN else CAPTAIN
    centre = supply.centre - settled.centre
    pile = supply.piles[winner] - settled.piles[winner]
    whose = "your pile" if winner == me else "your opponent's pile"
    moved = f"{_chips(gained[loser])}, {_sources(centre, pile, whose)}"
    if leaf.kind == FOLD:
        return (f"You fold and take {moved}: your opponent wins the hand." if loser == me
                else f"Your opponent folds and takes {moved}: you win the hand.")
    return (f"You lose the hand: you take {moved}." if loser == me
            else f"You win the hand: your opponent takes {moved}.")


def _chips(n: int) -> str:
    return f"{n} chip{'s' * (n != 1)}"


def review_text(review: play.Review) -> str:
    """A choice beside the equilibrium's, its cost in win probability."""
    mix = ", ".join(f"{a} {play.percent_text(p)}" for a, p in sorted(
        review.equilibrium.items(), key=lambda item: -item[1]) if p > 5e-4)
    cost = review.cost
    verdict = (f"cost {cost:.2%} win probability" if cost >= 5e-5
               else "as the equilibrium does" if review.equilibrium.get(review.chosen, 0) > 5e-4
               else "no cost here")
    return f"{review.situation}: you chose {review.chosen} ({verdict}); equilibrium: {mix}."


def _open_turn(game: RoundGame, state: OpenThrowState, person: bool, low: bool,
               beat: rules.Hand | None, rng: np.random.Generator, ask: play.Ask,
               tell: play.Tell, notes: list[str]) -> rules.Hand:
    """One open throwing turn (the first thrower's if `low`, else against `beat`)."""
    solved, hand = game.opens[state], _throw(rng, (), game.params.hand.faces)
    who = "Your" if person else ("The first thrower's" if low else "The second thrower's")
    if beat is not None:
        tell(f"The hand to beat: {rules.format_hand(beat)}.")
    for throw in range(1, game.params.hand.throws + 1):
        tell(f"{who} throw {throw}: {rules.format_hand(hand)}.")
        if throw == game.params.hand.throws:
            return hand
        best = (solved.l_policy[(throw, hand)] if low
                else solved.h_policy[(beat, throw, hand)])  # type: ignore[index]
        options: list[Any] = [rules.STOP] + list(rules.keep_options(hand)
                                                 if game.params.hand.reroll == "keep"
                                                 else ((),))
        if person:
            names = [action_word(o) for o in options]
            chosen = options[names.index(ask(f"Open throw: [{'/'.join(names)}]", names))]
            if chosen != best:
                notes.append(f"open throw, after throw {throw} with "
                             f"{rules.format_hand(hand)}: you chose {action_word(chosen)}; "
                             f"optimal: {action_word(best)}")
        else:
            chosen = best
        if chosen == rules.STOP:
            return hand
        hand = _throw(rng, chosen, game.params.hand.faces)
    raise AssertionError("unreachable")


def _throw(rng: np.random.Generator, kept: Sequence[int], faces: int) -> rules.Hand:
    outcomes = list(rules.throw_distribution(tuple(kept), faces).items())
    probs = np.array([float(p) for _, p in outcomes])
    return rules.normalize_hand(outcomes[int(rng.choice(len(outcomes), p=probs))][0])


def play_round(game: RoundGame, rng: np.random.Generator, ask: play.Ask,
               tell: play.Tell) -> bool:
    """A whole round; True if the person wins it. `ask` raising EOFError ends it."""
    state: State = round_start(game.params.chips)
    mine = bool(rng.integers(2))          # the person is captain (or first thrower)?
    tell("The first captain is drawn by a die: "
         + ("you." if mine else "your opponent."))
    total_cost, hands = 0.0, 0
    while True:
        chance = game.values[state] if mine else 1 - game.values[state]
        if isinstance(state, OpenThrowState):
            piles = (state.low, state.high) if mine else (state.high, state.low)
            tell(f"\n— Open throw — centre {state.centre}, your pile {piles[0]}, your "
                 f"opponent's {piles[1]}; P(you win the round) = {chance:.4f}")
            notes: list[str] = []
            low_hand = _open_turn(game, state, mine, True, None, rng, ask, tell, notes)
            high_hand = _open_turn(game, state, not mine, False, low_hand, rng, ask, tell,
                                   notes)
            for note in notes:
                tell("  " + note)
            sign = rules.compare(low_hand, high_hand, game.params.hand.ranking,
                                 game.params.hand.aces_beat_bidou)
            if sign == 0:
                tell("A tie: the open throw is thrown again.")
                continue
            if sign > 0:
                return _end(tell, mine, hands, total_cost)
            nxt = after_open_throw(state)
        else:
            hands += 1
            piles = (state.captain, state.opponent) if mine else (state.opponent,
                                                                  state.captain)
            tell(f"\n— Hand {hands} — centre {state.centre}, your pile {piles[0]}, your "
                 f"opponent's {piles[1]}; you are the {'captain' if mine else 'opponent'}; "
                 f"P(you win the round) = {chance:.4f}")
            model, strategy = game.stage(state)
            human = CAPTAIN if mine else OPPONENT
            history, held, public, reviews = _hand(model, strategy, human, rng, ask, tell)
            tree = model.tree(public)
            leaf = play.leaf_at(tree, history)
            outcome = int(model.compare[held[0], held[1]])
            if leaf.kind == "showdown":
                tell(f"Showdown: captain {rules.format_hand(model.hands[held[0]])}, "
                     f"opponent {rules.format_hand(model.hands[held[1]])}.")
            tell(hand_result_text(state, leaf, outcome, human))
            for review in reviews:
                tell("  " + review_text(review))
            total_cost += sum(r.cost for r in reviews)
            nxt = after_leaf(state, leaf, outcome)
        if nxt.state is None:
            return _end(tell, mine == (nxt.end == 1), hands, total_cost)
        state, mine = nxt.state, mine == nxt.same


def _end(tell: play.Tell, won: bool, hands: int, cost: float) -> bool:
    tell(f"\nYou {'win' if won else 'lose'} the round after {hands} hand"
         f"{'s' * (hands != 1)}; your choices cost {cost:.2%} win probability in all "
         f"(each against the equilibrium's play at its state).")
    return won


def play_round_command(params: Any, chips: int, seed: int | None,
                       strategy_file: str | None) -> None:
    """`bidou play --round`: the saved round of these rules (solved and saved first if it
    never was), played with prompts on the terminal."""
    import click

    from games.bidou.params import ParameterError
    from games.bidou.round_params import RoundParams
    from solver.app.answers import read_answer
    from solver.app.progress import Progress
    from solver.app.saved_rounds import read_saved, solve_and_save

    if strategy_file is not None:
        raise ParameterError("--round plays the round's own equilibrium: no --strategy")
    if seed is not None and seed < 0:
        raise ParameterError(f"--seed must be 0 or more, got {seed}")
    rules_ = RoundParams(chips=chips, hand=params)
    saved = read_saved(rules_, True)
    if saved is None:
        with Progress() as progress:
            _, saved = solve_and_save(rules_, progress)

    def ask(prompt: str, options: Sequence[str]) -> str:
        while True:
            answer = read_answer(prompt)
            choice = play.match_choice(answer, options)
            if choice is not None and choice != "?":
                return choice
            click.echo(f"  Please type one of: {', '.join(options)}.")

    click.echo(f"A round of Bidou: {rules_.describe()}. Whoever ends with all "
               f"{chips} chips loses; a player holding {chips - 1} faces an open throw.")
    try:
        play_round(RoundGame(saved), np.random.default_rng(seed), ask, click.echo)
    except EOFError:
        click.echo("\nGame over (end of input).")
