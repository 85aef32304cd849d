"""Checkpoints of a multi-hand CFR run (docs/multi.md, "Checkpoints"): the CFR state written
atomically so that a run killed or stopped can be resumed and continue bit-identically.

The file is a numpy .npz archive (a zip of .npy arrays, read back with allow_pickle=False,
so no pickle anywhere): `regrets` and `strategy_sum` (float64, edges x hands, exactly the
run's arrays; `last`, the last instantaneous regrets, for a predictive method) and
`meta`, the UTF-8 bytes of a JSON object: schema, schema_version, game,
rules (the MultiParams it was solved for), method, iterations, seconds, curve, and the
tree's shape (edges, hands). A checkpoint for other rules, another method or another tree
is refused in one line (`ParameterError`, exit 2) before any work.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from pathlib import Path
from typing import Any, Optional

import numpy as np

from games.bidou_multi.params import MultiParams, ParameterError
from solver.common.files import read_input_file, strict_json, write_bytes_atomic
from solver.multi import cfr
from solver.multi.cfr import CFRState
from solver.multi.tree import PublicTree

SCHEMA = "bidou-multi-checkpoint"
SCHEMA_VERSION = 1
# A checkpoint is read whole (its arrays are the state); this only keeps out what is not one.
MAX_CHECKPOINT_BYTES = 4 * 2**30
# A saved count beyond these is no run's (a quadrillion iterations, some thirty years): an
# edited file, whose numbers would overflow the kernels' counters or every rate printed.
MAX_ITERATIONS = 10**15
MAX_SECONDS = 1e9


def save(path: str | Path, params: MultiParams, method: str, state: CFRState,
         curve: list[dict[str, float]]) -> None:
    """Write the state at `path` atomically (temporary file, then rename)."""
    meta = {"schema": SCHEMA, "schema_version": SCHEMA_VERSION,
            "game": params.to_game_string(), "rules": params.to_dict(), "method": method,
            "iterations": state.iterations, "seconds": state.seconds, "curve": curve,
            "shape": list(state.regrets.shape)}
    buffer = io.BytesIO()
    arrays: dict[str, Any] = {"regrets": state.regrets, "strategy_sum": state.strategy_sum}
    if state.last is not None:
        arrays["last"] = state.last
    np.savez(buffer, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)
    write_bytes_atomic(path, buffer.getvalue())


def load(path: str | Path, params: MultiParams, method: str, tree: PublicTree
         ) -> tuple[CFRState, list[dict[str, float]]]:
    """The state and curve saved at `path`, if it was written for these rules, this method
    and this tree; otherwise ParameterError, one line saying why."""
    meta, regrets, sums, last = _read(path)
    _check_meta(path, meta, params, method)
    shape = (tree.num_edges, len(tree.hands))
    if regrets.shape != shape or sums.shape != shape or meta.get("shape") != list(shape):
        raise ParameterError(f"{path} holds arrays of shape {regrets.shape}, the tree needs "
                             f"{shape}")
    arrays = [("regrets", regrets), ("strategy_sum", sums)] + \
        ([] if last is None else [("last", last)])
    for name, array in arrays:
        if not np.issubdtype(array.dtype, np.number) or not np.isfinite(array).all():
            raise ParameterError(f"{path}: its {name} are not all finite numbers")
    if (sums < 0).any():
        raise ParameterError(f"{path}: its strategy_sum has negative entries (a sum of "
                             f"probabilities cannot)")
    if cfr.method(method).predictive and (last is None or last.shape != shape):
        raise ParameterError(f"{path} holds no last regrets of shape {shape}, which "
                             f"{method} needs")
    state = CFRState(regrets=regrets.astype(np.float64), strategy_sum=sums.astype(np.float64),
                     iterations=int(meta["iterations"]), seconds=float(meta["seconds"]),
                     last=None if last is None else last.astype(np.float64))
    return state, list(meta.get("curve", []))


def check(path: str | Path, params: MultiParams, method: str) -> int:
    """Refuse, before any work, a checkpoint that is unreadable or for other rules or
    another method; the number of iterations it holds."""
    meta, _, _, _ = _read(path)
    _check_meta(path, meta, params, method)
    return int(meta["iterations"])


def _check_meta(path: str | Path, meta: dict[str, Any], params: MultiParams,
                method: str) -> None:
    if meta.get("schema") != SCHEMA or meta.get("schema_version") != SCHEMA_VERSION:
        raise ParameterError(f"{path} is not a {SCHEMA} file of version {SCHEMA_VERSION}")
    if meta.get("rules") != params.to_dict():
        raise ParameterError(f"{path} is a checkpoint of {ascii(meta.get('game'))[:80]}, not of "
                             f"{params.to_game_string()}")
    if meta.get("method") != method:
        raise ParameterError(f"{path} is a checkpoint of {ascii(meta.get('method'))[:40]}, not "
                             f"{method}")
    iterations, seconds = meta.get("iterations"), meta.get("seconds")
    if not isinstance(iterations, int) or isinstance(iterations, bool) \
            or not 0 <= iterations <= MAX_ITERATIONS:
        raise ParameterError(f"{path}: its iterations must be a whole number from 0 to "
                             f"{MAX_ITERATIONS:.0e}, not {str(iterations)[:40]!r}")
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) \
            or not math.isfinite(seconds) or not 0 <= seconds <= MAX_SECONDS:
        raise ParameterError(f"{path}: its seconds must be a number from 0 to "
                             f"{MAX_SECONDS:.0e}, not {str(seconds)[:40]!r}")


def _read(path: str | Path
          ) -> tuple[dict[str, Any], np.ndarray, np.ndarray, Optional[np.ndarray]]:
    try:
        data = read_input_file(path, MAX_CHECKPOINT_BYTES)
        if not data.startswith(b"PK"):
            raise ValueError("not a NumPy .npz archive")
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            meta = strict_json(archive["meta"].tobytes())
            if not isinstance(meta, dict):
                raise ValueError("its meta is not a JSON object")
            last = archive["last"] if "last" in archive.files else None
            return meta, archive["regrets"], archive["strategy_sum"], last
    except FileNotFoundError:
        raise ParameterError(f"cannot read checkpoint {path}: no such file") from None
    except OSError as error:
        raise ParameterError(f"cannot read checkpoint {path}: {error.strerror or error}") \
            from None
    except (ValueError, KeyError, zipfile.BadZipFile, UnicodeDecodeError) as error:
        raise ParameterError(f"{path} is not a readable {SCHEMA} file ({error})") from None
