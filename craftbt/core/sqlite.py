"""Open craftbt's SQLite stores (journal, priors, build state) safely, and name what went wrong when it fails.

Every store opens through :func:`open_store`:

* the busy timeout is set on the connection before anything else, so every
  statement waits for another process's lock instead of failing at once;
* WAL is switched on once, by whichever process gets there first: the mode is
  read before it is set, and the switch (which needs the whole file to itself,
  where SQLite does not call the busy handler) is retried with a short backoff;
* the schema is created in one ``BEGIN IMMEDIATE`` transaction, retried the same
  way, so two processes creating a fresh store never deadlock;
* ``read_only=True`` opens ``mode=ro`` (a read-only mount or file works; a store
  that does not exist yet reads as empty) and never writes;
* ``check=True`` runs ``PRAGMA quick_check``: a store that fails it is refused
  for writing (:class:`StorageError` ``storage_corrupt``), never appended to.

Faults of the environment (a file that is not a database, a corrupt one, a
read-only file or mount, a full disk, a directory where the file belongs, a
home that is a file) become a :class:`StorageError`: a :class:`CraftbtError`
naming the file, the cause and what to do, which the CLI prints and exits 1
with. :func:`storage_errors` wraps later writes the same way.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Literal, TypeVar

from craftbt.core.errors import CraftbtError, ErrorCode, Location, Problem

#: how long a statement waits for another process's lock (SQLite's busy handler)
BUSY_TIMEOUT_MS = 30_000
#: how long the WAL switch and the schema transaction are retried when SQLite will not wait by itself
LOCK_RETRY_S = 30.0

T = TypeVar("T")
IsolationLevel = Literal["DEFERRED", "EXCLUSIVE", "IMMEDIATE"] | None

#: how to recover, per cause (printed after the cause)
RECOVER = {
    ErrorCode.STORAGE_CORRUPT: ("move it aside (mv {path} {path}.corrupt) and run again to start a new one;"
                                " `sqlite3 {path}.corrupt .recover | sqlite3 {path}` salvages what is readable"),
    ErrorCode.STORAGE_READ_ONLY: "make it writable, or point CRAFTBT_HOME at a writable directory",
    ErrorCode.DISK_FULL: "free some space on that disk, or point CRAFTBT_HOME at another disk",
    ErrorCode.STORAGE_UNAVAILABLE: "point CRAFTBT_HOME at a writable directory",
}


class StorageError(CraftbtError):
    """A store could not be opened, read or written because of its file or disk, not because of craftbt."""

    def __init__(self, code: ErrorCode, path: Path | str, cause: str) -> None:
        hint = RECOVER.get(code, "")
        message = f"{cause}; {hint.format(path=path)}" if hint else cause
        super().__init__(Problem(code, message, Location(file=str(path))))
        self.path = Path(path)
        self.cause = cause


def classify(exc: BaseException) -> tuple[ErrorCode, str] | None:
    """The environmental cause behind an SQLite or OS error, or None when it looks like a bug of ours."""
    if isinstance(exc, OSError):
        reason = exc.strerror or str(exc)
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return ErrorCode.DISK_FULL, f"disk full ({reason})"
        if exc.errno == errno.EROFS:
            return ErrorCode.STORAGE_READ_ONLY, f"read-only file system ({reason})"
        if exc.errno in (errno.EACCES, errno.EPERM):
            return ErrorCode.STORAGE_READ_ONLY, f"permission denied ({reason})"
        if exc.errno == errno.EISDIR:
            return ErrorCode.STORAGE_UNAVAILABLE, "a directory is where a file belongs"
        if exc.errno in (errno.ENOTDIR, errno.EEXIST):
            return ErrorCode.STORAGE_UNAVAILABLE, f"a file is where a directory belongs ({reason})"
        if exc.errno in (errno.EIO, errno.ENOENT, errno.ENAMETOOLONG, errno.ELOOP):
            return ErrorCode.STORAGE_UNAVAILABLE, reason
        return None
    if not isinstance(exc, sqlite3.Error):
        return None
    text = str(exc).lower()
    if "not a database" in text:
        return ErrorCode.STORAGE_CORRUPT, "not an SQLite database (overwritten or truncated)"
    if "malformed" in text or "corrupt" in text:
        return ErrorCode.STORAGE_CORRUPT, f"the database is corrupt ({exc})"
    if "readonly" in text or "read-only" in text:
        return ErrorCode.STORAGE_READ_ONLY, f"the database is read-only ({exc})"
    if "disk is full" in text or "disk full" in text:
        return ErrorCode.DISK_FULL, f"disk full ({exc})"
    if "disk i/o error" in text:
        return ErrorCode.STORAGE_UNAVAILABLE, f"disk I/O error ({exc})"
    if "unable to open" in text:
        return ErrorCode.STORAGE_UNAVAILABLE, f"cannot open the file ({exc})"
    if "database is locked" in text or "database table is locked" in text:
        return ErrorCode.STORAGE_BUSY, (f"another process held the lock for more than {BUSY_TIMEOUT_MS // 1000} s"
                                        f" ({exc})")
    return None


def as_storage_error(exc: BaseException, path: Path | str) -> StorageError | None:
    found = classify(exc)
    return None if found is None else StorageError(found[0], path, found[1])


@contextmanager
def storage_errors(path: Path | str) -> Iterator[None]:
    """Re-raise environmental SQLite and OS errors inside the block as a :class:`StorageError` naming ``path``."""
    try:
        yield
    except StorageError:
        raise
    except (sqlite3.Error, OSError) as exc:
        err = as_storage_error(exc, path)
        if err is None:
            raise
        raise err from exc


def _locked(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def retry_locked(fn: Callable[[], T], *, within_s: float = LOCK_RETRY_S) -> T:
    """Call ``fn`` until it does not fail with a lock error (SQLite skips the busy handler on some upgrades)."""
    deadline = time.monotonic() + within_s
    delay = 0.005
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if not _locked(exc) or time.monotonic() > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.25)


def _check_place(path: Path) -> None:
    """A directory where the file belongs, or a file where the home directory belongs: say so before SQLite does."""
    if path.is_dir():
        raise StorageError(ErrorCode.STORAGE_UNAVAILABLE, path, "a directory is where the database file belongs")
    if path.exists() and not path.is_file():
        # a FIFO blocks the open until a writer comes (a read-only `craftbt show` hung on one); a device or
        # socket is no database either
        raise StorageError(ErrorCode.STORAGE_UNAVAILABLE, path, "is not a regular file (a FIFO, device or socket)")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise StorageError(ErrorCode.STORAGE_UNAVAILABLE, parent,
                                   f"is a file, but {path} must go inside it (CRAFTBT_HOME must be a directory)")
            break


def like_prefix(text: str) -> str:
    """A ``LIKE ? ESCAPE '\\'`` pattern for the strings that start with ``text``: a prefix, not a pattern, so
    ``%`` and ``_`` in what the user typed match themselves."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _statements(script: str) -> Iterator[str]:
    """The statements of an SQL script (a trigger body's semicolons stay inside its statement)."""
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n\t;"):
                yield pending
            pending = ""


