"""Plugins that misbehave in every way the hostile-input issue lists; each registers ``wave`` (the
example plugin's capability) with one fault, so ``examples/wave.yaml`` drives it."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

from pydantic import BaseModel

from craftbt.capabilities.registry import Registry
from craftbt.capabilities.spec import ActionResult, CapabilitySpec, GuardResult, VerificationResult
from examples import wave


def _spec(**changes: Any) -> CapabilitySpec:
    """The example's spec with ``changes``; built without __post_init__ checks where they would refuse."""
    good = CapabilitySpec(name="wave", version="1.0.0", family=wave.Family.SENSING, args_model=wave.WaveArgs,
                          runner=wave.run_wave, guard=wave.guard_wave, acceptance=wave.accept_wave,
                          permissions=frozenset({wave.Permission.CHAT}), timeout_ms=5_000)
    return dataclasses.replace(good, **changes)


def _raise(*_: Any) -> Any:
    raise ValueError("plugin bug")


def _exit(*_: Any) -> Any:
    sys.exit(7)


def _not_generator(ctx: Any, args: Any) -> ActionResult:
    return ActionResult.success()


def _runner_raises(ctx: Any, args: Any) -> Any:
    yield None
    raise RuntimeError("runner bug")


class _NoSchema(BaseModel):
    model_config = {"arbitrary_types_allowed": True}
    thing: Any = None
    fn: type = int


def family_string(registry: Registry) -> None:
    registry.register(_spec(family="sensing"))


def permissions_strings(registry: Registry) -> None:
    registry.register(_spec(permissions=frozenset({"chat"})))


def args_not_pydantic(registry: Registry) -> None:
    registry.register(_spec(args_model=dict))


def args_without_schema(registry: Registry) -> None:
    registry.register(_spec(args_model=_NoSchema))


def runner_not_generator(registry: Registry) -> None:
    registry.register(_spec(runner=_not_generator))


def runner_raises(registry: Registry) -> None:
    registry.register(_spec(runner=_runner_raises))


def guard_raises(registry: Registry) -> None:
    registry.register(_spec(guard=_raise))


def guard_exits(registry: Registry) -> None:
    registry.register(_spec(guard=_exit))


def guard_returns_junk(registry: Registry) -> None:
    registry.register(_spec(guard=lambda ctx, args: "ok"))


def acceptance_raises(registry: Registry) -> None:
    registry.register(_spec(acceptance=_raise))


def acceptance_returns_junk(registry: Registry) -> None:
    registry.register(_spec(acceptance=lambda *a: True))


def duplicate(registry: Registry) -> None:
    registry.register(_spec(name="chat"))


def exits_on_load(registry: Registry) -> None:
    sys.exit(0)


def interrupts_on_load(registry: Registry) -> None:
    raise KeyboardInterrupt


def raises_on_load(registry: Registry) -> None:
    raise RuntimeError("cannot start")


def not_a_spec(registry: Registry) -> None:
    registry.register("wave")  # type: ignore[arg-type]


GOOD_GUARD = GuardResult.allow()
GOOD_VERDICT = VerificationResult.verified()
