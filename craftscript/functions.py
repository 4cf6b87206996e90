"""Persistent, versioned, per-bot CraftScript functions (seed 004 section 13) in SQLite.

The store lives at ``$CRAFTBT_HOME/craftscript.sqlite`` (WAL, busy timeout set on the connection).
Every edit adds a version; calls run the latest; delete removes every version. Function names are
scoped by bot name, so each bot has its own library. Times are epoch milliseconds, as in the seed.
"""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path
from typing import Any

import orjson

from craftbt.core.home import default_home
from craftbt.core.sqlite import open_store
from craftbt.craftscript.ast import Loc
from craftbt.craftscript.commands import COMMANDS, PREDICATES
from craftbt.craftscript.errors import ScriptError
from craftbt.craftscript.macros import core_macros
from craftbt.craftscript.parser import KEYWORDS, SELECTOR_NAME, parse

NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
ARG_TYPES = {"int": "int", "number": "int", "integer": "int", "bool": "bool", "boolean": "bool", "string": "string",
             "str": "string"}

SCHEMA = """
CREATE TABLE IF NOT EXISTS functions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    bot TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    current_version INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (bot, name)
);
CREATE TABLE IF NOT EXISTS function_versions (
    function_id INTEGER NOT NULL REFERENCES functions(id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    body TEXT NOT NULL,
    args_json TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    created_by TEXT NOT NULL,
    change_summary TEXT NOT NULL,
    PRIMARY KEY (function_id, version)
);
"""


