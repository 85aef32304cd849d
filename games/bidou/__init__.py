"""Two-hand Bidou: rules, parameters and the OpenSpiel games `python_bidou` (one hand) and
`python_bidou_round` (a capped round, an independent check of the round solver).

Importing this package imports nothing: the rules and the solvers do not need OpenSpiel.
Registering a game with `pyspiel.register_game` is an explicit import, as for OpenSpiel's own
python games: `import games.bidou.game` registers python_bidou and `import
games.bidou.round_game` registers python_bidou_round.
"""
