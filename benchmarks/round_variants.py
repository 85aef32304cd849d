"""Which small rounds the solver proves: every combination of chips 3..6, faces 2..4,
throws 2..3, both rerolls and both rankings, solved and certified; one line per round that
is refused or fails, then the counts.

    python benchmarks/round_variants.py        # about 2 minutes on 2 cores

A refusal is the certificate declining to vouch (`RoundCertificateError`): the solved
strategies let a deviator keep the round going forever, or no exact super-solution was
found. docs/round.md quotes the counts.
"""

from __future__ import annotations

import itertools
import time

from games.bidou.params import BidouParams
from games.bidou.round_params import RoundParams
from solver.common.errors import SolverError
from solver.round.certify import RoundCertificateError, certify_round
from solver.round.solve import solve_round


def main() -> None:
    counts = {"proved": 0, "refused": 0, "failed": 0}
    begin = time.perf_counter()
    for chips, faces, throws, reroll, ranking in itertools.product(
            range(3, 7), (2, 3, 4), (2, 3), ("all", "keep"), ("encyclopedia", "french")):
        params = RoundParams(chips=chips, hand=BidouParams(
            faces=faces, throws=throws, reroll=reroll, ranking=ranking))
        try:
            certificate = certify_round(solve_round(params))
            assert max(p.width for p in certificate.states.values()) <= 1e-9
            counts["proved"] += 1
        except RoundCertificateError as error:
            counts["refused"] += 1
            print(f"refused  {params.describe()}: {error}", flush=True)
        except SolverError as error:
            counts["failed"] += 1
            print(f"failed   {params.describe()}: {error}", flush=True)
    print(", ".join(f"{k} {v}" for k, v in counts.items())
          + f" ({time.perf_counter() - begin:.0f} s)")


if __name__ == "__main__":
    main()
