"""Small inputs that asked for unbounded work: an exponent in a sweep table's exact value,
a checkpoint whose arrays expand to gigabytes, a huge sparse multi cache file, and
`exploit --at` with many situations. Each is refused from what is read first (a string's
shape, an array's header, a file's size) or handled in linear time."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from games.bidou_multi.params import MultiParams, ParameterError
from solver.app.cli import main
from solver.multi import checkpoint
from solver.multi import situations as cache
from solver.multi.situations import SituationCache, Situations, hand_params
from solver.multi.solve import DEFAULT_METHOD
from solver.pipeline import sweep
from solver.pipeline.le_bidou_sweep import SWEEP as LE_BIDOU
from solver.pipeline.results_sweep import checked_rows

ROOT = Path(__file__).resolve().parents[1]


def one_error_line(result, words: str) -> None:
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("bidou: error:")]
    assert len(errors) == 1 and words in errors[0], result.output
    assert "Traceback" not in result.output


# --- the sweep tables' exact values ------------------------------------------------------------

def test_an_exponent_in_le_bidou_sweep_exact_is_refused_unread(tmp_path):
    """Le Bidou's table read `exact` with Fraction() as it came, and 1e-99999999 ground on
    for minutes; it goes through the one check of both tables now."""
    published = (ROOT / "docs" / "data" / LE_BIDOU.TABLE).read_text().splitlines()
    fields = published[1].split(",")
    fields[LE_BIDOU.columns.index("exact")] = "1e-99999999"
    (tmp_path / LE_BIDOU.TABLE).write_text(f"{published[0]}\n{','.join(fields)}\n")
    with pytest.raises(ParameterError, match="line 2: exact is not a fraction: '1e-99999999'"):
        LE_BIDOU.read_rows(tmp_path)


@pytest.mark.parametrize("text", ["-3/40", "7", "1" + "0" * 450 + "/3" + "0" * 450,
                                  "1e-99999999", "1/0", "1.5", " 1/2", "٣/4", "9" * 20_000])
def test_the_results_read_exact_values_by_the_sweeps_one_check(text):
    """The results' own pattern (400 digits a side) refused what the sweep wrote and read
    back; both now ask `sweep.is_exact_text`."""
    row = {"faces": 2, "throws": 1, "max_level": 1, "reroll": "all",
           "ranking": "encyclopedia", "aces_beat_bidou": True, "value": 0.0, "lower": 0.0,
           "upper": 0.0, "exact": text}
    try:
        sweep.parse_exact(text, -1e300, 1e300)
        sweep_takes = True
    except ParameterError:
        sweep_takes = False
    try:
        checked_rows([row])
        results_take = True
    except ParameterError:
        results_take = False
    assert sweep_takes == results_take == sweep.is_exact_text(text)


# --- a checkpoint whose arrays would expand to gigabytes ---------------------------------------

def npy(shape: tuple, data: bytes, descr: str = "<f8") -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False,
                                                  "shape": shape})
    return buffer.getvalue() + data


def test_a_checkpoint_is_refused_from_its_array_headers(tmp_path, monkeypatch):
    """A small .npz whose headers claim 300 million floats (2.4 GB): refused from the
    headers; before, every array was decompressed (twice) before its shape was checked."""
    params = MultiParams(faces=2, throws=1, chips=2)
    shape = (300_000_000, 1)
    meta = {"schema": checkpoint.SCHEMA, "schema_version": checkpoint.SCHEMA_VERSION,
            "game": params.to_game_string(), "rules": params.to_dict(),
            "method": DEFAULT_METHOD, "iterations": 10, "seconds": 1.0, "curve": [],
            "shape": list(shape)}
    text = json.dumps(meta).encode()
    path = tmp_path / "big.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("meta.npy", npy((len(text),), text, "|u1"))
        for name in ("regrets", "strategy_sum"):       # the data cut short at 8 MB
            archive.writestr(f"{name}.npy", npy(shape, bytes(8 * 2**20)))
    assert path.stat().st_size < 2**20
    decompressed = []
    read = zipfile.ZipExtFile.read

    def counted(self, n=-1):
        data = read(self, n)
        decompressed.append(len(data))
        return data

    monkeypatch.setattr(zipfile.ZipExtFile, "read", counted)
    with pytest.raises(ParameterError, match=r"holds arrays of shape \(300000000, 1\), more "
                                             r"numbers than the tree"):
        checkpoint.check(path, params, DEFAULT_METHOD)
    assert sum(decompressed) < 2**16
    one_error_line(CliRunner().invoke(main, ["multi", "--faces", "2", "--throws", "1",
                                             "--chips", "2", "--resume", str(path)]),
                   "more numbers than the tree of these rules has cells")


def test_a_checkpoint_with_a_huge_meta_is_refused_from_its_header(tmp_path):
    params = MultiParams(chips=2)
    path = tmp_path / "meta.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("meta.npy", npy((2**31,), bytes(2**20), "|u1"))
    with pytest.raises(ParameterError, match="its meta is not up to"):
        checkpoint.check(path, params, DEFAULT_METHOD)


# --- a huge sparse multi cache file -------------------------------------------------------------

def test_a_huge_sparse_multi_cache_file_is_refused_unread(tmp_path):
    """A 3 GB sparse file at a situation's name was read whole (6.3 GB, 50 s)."""
    params = MultiParams(faces=2, throws=1, chips=2)
    situations = Situations(params, 20)
    folder = tmp_path / "mc"
    folder.mkdir(mode=0o700)
    path = SituationCache(folder).path(hand_params(params, 3), situations.key((2, 2, 2)),
                                       situations.settings)
    with open(path, "wb") as handle:
        handle.truncate(3 * 2**30)
    assert cache.MAX_ENTRY_BYTES < 3 * 2**30
    result = CliRunner().invoke(main, ["multi", "--faces", "2", "--throws", "1", "--chips",
                                       "2", "--iterations", "20", "--simulate", "2",
                                       "--cache", str(folder)])
    one_error_line(result, "is too large for a cached situation")