def _check_writable(path: Path) -> None:
    """A read-only mount or file: say so before SQLite answers "unable to open database file"."""
    existing = path if path.exists() else next((p for p in path.parents if p.exists()), None)
    if existing is None:
        return
    if os.statvfs(existing).f_flag & os.ST_RDONLY:
        raise StorageError(ErrorCode.STORAGE_READ_ONLY, path, "is on a read-only file system")
    if path.exists() and not os.access(path, os.W_OK):
        raise StorageError(ErrorCode.STORAGE_READ_ONLY, path, "the file is read-only")


def _apply_schema(conn: sqlite3.Connection, schema: str,
                  migrate: Callable[[sqlite3.Connection], None] | None) -> None:
    """The whole schema (and ``migrate``) in one write transaction (``executescript`` commits as it goes)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in _statements(schema):
            conn.execute(statement)
        if migrate is not None:
            migrate(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # SQLite rolls back by itself on some errors (a full disk)
            with suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise


def _has_tables(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1").fetchone() is not None


def quick_check(conn: sqlite3.Connection) -> list[str]:
    """``PRAGMA quick_check``: an empty list when the file is sound, else what SQLite found."""
    rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check").fetchall()]
    return [] if rows == ["ok"] else rows


#: how SQLite says it could not make a WAL database's ``-shm`` file (a read-only directory, a full disk)
SHM_REFUSALS = ("unable to open", "disk I/O error")


def connect_read_only(path: Path | str, *, isolation_level: IsolationLevel = "DEFERRED",
                      check_same_thread: bool = True) -> sqlite3.Connection:
    """Open ``path`` without writing to it or beside it.

    ``mode=ro`` first; on a read-only directory, or a full disk, a WAL database whose ``-shm`` file is gone
    (closed cleanly) cannot be opened that way (SQLite must create the ``-shm``: "unable to open" or "disk
    I/O error"); when no ``-wal`` content exists either, ``immutable=1`` reads it.
    """
    uri = f"file:{Path(path)}?mode=ro"
    timeout = BUSY_TIMEOUT_MS / 1000
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=isolation_level,
                               check_same_thread=check_same_thread)
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return conn
    except sqlite3.OperationalError as exc:
        wal = Path(f"{path}-wal")
        if not any(why in str(exc) for why in SHM_REFUSALS) or (wal.exists() and wal.stat().st_size > 0):
            raise  # rows waiting in a -wal file would be missed: say the file cannot be opened
    return sqlite3.connect(uri + "&immutable=1", uri=True, timeout=timeout, isolation_level=isolation_level,
                           check_same_thread=check_same_thread)


def integrity_check(path: Path | str) -> list[str]:
    """``PRAGMA integrity_check`` on a file opened read-only: an empty list when it is sound."""
    conn = connect_read_only(path)
    try:
        rows = [str(r[0]) for r in conn.execute("PRAGMA integrity_check").fetchall()]
    finally:
        conn.close()
    return [] if rows == ["ok"] else rows


def open_store(
    path: Path | str,
    schema: str,
    *,
    read_only: bool = False,
    check: bool = False,
    synchronous: str = "NORMAL",
    isolation_level: IsolationLevel = "DEFERRED",
    check_same_thread: bool = True,
    migrate: Callable[[sqlite3.Connection], None] | None = None,
) -> sqlite3.Connection:
    """A connection to the store at ``path`` (``:memory:`` too), its schema in place; see the module docstring.

    ``migrate`` runs in the schema's transaction, after it (to add columns older files lack).
    """
    where = str(path)
    memory = where == ":memory:"
    if not memory:
        path = Path(path)
        _check_place(path)
    with storage_errors(path):
        if read_only and not memory and not Path(path).exists():
            memory, where = True, ":memory:"  # nothing recorded yet: an empty store, and nothing created
        if read_only and not memory:
            conn = connect_read_only(where, isolation_level=isolation_level, check_same_thread=check_same_thread)
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            if not _has_tables(conn):
                conn.close()  # an empty file (a store created but never written): read it as empty
                conn = sqlite3.connect(":memory:", isolation_level=isolation_level,
                                       check_same_thread=check_same_thread)
                conn.executescript(schema)
            return conn
        if not memory:
            _check_writable(Path(path))
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(where, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=isolation_level,
                               check_same_thread=check_same_thread)
        try:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            if check and not memory:
                try:
                    problems = quick_check(conn)
                except sqlite3.DatabaseError as exc:
                    if "malformed" not in str(exc):
                        raise  # not a database at all: storage_errors says so
                    problems = [str(exc)]
                if problems:
                    raise StorageError(ErrorCode.STORAGE_CORRUPT, path,
                                       f"fails SQLite's quick_check ({'; '.join(problems[:3])}); refused for writing")
            if not memory:
                mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
                if mode != "wal":
                    retry_locked(lambda: conn.execute("PRAGMA journal_mode=WAL").fetchone())
            conn.execute(f"PRAGMA synchronous={synchronous}")
            retry_locked(lambda: _apply_schema(conn, schema, migrate))
        except BaseException:
            conn.close()
            raise
        return conn
