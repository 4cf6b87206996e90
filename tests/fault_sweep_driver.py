"""The fault sweep's driver: one command, killed (or failed with an I/O error) at every journal commit.

``python tests/fault_sweep_driver.py HOME kill,eio [--resumes] -- ARGS...`` imports craftbt once, then forks a
child per trial (no interpreter start-up per trial). It counts the journal commits of one clean run of
``craftbt ARGS`` first (``CRAFTBT_FAULT_JOURNAL=count:FILE``), then for each mode and each commit N: runs the
command with ``CRAFTBT_FAULT_JOURNAL=MODE:N``, runs it again clean (the next command), and checks every
journal under HOME: sound, no run left ``running``, nothing committed before the fault changed, and (with
``--resumes``, a command that resumes) no step completed before the fault completed again after it. Prints one
JSON line: the number of fault points and every violation.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any


def child(argv: list[str], fault: str | None) -> int:
    """Run ``craftbt argv`` in a forked child; its exit status (negative: the signal that ended it)."""
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            if fault is None:
                os.environ.pop("CRAFTBT_FAULT_JOURNAL", None)
            else:
                os.environ["CRAFTBT_FAULT_JOURNAL"] = fault
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            from craftbt.cli.root import run

            code = run(argv)
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def snapshot(home: Path) -> dict[str, Any]:
    """Per journal under ``home``: each run's status, its ended steps, its completed idempotency keys."""
    out: dict[str, Any] = {}
    for path in sorted(home.rglob("journal.sqlite")):
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            runs = {r[0]: r[1] for r in conn.execute("SELECT run_id, status FROM runs")}
            steps = {r[0]: [r[1], r[2]] for r in conn.execute(
                "SELECT step_id, run_id, ok FROM steps WHERE ended_at IS NOT NULL")}
            keys: dict[str, list[str]] = {}
            for run_id, key in conn.execute("SELECT run_id, idempotency_key FROM steps"
                                            " WHERE ok = 1 AND idempotency_key IS NOT NULL"):
                keys.setdefault(run_id, []).append(key)
            integrity = [r[0] for r in conn.execute("PRAGMA integrity_check")]
        finally:
            conn.close()
        out[str(path.relative_to(home))] = {"runs": runs, "steps": steps, "keys": keys, "integrity": integrity}
    return out


def repeated(mid: dict[str, Any], before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Steps the faulted run completed that a run the next command opened (a resume) completed again."""
    found: list[str] = []
    for name, then in mid.items():
        faulted = set(then["runs"]) - set(before.get(name, {"runs": {}})["runs"])
        done = {k for r in faulted for k in then["keys"].get(r, [])}
        now = after.get(name, {"runs": {}, "keys": {}})
        again = [k for r, keys in now["keys"].items() if r not in then["runs"] for k in keys if k in done]
        if again:
            found.append(f"{name}: the resume repeated completed steps {again[:3]}")
    return found


def check(label: str, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    found: list[str] = []
    for name, then in before.items():
        now = after.get(name)
        if now is None:
            found.append(f"{label}: {name} is gone")
            continue
        lost = [r for r, s in then["runs"].items() if s != "running" and now["runs"].get(r) != s]
        lost_steps = [i for i, v in then["steps"].items() if now["steps"].get(i) != v]
        if lost or lost_steps:
            found.append(f"{label}: {name}: committed runs {lost[:3]} / steps {lost_steps[:3]} changed or lost")
    for name, now in after.items():
        if now["integrity"] != ["ok"]:
            found.append(f"{label}: {name}: integrity_check {now['integrity'][:2]}")
        running = [r for r, s in now["runs"].items() if s == "running"]
        if running:
            found.append(f"{label}: {name}: runs left running after the next command: {running}")
    return found


def main() -> None:
    split = sys.argv.index("--")
    home, modes, resumes = Path(sys.argv[1]), sys.argv[2].split(","), "--resumes" in sys.argv[3:split]
    argv = sys.argv[split + 1:]
    os.environ["CRAFTBT_HOME"] = str(home)
    home.mkdir(parents=True, exist_ok=True)
    count_file = home.parent / f"{home.name}.count"
    violations: list[str] = []
    first = child(argv, f"count:{count_file}")
    points = int(count_file.read_text()) if count_file.exists() else 0
    if first != 0:
        violations.append(f"the clean run exited {first}")
    for mode in modes:
        for n in range(1, points + 1):
            label = f"{mode}:{n}"
            before = snapshot(home)
            code = child(argv, label)
            if mode == "eio" and code not in (0, 1):
                violations.append(f"{label}: exit {code} (an I/O error is exit 1, never a crash)")
            if mode == "kill" and code not in (0, -9):
                violations.append(f"{label}: exit {code}")
            mid = snapshot(home)
            again = child(argv, None)  # the next command
            if again != 0:
                violations.append(f"{label}: the next command exited {again}")
            after = snapshot(home)
            violations.extend(check(label, before, after))
            if resumes:
                violations.extend(f"{label}: {v}" for v in repeated(mid, before, after))
    print(json.dumps({"points": points, "modes": modes, "violations": violations}))


if __name__ == "__main__":
    main()
