"""Who may do what: scoped bearer tokens, per-client limits, run ownership and the server's own run limits.

Three scopes, each containing the one below it:

* ``read``: status, runs, the journal, the registry, read-only MCP tools and resources;
* ``act``: world-changing tools and runs (trees, goals, scripts, capability calls), signals, the
  viewer's controls, cancelling the client's *own* runs;
* ``admin``: the CraftScript function store's writes, cancelling *another* client's run.

``--token`` (one token, as before) is an ``admin`` token named ``admin``. ``--token-file F`` holds one
client a line: ``SCOPE NAME TOKEN [max_ticks=N] [runs_per_hour=N]``. Every run is bounded by the
server's limits (a tick cap and a wall-time cap, :class:`ServiceLimits`) and by its client's.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path

from craftbt.serve.bot import Bot, Job

#: the shortest token accepted (a guessable token is no token)
MIN_TOKEN_CHARS = 16
#: a run's default wall-time cap (s): the executor's default tick budget at Minecraft's pace, and then some
DEFAULT_MAX_WALL_S = 1800.0
#: why a run the server stopped for running too long ended (the journal's cancel reason)
WALL_TIME_REASON = "wall_time_limit"


class Scope(IntEnum):
    """What a token grants; a higher scope includes the lower ones."""

    READ = 1
    ACT = 2
    ADMIN = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Scope:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown scope {text!r} (read, act, admin)") from None


@dataclass(frozen=True)
class ClientLimits:
    """One client's own limits on top of the server's: a run's tick budget, runs started per hour."""

    max_ticks: int | None = None
    runs_per_hour: int | None = None


@dataclass(frozen=True)
class Principal:
    """A client the server knows: its name (recorded as a run's owner), scope and limits."""

    name: str
    scope: Scope
    limits: ClientLimits = ClientLimits()

    def allows(self, need: Scope) -> bool:
        return self.scope >= need


#: who drives ``craftbt mcp``: the user who started the process (restrict it with ``--scope``)
LOCAL_ADMIN = Principal("local", Scope.ADMIN)


class AccessError(Exception):
    """A call the caller's token does not allow; ``status`` is the HTTP status to answer."""

    def __init__(self, status: int, code: str, detail: str, **extra: object) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.extra = extra

    def payload(self) -> dict[str, object]:
        return {"error": self.code, "detail": self.detail, **self.extra}


def forbidden(principal: Principal, need: Scope, what: str) -> AccessError:
    return AccessError(403, "forbidden", f"{what} needs a token of scope {need.label} "
                                         f"(client {principal.name!r} has {principal.scope.label})",
                       needed_scope=need.label, scope=principal.scope.label)


def check_token(token: str, where: str = "--token") -> str:
    if len(token) < MIN_TOKEN_CHARS:
        raise ValueError(f"{where}: a token must be at least {MIN_TOKEN_CHARS} characters")
    return token


class Tokens:
    """The tokens the server accepts, each naming a :class:`Principal` (compared in constant time)."""

    def __init__(self, entries: dict[str, Principal]) -> None:
        if not entries:
            raise ValueError("no tokens")
        self._entries = dict(entries)

    @classmethod
    def single(cls, token: str) -> Tokens:
        """``--token T``: one admin token, what a single token always meant."""
        return cls({check_token(token): Principal("admin", Scope.ADMIN)})

    @classmethod
    def parse(cls, text: str, source: str = "<tokens>") -> Tokens:
        """``SCOPE NAME TOKEN [max_ticks=N] [runs_per_hour=N]`` a line; ``#`` starts a comment."""
        entries: dict[str, Principal] = {}
        names: set[str] = set()
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            where = f"{source}:{number}"
            words = line.split()
            if len(words) < 3:
                raise ValueError(f"{where}: expected 'SCOPE NAME TOKEN [max_ticks=N] [runs_per_hour=N]'")
            try:
                scope = Scope.parse(words[0])
            except ValueError as err:
                raise ValueError(f"{where}: {err}") from None
            name, token = words[1], check_token(words[2], where)
            if name in names:
                raise ValueError(f"{where}: client {name!r} is named twice")
            if token in entries:
                raise ValueError(f"{where}: this token is already {entries[token].name!r}'s")
            limits: dict[str, int] = {}
            for option in words[3:]:
                key, _, value = option.partition("=")
                if key not in ("max_ticks", "runs_per_hour") or not value.isdigit() or int(value) < 1:
                    raise ValueError(f"{where}: {option!r} is not max_ticks=N or runs_per_hour=N (N >= 1)")
                limits[key] = int(value)
            names.add(name)
            entries[token] = Principal(name, scope, ClientLimits(**limits))
        if not entries:
            raise ValueError(f"{source}: no tokens (one 'SCOPE NAME TOKEN' a line)")
        return cls(entries)

    @classmethod
    def merged(cls, first: Tokens, second: Tokens) -> Tokens:
        names = {p.name for p in first.principals()}
        for token, principal in second._entries.items():
            if token in first._entries or principal.name in names:
                raise ValueError(f"--token clashes with the token file's client {principal.name!r}")
        return cls({**first._entries, **second._entries})

    @classmethod
    def load(cls, path: Path) -> Tokens:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as err:
            raise ValueError(f"--token-file {path}: {err.strerror or err}") from None
        return cls.parse(text, str(path))

    def lookup(self, header: str | None) -> Principal | None:
        """The client an ``Authorization: Bearer TOKEN`` header names, or None."""
        if not header:
            return None
        scheme, _, value = header.partition(" ")
        if scheme.lower() != "bearer":
            return None
        given = value.strip().encode()
        found: Principal | None = None
        for token, principal in self._entries.items():  # every entry compared: no timing on which one matched
            if secrets.compare_digest(given, token.encode()):
                found = principal
        return found

    def principals(self) -> list[Principal]:
        return list(self._entries.values())


