"""Refined equilibria of the hand: play that stays sensible where the equilibrium never goes.

`perturbed_lp` builds the sequence-form LP of solver/lp.py with trembles (every action at
every decision of both players played with at least a small probability), `quasi_perfect`
takes the limit of its solution and proves it exactly, and `check` verifies, sharing no code
with either, that every action played anywhere is a best response to a trembling opponent
and weakly dominated nowhere. docs/refined.md says what is proved and what is left.
"""