class FunctionStoreError(Exception):
    """A refused store call; ``loc`` locates a body that does not parse."""

    def __init__(self, code: str, message: str, loc: Loc | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.loc = loc

    def render(self) -> str:
        """``FILE:LINE:COL: code: message`` for a located error, else ``code: message``."""
        where = f"{self.loc.source}:{self.loc.line}:{self.loc.column}: " if self.loc else ""
        return f"{where}{self.code}: {self.message}"


def store_path(home: Path | None = None) -> Path:
    """The CraftScript store of ``home`` (``$CRAFTBT_HOME`` by default): the functions and the kept script runs."""
    return (home if home is not None else default_home()) / "craftscript.sqlite"


def parse_arg_spec(text: str) -> dict[str, Any]:
    """``NAME:TYPE``, ``NAME:TYPE=DEFAULT`` (optional with that default) or ``NAME:TYPE?`` (optional)."""
    name, sep, rest = text.partition(":")
    if not sep or not NAME.match(name):
        raise FunctionStoreError("bad_args", f"--arg {text!r} is not NAME:TYPE (types: int, bool, string)")
    optional = rest.endswith("?")
    rest = rest.rstrip("?")
    type_text, eq, default_text = rest.partition("=")
    kind = ARG_TYPES.get(type_text)
    if kind is None:
        raise FunctionStoreError("bad_args", f"--arg {text!r}: unknown type {type_text!r} (int, bool, string)")
    spec: dict[str, Any] = {"name": name, "type": kind, "optional": optional or bool(eq)}
    if eq:
        spec["default"] = _default(kind, default_text, text)
    return spec


def _default(kind: str, raw: str, text: str) -> Any:
    if kind == "int":
        try:
            return int(raw)
        except ValueError:
            raise FunctionStoreError("bad_args", f"--arg {text!r}: default {raw!r} is not an int") from None
    if kind == "bool":
        if raw not in ("true", "false"):
            raise FunctionStoreError("bad_args", f"--arg {text!r}: default {raw!r} is not true or false")
        return raw == "true"
    return raw


def normalise_args(args: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for spec in args:
        name = spec.get("name")
        if not isinstance(name, str) or not NAME.match(name) or name in KEYWORDS:
            raise FunctionStoreError("bad_args", f"argument name {name!r} is not a valid identifier")
        if name in seen:
            raise FunctionStoreError("bad_args", f"argument {name!r} is declared twice")
        seen.add(name)
        kind = ARG_TYPES.get(str(spec.get("type", "int")))
        if kind is None:
            raise FunctionStoreError("bad_args", f"argument {name!r}: unknown type {spec.get('type')!r}")
        item: dict[str, Any] = {"name": name, "type": kind, "optional": bool(spec.get("optional", False))}
        if "default" in spec:
            item["default"] = spec["default"]
            item["optional"] = True
        out.append(item)
    return out


class FunctionStore:
    """One bot's function library (``bot`` is the body's name, e.g. ``Sterling``)."""

    def __init__(self, bot: str, path: Path | str | None = None) -> None:
        self.bot = bot
        self.path = Path(path) if path is not None else store_path()
        # opened like every craftbt store: busy timeout, WAL, a checked file, errors that name it
        self._conn = open_store(self.path, SCHEMA, check=True)
        self._conn.row_factory = sqlite3.Row
        self._conn.execute("PRAGMA foreign_keys=ON")

    def close(self) -> None:
        self._conn.close()

    # -- writes --------------------------------------------------------------------------------
    def create(self, name: str, body: str, *, description: str = "", args: list[dict[str, Any]] | None = None,
               created_by: str | None = None, source: str | None = None) -> dict[str, Any]:
        """Version 1 of ``name``; ``source`` names the body's file in a syntax error (default ``fn:NAME``)."""
        self._check_name(name)
        spec = normalise_args(args or [])
        self._check_body(name, body, source)
        now = _ms()
        with self._conn:
            if self._row(name) is not None:
                raise FunctionStoreError("exists", f"function {name!r} already exists; use edit")
            cur = self._conn.execute(
                "INSERT INTO functions(bot, name, description, current_version, created_at, updated_at)"
                " VALUES (?,?,?,?,?,?)", (self.bot, name, description, 1, now, now))
            fid = int(cur.lastrowid or 0)
            self._conn.execute(
                "INSERT INTO function_versions(function_id, version, body, args_json, created_at, created_by,"
                " change_summary) VALUES (?,?,?,?,?,?,?)",
                (fid, 1, body, orjson.dumps(spec).decode(), now, created_by or self.bot, "Initial version"))
        return {"ok": True, "id": fid, "name": name, "version": 1}

    def edit(self, name: str, body: str, *, change_summary: str = "", args: list[dict[str, Any]] | None = None,
             description: str | None = None, created_by: str | None = None,
             source: str | None = None) -> dict[str, Any]:
        """A new version of ``name``, which calls run from now on."""
        self._check_body(name, body, source)
        now = _ms()
        with self._conn:
            row = self._require(name)
            version = int(row["current_version"]) + 1
            if args is None:
                spec = orjson.loads(self._version_row(int(row["id"]), int(row["current_version"]))["args_json"])
            else:
                spec = normalise_args(args)
            self._conn.execute(
                "INSERT INTO function_versions(function_id, version, body, args_json, created_at, created_by,"
                " change_summary) VALUES (?,?,?,?,?,?,?)",
                (row["id"], version, body, orjson.dumps(spec).decode(), now, created_by or self.bot,
                 change_summary or f"Version {version}"))
            self._conn.execute(
                "UPDATE functions SET current_version=?, updated_at=?, description=COALESCE(?, description)"
                " WHERE id=?", (version, now, description, row["id"]))
        return {"ok": True, "name": name, "version": version}

    def delete(self, name: str) -> dict[str, Any]:
        with self._conn:
            row = self._require(name)
            self._conn.execute("DELETE FROM function_versions WHERE function_id=?", (row["id"],))
            self._conn.execute("DELETE FROM functions WHERE id=?", (row["id"],))
        return {"ok": True, "deleted": name}

    # -- reads ---------------------------------------------------------------------------------
    def list(self) -> dict[str, Any]:
        rows = self._conn.execute("SELECT * FROM functions WHERE bot=? ORDER BY name", (self.bot,)).fetchall()
        functions = []
        for r in rows:
            v = self._version_row(int(r["id"]), int(r["current_version"]))
            functions.append({"id": r["id"], "name": r["name"], "description": r["description"],
                              "args": orjson.loads(v["args_json"]), "current_version": r["current_version"],
                              "created_at": r["created_at"], "updated_at": r["updated_at"]})
        return {"ok": True, "functions": functions}

    def get(self, name: str) -> dict[str, Any]:
        r = self._require(name)
        v = self._version_row(int(r["id"]), int(r["current_version"]))
        return {"ok": True, "id": r["id"], "name": r["name"], "description": r["description"],
                "args": orjson.loads(v["args_json"]), "body": v["body"], "version": r["current_version"],
                "current_version": r["current_version"], "created_at": r["created_at"],
                "updated_at": r["updated_at"]}

    def versions(self, name: str, limit: int | None = None) -> dict[str, Any]:
        r = self._require(name)
        sql = "SELECT * FROM function_versions WHERE function_id=? ORDER BY version DESC"
        params: list[Any] = [r["id"]]
        if limit is not None:
            sql += " LIMIT ?"
            params.append(max(0, limit))
        rows = self._conn.execute(sql, params).fetchall()
        return {"ok": True, "name": name, "versions": [
            {"version": v["version"], "created_at": v["created_at"], "created_by": v["created_by"],
             "change_summary": v["change_summary"], "args": orjson.loads(v["args_json"])} for v in rows]}

    def latest(self, name: str) -> dict[str, Any] | None:
        """The interpreter's view: the newest version's body and args, or None."""
        r = self._row(name)
        if r is None:
            return None
        return self.get(name)

    def signatures(self) -> dict[str, dict[str, Any]]:
        """name -> {args} for the checker."""
        return {f["name"]: {"args": f["args"]} for f in self.list()["functions"]}

    # -- internals -----------------------------------------------------------------------------
    def _row(self, name: str) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self._conn.execute(
            "SELECT * FROM functions WHERE bot=? AND name=?", (self.bot, name)).fetchone()
        return row

    def _require(self, name: str) -> sqlite3.Row:
        row = self._row(name)
        if row is None:
            raise FunctionStoreError("not_found", f"no function {name!r} for bot {self.bot!r}")
        return row

    def _version_row(self, fid: int, version: int) -> sqlite3.Row:
        row: sqlite3.Row = self._conn.execute(
            "SELECT * FROM function_versions WHERE function_id=? AND version=?", (fid, version)).fetchone()
        return row

    def _check_name(self, name: str) -> None:
        if not NAME.match(name) or name in KEYWORDS or SELECTOR_NAME.match(name):
            raise FunctionStoreError("bad_name", f"function name {name!r} must match [a-z_][a-z0-9_]* and not be a "
                                     "reserved word")
        if name in COMMANDS or name in ("waypoint", "block"):
            raise FunctionStoreError("bad_name", f"function name {name!r} is a built-in command")
        # a call reads a core macro first and a predicate where a value is expected: such a function could
        # never be called as itself
        if name in core_macros():
            raise FunctionStoreError("bad_name", f"function name {name!r} is a core macro")
        if name in PREDICATES:
            raise FunctionStoreError("bad_name", f"function name {name!r} is a predicate")

    def _check_body(self, name: str, body: str, source: str | None) -> None:
        try:
            parse(body, source=source or f"fn:{name}")
        except ScriptError as err:
            raise FunctionStoreError(err.code, err.message, err.loc) from None


def _ms() -> int:
    return int(time.time() * 1000)
