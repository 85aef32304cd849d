"""Montevideo's heads-up end solved as a two-player stochastic game over chip states and
proved in exact arithmetic (docs/montevideo.md)."""
