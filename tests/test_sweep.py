"""bidou sweep: a grid of rule sets on a Dask LocalCluster, rows equal to single solves,
a worker killed mid-sweep, resumption, and one-line errors before any work."""

import os
import signal
import time
from fractions import Fraction
from pathlib import Path

import pandas as pd
import psutil
import pytest
from click.testing import CliRunner

import solver
from games.bidou.params import BidouParams, ParameterError
from solver.app.cli import main
from solver.hand.solve import solve
from solver.pipeline import bidou_sweep, dask_cluster, sweep
from solver.pipeline.bidou_sweep import SWEEP

WORKTREE = Path(solver.__file__).resolve().parent


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def client():
    """Two single-threaded worker processes on loopback, closed with the module."""
    with dask_cluster.dask_client(workers=2) as client:
        yield client


def test_workers_import_this_tree(client):
    infos = client.run(sweep.worker_info)
    assert len(infos) == 2
    for info in infos.values():
        assert Path(info["solver"]).resolve().parent == WORKTREE
        assert info["pid"] != os.getpid()


@pytest.mark.slow
def test_grid_rows_equal_single_solves_and_resume(client, tmp_path):
    grid = SWEEP.build_grid(faces="2,3", throws="1,2", max_level="1,2",
                            ranking="encyclopedia,french", aces_beat_bidou="true,false")
    assert len(grid) == 2 * 2 * 2 * 3          # encyclopedia ignores the aces flag
    report = SWEEP.run(grid, tmp_path, client, exact=True)
    assert report.solved == 24 and report.skipped == 0 and not report.failed
    table = pd.read_csv(tmp_path / "sweep.csv", dtype={"exact": str})
    assert list(table.columns) == list(SWEEP.columns) and len(table) == 24
    parquet = pd.read_parquet(tmp_path / "sweep.parquet")
    assert list(parquet.columns) == list(SWEEP.columns) and len(parquet) == 24
    assert (tmp_path / "sweep.png").read_bytes()[:4] == b"\x89PNG"
    by_key = {SWEEP.rule_key(r): r for r in table.to_dict("records")}
    for params in grid[::5]:
        one = solve(params, exact=True)
        row = by_key[SWEEP.rule_key(params)]
        assert row["value"] == pytest.approx(one.value, abs=1e-12)
        assert Fraction(row["exact"]) == one.certificate.exact
        assert row["lower"] <= one.certificate.exact <= row["upper"]
    # a known value held elsewhere (tests/test_cli.py): f3 t2 m2 encyclopedia
    assert Fraction(by_key[(3, 2, 2, "all", "encyclopedia", True)]["exact"]) == \
        Fraction(-794, 19683)

    # resumption: a wider grid solves only the new rule sets, the old rows are kept as they are
    before = (tmp_path / "sweep.csv").read_text().splitlines()
    wider = grid + SWEEP.build_grid(faces="2", throws="1,2", max_level="3")
    again = SWEEP.run(wider, tmp_path, client, exact=True)
    assert again.skipped == 24 and again.solved == 2
    after = (tmp_path / "sweep.csv").read_text().splitlines()
    assert len(after) == 27 and set(before) <= set(after)


