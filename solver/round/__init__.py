"""The round (docs/rules.md, "The round"): chip states, hands as stage games, the open throw,
the stochastic game over chip states solved and proved, and a Monte Carlo simulator of whole
rounds written from the rules (an independent check)."""
