"""The sweep's folder and table: one sweep at a time in a folder,
resumed rows checked as strictly as a strategy file, one-line refusals before any work.
None of these start a Dask cluster."""

import os
import signal
import subprocess
import sys

import pytest
from click.testing import CliRunner

from games.bidou.params import BidouParams, ParameterError
from solver.app.cli import main
from solver.pipeline import bidou_sweep, dask_cluster, sweep
from solver.pipeline.bidou_sweep import SWEEP

HOLD = """
import sys, time
from solver.pipeline.sweep import sweep_lock
with sweep_lock(sys.argv[1]):
    print("held", flush=True)
    time.sleep(120)
"""


def run(*args):
    return CliRunner().invoke(main, list(args))


def no_cluster(monkeypatch):
    """A sweep that starts or reaches a Dask cluster from here on fails the test."""
    def fails(*_, **__):
        raise AssertionError("a cluster was started or connected to")

    for name in ("dask_client", "local_cluster", "connect", "identify"):
        monkeypatch.setattr(dask_cluster, name, fails)


def one_line_error(result, text):
    assert result.exit_code == 2, result.output
    assert result.output.startswith("bidou: error: ") and result.output.count("\n") == 1
    assert text in result.output, result.output


def test_a_second_sweep_into_a_held_folder_is_refused_then_a_dead_lock_is_taken(tmp_path,
                                                                                   monkeypatch):
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        assert (tmp_path / "sweep.lock").read_text() == f"{holder.pid}\n"
        with monkeypatch.context() as refused:
            no_cluster(refused)                       # refused before a cluster starts
            result = run("sweep", "--faces", "2", "--throws", "1", "--out", str(tmp_path))
        one_line_error(result, f"is in use by another sweep (pid {holder.pid}")
        with pytest.raises(ParameterError, match="in use by another sweep"):
            with sweep.sweep_lock(tmp_path):
                pass
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    # the killed holder left its lock file (and pid) behind: it is taken over
    assert (tmp_path / "sweep.lock").read_text() == f"{holder.pid}\n"
    with sweep.sweep_lock(tmp_path) as lock:
        assert lock.read_text() == f"{os.getpid()}\n"
        with sweep.sweep_lock(tmp_path):              # re-entrant within a process
            assert lock.exists()
    assert not (tmp_path / "sweep.lock").exists()


def test_a_lock_on_a_new_folder_leaves_no_empty_folder(tmp_path):
    with sweep.sweep_lock(tmp_path / "new"):
        assert (tmp_path / "new" / "sweep.lock").exists()
    assert not (tmp_path / "new").exists()


@pytest.fixture(scope="module")
def table_text(tmp_path_factory):
    """A real two-row table, solved here without Dask (the same rows a worker makes)."""
    folder = tmp_path_factory.mktemp("table")
    rows = [bidou_sweep.solve_row(BidouParams(faces=2, throws=t, max_level=2).to_dict(), exact=True)
            for t in (1, 2)]
    return SWEEP.write_csv(folder, rows).read_text()


def write(tmp_path, text):
    (tmp_path / "sweep.csv").write_text(text)
    return tmp_path


def test_a_good_table_reads_back_as_written(tmp_path, table_text):
    rows = SWEEP.read_rows(write(tmp_path, table_text))
    assert [r["throws"] for r in rows] == [1, 2] and rows[0]["exact"] == "-3/40"
    assert rows[0]["value"] == pytest.approx(-0.075) and rows[0]["faces"] == 2


def test_a_truncated_last_row_is_dropped_and_solved_again(tmp_path, table_text):
    rows = SWEEP.read_rows(write(tmp_path, table_text[:-9]))       # cut inside `seconds`
    assert [r["throws"] for r in rows] == [1]


def test_an_identical_duplicate_row_is_collapsed(tmp_path, table_text):
    lines = table_text.splitlines(keepends=True)
    assert len(SWEEP.read_rows(write(tmp_path, table_text + lines[1]))) == 2


