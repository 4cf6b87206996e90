"""The one output boundary: ``-o``/``--out``/``--output`` files are written here, safely.

A path that exists must be a regular file, and is replaced atomically (a temporary file in the
same directory, then ``os.replace``: a reader never sees half a file). Anything else that exists
at the path is refused, never replaced and never written through: a symbolic link (it could point
at a file the user did not name), a FIFO (writing blocks until a reader comes), a device node
(``-o /dev/full`` once replaced the system's ``/dev/full`` when run as root) or a directory. To
write to standard output, leave the option out.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from craftbt.core.errors import CraftbtError, ErrorCode, Location
from craftbt.core.inputs import os_error


def _refuse(path: Path, why: str, option: str) -> CraftbtError:
    return CraftbtError.single(
        ErrorCode.OUTPUT_ERROR,
        f"{option} {str(path)!r}: refusing to replace {why}",
        location=Location(str(path)),
        expected="a new file or an existing regular file (leave the option out to write to stdout)",
    )


def check_output(path: Path, *, option: str = "--output") -> None:
    """Refuse before any work when ``path`` exists and is not a regular file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except (OSError, ValueError) as err:
        if isinstance(err, OSError):
            raise os_error(path, err, what=f"{option} file", writing=True) from None
        raise _refuse(path, "a path with a NUL byte", option) from None
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return
    why = ("a symbolic link" if stat.S_ISLNK(mode) else "a directory" if stat.S_ISDIR(mode)
           else "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
           else "a socket" if stat.S_ISSOCK(mode) else "something that is not a regular file")
    raise _refuse(path, why, option)


def write_output(path: Path, data: str | bytes, *, option: str = "--output", mode: int = 0o666) -> None:
    """Write ``data`` to ``path`` (created, or a regular file replaced atomically); located errors."""
    path = Path(path)
    check_output(path, option=option)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:100]}.", suffix=".tmp", dir=parent)
    except OSError as err:
        raise os_error(path, err, what=f"{option} file", writing=True) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, mode & ~umask)  # mkstemp's 0600 is private; outputs are meant to be read
        check_output(path, option=option)  # narrow the window: refuse what appeared while we wrote
        os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(err, OSError):
            raise os_error(path, err, what=f"{option} file", writing=True) from None
        raise
