"""Two-hand Bidou: rules, parameters and the OpenSpiel game `python_bidou`.

Importing this package registers `python_bidou` with `pyspiel.register_game`.
"""

from games.bidou import game  # noqa: F401  (registers python_bidou)