def edit(table_text, column, value, line=1):
    lines = table_text.splitlines(keepends=True)
    fields = lines[line].rstrip("\n").split(",")
    fields[SWEEP.columns.index(column)] = value
    lines[line] = ",".join(fields) + "\n"
    return "".join(lines)


@pytest.mark.parametrize("column, value, message", [
    ("value", "abc", "line 2: value is not a number: 'abc'"),
    ("lower", "nan", "line 2: lower is not a finite number"),
    ("faces", "99", "line 2: faces must be an integer from 2 to 6, got 99"),
    ("faces", "2.7", "line 2: faces must be an integer, got '2.7'"),
    ("reroll", "sometimes", "line 2: "),
    ("aces_beat_bidou", "maybe", "line 2: aces_beat_bidou must be true or false"),
    ("exact", "garbage", "line 2: exact is not a fraction: 'garbage'"),
    ("exact", "1/0", "line 2: exact is not a fraction"),
    ("exact", "1e-999999999", "line 2: exact is not a fraction"),
    ("exact", "1/3", "line 2: exact 1/3 is outside its certified interval"),
    ("exact", "9" * 20_000, "line 2: exact is not a fraction"),
])
def test_malformed_rows_are_one_line_errors(tmp_path, table_text, column, value, message):
    with pytest.raises(ParameterError, match="sweep.csv line 2: ") as error:
        SWEEP.read_rows(write(tmp_path, edit(table_text, column, value)))
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_duplicate_row_with_another_value_is_refused(tmp_path, table_text):
    lines = table_text.splitlines(keepends=True)
    other = edit(table_text, "value", "-0.5").splitlines(keepends=True)[1]
    with pytest.raises(ParameterError, match="line 4: a second row for 2 faces, 1 throws"):
        SWEEP.read_rows(write(tmp_path, "".join(lines) + other))


def test_the_command_refuses_a_malformed_table_before_any_work(tmp_path, table_text):
    write(tmp_path, edit(table_text, "value", "abc"))
    result = run("sweep", "--faces", "2", "--throws", "1", "--out", str(tmp_path))
    one_line_error(result, "line 2: value is not a number")


def test_an_empty_out_is_refused(tmp_path):
    one_line_error(run("sweep", "--faces", "2", "--out", ""), "the folder name is empty")


