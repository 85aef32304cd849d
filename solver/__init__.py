"""Solvers for Bidou and other small two-player zero-sum games."""
