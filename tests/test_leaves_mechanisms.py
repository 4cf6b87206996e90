"""World-interaction leaves: seed 000 situations (world/scenarios/leaves/*.yaml) on the embedded world."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from craftbt.capabilities.spec import Verdict
from craftbt.world.body import BlockPos
from tests.leafkit import run_leaf

SCENARIOS = Path(__file__).resolve().parent.parent / "world" / "scenarios" / "leaves"
FEET = BlockPos(0, 64, 0)


def scenario(name: str) -> Any:
    loader = pytest.importorskip("craftbt.world.scenarios.loader")
    return loader.load_scenario(SCENARIOS / f"{name}.yaml")


def vec(p: BlockPos) -> dict[str, int]:
    return {"x": p.x, "y": p.y, "z": p.z}


def state(body: Any, pos: BlockPos, key: str) -> Any:
    return body.block_at(pos).state.get(key)


# -- interact_with_block -------------------------------------------------------------------------
def test_interact_toggles_a_lever_and_a_door() -> None:
    body = scenario("interact_with_block")
    lever, door = FEET.offset(dx=2), FEET.offset(dx=3)
    on = run_leaf(body, "interact_with_block", {"position": vec(lever)})
    assert on.ok and on.verdict is Verdict.VERIFIED and state(body, lever, "powered") is True
    off = run_leaf(body, "interact_with_block", {"position": vec(lever)})
    assert off.ok and off.verdict is Verdict.VERIFIED and state(body, lever, "powered") is False
    opened = run_leaf(body, "interact_with_block", {"position": vec(door.offset(dy=1))})  # the upper half works too
    assert opened.ok and opened.verdict is Verdict.VERIFIED, opened.result
    assert state(body, door, "open") is True and state(body, door.offset(dy=1), "open") is True


def test_interact_presses_a_button_and_finds_the_nearest_block() -> None:
    body = scenario("interact_with_block")
    pressed = run_leaf(body, "interact_with_block", {"interaction_type": "press"})
    assert pressed.ok and pressed.verdict is Verdict.VERIFIED, pressed.result
    assert pressed.observables["block"] == "stone_button"


def test_interact_refusals() -> None:
    body = scenario("interact_with_block")
    iron = run_leaf(body, "interact_with_block", {"position": vec(FEET.offset(dx=-3))})
    assert iron.code == "guard_failed:not_interactable:iron_door"
    grass = run_leaf(body, "interact_with_block", {"position": vec(FEET.offset(dy=-1))})
    assert grass.code == "guard_failed:not_interactable:grass_block"
    air = run_leaf(body, "interact_with_block", {"position": vec(FEET.offset(dz=5))})
    assert air.code == "guard_failed:no_target"
    wrong = run_leaf(body, "interact_with_block", {"position": vec(FEET.offset(dx=2)), "interaction_type": "press"})
    assert wrong.code == "guard_failed:wrong_interaction:press"
    far = scenario("control_environment")
    nothing = run_leaf(far, "interact_with_block", {"radius": 4})
    assert nothing.code == "guard_failed:no_target"


# -- operate_piston ------------------------------------------------------------------------------
def test_operate_piston_extends_and_retracts_through_its_lever() -> None:
    body = scenario("operate_piston")
    piston, lever = FEET.offset(dx=2), FEET.offset(dx=2, dy=1)
    out = run_leaf(body, "operate_piston", {"position": vec(piston), "action": "extend"})
    assert out.ok and out.verdict is Verdict.VERIFIED, out.result
    assert state(body, piston, "extended") is True and state(body, lever, "powered") is True
    assert body.block_at(piston.offset(dz=-1)).name == "piston_head"
    again = run_leaf(body, "operate_piston", {"position": vec(piston), "action": "extend"})
    assert again.ok and again.observables["already"] is True
    back = run_leaf(body, "operate_piston", {"position": vec(piston), "action": "retract",
                                             "power_source": vec(lever)})
    assert back.ok and back.verdict is Verdict.VERIFIED and state(body, piston, "extended") is False


def test_operate_piston_refusals() -> None:
    body = scenario("operate_piston")
    unpowered = run_leaf(body, "operate_piston", {"position": vec(FEET.offset(dx=-2)), "action": "extend"})
    assert unpowered.code == "guard_failed:precond_missing:power_source"
    not_piston = run_leaf(body, "operate_piston", {"position": vec(FEET.offset(dx=2, dy=1))})
    assert not_piston.code == "guard_failed:not_a_piston:lever"
    # Blocked: more than 12 blocks in front of the piston cannot be pushed.
    for dz in range(1, 14):
        body.set_block(FEET.offset(dx=2, dz=-dz), "dirt")
    blocked = run_leaf(body, "operate_piston", {"position": vec(FEET.offset(dx=2)), "action": "extend"})
    assert blocked.code == "piston_blocked" and blocked.observables["lever_restored"] is True
    assert state(body, FEET.offset(dx=2, dy=1), "powered") is False


# -- control_redstone ----------------------------------------------------------------------------
def test_control_redstone_powers_the_lamp() -> None:
    body = scenario("control_redstone")
    lamp, lever = FEET.offset(dx=2), FEET.offset(dx=2, dy=1)
    on = run_leaf(body, "control_redstone", {"action": "power_on", "target_position": vec(lamp)})
    assert on.ok and on.verdict is Verdict.VERIFIED, on.result
    assert on.result.verification is not None and on.result.verification.evidence["device"]["observed"]["lit"]
    assert state(body, lamp, "lit") is True and state(body, lever, "powered") is True
    idem = run_leaf(body, "control_redstone", {"action": "power_on", "power_source": vec(lever)})
    assert idem.ok and idem.observables["flipped"] is False
    toggled = run_leaf(body, "control_redstone", {"action": "toggle", "target_position": vec(lamp)})
    assert toggled.ok and toggled.verdict is Verdict.VERIFIED and state(body, lamp, "lit") is False


def test_control_redstone_pulses_a_lever_and_a_button() -> None:
    body = scenario("control_redstone")
    lamp, lever, button = FEET.offset(dx=2), FEET.offset(dx=2, dy=1), FEET.offset(dx=2, dz=1)
    pulse = run_leaf(body, "control_redstone", {"action": "pulse", "power_source": vec(lever),
                                                "target_position": vec(lamp), "pulse_ticks": 5})
    assert pulse.ok and pulse.verdict is Verdict.VERIFIED, pulse.result
    assert pulse.observables["pulse_seen"] is True and state(body, lever, "powered") is False
    press = run_leaf(body, "control_redstone", {"action": "pulse", "power_source": vec(button)})
    assert press.ok and press.verdict in (Verdict.VERIFIED, Verdict.INCONCLUSIVE)
    assert press.observables["flipped"] is True


def test_control_redstone_refusals() -> None:
    body = scenario("control_redstone")
    button = run_leaf(body, "control_redstone", {"action": "power_on", "power_source": vec(FEET.offset(dx=2, dz=1))})
    assert button.code == "guard_failed:unsupported_power_source:stone_button"
    lamp = run_leaf(body, "control_redstone", {"action": "toggle", "power_source": vec(FEET.offset(dx=2))})
    assert lamp.code == "guard_failed:precond_missing:power_source"
    none = run_leaf(scenario("control_environment"), "control_redstone", {"action": "power_on"})
    assert none.code == "guard_failed:precond_missing:power_source"


# -- control_environment -------------------------------------------------------------------------
def test_control_environment_sets_time_and_weather() -> None:
    body = scenario("control_environment")
    night = run_leaf(body, "control_environment", {"action": "set_time", "time": "night"})
    assert night.ok and night.verdict is Verdict.VERIFIED, night.result
    assert 13_000 <= body.time_of_day() < 13_100
    rain = run_leaf(body, "control_environment", {"action": "set_weather", "weather": "rain"})
    assert rain.ok and rain.verdict is Verdict.VERIFIED, rain.result
    assert body.world.weather == "rain"


class _NotOperator:
    """A body wrapper that reports no operator rights (a survival server without op)."""

    def __init__(self, body: Any) -> None:
        self._body = body

    def is_operator(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._body, name)


def test_control_environment_refusals() -> None:
    body = scenario("control_environment")
    refused = run_leaf(_NotOperator(body), "control_environment", {"action": "set_time", "time": 6000})
    assert refused.code == "guard_failed:precond_missing:operator"
    assert body.chat_log == []
    with pytest.raises(ValidationError):
        run_leaf(body, "control_environment", {"action": "set_weather"})
    with pytest.raises(ValidationError):
        run_leaf(body, "control_environment", {"action": "set_time", "time": 24_000})