def serve(mode):
    """A TCP service on loopback that is not Dask: `silent` accepts and never answers,
    `http` answers every request with an HTTP error."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    held = []

    def loop():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            if mode == "http":
                conn.recv(65536)
                conn.sendall(b"HTTP/1.0 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    threading.Thread(target=loop, daemon=True).start()
    return server


@pytest.mark.parametrize("mode, message", [
    ("silent", "did not answer in 1 s (is it a Dask scheduler?)"),
    ("http", "cannot reach the Dask scheduler tcp://127.0.0.1:"),
])
def test_a_scheduler_that_is_not_dask_is_refused_in_bounded_time(tmp_path, monkeypatch,
                                                                  mode, message):
    """Asked who it is under the handshake's deadline, it is refused: by the deadline
    (silent) or by what it answers (HTTP), and never given a Dask client."""
    monkeypatch.setattr(dask_cluster, "HANDSHAKE_SECONDS", 1.0)
    deadlines, identify = [], dask_cluster.identify

    def identified(address, seconds):
        deadlines.append(seconds)
        return identify(address, seconds)

    monkeypatch.setattr(dask_cluster, "identify", identified)
    import dask.distributed

    monkeypatch.setattr(dask.distributed, "Client", lambda *_, **__: (_ for _ in ()).throw(
        AssertionError("a Dask client was made for a service that is not Dask")))
    server = serve(mode)
    try:
        address = "tcp://127.0.0.1:%d" % server.getsockname()[1]
        result = run("sweep", "--faces", "2", "--throws", "1", "--scheduler", address,
                     "--out", str(tmp_path / "o"))
    finally:
        server.close()
    one_line_error(result, message)
    assert deadlines == [1.0]
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("address, message", [
    ("", "--scheduler: the address is empty"),
    ("  ", "--scheduler: the address is empty"),
    ("ucx://127.0.0.1:8786", "only tcp:// and tls:// addresses are supported, not ucx://"),
    ("tls://127.0.0.1:8786", "a tls:// scheduler needs the client's credentials in Dask's "
                             "configuration; distributed.comm.tls.ca-file, "
                             "distributed.comm.tls.client.cert not set"),
    ("ws://127.0.0.1:8786", "only tcp:// and tls:// addresses are supported, not ws://"),
])
def test_unsupported_scheduler_addresses_are_one_line(tmp_path, monkeypatch, address,
                                                     message):
    no_cluster(monkeypatch)                           # refused before any connection
    result = run("sweep", "--faces", "2", "--throws", "1", "--scheduler", address,
                 "--out", str(tmp_path / "o"))
    one_line_error(result, message)
    assert not (tmp_path / "o").exists()


def test_duplicate_list_entries_are_collapsed_before_the_grid_is_expanded(monkeypatch):
    import itertools
    import types

    expanded = []

    def product(*lists):
        expanded.append([len(values) for values in lists])
        return itertools.product(*lists)

    monkeypatch.setattr(sweep, "itertools", types.SimpleNamespace(product=product))
    grid = SWEEP.build_grid(faces=",".join(["2", "3", "02"] * 10),
                            throws=",".join(["1", " 1"] * 10),
                            max_level=",".join(["2"] * 20), reroll=",".join(["all"] * 10),
                            ranking=",".join(["french"] * 10),
                            aces_beat_bidou="true,True,1,false")
    # faces 2 and 3, aces true and false: 4 combinations (4.8 million before, 20 s)
    assert expanded == [[2, 1, 1, 1, 1, 2]]
    assert len(grid) == 4 and len(set(grid)) == 4


def test_local_workers_are_bounded():
    cap = dask_cluster.max_local_workers()
    assert dask_cluster.local_workers(None, 1) == 1 and dask_cluster.local_workers(cap, 3) == 3
    assert dask_cluster.local_workers(2, 100) == 2
    with pytest.raises(ParameterError, match=f"--workers 1000: at most {cap}"):
        dask_cluster.local_workers(1000, 1)


def test_too_many_workers_is_one_line(tmp_path):
    result = run("sweep", "--faces", "2", "--throws", "1", "--workers", "1000",
                 "--out", str(tmp_path / "o"))
    one_line_error(result, "--workers 1000: at most")
    assert not (tmp_path / "o").exists()


BIG = ["--faces", "2,3,4,5,6", "--throws", "1,2,3", "--max-level", "1,2,3,4,5,6,7,8",
       "--reroll", "all,keep", "--ranking", "french", "--aces-beat-bidou", "true,false"]


def test_a_big_grid_needs_yes_and_gets_an_estimate(tmp_path, monkeypatch):
    result = run("sweep", *BIG, "--out", str(tmp_path / "o"))
    one_line_error(result, "480 rule sets to solve (about ")
    assert "give --yes to run them" in result.output and not (tmp_path / "o").exists()

    seen = {}

    def no_cluster(scheduler, workers, dashboard):
        seen.update(workers=workers)
        raise ParameterError("no cluster in this test")

    monkeypatch.setattr(dask_cluster, "dask_client", no_cluster)
    result = CliRunner().invoke(main, ["sweep", *BIG, "--yes", "--workers", "3",
                                       "--out", str(tmp_path / "o")])
    assert result.output.startswith("480 rule sets to solve (about ")
    assert seen == {"workers": 3}
    result = run("sweep", "--faces", "2", "--throws", "1", "--workers", "3",
                 "--out", str(tmp_path / "o"))
    assert seen == {"workers": 1}                # never more workers than rule sets
