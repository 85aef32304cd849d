"""Two-hand Bidou: rules, parameters and the OpenSpiel games `python_bidou` (one hand) and
`python_bidou_round` (a capped round, an independent check of the round solver).

Importing this package registers both with `pyspiel.register_game`.
"""

from games.bidou import (
    game,  # noqa: F401  (registers python_bidou)
    round_game,  # noqa: F401  (registers python_bidou_round)
)
