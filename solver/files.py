"""Writing files so that nothing is ever half-written: a temporary file beside the target,
then a rename over it."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any


def write_json_atomic(path: str | os.PathLike, document: Any) -> None:
    """JSON (no NaN or infinity), indented, ending with a newline."""
    write_text_atomic(path, json.dumps(document, indent=1, sort_keys=False, allow_nan=False)
                      + "\n")


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)         # mkstemp makes 0600; give the usual mode
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
