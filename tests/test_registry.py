"""The capability registry: duplicates, version pins, suggestions, manifest."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from craftbt.capabilities.registry import Registry, split_ref
from craftbt.capabilities.spec import (
    ActionResult,
    CapabilitySpec,
    CheckSpec,
    Family,
    Permission,
    RunnerGen,
    VerificationResult,
)
from craftbt.core.errors import CraftbtError, ErrorCode
from tests.leafkit import shared_registry


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")
    item: str


def _run(ctx: Any, args: _Args) -> RunnerGen:
    return ActionResult.success()
    yield  # pragma: no cover


def _accept(pre: Any, post: Any, args: Any, result: ActionResult) -> VerificationResult:
    return VerificationResult.verified()


def spec(name: str = "craft_item", version: str = "1.0.0", **kw: Any) -> CapabilitySpec:
    return CapabilitySpec(name=name, version=version, family=Family.CRAFTING, args_model=_Args,
                          runner=_run, acceptance=_accept, **kw)


@pytest.fixture
def registry() -> Registry:
    reg = Registry()
    for version in ("1.0.0", "1.2.0", "1.10.1", "2.0.0"):
        reg.register(spec(version=version))
    reg.register(spec("craft_recipe"))
    return reg


def test_duplicate_name_and_version_is_an_error(registry: Registry) -> None:
    with pytest.raises(CraftbtError) as err:
        registry.register(spec(version="1.2.0"))
    assert err.value.code is ErrorCode.DUPLICATE_CAPABILITY
    assert str(err.value) == "<input>: duplicate_capability: capability craft_item@1.2.0 is already registered"


@pytest.mark.parametrize(
    ("ref", "version"),
    [("craft_item", "2.0.0"), ("craft_item@1", "1.10.1"), ("craft_item@2", "2.0.0"), ("craft_item@1.2.0", "1.2.0")],
)
def test_version_pins(registry: Registry, ref: str, version: str) -> None:
    assert registry.get(ref).version == version


@pytest.mark.parametrize("ref", ["craft_item@3", "craft_item@1.3.0", "craft_item@latest"])
def test_unknown_version(registry: Registry, ref: str) -> None:
    with pytest.raises(CraftbtError) as err:
        registry.get(ref)
    assert err.value.code is ErrorCode.UNKNOWN_VERSION
    assert err.value.problems[0].expected == "one of 2.0.0, 1.10.1, 1.2.0, 1.0.0"


def test_unknown_name_suggests_a_close_match(registry: Registry) -> None:
    with pytest.raises(CraftbtError) as err:
        registry.get("craft_itme")
    problem = err.value.problems[0]
    assert (problem.code, problem.message, problem.suggestion) == (
        ErrorCode.UNKNOWN_CAPABILITY, "unknown capability 'craft_itme'", "craft_item",
    )
    with pytest.raises(CraftbtError) as far:
        registry.get("zzzz")
    assert far.value.problems[0].suggestion is None


def test_list_versions_names_and_unregister(registry: Registry) -> None:
    assert [s.key for s in registry.list()] == [
        "craft_item@1.0.0", "craft_item@1.2.0", "craft_item@1.10.1", "craft_item@2.0.0", "craft_recipe@1.0.0",
    ]
    assert registry.names() == ["craft_item", "craft_recipe"]
    registry.unregister("craft_item@2")
    assert registry.get("craft_item").version == "1.10.1"
    assert registry.has("craft_item@1") and not registry.has("craft_item@2")
    assert split_ref("a@1") == ("a", "1") and split_ref("a") == ("a", None)


def test_spec_rejects_bad_fields() -> None:
    with pytest.raises(ValueError, match="not semver"):
        spec(version="1.0")
    with pytest.raises(ValueError, match="must match"):
        spec(name="Craft")
    with pytest.raises(ValueError, match="timeout_ms"):
        spec(timeout_ms=0)


def test_checks_register_and_suggest() -> None:
    reg = Registry()
    reg.register_check(CheckSpec("has_item", _Args, lambda ctx, args: True))
    with pytest.raises(CraftbtError) as dup:
        reg.register_check(CheckSpec("has_item", _Args, lambda ctx, args: True))
    assert dup.value.code is ErrorCode.DUPLICATE_CAPABILITY
    with pytest.raises(CraftbtError) as err:
        reg.get_check("has_itme")
    assert (err.value.code, err.value.problems[0].suggestion) == (ErrorCode.UNKNOWN_CHECK, "has_item")


def test_manifest_has_every_contract_field(registry: Registry) -> None:
    registry.register(spec("dig", permissions=frozenset({Permission.DIG}), retries=2, timeout_ms=3000))
    manifest = registry.manifest()
    assert manifest["manifest_version"] == 1
    entry = next(e for e in manifest["capabilities"] if e["name"] == "dig")
    assert entry["permissions"] == ["dig"] and entry["world_changing"] is True
    assert (entry["timeout_ms"], entry["retries"], entry["version"], entry["family"]) == (3000, 2, "1.0.0", "crafting")
    assert entry["args_schema"]["required"] == ["item"]
    assert len(manifest["capabilities"]) == 6


def test_default_registry_ships_the_seed_leaves() -> None:
    reg = shared_registry()
    for name in ("wait", "chat", "get_block_at", "acquire_material", "craft_recipe", "place_workstation",
                 "consume_food", "place_torch"):
        assert reg.has(name), name
    assert {c.name for c in reg.checks()} >= {"has_item", "food_above", "time_between"}


def test_a_copy_of_the_defaults_keeps_the_checks_and_leaves_the_default_alone() -> None:
    """The custom-registry recipe: a tree with a ``condition:`` validates on the copy (no unknown_check)."""
    from craftbt.api import validate_tree
    from craftbt.capabilities.default import default_registry as shipped

    base = shipped()
    mine = base.copy()
    assert [c.name for c in mine.checks()] == [c.name for c in base.checks()] != []
    assert [s.key for s in mine.list()] == [s.key for s in base.list()]
    tree = ("tree: t\nversion: 1\nroot:\n  selector:\n    children:\n"
            "      - condition: {check: has_item, args: {item: oak_log, count: 1}}\n"
            "      - leaf: wait\n        args: {ms: 50}\n")
    checked = validate_tree(tree, registry=mine, text=True)
    assert checked.ok, [p.render() for p in checked.problems]
    mine.unregister(mine.list()[0].key)
    assert len(mine.list()) == len(base.list()) - 1
