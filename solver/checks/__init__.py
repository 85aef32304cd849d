"""Checks against other systems: OpenSpiel's game and solvers, Gambit."""
