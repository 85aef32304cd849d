"""Time `bidou sweep` on the full grid of the hand game, one worker against all cores.

    python benchmarks/bench_sweep.py [--repeats 1] [--subset] [--workers 1,2] [--table DIR]
    python benchmarks/bench_sweep.py --startup 5 [--workers 2] [--record]

The full grid: faces 2..6, throws 1..3, max level 1..4, both rerolls, both rankings,
aces on and off for the French one (360 rule sets), each solved by LP + exact certificate on
a Dask LocalCluster of single-threaded worker processes. For each worker count: the median
wall time of the whole sweep over the repeats (cluster start excluded, a fresh table each
time), the sum of the per-row solve seconds, and the speed-up against one worker. `--subset`
keeps faces 2..4 (a quick look). `--table DIR` keeps the last table (sweep.csv, .parquet,
.png) there.

`--startup N` measures what the local cluster's TLS costs instead: N
small sweeps (4 rule sets) from nothing to the closed cluster, each with the cluster's
temporary TLS credentials and on plain tcp://, taken in turn; the medians and their
difference (the credentials' key generation, the handshakes and encryption). With `--record`
they go into docs/data/benchmarks.json as `sweep_tls`, and docs/reliability.md's passage that
quotes them is written again (solver/app/timings.py).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time

from solver.pipeline.bidou_sweep import SWEEP
from solver.pipeline.dask_cluster import dask_client, local_cluster


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--subset", action="store_true", help="faces 2..4 only")
    parser.add_argument("--workers", default=f"1,{os.cpu_count()}")
    parser.add_argument("--table", default=None, help="keep the last table in this directory")
    parser.add_argument("--startup", type=int, default=0, metavar="N",
                        help="time N small sweeps with TLS and N without, cluster start included")
    parser.add_argument("--record", action="store_true",
                        help="with --startup: write the medians to docs/data/benchmarks.json "
                             "and the docs")
    args = parser.parse_args()
    if args.record and not args.startup:
        parser.error("--record records the --startup measurement only")
    if args.startup:
        startup(args.startup, int(args.workers.split(",")[-1]), args.record)
        return
    grid = SWEEP.build_grid(faces="2,3,4" if args.subset else "2,3,4,5,6", throws="1,2,3",
                            max_level="1,2,3,4", reroll="all,keep",
                            ranking="encyclopedia,french", aces_beat_bidou="true,false")
    counts = [int(w) for w in args.workers.split(",")]
    print(f"grid: {len(grid)} rule sets; {os.cpu_count()} cores; repeats {args.repeats}")
    print(f"{'workers':>7} {'median wall s':>14} {'sum of solves s':>16} {'rows/s':>7} "
          f"{'speed-up':>9}")
    base = None
    for workers in counts:
        walls, work = [], []
        with dask_client(workers=workers) as client:
            client.wait_for_workers(workers)
            for _ in range(args.repeats):
                out = tempfile.mkdtemp(prefix="bench-sweep-")
                start = time.perf_counter()
                report = SWEEP.run(grid, out, client)
                walls.append(time.perf_counter() - start)
                assert not report.failed and report.solved == len(grid), report.failed
                work.append(sum(r["seconds"] for r in report.rows))
                if args.table:
                    shutil.copytree(out, args.table, dirs_exist_ok=True)
                shutil.rmtree(out)
        wall = statistics.median(walls)
        base = base or wall
        print(f"{workers:>7} {wall:>14.1f} {statistics.median(work):>16.1f} "
              f"{len(grid) / wall:>7.2f} {base / wall:>8.2f}x", flush=True)


def small_sweep(workers: int, secure: bool) -> float:
    """Seconds from nothing to a closed cluster, 4 rule sets solved on the way."""
    from dask.distributed import Client

    grid = SWEEP.build_grid(faces="2", throws="1,2", max_level="1,2")
    out = tempfile.mkdtemp(prefix="bench-sweep-")
    start = time.perf_counter()
    with local_cluster(workers, secure=secure) as cluster, Client(cluster) as client:
        report = SWEEP.run(grid, out, client)
    seconds = time.perf_counter() - start
    assert not report.failed and report.solved == len(grid), report.failed
    shutil.rmtree(out)
    return seconds


def startup(repeats: int, workers: int, record: bool = False) -> None:
    load = os.getloadavg()
    times: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(repeats):
        for secure in (True, False):             # in turn: the machine's load hits both
            times[secure].append(small_sweep(workers, secure))
    tls, tcp = (statistics.median(times[s]) for s in (True, False))
    paired = statistics.median(a - b for a, b in zip(times[True], times[False]))
    print(f"small sweep (4 rule sets, {workers} workers, cluster start included), "
          f"median of {repeats}: TLS {tls:.2f} s, tcp {tcp:.2f} s; TLS costs {tls - tcp:+.2f} s "
          f"(median of the paired differences {paired:+.2f} s; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print("  TLS:", " ".join(f"{t:.2f}" for t in times[True]))
    print("  tcp:", " ".join(f"{t:.2f}" for t in times[False]))
    if record:
        from solver.app.timings import record as write_record
        differences = [a - b for a, b in zip(times[True], times[False])]
        rows = [{"what": what, "median_s": round(statistics.median(runs), 3),
                 "fastest (s)": f"{min(runs):.2f}", "slowest (s)": f"{max(runs):.2f}",
                 "runs": len(runs)}
                for what, runs in ((f"sweep of 4 rule sets on {workers} workers, tls://",
                                    times[True]),
                                   (f"sweep of 4 rule sets on {workers} workers, tcp://",
                                    times[False]),
                                   ("tls:// minus tcp://, run by run", differences))]
        path = write_record("sweep_tls", f"python benchmarks/bench_sweep.py --startup {repeats} "
                            f"--workers {workers} --record", rows, load)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
