"""Bidú, the Spanish pot game (docs/rules.md section 7, docs/bidu.md): everyone throws at
once, the highest hand takes the pot, and a vuelta nobody bets on is played again.

`params` holds the rules, `betting` the pure rule functions (who bets first, what is legal,
when the betting closes, who takes the pot), `game` the OpenSpiel game `python_bidu` of one
vuelta (importing it registers it).
"""
