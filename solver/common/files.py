"""Writing files so that nothing is ever half-written, and nothing but a file is replaced.

A regular file (or a new path) is written to a temporary file beside it, then renamed over
it, keeping the old file's mode and owner. A symlink is followed and its target written. A
character device or FIFO (``/dev/null``, ``/dev/stdout``, a pipe) is written directly, as a
shell redirection would; a directory, block device or socket is refused. Every failure is a
`DestinationError` with a one-line message; `check_file_destination` and
`check_directory_destination` raise the same errors *before* long work starts.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any, BinaryIO, Iterator, Mapping, Sequence

TEMP_PREFIX = ".tmp-"
# Paths here are streams or kernel files (/dev/stdout, /proc/self/fd/1): written in place,
# never resolved to what they happen to point at (a shell's redirection target, say).
_DIRECT_ROOTS = ("/dev/", "/proc/")


class DestinationError(OSError):
    """An output path cannot be written; the message is one line naming the path."""


def _refuse(path: str, reason: str) -> DestinationError:
    return DestinationError(f"cannot write {path}: {reason}")


def write_json_atomic(path: str | os.PathLike, document: Any) -> None:
    """JSON (no NaN or infinity), indented, ending with a newline."""
    write_text_atomic(path, json.dumps(document, indent=1, sort_keys=False, allow_nan=False)
                      + "\n")


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write `data` at `path` so that a reader sees the old bytes or the new, never a mix."""
    name = os.fspath(path)
    try:
        target, kind = _destination(name)
        if kind in ("chr", "fifo", "direct"):
            _write_direct(target, data)
        else:
            _replace(target, data, os.stat(target) if kind == "reg" else None)
    except DestinationError:
        raise
    except OSError as error:
        raise _refuse(name, error.strerror or str(error)) from None


def _kind(mode: int) -> str:
    for kind, test in (("reg", stat.S_ISREG), ("dir", stat.S_ISDIR), ("chr", stat.S_ISCHR),
                       ("fifo", stat.S_ISFIFO), ("blk", stat.S_ISBLK),
                       ("sock", stat.S_ISSOCK)):
        if test(mode):
            return kind
    return "other"


_REFUSED = {"dir": "it is a directory", "blk": "it is a block device",
            "sock": "it is a socket", "other": "it is not a regular file"}


def _destination(name: str) -> tuple[str, str]:
    """(the path to write, its kind: "new", "reg", "chr", "fifo" or "direct").

    Raises DestinationError for an empty path or anything that must not be written.
    """
    if not name:
        raise DestinationError("cannot write '': the path is empty")
    _refuse_planted_symlinks(name)           # /dev/shm is as shared as /tmp
    absolute = os.path.abspath(name)
    if absolute.startswith(_DIRECT_ROOTS):
        direct = _direct_destination(name)
        if direct is not None:
            return direct
    if name.endswith(os.sep) and not os.path.isdir(name):
        raise _refuse(name, "a file name cannot end with '/'")
    target = os.path.realpath(name)          # a symlink is written through to its target
    try:
        kind = _kind(os.stat(target).st_mode)
    except FileNotFoundError:
        return target, "new"
    except OSError as error:                 # ENOTDIR: a file where a folder should be
        raise _refuse(name, error.strerror or str(error)) from None
    if kind in _REFUSED:
        raise _refuse(name, _REFUSED[kind])
    return target, kind


def _refuse_planted_symlinks(name: str) -> None:
    """DestinationError if reaching `name` follows a symlink that another user planted in
    a folder others may write to: in a world-writable sticky folder (/tmp) the rule of the
    kernel's fs.protected_symlinks, which a program running as root must apply itself when
    it resolves paths (it does not protect `realpath`), and in a non-sticky one stricter
    (`_trusted_link_owners`); otherwise another user could redirect our write onto any
    file we may write."""
    current, parts = os.sep, _components(os.path.abspath(name))
    links = 0
    while parts:
        part = parts.pop(0)
        if part == "..":
            current = os.path.dirname(current)
            continue
        path = os.path.join(current, part)
        try:
            link = os.lstat(path)
            folder = os.stat(current)
        except OSError:
            return            # the rest does not exist yet (or cannot be read: said later)
        if not stat.S_ISLNK(link.st_mode):
            current = path
            continue
        if link.st_uid not in _trusted_link_owners(folder):
            raise _refuse(name, f"{path} is a symlink owned by another user (uid "
                                f"{link.st_uid}) in the shared folder {current}; not "
                                f"followed")
        links += 1
        if links > 40:                               # the kernel's ELOOP limit
            return
        target = os.readlink(path)                   # one link at a time: each checked
        if os.path.isabs(target):
            current = os.sep
        parts = _components(target) + parts


