"""The capability contract: CapabilitySpec and the values it exchanges.

A capability is one leaf verb. Its spec declares the argument model (whose
JSON Schema is the published contract), the permissions it needs, its
timeout and retry budget, a guard that refuses before anything moves, a
non-blocking runner, and an acceptance check that compares observations taken
before and after the run and returns a tri-state :class:`Verdict`.

Runners are generator functions. A runner yields the body :class:`ActionHandle`
it is waiting on (or ``None`` to wait one tick); the behaviour polls that
handle on every tick and sends the finished handle back into the generator.
The generator returns an :class:`ActionResult`. Cancelling closes the
generator and cancels the handle in flight.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from craftbt.capabilities.facts import instantiate
from craftbt.world.body import ActionHandle, BlockPos, Observation

if TYPE_CHECKING:
    from craftbt.capabilities.context import CapabilityContext

SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class Permission(StrEnum):
    """What a capability may do to the world; a permission profile grants a set."""

    MOVEMENT = "movement"
    DIG = "dig"
    PLACE = "place"
    CRAFT = "craft"
    CONTAINER_READ = "container.read"
    CONTAINER_WRITE = "container.write"
    COMBAT = "combat"
    CHAT = "chat"
    SENSE = "sense"
    CONSUME = "consume"
    INVENTORY = "inventory"
    INTERACT = "interact"
    REDSTONE = "redstone"
    SLEEP = "sleep"
    #: a server command (a chat line starting with ``/``): only an explicit profile grants it, and each
    #: command name must also be on the configuration's allowlist (an operator bot runs every command)
    COMMAND = "command"


#: Permissions whose use changes the world; the geofence applies to these.
WORLD_CHANGING = frozenset(
    {
        Permission.DIG,
        Permission.PLACE,
        Permission.CONTAINER_WRITE,
        Permission.COMBAT,
        Permission.INTERACT,
        Permission.REDSTONE,
    }
)


class Family(StrEnum):
    MOVEMENT = "movement"
    INTERACTION = "interaction"
    SENSING = "sensing"
    CRAFTING = "crafting"
    CONTAINER = "container"
    COMBAT = "combat"
    FARMING = "farming"
    WORLD = "world"
    CONSTRUCTION = "construction"


class Verdict(StrEnum):
    VERIFIED = "verified"
    INCONCLUSIVE = "inconclusive"
    CONTRADICTED = "contradicted"


class VerificationResult(BaseModel):
    verdict: Verdict
    evidence: dict[str, Any] = Field(default_factory=dict)

    # The helpers build already-valid values; model_construct skips re-validation on the hot path.
    @classmethod
    def verified(cls, **evidence: Any) -> VerificationResult:
        return cls.model_construct(verdict=Verdict.VERIFIED, evidence=evidence)

    @classmethod
    def inconclusive(cls, **evidence: Any) -> VerificationResult:
        return cls.model_construct(verdict=Verdict.INCONCLUSIVE, evidence=evidence)

    @classmethod
    def contradicted(cls, **evidence: Any) -> VerificationResult:
        return cls.model_construct(verdict=Verdict.CONTRADICTED, evidence=evidence)


class GuardResult(BaseModel):
    """A guard's answer. ``reason`` is a stable code such as ``precond_missing:fuel``; ``detail`` is for humans.

    ``missing`` is what the refusal lacks, as data (item -> how many more are needed): the router plans its
    subgoal from it, never from the detail text, so rewording a message cannot change a repair."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    reason: str | None = None
    detail: str | None = None
    missing: dict[str, int] = Field(default_factory=dict)

    @classmethod
    def allow(cls) -> GuardResult:
        return _ALLOW

    @classmethod
    def deny(cls, reason: str, detail: str | None = None, *, missing: Mapping[str, int] | None = None
             ) -> GuardResult:
        return cls(ok=False, reason=reason, detail=detail, missing=dict(missing or {}))

    @classmethod
    def lacking(cls, item: str, count: int = 1, detail: str | None = None, *,
                missing: Mapping[str, int] | None = None) -> GuardResult:
        """Refused for want of ``count`` more ``item`` (``precond_missing:item:<item>``); ``missing`` lists
        every short item when there are several (``item`` is the one the code names)."""
        return cls.deny(f"precond_missing:item:{item}", detail, missing=missing or {item: max(1, count)})


_ALLOW = GuardResult.model_construct(ok=True, reason=None, detail=None, missing={})


class ActionError(BaseModel):
    code: str
    detail: str = ""
    retryable: bool = False
    #: what the step lacked, as data (item -> how many more): see :attr:`GuardResult.missing`
    missing: dict[str, int] = Field(default_factory=dict)


class Receipt(BaseModel):
    """What a world-changing leaf claims it did, for verification to probe."""

    position: BlockPos | None = None
    block: str | None = None
    positions: list[BlockPos] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)


