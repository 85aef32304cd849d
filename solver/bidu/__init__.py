"""Solvers of Bidú (docs/bidu.md): `vuelta` gives the two-player vuelta's value as the
proved fixed point of the replay (B12), for variants small enough for the exact LP."""
