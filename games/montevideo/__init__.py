"""Montevideo, the pot game at the end of the English source's Bidou (docs/rules.md section 8,
docs/montevideo.md): antes, throws as in multi-hand Bidou, poker betting with side pots, the
highest hand takes each pot.

`params` holds the rules of one round, `betting` the pure rule functions (who leads, what is
legal, when the betting closes, the pots and who takes them), `game` the OpenSpiel game
`python_montevideo` of one round (importing it registers it).
"""