@dataclass(frozen=True)
class ServiceLimits:
    """The server's own bounds on every run, whoever asks: a tick budget and a wall-time cap."""

    max_ticks: int
    max_wall_s: float = DEFAULT_MAX_WALL_S


@dataclass
class Runs:
    """Starts runs for clients: checks their limits, records the owner, stops a run that outlives the wall cap."""

    bot: Bot
    limits: ServiceLimits
    owners: dict[str, str] = field(default_factory=dict)
    _started: dict[str, deque[float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def tick_cap(self, principal: Principal) -> int:
        mine = principal.limits.max_ticks
        return min(self.limits.max_ticks, mine) if mine is not None else self.limits.max_ticks

    def start(self, principal: Principal, submit: Callable[[int | None], Job], max_ticks: int | None) -> Job:
        """Check ``principal``'s limits, then ``submit(max_ticks)``; raises :class:`AccessError` over a limit.

        ``submit``'s own errors (busy, does not compile) pass through, and the refused call counts nothing.
        """
        if not principal.allows(Scope.ACT):
            raise forbidden(principal, Scope.ACT, "starting a run")
        cap = self.tick_cap(principal)
        if max_ticks is not None and max_ticks > cap:
            raise AccessError(422, "over_limit", f"max_ticks {max_ticks} is over this client's limit of {cap} ticks",
                              limit="max_ticks", max_ticks=cap)
        with self._lock:
            window = self._started.setdefault(principal.name, deque())
            now = time.monotonic()
            while window and now - window[0] > 3600:
                window.popleft()
            per_hour = principal.limits.runs_per_hour
            if per_hour is not None and len(window) >= per_hour:
                retry = int(3600 - (now - window[0])) + 1
                raise AccessError(429, "rate_limited", f"client {principal.name!r} may start {per_hour} runs an "
                                                       "hour", limit="runs_per_hour", retry_after_s=retry)
            job = submit(max_ticks if max_ticks is not None else min(cap, self.bot.config.max_ticks))
            window.append(now)
            self.owners[job.id] = principal.name
        threading.Thread(target=self._watch, args=(job,), name=f"craftbt-wall-{job.id}", daemon=True).start()
        return job

    def _watch(self, job: Job) -> None:
        # the run's wall clock starts when it is queued: a queued run's wait counts against it too
        if not job.done.wait(self.limits.max_wall_s):
            self.bot.cancel(job.id, reason=WALL_TIME_REASON)

    def owner(self, run_id: str) -> str | None:
        return self.owners.get(run_id)

    def cancel(self, principal: Principal, run_id: str) -> bool:
        """Cancel ``run_id`` for ``principal``: its own run with ``act``, anyone's with ``admin``."""
        if not principal.allows(Scope.ACT):
            raise forbidden(principal, Scope.ACT, "cancelling a run")
        owner = self.owners.get(run_id)
        if owner != principal.name and not principal.allows(Scope.ADMIN):
            raise forbidden(principal, Scope.ADMIN, f"cancelling another client's run (owner {owner!r})")
        return self.bot.cancel(run_id)