def _trusted_link_owners(folder: os.stat_result) -> tuple[int, ...] | range:
    """Whose symlinks in `folder` are followed: anyone's where only its owner may write;
    in a world-writable sticky folder ours and the folder owner's (the kernel's rule); in
    any other folder that others may write to (group or world, not sticky) only ours and
    root's: anyone who may write there could have planted it, or renamed ours away."""
    if not folder.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return range(2**32)
    if folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH:
        return (os.geteuid(), folder.st_uid)
    return (os.geteuid(), 0)


def _components(path: str) -> list[str]:
    return [part for part in path.split(os.sep) if part and part != "."]


def _direct_destination(name: str) -> tuple[str, str] | None:
    """The destination of a path under /dev/ or /proc/, or None if it is an ordinary file
    (or a new one) in an ordinary folder reached through them (`/dev/shm/x.json`,
    `/proc/self/cwd/x.json`): that one is replaced atomically like any other, at its real
    path. Writing it in place would append to it (or leave the old tail behind a shorter
    new file). Streams (a device, a FIFO, this process's stdout) and the kernel's own files
    (procfs, sysfs) are written in place; their targets are never resolved."""
    try:
        info = os.stat(name)
    except FileNotFoundError:
        if _ordinary(os.path.realpath(name)):
            return None
        raise _refuse(name, "no such device or file") from None
    except OSError as error:
        raise _refuse(name, error.strerror or str(error)) from None
    kind = _kind(info.st_mode)
    if kind in _REFUSED:
        raise _refuse(name, _REFUSED[kind])
    if kind != "reg" or _own_stream(name) is not None:
        return name, kind if kind != "reg" else "direct"
    real = os.path.realpath(name)
    with contextlib.suppress(OSError):
        if _ordinary(real) and os.path.samestat(os.stat(real), info):
            return None
    return name, "direct"


def _ordinary(real: str) -> bool:
    """Whether a resolved path lies in an ordinary folder, where a file can be created and
    renamed: outside /dev and /proc, or in /dev/shm (a tmpfs)."""
    return not real.startswith(_DIRECT_ROOTS) or real.startswith("/dev/shm/")


def _write_direct(target: str, data: bytes) -> None:
    stream = _own_stream(target)
    if stream is not None:          # our stdout or stderr: share its offset, keep its order
        stream.flush()
        _write_all(stream.fileno(), data)
        return
    fd = os.open(target, os.O_WRONLY)
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


def _own_stream(target: str):
    """sys.stdout or sys.stderr if `target` is the very file or pipe it writes to."""
    try:
        info = os.stat(target)
    except OSError:
        return None
    for stream in (sys.stdout, sys.stderr):
        try:
            if os.path.samestat(os.fstat(stream.fileno()), info):
                return stream
        except (AttributeError, OSError, ValueError):     # no real descriptor (a test runner)
            continue
    return None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _replace(target: str, data: bytes, existing: os.stat_result | None) -> None:
    directory = os.path.dirname(target)
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if existing is not None:
            os.chmod(tmp, stat.S_IMODE(existing.st_mode))
            if (existing.st_uid, existing.st_gid) != (os.getuid(), os.getgid()):
                with contextlib.suppress(PermissionError):
                    os.chown(tmp, existing.st_uid, existing.st_gid)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)    # mkstemp makes 0600; give the usual mode
        with contextlib.suppress(FileNotFoundError):   # never rename over a non-file
            if not stat.S_ISREG(os.lstat(target).st_mode):
                raise _refuse(target, "it stopped being a regular file")
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


# --- checking destinations before the work ---------------------------------------------------

def check_file_destination(path: str | os.PathLike) -> None:
    """Raise DestinationError now if `write_bytes_atomic(path, ...)` cannot succeed later."""
    name = os.fspath(path)
    target, kind = _destination(name)
    if kind in ("chr", "fifo", "direct"):
        if not os.access(target, os.W_OK):
            raise _refuse(name, "permission denied")
        return
    if kind == "reg" and not os.access(target, os.W_OK):
        raise _refuse(name, "the file is read-only")
    _check_folder(os.path.dirname(target), name)


