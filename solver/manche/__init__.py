"""The manche of Le Bidou as a stochastic game over (pool, first player's chips, second
player's chips), solved and proved state by state, with the match on top (docs/manche.md)."""