class ActionResult(BaseModel):
    """The outcome of one capability run: ok, a structured error, and what was observed."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    ok: bool
    error: ActionError | None = None
    started_at: float = Field(default_factory=time.time)
    ended_at: float = Field(default_factory=time.time)
    started_tick: int = 0
    ended_tick: int = 0
    observables: dict[str, Any] = Field(default_factory=dict)
    receipt: Receipt | None = None
    verification: VerificationResult | None = None

    @classmethod
    def success(cls, receipt: Receipt | None = None, **observables: Any) -> ActionResult:
        now = time.time()
        return cls.model_construct(
            ok=True, error=None, started_at=now, ended_at=now, started_tick=0, ended_tick=0,
            observables=observables, receipt=receipt, verification=None,
        )

    @classmethod
    def failure(
        cls, code: str, detail: str = "", *, retryable: bool = False, missing: Mapping[str, int] | None = None,
        **observables: Any
    ) -> ActionResult:
        now = time.time()
        return cls.model_construct(
            ok=False, error=ActionError(code=code, detail=detail, retryable=retryable, missing=dict(missing or {})),
            started_at=now, ended_at=now, started_tick=0, ended_tick=0,
            observables=observables, receipt=None, verification=None,
        )


#: A runner: a generator yielding handles to wait on, returning the result.
RunnerGen = Generator[ActionHandle | None, ActionHandle | None, ActionResult]
Runner = Callable[["CapabilityContext", Any], RunnerGen]
Guard = Callable[["CapabilityContext", Any], GuardResult]
Acceptance = Callable[[Observation, Observation, Any, ActionResult], VerificationResult]


def always_allow(ctx: CapabilityContext, args: Any) -> GuardResult:
    return GuardResult.allow()


class NoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class CapabilitySpec:
    """One registered leaf verb at one version.

    ``preconditions`` and ``effects`` are symbolic facts with ``{arg}``
    placeholders, e.g. ``has:{recipe}`` or ``near:crafting_table``; GOAP, the
    feasibility gate and the divergence gate read them.
    """

    name: str
    version: str
    family: Family
    args_model: type[BaseModel]
    runner: Runner
    acceptance: Acceptance
    permissions: frozenset[Permission] = frozenset()
    timeout_ms: int = 10_000
    retries: int = 0
    guard: Guard = always_allow
    preconditions: tuple[str, ...] = ()
    effects: tuple[str, ...] = ()
    deprecated: bool = False
    deprecation_note: str = ""
    #: the capability a deprecated one may be rewritten into (the executor's ``remap_deprecated`` switch);
    #: None: never rewritten
    replaced_by: str | None = None
    idempotent: bool = False
    #: effects that depend on the args' content, not just their values (``chat "/give @s torch 4"``
    #: gives ``has:torch``); the feasibility gate adds them to the declared ``effects``.
    effects_of: Callable[[dict[str, Any]], tuple[str, ...]] | None = None
    #: the server command line these args send (``/give @s torch 4``), or None when they send none;
    #: the pipeline then asks for Permission.COMMAND and the command's name on the allowlist.
    command_of: Callable[[dict[str, Any]], str | None] | None = None
    #: the runner legitimately waits on the world without actuator commands (a timer, a furnace,
    #: a sensor); the executor's stuckness detector (seed 003, A4) exempts it.
    awaits_world: bool = False
    #: a timeout that grows with the work the args ask for (``smelt``: 12 s per item + 10 s, at least
    #: 30 s, seed 000); the declared ``timeout_ms`` is the default when this is None
    timeout_of: Callable[[Any], int] | None = None
    description: str = ""
    body_support: tuple[str, ...] = ("sim", "mineflayer")
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not NAME.match(self.name):
            raise ValueError(f"capability name {self.name!r} must match {NAME.pattern}")
        if not SEMVER.match(self.version):
            raise ValueError(f"capability {self.name}: version {self.version!r} is not semver")
        if self.timeout_ms <= 0:
            raise ValueError(f"capability {self.name}: timeout_ms must be positive")
        if self.retries < 0:
            raise ValueError(f"capability {self.name}: retries must be >= 0")

    @property
    def key(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])

    @property
    def version_tuple(self) -> tuple[int, int, int]:
        a, b, c = self.version.split(".")
        return int(a), int(b), int(c)

    def command(self, args: dict[str, Any]) -> str | None:
        """The server command these args would run, if any (see ``command_of``)."""
        return self.command_of(args) if self.command_of is not None else None

    def instantiated_effects(self, args: dict[str, Any]) -> list[str]:
        """Declared effects with ``{arg}`` filled in, plus content-derived ones (``effects_of``)."""
        out = [f for f in (instantiate(e, args) for e in self.effects) if f]
        if self.effects_of is not None:
            out.extend(self.effects_of(args))
        return out

    def timeout_for(self, args: Any) -> int:
        """The timeout for one dispatch with ``args`` (a validated args model): scaled when the spec says so."""
        if self.timeout_of is None:
            return self.timeout_ms
        return max(1, int(self.timeout_of(args)))

    @property
    def world_changing(self) -> bool:
        return bool(self.permissions & WORLD_CHANGING)

    def args_schema(self) -> dict[str, Any]:
        return self.args_model.model_json_schema()

    def manifest_entry(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "family": self.family.value,
            "description": self.description,
            "permissions": sorted(p.value for p in self.permissions),
            "timeout_ms": self.timeout_ms,
            "retries": self.retries,
            "args_schema": self.args_schema(),
            "preconditions": list(self.preconditions),
            "effects": list(self.effects),
            "deprecated": self.deprecated,
            "idempotent": self.idempotent,
            "awaits_world": self.awaits_world,
            "world_changing": self.world_changing,
            "body_support": list(self.body_support),
        }


def command_name(line: str) -> str | None:
    """``"/give @s torch"`` -> ``"give"``; None for a line that is not a server command."""
    text = line.strip()
    if not text.startswith("/"):
        return None
    word = text[1:].split(maxsplit=1)[0] if text[1:].strip() else ""
    return word.lower().removeprefix("minecraft:")


@dataclass(frozen=True)
class CheckSpec:
    """A read-only predicate usable as a ``condition`` node (has_item, is_air, ...)."""

    name: str
    args_model: type[BaseModel]
    predicate: Callable[[CapabilityContext, Any], bool]
    description: str = ""
    #: the symbolic fact this check tests, e.g. ``has:{item}``; planners use it.
    fact: str | None = None

    def manifest_entry(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "args_schema": self.args_model.model_json_schema(),
            "fact": self.fact,
        }