def check_directory_destination(path: str | os.PathLike) -> None:
    """Raise DestinationError now unless `path` is, or can be made, a writable folder."""
    name = os.fspath(path)
    if not name:
        raise DestinationError("cannot write into '': the folder name is empty")
    _refuse_planted_symlinks(name)
    _check_folder(os.path.realpath(name), name)


def _check_folder(folder: str, name: str) -> None:
    """The folder exists and takes a new file, or its nearest existing ancestor could."""
    probe, missing = folder, []
    while not os.path.lexists(probe):
        probe, part = os.path.split(probe)
        missing.append(part)
    if not os.path.isdir(probe):
        raise _refuse(name, f"{probe} is not a folder")
    _check_name_lengths(probe, missing, name)
    if not os.access(probe, os.W_OK | os.X_OK):
        raise _refuse(name, f"the folder {probe} is not writable")
    try:                                  # access() can be wrong (ACLs, network file systems)
        fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=probe)
    except OSError as error:
        raise _refuse(name, f"the folder {probe} is not writable ({error.strerror})") from None
    os.close(fd)
    os.unlink(tmp)


def _check_name_lengths(folder: str, parts: Sequence[str], name: str) -> None:
    """Each folder still to be made fits the file system's name limit (lexists and Path.exists
    do not say ENAMETOOLONG: the error would come at the first write, after the work)."""
    try:
        limit = os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    for part in parts:
        if len(os.fsencode(part)) > limit:
            raise _refuse(name, f"a name in the path is longer than {limit} bytes")


# --- a folder private to the user (caches) ---------------------------------------------------

def private_folder(path: str | os.PathLike, create: bool = True) -> Path | None:
    """The folder `path` as ssh treats ~/.ssh: each missing folder made 0700 (with
    `create`; else None when it is missing), and DestinationError, one line, if another
    user could turn it against us: the folder owned by someone else or writable by group
    or others, a folder above it that others may write to without the sticky bit (they
    could rename ours away and put theirs), or a symlink on the way owned by neither us
    nor root. Symlinks are followed one at a time, each checked. The result is the folder
    reached, without symlinks."""
    name = os.fspath(path)
    if not name:
        raise DestinationError("cannot use '' as a folder: the name is empty")
    me, links = os.geteuid(), 0
    current, parts = os.sep, _components(os.path.abspath(name))
    _check_above(current, os.stat(current), name)
    while parts:
        part = parts.pop(0)
        if part == "..":
            current = os.path.dirname(current)
            continue
        step = os.path.join(current, part)
        try:
            info = _lstat_or_make(step, create)
        except OSError as error:
            raise _refuse(name, f"{step}: {error.strerror or error}") from None
        if info is None:
            return None
        if stat.S_ISLNK(info.st_mode):
            if info.st_uid not in (me, 0) or links >= 40:
                raise _refuse(name, f"{step} is a symlink owned by another user (uid "
                                    f"{info.st_uid}); not followed")
            links += 1
            target = os.readlink(step)
            current = os.sep if os.path.isabs(target) else current
            parts = _components(target) + parts
            continue
        if not stat.S_ISDIR(info.st_mode):
            raise _refuse(name, f"{step} is not a folder")
        _check_above(step, info, name)
        current = step
    info = os.lstat(current)
    if info.st_uid != me:
        raise _refuse(name, f"the folder {current} is owned by another user (uid "
                            f"{info.st_uid}); a private folder must be ours")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise _refuse(name, f"the folder {current} is writable by group or others (mode "
                            f"{stat.S_IMODE(info.st_mode):04o}); chmod go-w it")
    return Path(current)


def _lstat_or_make(path: str, create: bool) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        if not create:
            return None
    with contextlib.suppress(FileExistsError):        # made meanwhile: checked as found
        os.mkdir(path, 0o700)
    return os.lstat(path)


def _check_above(folder: str, info: os.stat_result, name: str) -> None:
    """A folder on the way to a private one: nobody else may replace what is in it."""
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not info.st_mode & stat.S_ISVTX:
        raise _refuse(name, f"the folder {folder} is writable by group or others without "
                            f"the sticky bit (mode {stat.S_IMODE(info.st_mode):04o}): "
                            f"another user could replace what is in it")


