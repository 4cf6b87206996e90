"""Faults of the environment around the SQLite stores: exit 1 naming the file and the cause, never exit 3.

Corrupt, truncated and overwritten journals, a directory where the file belongs,
CRAFTBT_HOME that is a file, a full disk (mocked ENOSPC here; a real small tmpfs
in the slow suite), concurrent openers of a fresh store, and ``craftbt doctor``.
"""

from __future__ import annotations

import errno
import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from craftbt.cli import root
from craftbt.core.errors import ErrorCode
from craftbt.core.sqlite import StorageError, classify, integrity_check, like_prefix, open_store, retry_locked
from craftbt.executor.journal import Journal
from craftbt.executor.recorder import GoldenRunRecorder
from craftbt.router.priors import PriorsStore

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[Any]:
    """``craftbt ARGS`` in this process: (exit code, stderr); the signal handlers it installs are put back."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

    def call(*args: str) -> tuple[int, str]:
        monkeypatch.setattr(sys, "argv", ["craftbt", *args])
        code = 0
        try:
            root.main()
        except SystemExit as done:
            code = int(done.code or 0)
        captured = capsys.readouterr()
        return code, captured.err + captured.out

    yield call
    for signum, handler in saved.items():
        signal.signal(signum, handler)


def journal_with_runs(path: Path, runs: int = 30, steps: int = 40) -> None:
    journal = Journal(path)
    for r in range(runs):
        rid = journal.begin_run(executor_plan_digest="sha256:x", tree_name=f"t{r}")
        for s in range(steps):
            h = journal.start_step(rid, node=f"n{s}", capability="move", version="1.0.0", args={"s": s},
                                   idempotency_key=None, attempt=0, shadow=False, lifecycle="active", tick=s)
            journal.end_step(h, tick=s + 1, ok=True, duration_ms=50.0, ttfa_ms=None, error_code=None,
                             error_detail=None, retryable=None, verdict="verified", evidence={"x": "y" * 50},
                             receipt=None, effects=None)
        journal.end_run(rid, status="success", sim_ticks=steps, wall_ms=1.0, summary={})
    journal.close()
    # fold the WAL into the main file, so damage to the file is damage to the data
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def damaged(path: Path) -> bool:
    try:
        return bool(integrity_check(path))
    except sqlite3.DatabaseError:
        return True


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_garbled_steps_pages_are_refused_for_writing_and_never_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    journal_with_runs(path)
    size = path.stat().st_size
    with path.open("r+b") as fh:  # 4 KB of noise in the middle of the file (the steps table's pages)
        fh.seek(size // 2 // 4096 * 4096)
        fh.write(os.urandom(4096))
    assert damaged(path)  # the damage is real
    before = digest(path)
    with pytest.raises(StorageError) as info:
        Journal(path)
    assert info.value.code is ErrorCode.STORAGE_CORRUPT
    assert info.value.problems[0].location.file == str(path)
    assert "refused for writing" in str(info.value) and ".corrupt" in str(info.value)
    assert digest(path) == before


@pytest.mark.parametrize("damage", ["noise", "truncated", "empty_header"])
def test_an_overwritten_or_truncated_journal_names_the_file(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "journal.sqlite"
    journal_with_runs(path, runs=5)
    if damage == "noise":
        path.write_bytes(os.urandom(8192))
    elif damage == "truncated":
        with path.open("r+b") as fh:
            fh.truncate(path.stat().st_size // 3)
    else:
        path.write_bytes(b"\0" * 100 + path.read_bytes()[100:])
    for read_only in (False, True):
        with pytest.raises(StorageError) as info:
            Journal(path, read_only=read_only).list_runs()
        assert info.value.code is ErrorCode.STORAGE_CORRUPT, info.value
        assert str(path) in str(info.value)


def test_a_directory_where_the_journal_belongs(tmp_path: Path) -> None:
    (tmp_path / "journal.sqlite").mkdir()
    with pytest.raises(StorageError) as info:
        Journal(tmp_path / "journal.sqlite")
    assert info.value.code is ErrorCode.STORAGE_UNAVAILABLE and "directory" in str(info.value)


def test_a_fifo_where_the_journal_belongs_is_refused_not_waited_on(tmp_path: Path) -> None:
    # opening a FIFO for reading blocks until a writer comes: a read-only `craftbt show` hung on one
    fifo = tmp_path / "journal.sqlite"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def open_it(read_only: bool) -> None:
        try:
            Journal(fifo, read_only=read_only).list_runs()
            outcome.append(None)
        except BaseException as exc:  # handed to the test thread
            outcome.append(exc)

    for read_only in (True, False):
        outcome.clear()
        worker = threading.Thread(target=open_it, args=(read_only,), daemon=True)
        worker.start()
        worker.join(timeout=20)
        if worker.is_alive():  # unblock the open so the thread ends, then fail
            with open(fifo, "wb"):
                pass
            pytest.fail(f"opening a FIFO journal (read_only={read_only}) blocked")
        error = outcome[0]
        assert isinstance(error, StorageError), error
        assert error.code is ErrorCode.STORAGE_UNAVAILABLE and "not a regular file" in str(error)
        assert str(fifo) in str(error)


def test_a_home_that_is_a_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.write_text("not a directory")
    for open_it in (lambda: Journal(home / "journal.sqlite"), lambda: PriorsStore(home / "priors.sqlite"),
                    lambda: Journal(home / "journal.sqlite", read_only=True)):
        with pytest.raises(StorageError) as info:
            open_it()
        assert info.value.problems[0].location.file == str(home)
        assert "CRAFTBT_HOME must be a directory" in str(info.value)


def test_a_read_only_open_of_a_missing_store_creates_nothing(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "nothing" / "journal.sqlite", read_only=True)
    assert journal.list_runs() == []
    journal.close()
    assert not (tmp_path / "nothing").exists()


@pytest.mark.parametrize(("exc", "code"), [
    (OSError(errno.ENOSPC, "No space left on device"), ErrorCode.DISK_FULL),
    (OSError(errno.EROFS, "Read-only file system"), ErrorCode.STORAGE_READ_ONLY),
    (OSError(errno.EISDIR, "Is a directory"), ErrorCode.STORAGE_UNAVAILABLE),
    (sqlite3.OperationalError("database or disk is full"), ErrorCode.DISK_FULL),
    (sqlite3.OperationalError("attempt to write a readonly database"), ErrorCode.STORAGE_READ_ONLY),
    (sqlite3.DatabaseError("file is not a database"), ErrorCode.STORAGE_CORRUPT),
    (sqlite3.DatabaseError("database disk image is malformed"), ErrorCode.STORAGE_CORRUPT),
])
def test_environmental_causes_are_classified(exc: BaseException, code: ErrorCode) -> None:
    found = classify(exc)
    assert found is not None and found[0] is code


def test_a_bug_is_not_classified_as_the_environment() -> None:
    assert classify(sqlite3.OperationalError("near \"SELEC\": syntax error")) is None
    assert classify(ValueError("x")) is None


def test_cli_corrupt_journal_exits_1_naming_the_file(cli: Any, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path))
    (tmp_path / "journal.sqlite").write_bytes(os.urandom(8192))
    for args in (["runs"], ["show", "run-x"], ["sla"], ["run", "--goal", "obtain wooden_pickaxe"]):
        code, err = cli(*args)
        assert code == 1, (args, err)
        assert str(tmp_path / "journal.sqlite") in err and "storage_corrupt" in err
        assert "craftbt bug" not in err
    code, out = cli("doctor")
    assert code == 1 and "PROBLEM" in out and "to recover" in out


def test_cli_home_is_a_file(cli: Any, tmp_path: Path, monkeypatch: Any) -> None:
    home = tmp_path / "home"
    home.write_text("x")
    monkeypatch.setenv("CRAFTBT_HOME", str(home))
    for args in (["runs"], ["run", "--goal", "obtain wooden_pickaxe"], ["doctor"]):
        code, err = cli(*args)
        assert code == 1 and str(home) in err and "craftbt bug" not in err, (args, err)


def test_cli_disk_full_while_writing_the_report(cli: Any, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path))

    def full(self: GoldenRunRecorder, run_id: str | None = None) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "golden" / "r.json"))

    monkeypatch.setattr(GoldenRunRecorder, "flush", full)
    code, err = cli("run", "--goal", "obtain wooden_pickaxe")
    assert code == 1 and "disk_full" in err and str(tmp_path / "golden") in err and "craftbt bug" not in err, err
    journal = Journal(tmp_path / "journal.sqlite", read_only=True)
    (row,) = journal.list_runs()
    assert journal.run_detail(row["run_id"])["summary"]["artefacts_missing"]


def test_cli_doctor_on_a_sound_home(cli: Any, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path))
    journal_with_runs(tmp_path / "journal.sqlite", runs=2, steps=2)
    code, out = cli("doctor")
    assert code == 0 and "integrity_check ok" in out


OPENER = """
import sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from craftbt.executor.journal import Journal
from craftbt.router.priors import PriorsStore
go = Path({go!r})
while not go.exists():
    time.sleep(0.001)
