"""milk_animal on the embedded world: a bucket used on an adult cow becomes a milk bucket, the cow unharmed."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from craftbt.capabilities.spec import Verdict
from craftbt.world.body import BodyError, BodyErrorCode
from tests.leafkit import run_leaf, shared_registry
from tests.simkit import sim_body


def cow_nearby(*extra: str, buckets: int = 1, nbt: str = "{NoAI:1b}") -> Any:
    body, feet = sim_body()
    if buckets:
        body.run_command(f"/give @s bucket {buckets}")
    body.run_command(f"/summon cow {feet.x + 0.5} {feet.y} {feet.z + 6.5} {nbt}")
    for command in extra:
        body.run_command(command)
    return body


def test_milks_an_adult_cow_and_leaves_it_unharmed() -> None:
    body = cow_nearby(buckets=2)
    run = run_leaf(body, "milk_animal", {})
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    assert body.observe().inventory == {"bucket": 1, "milk_bucket": 1}
    cow = next(e for e in body.entities(16.0) if e.name == "cow")
    assert cow.health == 10.0  # milking is no attack


def test_without_a_bucket_the_guard_refuses_with_its_reason() -> None:
    run = run_leaf(cow_nearby(buckets=0), "milk_animal", {})
    assert not run.ok and run.code == "guard_failed:precond_missing:bucket"
    assert "no bucket" in (run.result.error.detail if run.result.error else "")


def test_a_calf_gives_no_milk() -> None:
    body = cow_nearby(nbt="{NoAI:1b,Age:-24000}")
    run = run_leaf(body, "milk_animal", {})
    assert not run.ok and run.code == "guard_failed:no_target"
    assert "calves" in (run.result.error.detail if run.result.error else "")
    calf = next(e for e in body.entities(16.0) if e.name == "cow")
    with pytest.raises(BodyError) as refused:  # the body refuses it too, not only the leaf's choice
        body.use_on_entity(calf.id, "bucket")
    assert refused.value.code is BodyErrorCode.NOT_ACTIVATABLE
    assert body.observe().inventory == {"bucket": 1}


def test_a_bucket_on_a_pig_does_nothing() -> None:
    body, feet = sim_body()
    body.run_command("/give @s bucket 1")
    body.run_command(f"/summon pig {feet.x + 1.5} {feet.y} {feet.z + 0.5} {{NoAI:1b}}")
    pig = next(e for e in body.entities(8.0) if e.name == "pig")
    with pytest.raises(BodyError) as refused:
        body.use_on_entity(pig.id, "bucket")
    assert refused.value.code is BodyErrorCode.NOT_ACTIVATABLE


def test_acceptance_fails_when_no_milk_appeared(monkeypatch: pytest.MonkeyPatch) -> None:
    """Break the world's milking (the bucket stays a bucket): the leaf's success is contradicted."""
    from craftbt.world import loot
    monkeypatch.setitem(loot.ANIMAL_USES, ("cow", "bucket"), "bucket")
    run = run_leaf(cow_nearby(), "milk_animal", {})
    assert run.verdict is Verdict.CONTRADICTED and not run.ok, run.result


def test_the_spec_declares_its_contract() -> None:
    spec = shared_registry().get("milk_animal")
    assert spec.preconditions == ("has:bucket",) and spec.effects == ("has:milk_bucket",)
    assert dataclasses.asdict(spec)["timeout_ms"] > 0
