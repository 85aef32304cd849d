"""The round (docs/rules.md, "The round"): chips, hands as stage games, open throws, and the
stochastic game over chip states, solved and proved."""