j = Journal(Path({home!r}) / "journal.sqlite")
p = PriorsStore(Path({home!r}) / "priors.sqlite")
rid = j.begin_run(executor_plan_digest="sha256:x", tree_name="race")
p.record_plan("solver", ["m"], "any/day", True)
j.end_run(rid, status="success", sim_ticks=0, wall_ms=0.0, summary={{}})
j.close()
p.close()
"""


def test_eight_processes_opening_a_fresh_home_at_once_all_record(tmp_path: Path) -> None:
    home = tmp_path / "home"
    go = tmp_path / "go"
    script = OPENER.format(root=str(ROOT), go=str(go), home=str(home))
    procs = [subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True) for _ in range(8)]
    go.touch()
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, errors
    journal = Journal(home / "journal.sqlite", read_only=True)
    assert [r["status"] for r in journal.list_runs()] == ["success"] * 8
    assert PriorsStore(home / "priors.sqlite").counts("solver", "*", "any/day") == (8.0, 0.0)
    assert integrity_check(home / "journal.sqlite") == [] and integrity_check(home / "priors.sqlite") == []


def test_open_store_sets_wal_and_busy_timeout(tmp_path: Path) -> None:
    conn = open_store(tmp_path / "s.sqlite", "CREATE TABLE IF NOT EXISTS t (x)")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000


def test_a_new_store_waits_for_another_process_holding_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")  # another process in the middle of a write, in rollback-journal mode
    timer = threading.Timer(0.3, lambda: holder.execute("COMMIT"))
    timer.start()
    conn = open_store(path, "CREATE TABLE IF NOT EXISTS u (y)")
    timer.join()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_lock_errors_sqlite_does_not_wait_for_are_retried() -> None:
    calls = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise sqlite3.OperationalError("database is locked")
        return "done"

    assert retry_locked(flaky) == "done" and len(calls) == 3
    with pytest.raises(sqlite3.OperationalError):
        retry_locked(lambda: (_ for _ in ()).throw(sqlite3.OperationalError("no such table: x")))


def test_like_prefix_matches_a_prefix_literally() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (s TEXT)")
    conn.executemany("INSERT INTO t VALUES (?)", [("run-a_b1",), ("run-axb2",), ("50%_off",), ("50x_off",),
                                                  ("a\\b",), ("axb",)])

    def matches(prefix: str) -> list[str]:
        return sorted(r[0] for r in conn.execute("SELECT s FROM t WHERE s LIKE ? ESCAPE '\\'", (like_prefix(prefix),)))

    assert matches("run-a_") == ["run-a_b1"]
    assert matches("50%") == ["50%_off"]
    assert matches("a\\") == ["a\\b"]
    assert matches("run-") == ["run-a_b1", "run-axb2"]


# -- every store under the home; runs on a damaged journal ------------------------------------------
#: every store a home can hold besides the journal, as its path under the home
STORES = ["priors.sqlite", "memory.sqlite", "craftscript.sqlite", "build/build.sqlite",
          "build/executor/journal.sqlite", "fleet/bot-1/journal.sqlite"]


def sound_store(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name == "journal.sqlite":
        journal_with_runs(path, runs=30, steps=40)
        return
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x TEXT)")
    conn.executemany("INSERT INTO t VALUES (?)", [("y" * 200,)] * 500)
    conn.commit()
    conn.close()


def damage(path: Path) -> None:
    size = path.stat().st_size
    with path.open("r+b") as fh:  # 4 KB of noise in the middle of the file
        fh.seek(size // 2 // 4096 * 4096)
        fh.write(os.urandom(4096))


@pytest.mark.parametrize("store", STORES)
def test_doctor_finds_a_damaged_store_anywhere_under_the_home(cli: Any, tmp_path: Path, monkeypatch: Any,
                                                              store: str) -> None:
    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path))
    journal_with_runs(tmp_path / "journal.sqlite", runs=2, steps=2)
    for name in STORES:
        sound_store(tmp_path / name)
    code, out = cli("doctor")
    assert code == 0, out
    for name in STORES:
        assert f"{tmp_path / name}: integrity_check ok" in out
    damage(tmp_path / store)
    code, out = cli("doctor")
    assert code == 1 and f"PROBLEM  {tmp_path / store}" in out and "to recover" in out, out


def test_doctor_checks_a_build_state_folder_kept_elsewhere(cli: Any, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path / "home"))
    state = tmp_path / "state"
    sound_store(state / "build.sqlite")
    sound_store(state / "executor" / "journal.sqlite")
    damage(state / "executor" / "journal.sqlite")
    code, out = cli("doctor", "--store", str(state))
    assert code == 1 and f"PROBLEM  {state / 'executor' / 'journal.sqlite'}" in out, out
    assert f"{state / 'build.sqlite'}: integrity_check ok" in out


def test_runs_lists_what_it_can_and_exits_1_on_a_damaged_journal(cli: Any, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path))
    path = tmp_path / "journal.sqlite"
    journal_with_runs(path, runs=3, steps=2)
    conn = sqlite3.connect(path)  # pages runs never reads, at the end of the file: the damage goes there
    conn.execute("CREATE TABLE ballast (x TEXT)")
    conn.executemany("INSERT INTO ballast VALUES (?)", [("z" * 300,)] * 400)
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    code, out = cli("runs", "--limit", "3")
    assert code == 0, out
    size = path.stat().st_size
    with path.open("r+b") as fh:
        fh.seek(size - 8192)
        fh.write(os.urandom(4096))
    code, out = cli("runs", "--limit", "3", "--json")
    assert code == 1, out
    assert out.count('"run_id"') == 3  # what could be read is shown
    assert f"{path}: storage_corrupt: the journal is damaged" in out and "craftbt doctor" in out


def test_runs_on_a_journal_whose_runs_cannot_be_read_names_the_file(cli: Any, tmp_path: Path,
                                                                    monkeypatch: Any) -> None:
    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path))
    path = tmp_path / "journal.sqlite"
    journal_with_runs(path, runs=30, steps=40)
    damage(path)  # the steps table's pages: the step counts cannot be read
    code, out = cli("runs")
    assert code == 1 and str(path) in out and "storage_corrupt" in out and "craftbt bug" not in out, out
