"""Le Bidou, the French game (docs/rules.md section 5): stakes instead of one-chip bets.

`params` (the validated rules and their description as a game of the family), `stakes`
(the betting structure and settlement), `game` (the OpenSpiel game `python_le_bidou`,
registered when that module is imported, as OpenSpiel's own python games are).
"""