@pytest.mark.slow
def test_a_worker_killed_mid_sweep(tmp_path):
    grid = SWEEP.build_grid(faces="3", throws="2", max_level="1,2,3,4",
                            reroll="all,keep", ranking="encyclopedia,french")
    killed = []
    with dask_cluster.dask_client(workers=2) as client:
        pids = {address: info["pid"] for address, info in client.run(sweep.worker_info).items()}

        def kill_a_busy_worker(what, done, total):
            if killed:
                return
            for _ in range(200):               # wait until a worker is in the middle of a task
                busy = [a for a, keys in client.processing().items() if keys and a in pids]
                if busy:
                    os.kill(pids[busy[0]], signal.SIGKILL)
                    killed.append(busy[0])
                    return
                time.sleep(0.01)

        report = SWEEP.run(grid, tmp_path, client, progress=kill_a_busy_worker)
        assert killed
        now = {i["pid"] for i in client.run(sweep.worker_info).values()}
        assert pids[killed[0]] not in now and len(now) == 2     # the nanny started another
    for _ in range(1200):                    # nothing the cluster started outlives it
        alive = [p for p in now | set(pids.values()) if psutil.pid_exists(p)
                 and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
        if not alive:
            break
        time.sleep(0.05)
    assert not alive
    assert report.solved == len(grid) == 16 and not report.failed
    table = pd.read_csv(tmp_path / "sweep.csv")
    assert len(table) == 16 and table["exploitability"].abs().max() < 1e-9
    row = table[(table.max_level == 2) & (table.reroll == "keep")
                & (table.ranking == "french")].iloc[0]
    params = BidouParams(faces=3, throws=2, max_level=2, reroll="keep", ranking="french")
    assert row["value"] == pytest.approx(solve(params).value, abs=1e-12)


@pytest.mark.slow
def test_cli_on_an_existing_scheduler(tmp_path):
    # a plain tcp:// cluster stands for a remote one (the local cluster of a sweep is TLS)
    with dask_cluster.local_cluster(1, secure=False) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        result = run("sweep", "--faces", "2", "--throws", "1,2", "--max-level", "2",
                     "--scheduler", address, "--out", str(tmp_path))
        assert result.exit_code == 0, result.output
        assert "2 rule sets solved, 0 already in the table" in result.output
        again = run("sweep", "--faces", "2", "--throws", "1,2", "--max-level", "2",
                    "--scheduler", address, "--out", str(tmp_path))
        assert "0 rule sets solved, 2 already in the table" in again.output
    table = pd.read_csv(tmp_path / "sweep.csv")
    assert table["value"].tolist() == pytest.approx([-0.075, -0.029296875], abs=1e-12)


def write_credentials(folder, security):
    """A Security's CA, client certificate and key as the files Dask's settings name."""
    folder.mkdir()
    settings = {}
    for name, text in (("ca-file", security.tls_ca_file),
                       ("client.cert", security.tls_client_cert),
                       ("client.key", security.tls_client_key)):
        (folder / name).write_text(text)
        settings[f"distributed.comm.tls.{name}"] = str(folder / name)
    return settings


def test_a_tls_scheduler_with_the_credentials_in_dasks_settings(client, tmp_path):
    import dask
    from distributed.security import Security

    address = client.scheduler.address                  # the fixture's cluster: TLS
    args = ["sweep", "--faces", "2", "--throws", "1", "--max-level", "2",
            "--scheduler", address, "--out", str(tmp_path / "o")]
    ours = write_credentials(tmp_path / "ours", client.security)
    with dask.config.set(ours):
        result = run(*args)
    assert result.exit_code == 0, result.output
    assert "1 rule sets solved, 0 already in the table" in result.output
    assert pd.read_csv(tmp_path / "o" / "sweep.csv")["value"].tolist() == \
        pytest.approx([-0.075], abs=1e-12)

    def refused(settings, message):
        with dask.config.set(settings):
            result = run(*args[:-1], str(tmp_path / "refused"))
        assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
        assert result.output.startswith("bidou: error: ") and message in result.output
        assert not (tmp_path / "refused").exists()

    refused({}, "a tls:// scheduler needs the client's credentials in Dask's configuration")
    other = write_credentials(tmp_path / "other", Security.temporary())
    refused(other, f"cannot reach the Dask scheduler {address}: TLS certificate does not "
                   f"match")
    refused({**ours, "distributed.comm.tls.ca-file": str(tmp_path / "absent.pem")},
            "Dask's TLS settings do not load: ")


def identity(address, **connection_args):
    """Dask's `identity` call to `address`, as any local process could make it."""
    import asyncio

    from distributed.comm import connect

    async def ask():
        comm = await connect(address, timeout=5, **connection_args)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    return asyncio.run(asyncio.wait_for(ask(), 10))


def strangers(address):
    """The ways another local user might knock: plain tcp://, TLS with no certificate, TLS
    with credentials of another cluster. Each returns the reply or the exception."""
    import ssl

    from distributed.security import Security

    anonymous = ssl.create_default_context()
    anonymous.check_hostname, anonymous.verify_mode = False, ssl.CERT_NONE
    knocks = {"tcp": lambda: identity(address.replace("tls://", "tcp://")),
              "tls without a certificate": lambda: identity(
                  address, ssl_context=anonymous, require_encryption=True),
              "tls with other credentials": lambda: identity(
                  address, **Security.temporary().get_connection_args("client"))}
    answers = {}
    for name, knock in knocks.items():
        try:
            answers[name] = knock()
        except Exception as error:
            answers[name] = error
    return answers


def test_the_local_cluster_lets_in_no_one_without_its_credentials(client, tmp_path):
    info = client.scheduler_info()
    listeners = [client.scheduler.address] + [
        address for worker, w in info["workers"].items() for address in (worker, w["nanny"])]
    assert len(listeners) == 5 and all(a.startswith("tls://127.0.0.1:") for a in listeners)
    seen = {}

    def knock_while_solving(what, done, total):     # the cluster is busy with the sweep
        if not seen:
            seen.update({address: strangers(address) for address in listeners})
            seen["ours"] = identity(client.scheduler.address,
                                    **client.security.get_connection_args("client"))

    grid = SWEEP.build_grid(faces="2", throws="1,2", max_level="1,2")
    report = SWEEP.run(grid, tmp_path, client, progress=knock_while_solving)
    assert report.solved == 4 and not report.failed
    assert seen.pop("ours")["type"] == "Scheduler"      # the knock itself works, with the key
    for address, answers in seen.items():
        assert list(answers) == ["tcp", "tls without a certificate",
                                 "tls with other credentials"]
        for name, answer in answers.items():
            assert isinstance(answer, Exception), (address, name, answer)
    with pytest.raises(ParameterError, match="cannot reach the Dask scheduler tcp://"):
        dask_cluster.identify(client.scheduler.address.replace("tls://", "tcp://"), 5)


@pytest.mark.parametrize("args, message", [
    (["--faces", "2,7"], "faces must be an integer from 2 to 6, got 7"),
    (["--throws", "1,,2"], "--throws must be a comma-separated list"),
    (["--reroll", "all,some"], "reroll must be one of all, keep"),
    (["--aces-beat-bidou", "maybe"], "aces_beat_bidou must be true or false"),
])
def test_bad_grids_fail_in_one_line_before_any_work(tmp_path, args, message):
    result = CliRunner().invoke(main, ["sweep", *args, "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert result.output.startswith("bidou: error: ") and message in result.output
    assert result.output.count("\n") == 1
    assert not (tmp_path / "o").exists()


def test_unusable_destinations_fail_before_any_work(tmp_path):
    a_file = tmp_path / "f"
    a_file.write_text("x")
    result = run("sweep", "--faces", "2", "--throws", "1", "--out", str(a_file))
    assert result.exit_code == 2 and "not a directory" in result.output
    (tmp_path / "d").mkdir()
    os.symlink(a_file, tmp_path / "d" / "sweep.csv")
    result = run("sweep", "--faces", "2", "--throws", "1", "--out", str(tmp_path / "d"))
    assert result.exit_code == 2 and "not a regular file" in result.output
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "sweep.csv").write_text("a,b\n1,2\n")
    result = run("sweep", "--faces", "2", "--throws", "1", "--out", str(tmp_path / "e"))
    assert result.exit_code == 2 and "is not a sweep table" in result.output
    with pytest.raises(ParameterError):
        SWEEP.build_grid(ranking="poker")


def test_a_bad_scheduler_address_is_one_line(tmp_path):
    result = run("sweep", "--faces", "2", "--throws", "1", "--scheduler", "nonsense",
                 "--out", str(tmp_path))
    assert result.exit_code == 2
    assert result.output == ("bidou: error: cannot reach the Dask scheduler nonsense: missing "
                             "port number in address 'nonsense'\n")


def test_a_task_that_returns_nothing_is_a_failure_not_a_row(client, tmp_path, monkeypatch):
    other = bidou_sweep.solve_row(BidouParams(faces=2, throws=2, max_level=1).to_dict())
    monkeypatch.setattr(SWEEP, "cell", lambda rules, exact=False: None)
    grid = SWEEP.build_grid(faces="2", throws="1")
    report = SWEEP.run(grid, tmp_path, client)
    assert report.solved == 0 and not report.rows
    assert report.failed == [(grid[0], "ValueError: the task returned NoneType, not a row")]
    with pytest.raises(ValueError, match="another rule set"):
        SWEEP.checked_row(other, grid[0])
    with pytest.raises(ValueError, match="columns"):
        SWEEP.checked_row({"faces": 2}, grid[0])


def test_the_local_cluster_serves_no_pages_and_removes_its_private_scratch():
    import stat
    import urllib.error
    import urllib.request

    with dask_cluster.dask_client(workers=1) as client:
        port = client.scheduler_info()["services"]["dashboard"]    # Dask's HTTP server
        for page in ("/status", "/info/main/workers.html", "/info/main/logs.html"):
            with pytest.raises(urllib.error.HTTPError) as error:
                urllib.request.urlopen(f"http://127.0.0.1:{port}{page}", timeout=5)
            assert error.value.code == 404
        [folder] = client.run(lambda dask_worker: dask_worker.local_directory).values()
        scratch = Path(folder).parents[1]
        assert scratch.name.startswith("bidou-dask-") and Path(folder).exists()
        assert stat.S_IMODE(scratch.stat().st_mode) == 0o700
    assert not scratch.exists()