# --- exploit --at with many situations ----------------------------------------------------------

MANY_SITUATIONS = """
import sys
from games.bidou.betting import CAPTAIN
from games.bidou.params import BidouParams
from solver.exploit import locking
from solver.exploit.locked_game import Situation, locked_rows
from solver.hand.model import build_model
from solver.hand.strategy import uniform_strategy

model = build_model(BidouParams())
rows = locking.player_rows(model, locking.exact_rows(model, uniform_strategy(model)), CAPTAIN)
chosen = [Situation("betting", 9, 9, f"h{i}") for i in range(200_000)]
print(len(locked_rows(model, rows, chosen + [Situation("throwing")])))
"""


def test_exploit_at_is_linear_in_its_situations():
    """Every decision was tried against every situation: 16 000 entries took 22.9 s and
    200 000 past 120 s (2 632 decisions x 200 000 here). Hang guard only, no timing."""
    done = subprocess.run([sys.executable, "-c", MANY_SITUATIONS], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and int(done.stdout) > 0, done.stderr


def test_the_situations_cover_the_decisions_they_covered_before():
    """The lookup picks the same decisions as trying `Situation.covers` one by one."""
    import random

    from games.bidou.betting import CAPTAIN, OPPONENT
    from games.bidou.params import BidouParams
    from solver.exploit import locking
    from solver.exploit.locked_game import Situation, locked_rows
    from solver.exploit.locking import LockError
    from solver.hand.model import build_model
    from solver.hand.strategy import uniform_strategy

    model = build_model(BidouParams(faces=3, throws=2, max_level=2))
    every = locking.exact_rows(model, uniform_strategy(model))
    rng = random.Random(1)
    for player in (CAPTAIN, OPPONENT):
        rows = locking.player_rows(model, every, player)
        histories = sorted({w[1][2] for w in rows if w[0] != "throw"})
        candidates = [Situation("throwing"), Situation("throwing", 1),
                      Situation("throwing", 2)] + [
            Situation("betting", c, o, h) for c in (None, 1, 2, 3) for o in (None, 1, 2)
            for h in (None, *histories, "zz")]
        for _ in range(300):
            chosen = rng.sample(candidates, rng.randint(1, 6))
            before = {w for w in rows if any(s.covers(model, w) for s in chosen)}
            try:
                now = set(locked_rows(model, rows, chosen))
            except LockError:
                now = set()
            assert now == before, chosen
