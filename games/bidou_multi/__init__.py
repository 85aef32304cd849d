"""Multi-hand Bidou (docs/rules.md, "Multi-hand Bidou"): three or four players, six chips each,
bets to a common pot, the nine betting situations of the source and the Poor Fish variant.

`params` holds the rules, `betting` the pure rule functions (who acts, what is legal, who takes
what), `game` the OpenSpiel game `python_bidou_multi` (importing it registers it)."""