def check_private_file(path: str | os.PathLike) -> None:
    """DestinationError unless `path` (in a private folder) is absent or a regular file:
    a cache file is never read or written through a symlink, a FIFO or a device."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as error:
        raise _refuse(os.fspath(path), error.strerror or str(error)) from None
    if stat.S_ISLNK(info.st_mode):
        raise _refuse(os.fspath(path), "it is a symlink; a cache file is not followed")
    if not stat.S_ISREG(info.st_mode):
        what = _NOT_REGULAR.get(_kind(info.st_mode), "not a regular file")
        raise _refuse(os.fspath(path), f"it is {what}, not a regular file")


# --- a set of files published together -------------------------------------------------------

@contextlib.contextmanager
def staging_folder(out_dir: str | os.PathLike) -> Iterator[Path]:
    """A fresh hidden folder inside `out_dir` to write a set of files into.

    It is removed however the block ends (error, Ctrl-C, SIGTERM); `out_dir` is removed too
    if this call created it and it is still empty.
    """
    out = Path(out_dir)
    try:
        created = not out.exists()
        out.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, dir=out))
    except OSError as error:
        raise _refuse(str(out_dir), error.strerror or str(error)) from None
    try:
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        if created:
            with contextlib.suppress(OSError):
                out.rmdir()                      # only if empty: a failed first export


def publish(stage: Path, out_dir: str | os.PathLike, names: Sequence[str],
            stale: Sequence[str] = (), private: bool = False) -> None:
    """Move the staged files `names` into `out_dir` in order, then delete the `stale` ones.

    A plain file in the way is replaced by a rename (keeping its mode), anything else is
    written like `write_bytes_atomic` would; in a `private` folder (a cache) anything else
    is refused (`check_private_file`): never written through. Stale names are deleted only
    if they are plain files directly inside `out_dir` and not among `names`.
    """
    out = Path(out_dir)
    for name in names if private else ():       # all checked before any is moved
        check_private_file(out / name)
    for name in dict.fromkeys(names):           # a name listed twice is moved once
        source, target = stage / name, out / name
        if private:
            check_private_file(target)
        try:
            existing = os.lstat(target)
        except FileNotFoundError:
            existing = None
        try:
            if existing is None or stat.S_ISREG(existing.st_mode):
                if existing is not None:
                    os.chmod(source, stat.S_IMODE(existing.st_mode))
                os.replace(source, target)
            elif private:
                raise _refuse(str(target), "it stopped being a regular file")
            else:
                write_bytes_atomic(target, source.read_bytes())
        except DestinationError:
            raise
        except OSError as error:
            raise _refuse(str(target), error.strerror or str(error)) from None
    keep = set(names)
    for name in stale:
        if name in keep or not _plain_name(name):
            continue
        target = out / name
        with contextlib.suppress(OSError):
            if stat.S_ISREG(os.lstat(target).st_mode):
                target.unlink()


def _plain_name(name: str) -> bool:
    return (isinstance(name, str) and name not in ("", ".", "..") and "/" not in name
            and os.sep not in name and "\0" not in name)


def write_set(files: Mapping[Path, bytes], private: bool = False) -> None:
    """Write a set of files, possibly in several folders, so that a failure (a full disk,
    Ctrl-C) changes none of them: every file is first written into a staging folder
    beside its destination, and only once all are written are they moved in (`publish`;
    `private`: only over regular files)."""
    by_folder: dict[Path, list[Path]] = {}
    for path in files:
        by_folder.setdefault(Path(path).parent, []).append(Path(path))
    with contextlib.ExitStack() as stack:
        stages = {folder: stack.enter_context(staging_folder(folder)) for folder in by_folder}
        for folder, paths in by_folder.items():
            for path in paths:
                write_bytes_atomic(stages[folder] / path.name, files[path])
        for folder, paths in by_folder.items():
            publish(stages[folder], folder, [path.name for path in paths], private=private)


# The largest input file any command reads (a strategy file is at most about 2 MB).
MAX_INPUT_BYTES = 64 * 2**20


def read_input_file(path: str | os.PathLike, max_bytes: int = MAX_INPUT_BYTES,
                    what: str = "", follow_symlinks: bool = True) -> bytes:
    """The bytes of the regular file `path`, if it holds at most `max_bytes`; otherwise
    OSError whose strerror says why in a few words (too large for `what`, if named).
    Anything else could hang or fill memory: a FIFO blocks until someone writes, /dev/zero
    never ends. Without `follow_symlinks` a symlink is refused too (a cache's files)."""
    with open_input_file(path, max_bytes, what, follow_symlinks) as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:                   # it grew while being read
        raise OSError(errno.EFBIG, _too_large(max_bytes, what))
    return data


def open_input_file(path: str | os.PathLike, max_bytes: int = MAX_INPUT_BYTES,
                    what: str = "", follow_symlinks: bool = True) -> BinaryIO:
    """The regular file `path` opened for reading, as `read_input_file` checks it: by its
    (l)stat before it is opened, then again on the open descriptor. The open never blocks
    (O_NONBLOCK: a FIFO swapped in after the check opens at once, and is refused), and
    without `follow_symlinks` never follows a link at the last step (O_NOFOLLOW)."""
    _check_input(os.stat(path) if follow_symlinks else os.lstat(path), max_bytes, what)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags | (0 if follow_symlinks else os.O_NOFOLLOW))
    except OSError as error:
        if error.errno == errno.ELOOP and not follow_symlinks:
            raise OSError(errno.ELOOP, "a symlink, not followed") from None
        raise
    try:
        _check_input(os.fstat(fd), max_bytes, what)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


