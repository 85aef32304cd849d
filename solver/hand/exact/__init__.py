"""Exact rational arithmetic on the hand: the certificate that proves a value interval from two
strategies, the exact equilibrium recovered from a float one, and that recovery run for both
players side by side."""
