"""``craftbt doctor``: is ``$CRAFTBT_HOME`` sound? Each store's ``integrity_check``, runs left open, how to recover.

Read-only: it opens nothing for writing, so it works on a read-only mount and
on a store the other commands refuse. Exit 0 when everything is sound, 1 when
something needs the user (each finding names the file and what to do).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import typer

from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.core.home import default_home
from craftbt.core.sqlite import RECOVER, as_storage_error, integrity_check

#: the stores craftbt keeps at its home's top; every other ``*.sqlite`` under the home is checked too: the
#: build state (``build/build.sqlite``) and the build's own journal (``build/executor/journal.sqlite``), a
#: fleet's or an evaluation's stores; build state kept elsewhere (``--state``) is checked with --store
STORES = ("journal.sqlite", "priors.sqlite", "memory.sqlite", "craftscript.sqlite")
#: how deep under the home stores are looked for (build/executor/journal.sqlite is two folders down)
MAX_DEPTH = 4


def home_stores(home: Path) -> list[Path]:
    """Every SQLite store under ``home`` (the known ones first), without SQLite's -wal / -shm companions."""
    found = [home / name for name in STORES if (home / name).exists()]
    for depth in range(MAX_DEPTH + 1):
        pattern = "/".join(["*"] * depth + ["*.sqlite"])
        found.extend(p for p in sorted(home.glob(pattern)) if p not in found)
    return found


def _check_store(path: Path) -> dict[str, Any]:
    """One store's verdict: ok, or the problems and how to recover."""
    if path.is_dir():
        return {"file": str(path), "ok": False, "problems": ["a directory is where the database file belongs"],
                "recover": f"move the directory aside (mv {path} {path}.dir)"}
    try:
        problems = integrity_check(path)
    except (sqlite3.Error, OSError) as exc:
        err = as_storage_error(exc, path)
        cause = err.cause if err is not None else f"{type(exc).__name__}: {exc}"
        code = err.code if err is not None else ErrorCode.STORAGE_CORRUPT
        return {"file": str(path), "ok": False, "problems": [cause],
                "recover": RECOVER.get(code, RECOVER[ErrorCode.STORAGE_CORRUPT]).format(path=path)}
    if problems:
        return {"file": str(path), "ok": False, "problems": problems[:10],
                "recover": RECOVER[ErrorCode.STORAGE_CORRUPT].format(path=path)}
    return {"file": str(path), "ok": True, "problems": []}


def _open_runs(path: Path) -> dict[str, int]:
    """Runs still ``running`` in a sound journal: whose process is alive, and whose is gone (abandoned)."""
    from craftbt.executor.journal import Journal

    try:
        journal = Journal(path, read_only=True)
        try:
            rows = journal.run_rows()
        finally:
            journal.close()
    except (CraftbtError, sqlite3.Error):  # a sound file that is no journal (a foreign database): no runs to count
        return {"abandoned": 0, "running": 0}
    return {"abandoned": sum(1 for r in rows if r["status"] == "abandoned" and r.get("ended_at") is None),
            "running": sum(1 for r in rows if r["status"] == "running")}


def doctor_cmd(
    store: list[Path] = typer.Option([], "--store", help="Also check this SQLite file, or every store in this folder "
                                     "(a build's --state)"),
    as_json: bool = typer.Option(False, "--json", help="Print the findings as JSON"),
) -> None:
    """Check CRAFTBT_HOME: integrity_check of every store, runs left open; say how to recover. Writes nothing."""
    home = default_home()
    findings: list[dict[str, Any]] = []
    if home.exists() and not home.is_dir():
        findings.append({"file": str(home), "ok": False, "problems": ["CRAFTBT_HOME is a file, not a directory"],
                         "recover": "point CRAFTBT_HOME at a directory (or move the file aside)"})
    elif home.is_dir():
        findings.extend(_check_store(p) for p in home_stores(home))
    for extra in store:  # --store: a file, or a build's --state directory (its state and its journal)
        paths = home_stores(extra) if extra.is_dir() and extra.suffix != ".sqlite" else [extra]
        findings.extend(_check_store(p) for p in paths)
    for finding in findings:
        if finding["ok"] and Path(finding["file"]).name == "journal.sqlite":
            finding["runs"] = _open_runs(Path(finding["file"]))
            if finding["runs"]["abandoned"]:
                finding["note"] = (f"{finding['runs']['abandoned']} run(s) whose process is gone are still open;"
                                   " the next `craftbt run` records them as abandoned")
    if as_json:
        typer.echo(json.dumps({"home": str(home), "findings": findings}, indent=2))
    else:
        typer.echo(f"CRAFTBT_HOME {home}")
        if not findings:
            typer.echo("  nothing recorded yet")
        for f in findings:
            if f["ok"]:
                typer.echo(f"  ok       {f['file']}: integrity_check ok" + (f"; {f['note']}" if f.get("note") else ""))
            else:
                typer.echo(f"  PROBLEM  {f['file']}: {'; '.join(f['problems'][:3])}")
                typer.echo(f"           to recover: {f['recover']}")
    if not all(f["ok"] for f in findings):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor_cmd)