_NOT_REGULAR = {"dir": "a directory", "chr": "a character device", "fifo": "a FIFO",
                "blk": "a block device", "sock": "a socket"}


def _check_input(info: os.stat_result, max_bytes: int, what: str) -> None:
    if stat.S_ISLNK(info.st_mode):
        raise OSError(errno.ELOOP, "a symlink, not followed")
    if not stat.S_ISREG(info.st_mode):
        kind = _NOT_REGULAR.get(_kind(info.st_mode))
        raise OSError(errno.EINVAL, f"{kind}, not a regular file" if kind
                      else "not a regular file")
    if info.st_size > max_bytes:
        raise OSError(errno.EFBIG, f"{info.st_size:,} bytes is {_too_large(max_bytes, what)}")


def _too_large(max_bytes: int, what: str) -> str:
    return f"too large{' for ' + what if what else ''} (at most {max_bytes:,} bytes)"


# The deepest nesting of arrays and objects a file may hold: every file the solver writes
# nests a handful of levels; a hostile one nested thousands deep would end the parser in a
# RecursionError (a traceback) instead of a one-line refusal.
MAX_JSON_DEPTH = 64
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_ONLY_BRACKETS = bytes(range(256)).translate(None, b"[]{}")


def strict_json(data: bytes) -> Any:
    """A JSON document read as strictly as a user's file must be: UTF-8, no NaN or
    Infinity, no key twice in one object, nested at most MAX_JSON_DEPTH deep (ValueError
    or UnicodeDecodeError otherwise, for the reader to put in its own one-line message)."""
    text = data.decode("utf-8")
    check_json_depth(data)
    try:
        return json.loads(text, parse_constant=_reject_constant,
                          object_pairs_hook=_unique_keys)
    except RecursionError:        # brackets opened and never closed: not JSON, and deep
        raise ValueError(f"the JSON is nested too deeply (more than {MAX_JSON_DEPTH} levels)") \
            from None


def check_json_depth(data: bytes, limit: int = MAX_JSON_DEPTH) -> None:
    """ValueError if the JSON text `data` nests arrays and objects more than `limit` deep,
    found before parsing, in linear time per level: strings are dropped, then the brackets
    alone are peeled one level a pass. A text that is not JSON is left to the parser."""
    brackets = _JSON_STRING.sub(b"", data).translate(None, _ONLY_BRACKETS)
    brackets = brackets.translate(bytes.maketrans(b"{}", b"[]"))
    for _ in range(limit):
        peeled = brackets.replace(b"[]", b"")
        if peeled == brackets:
            return
        brackets = peeled
    if b"[]" in brackets:
        raise ValueError(f"the JSON is nested too deeply (more than {limit} levels)")


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict, or ValueError if a key appears twice."""
    document = dict(pairs)
    if len(document) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"the key {key!r:.40} appears twice in one object")
            seen.add(key)
    return document
