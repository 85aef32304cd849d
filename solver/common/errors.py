"""Exceptions raised by the solvers."""


class SolverError(RuntimeError):
    """A numerical solver did not reach a trustworthy optimum.

    Raised instead of returning a value that might be wrong, e.g. when
    ``scipy.optimize.linprog`` reports a non-optimal status.
    """
