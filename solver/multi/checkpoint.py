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
from solver.common.files import open_input_file, strict_json, write_bytes_atomic
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
    shape = (tree.num_edges, len(tree.hands))
    meta, read = _read(path, params, method, shape)
    regrets, sums, last = read["regrets"], read["strategy_sum"], read.get("last")
    for name, array in read.items():
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
    from solver.multi.tree import size

    # The tree has fewer edges than public nodes x players, so an array of the checkpoint
    # of these rules holds at most `cells` numbers (edges x hands).
    meta, _ = _read(path, params, method, None, size(params)["cells"])
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


def _read(path: str | Path, params: MultiParams, method: str,
          shape: Optional[tuple[int, int]], max_cells: int = 0
          ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The meta (checked for these rules and method) and, given the tree's `shape`, the
    arrays. Every array's .npy header is read first (`_headers`), and its shape checked
    against the meta's and the tree's (without a tree: at most `max_cells` numbers) before
    a byte of its data is decompressed: a small file can hold an archive that expands to
    gigabytes."""
    try:
        with open_input_file(path, MAX_CHECKPOINT_BYTES) as handle:
            if handle.read(2) != b"PK":
                raise ValueError("not a NumPy .npz archive")
            handle.seek(0)
            with zipfile.ZipFile(handle) as archive:
                meta = _meta(archive)
                _check_meta(path, meta, params, method)
                headers = _headers(archive)
                _check_shapes(path, meta, headers, shape, max_cells)
                if shape is None:
                    return meta, {}
                return meta, {name: _array(archive, name) for name in headers}
    except ParameterError:
        raise
    except FileNotFoundError:
        raise ParameterError(f"cannot read checkpoint {path}: no such file") from None
    except OSError as error:
        raise ParameterError(f"cannot read checkpoint {path}: {error.strerror or error}") \
            from None
    except (ValueError, KeyError, EOFError, zipfile.BadZipFile, UnicodeDecodeError) as error:
        raise ParameterError(f"{path} is not a readable {SCHEMA} file ({error})") from None


ARRAYS = ("regrets", "strategy_sum", "last")
# The meta is a short JSON object (its curve has a point per progress step).
MAX_META_BYTES = 16 * 2**20


def _meta(archive: zipfile.ZipFile) -> dict[str, Any]:
    """The archive's meta, a JSON object, read after its header says it is small."""
    shape, dtype = _header(archive, "meta")
    if dtype != np.uint8 or len(shape) != 1 or shape[0] > MAX_META_BYTES:
        raise ValueError(f"its meta is not up to {MAX_META_BYTES:,} bytes of JSON")
    meta = strict_json(_array(archive, "meta").tobytes())
    if not isinstance(meta, dict):
        raise ValueError("its meta is not a JSON object")
    return meta


def _headers(archive: zipfile.ZipFile) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """(shape, dtype) of each array the archive holds, by name, from the headers alone."""
    names = set(archive.namelist())
    return {name: _header(archive, name) for name in ARRAYS if f"{name}.npy" in names}


def _header(archive: zipfile.ZipFile, name: str) -> tuple[tuple[int, ...], np.dtype]:
    with archive.open(f"{name}.npy") as member:
        version = np.lib.format.read_magic(member)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(member)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(member)
        else:
            raise ValueError(f"its {name} is in .npy format {version}, not 1.0 or 2.0")
    if dtype.hasobject:
        raise ValueError(f"its {name} holds Python objects")
    return tuple(shape), dtype


def _check_shapes(path: str | Path, meta: dict[str, Any],
                  headers: dict[str, tuple[tuple[int, ...], np.dtype]],
                  shape: Optional[tuple[int, int]], max_cells: int) -> None:
    """Each array 2-D numbers of the shape the meta states: the tree's, when known."""
    if "regrets" not in headers or "strategy_sum" not in headers:
        raise ParameterError(f"{path} is not a readable {SCHEMA} file (its regrets or "
                             f"strategy_sum is missing)")
    for name, (found, dtype) in headers.items():
        if dtype.kind not in "fiu":
            raise ParameterError(f"{path}: its {name} are not all finite numbers")
        if shape is not None and found != shape:
            raise ParameterError(f"{path} holds arrays of shape {found}, the tree needs "
                                 f"{shape}")
        if len(found) != 2 or list(found) != meta.get("shape"):
            raise ParameterError(f"{path} holds arrays of shape {found}, its meta says "
                                 f"{ascii(meta.get('shape'))[:40]}")
        if shape is None and found[0] * found[1] > max_cells:
            raise ParameterError(f"{path} holds arrays of shape {found}, more numbers than "
                                 f"the tree of these rules has cells ({max_cells:,})")


def _array(archive: zipfile.ZipFile, name: str) -> np.ndarray:
    with archive.open(f"{name}.npy") as member:
        return np.lib.format.read_array(member, allow_pickle=False)
