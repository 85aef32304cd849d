"""Types shared across layers, named once (a second definition would drift)."""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping, Sequence

import numpy as np

# Exact rational probabilities of a strategy, by decision key: ("throw", role, context,
# throw, hand) or ("bet", node, hand), each a row of Fractions over the decision's actions
# (solver/hand/exact/equilibrium.py recovers them; strategy files keep them).
Exact = Mapping[tuple, Sequence[Fraction]]

# One player's own reach: (throw reach shaped like Strategy.throw[player], betting reach per
# own betting node (captain's throws, opponent's throws, history)).
OwnReach = tuple[np.ndarray, dict[tuple[int, int, str], np.ndarray]]

# Both players' own reach, by role.
Reach = tuple[OwnReach, OwnReach]
