"""The two-player hand: one compact model, its solvers and its measures.

Layers, bottom to top (each imports only those below it; pyproject.toml's contract checks it):
`model` (the compact model of a hand), `strategy`, `reach`, `best_response`; `exact/` (the
certificate, the exact equilibrium and its recovery); `result` and `evaluate` (a solved or
measured strategy pair); `lp/` and `cfr/` (the solvers); `refined/` (the quasi-perfect
equilibrium and its independent check); `solve` and `exact_solution` (the entry points).
"""
