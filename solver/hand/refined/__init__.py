"""Refined equilibria of the hand: play that stays sensible where the equilibrium never goes.

The perturbed LP (solver/hand/lp/perturbed.py) is the sequence-form LP with trembles (every
action at every decision of both players played with at least a small probability);
`quasi_perfect` takes the limit of its solution and proves it exactly, `complete` makes play a best
reply to
Bayes's beliefs where only the other player goes, and `sequential` verifies, sharing no code
with any of them, that every action played anywhere is a best reply to some belief (Bayes's
where the other's strategy goes) and weakly dominated nowhere (`check`: that test, and a
stricter one against uniform trembles kept as a diagnostic). docs/refined.md says what is
proved and what is left.
"""
