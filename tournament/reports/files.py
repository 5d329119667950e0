"""Writing a report to disk without ever leaving half a file behind."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` so readers see the old file or the new one, never a torn one.

    The director's printer queue or a web server may be reading the previous PDF while a new
    one is made; a temporary file in the same directory (same file system) renamed over the
    target with ``os.replace`` gives that guarantee, and a failure removes the temporary file.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    check_target(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp makes the file private (0600); a report is meant to be shared like any file
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _umask() -> int:
    """The process umask (reading it means setting it, so put it straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_target(path: str | os.PathLike[str]) -> None:
    """Refuse a PDF path whose folder is missing before any work, naming the folder."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise ValueError(f"{target}: is a folder; give a file name to write")
    if not folder.is_dir():
        raise ValueError(f"{target}: the folder {folder} does not exist")
