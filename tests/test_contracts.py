"""The action contract registry: routing, normalization semantics, fail-closed rejection, fallback plans."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from craftbt.capabilities.contracts import (
    ACTION_CONTRACTS,
    WORKSTATIONS,
    ActionContract,
    Alias,
    ArgsSource,
    ContractError,
    DispatchMode,
    RejectionCode,
    WarningCode,
    action_type_to_leaf,
    normalize_action_params,
    requirement_to_fallback_plan,
    route_action,
    step_to_leaf_execution,
    validate_contracts,
)
from craftbt.core.errors import CraftbtError
from craftbt.executor.normalize import find_sentinels
from tests.leafkit import shared_registry

# -- normalization rules, one example each ---------------------------------------------------------


def test_alias_moves_source_to_target() -> None:
    out = normalize_action_params("acquire_material", {"blockType": "oak_log", "count": 2})
    assert out.params == {"item": "oak_log", "count": 2}
    assert out.warnings == []


def test_alias_source_removed_even_when_null() -> None:
    out = normalize_action_params("acquire_material", {"blockType": None, "item": "stone"})
    assert out.params == {"item": "stone"}
    out = normalize_action_params("collect_items", {"item": None})
    assert out.params == {}


def test_null_target_counts_as_absent() -> None:
    out = normalize_action_params("craft", {"item": "stick", "recipe": None})
    assert out.params == {"recipe": "stick", "qty": 1}
    assert out.warnings == []


def test_conflict_target_wins_with_returned_warning() -> None:
    out = normalize_action_params("craft_item", {"item": "stick", "recipe": "oak_planks", "quantity": 4})
    assert out.params == {"recipe": "oak_planks", "qty": 4}
    assert len(out.warnings) == 1
    warning = out.warnings[0]
    assert warning.code is WarningCode.ALIAS_CONFLICT
    assert (warning.key, warning.kept, warning.dropped) == ("recipe", "oak_planks", "stick")


def test_defaults_fill_absent_and_null_but_not_set_values() -> None:
    assert normalize_action_params("craft", {"recipe": "stick"}).params["qty"] == 1
    assert normalize_action_params("craft", {"recipe": "stick", "qty": None}).params["qty"] == 1
    assert normalize_action_params("craft", {"recipe": "stick", "qty": 3}).params["qty"] == 3
    smelt = normalize_action_params("smelt_item", {"item": "raw_iron", "quantity": 3}).params
    assert smelt == {"input": "raw_iron", "qty": 3, "fuel": "coal"}
    assert normalize_action_params("smelt", {"input": "sand", "fuel": "charcoal"}).params["fuel"] == "charcoal"


def test_strip_keys_removed() -> None:
    out = normalize_action_params("place_block", {"block_type": "cobblestone", "placement": None, "count": 1})
    assert out.params == {"item": "cobblestone"}
    out = normalize_action_params(
        "collect_items_enhanced", {"item": "oak_log", "maxSearchTime": 5000, "exploreOnFail": False}
    )
    assert out.params == {"itemName": "oak_log", "timeout": 5000}


def test_deprecated_key_dropped_with_warning() -> None:
    out = normalize_action_params("place_workstation", {"workstationType": "furnace"})
    assert out.params == {}
    assert [w.code for w in out.warnings] == [WarningCode.DEPRECATED_KEY]
    assert "workstation" in out.warnings[0].message


def test_unknown_action_type_passes_through_normalization() -> None:
    out = normalize_action_params("wait", {"ms": 5, "x": None})
    assert out.params == {"ms": 5, "x": None}


def test_normalize_does_not_mutate_input() -> None:
    raw = {"blockType": "oak_log"}
    normalize_action_params("acquire_material", raw)
    assert raw == {"blockType": "oak_log"}


def test_non_object_params_rejected() -> None:
    with pytest.raises(ContractError) as info:
        normalize_action_params("craft", ["stick", 4])  # type: ignore[arg-type]
    assert info.value.reason is RejectionCode.ARGS_NOT_OBJECT


# -- idempotency, over arbitrary dicts -------------------------------------------------------------
_TABLE_KEYS = sorted(
    {a.source for c in ACTION_CONTRACTS.values() for a in c.aliases}
    | {a.target for c in ACTION_CONTRACTS.values() for a in c.aliases}
    | {k for c in ACTION_CONTRACTS.values() for k in (*c.defaults, *c.strip, *c.deprecated, *c.required)}
)
_values = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 70), st.text(max_size=6),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
_params = st.dictionaries(st.one_of(st.sampled_from(_TABLE_KEYS), st.text(max_size=8)), _values, max_size=8)
_action_types = st.one_of(st.sampled_from(sorted(ACTION_CONTRACTS)), st.text(max_size=10))


@settings(max_examples=400, deadline=None)
@given(action_type=_action_types, params=_params)
def test_normalize_is_idempotent(action_type: str, params: dict[str, Any]) -> None:
    once = normalize_action_params(action_type, params)
    twice = normalize_action_params(action_type, once.params)
    assert twice.params == once.params
    assert twice.warnings == []  # everything a warning is about was removed by the first pass


@settings(max_examples=200, deadline=None)
@given(action_type=st.sampled_from(sorted(ACTION_CONTRACTS)), params=_params)
def test_normalized_output_never_holds_removed_keys(action_type: str, params: dict[str, Any]) -> None:
    contract = ACTION_CONTRACTS[action_type]
    out = normalize_action_params(action_type, params).params
    removed = {a.source for a in contract.aliases} | set(contract.strip) | set(contract.deprecated)
    assert not removed & set(out)
    for key in contract.defaults:
        assert out[key] is not None


def test_contract_table_is_sound() -> None:
    assert validate_contracts() == []


def test_table_validation_catches_a_chain_that_would_break_idempotency() -> None:
    bad = ActionContract("x", "x", aliases=(Alias("a", "b"), Alias("b", "c")))
    assert validate_contracts({"x": bad})


# -- routing ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("action_type", "params", "leaf", "args", "mode"),
    [
        ("mine", {"blockType": "oak_log", "count": 3}, "acquire_material", {"item": "oak_log", "count": 3},
         DispatchMode.LEAF),
        ("craft", {"item": "stick", "quantity": 4}, "craft_recipe", {"recipe": "stick", "qty": 4},
         DispatchMode.HANDLER),
        ("upgrade", {"item": "stone_pickaxe"}, "craft_recipe", {"recipe": "stone_pickaxe", "qty": 1},
         DispatchMode.HANDLER),
        ("smelt", {"item": "raw_iron"}, "smelt", {"input": "raw_iron", "fuel": "coal"}, DispatchMode.HANDLER),
        ("place:crafting_table", {}, "place_workstation", {"workstation": "crafting_table"}, DispatchMode.LEAF),
        ("place:blast_furnace", {}, "place_workstation", {"workstation": "blast_furnace"}, DispatchMode.LEAF),
        ("place:cobblestone", {}, "place_block", {"item": "cobblestone"}, DispatchMode.GUARDED),
        ("place_block", {"block_type": "dirt", "placement": "around_player", "count": 1}, "place_block",
         {"item": "dirt"}, DispatchMode.GUARDED),
        ("collect_items_enhanced", {"item": "oak_log"}, "collect_items", {"itemName": "oak_log"},
         DispatchMode.GUARDED),
        ("introspect_recipe", {"output": "stick"}, "introspect_recipe", {"output": "stick"}, DispatchMode.LEAF),
    ],
)
def test_route_action(
    action_type: str, params: dict[str, Any], leaf: str, args: dict[str, Any], mode: DispatchMode
) -> None:
    decision = route_action(action_type, params)
    assert decision.as_tuple() == (leaf, args, mode)


def test_every_workstation_routes_to_place_workstation() -> None:
    for station in WORKSTATIONS:
        assert action_type_to_leaf(f"place:{station}") == "place_workstation"
    assert action_type_to_leaf("place:torch") == "place_block"
    assert action_type_to_leaf("mine") == "acquire_material"
    assert action_type_to_leaf("place:") is None
    assert action_type_to_leaf("teleport") is None


def test_handler_mode_names_the_handler() -> None:
    decision = route_action("craft_item", {"recipe": "stick"})
    assert (decision.mode, decision.handler) == (DispatchMode.HANDLER, "execute_craft")


def test_guard_multi_block_routes_to_handler_keeping_handler_keys() -> None:
    decision = route_action("place_block", {"block_type": "cobblestone", "placement": "pillar"})
    assert decision.mode is DispatchMode.HANDLER
    assert (decision.handler, decision.guard) == ("execute_place_block", "multi_block_placement")
    assert decision.args == {"item": "cobblestone", "placement": "pillar"}


def test_guard_count_above_one() -> None:
    decision = route_action("place_block", {"item": "cobblestone", "count": 5})
    assert decision.guard == "count_above_one"
    assert route_action("place_block", {"item": "cobblestone", "count": 1}).guard is None
    # a nonsense count is the leaf's validation problem, not a reason to reroute
    assert route_action("place_block", {"item": "cobblestone", "count": "5"}).guard is None


def test_guard_explore_on_fail_only_when_true() -> None:
    assert route_action("collect_items_enhanced", {"exploreOnFail": True}).guard == "explore_on_fail"
    assert route_action("collect_items_enhanced", {"exploreOnFail": "yes"}).guard is None


def test_place_suffix_overrides_a_contradicting_param_with_warning() -> None:
    decision = route_action("place:furnace", {"workstation": "crafting_table"})
    assert decision.args == {"workstation": "furnace"}
    assert [w.code for w in decision.warnings] == [WarningCode.ACTION_TYPE_OVERRIDE]


def test_conflict_warning_reaches_the_route_decision() -> None:
    decision = route_action("mine", {"blockType": "stone", "item": "oak_log"})
    assert decision.args["item"] == "oak_log"
    assert [w.code for w in decision.warnings] == [WarningCode.ALIAS_CONFLICT]


@pytest.mark.parametrize(
    ("action_type", "params", "missing"),
    [
        ("mine", {}, ["item"]),
        ("mine", {"blockType": None}, ["item"]),
        ("craft", {"quantity": 2}, ["recipe"]),
        ("smelt_item", {"fuel": "coal"}, ["input"]),
        ("place_block", {"count": 3}, ["item"]),  # enforced in handler mode too
        ("place_workstation", {"workstationType": "furnace"}, ["workstation"]),
    ],
)
def test_missing_required_keys_fail_closed(action_type: str, params: dict[str, Any], missing: list[str]) -> None:
    with pytest.raises(ContractError) as info:
        route_action(action_type, params)
    assert info.value.reason is RejectionCode.MISSING_REQUIRED_KEYS
    assert info.value.details["missing"] == missing
    assert isinstance(info.value, CraftbtError)


@pytest.mark.parametrize("placeholder", ["unknown", "TODO", "?", " unknown "])
def test_sentinel_required_value_rejected(placeholder: str) -> None:
    with pytest.raises(ContractError) as info:
        route_action("craft", {"recipe": placeholder})
    assert info.value.reason is RejectionCode.SENTINEL_ARGS
    # the executor's strict normalizer reads the same definition
    assert list(find_sentinels({"recipe": placeholder})) == ["args.recipe"]


def test_unmapped_action_fails_closed_with_suggestion() -> None:
    with pytest.raises(ContractError) as info:
        route_action("craft_itme", {"recipe": "stick"})
    assert info.value.reason is RejectionCode.NO_MAPPED_ACTION
    assert info.value.details["suggestion"] == "craft_item"
    assert info.value.to_dict()["reason"] == "no_mapped_action"


def test_registered_leaf_passes_through_only_with_a_registry() -> None:
    with pytest.raises(ContractError):
        route_action("wait", {"ms": 100})
    decision = route_action("wait", {"ms": 100}, registry=shared_registry())
    assert decision.as_tuple() == ("wait", {"ms": 100}, DispatchMode.LEAF)


def test_route_rejects_non_object_params() -> None:
    with pytest.raises(ContractError) as info:
        route_action("mine", "oak_log")
    assert info.value.reason is RejectionCode.ARGS_NOT_OBJECT


def test_every_contract_leaf_is_a_registered_capability() -> None:
    registry = shared_registry()
    missing = sorted({c.leaf for c in ACTION_CONTRACTS.values()} - set(registry.names()))
    assert missing == []


def test_routed_args_validate_against_the_leaf_schema() -> None:
    registry = shared_registry()
    cases = [
        ("mine", {"blockType": "oak_log"}),
        ("craft", {"item": "stick", "quantity": 4}),
        ("smelt", {"item": "raw_iron", "quantity": 2}),
        ("place:furnace", {}),
        ("introspect_recipe", {"output": "stick"}),
    ]
    for action_type, params in cases:
        decision = route_action(action_type, params)
        registry.get(decision.leaf).args_model.model_validate(decision.args)


# -- fallback planner ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("requirement", "leaf", "args"),
    [
        ({"kind": "collect", "item": "oak_log", "quantity": 5}, "acquire_material", {"item": "oak_log", "count": 1}),
        ({"kind": "mine", "item": "stone"}, "acquire_material", {"item": "stone", "count": 1}),
        ({"kind": "craft", "item": "stick", "quantity": 4}, "craft_recipe", {"recipe": "stick", "qty": 4}),
        ({"kind": "build", "moduleId": "wall_1", "origin": {"x": 1, "y": 64, "z": 2}}, "build_module",
         {"module_id": "wall_1", "origin": {"x": 1, "y": 64, "z": 2}, "facing": "N"}),
    ],
)
def test_requirement_to_fallback_plan(requirement: dict[str, Any], leaf: str, args: dict[str, Any]) -> None:
    [step] = requirement_to_fallback_plan(requirement)
    assert (step.leaf, step.args) == (leaf, args)
    shared_registry().get(step.leaf).args_model.model_validate(step.args)  # the leaf accepts what it is given


@pytest.mark.parametrize(
    "requirement",
    [{"kind": "craft"}, {"kind": "build", "item": "x"}, {"kind": "build", "moduleId": "wall_1"},
     {"kind": "teleport", "item": "x"}, {"kind": "mine", "qty": 1}],
)
def test_invalid_requirement_rejected(requirement: dict[str, Any]) -> None:
    with pytest.raises(ContractError) as info:
        requirement_to_fallback_plan(requirement)
    assert info.value.reason is RejectionCode.INVALID_REQUIREMENT


# -- step -> leaf execution ------------------------------------------------------------------------
def test_explicit_args_pass_through() -> None:
    execution = step_to_leaf_execution({"leaf": "craft_recipe", "args": {"recipe": "oak_planks", "qty": 4}})
    assert execution is not None
    assert (execution.leaf, execution.args, execution.args_source) == (
        "craft_recipe", {"recipe": "oak_planks", "qty": 4}, ArgsSource.EXPLICIT
    )
    assert execution.block_reason is None


def test_derived_args_are_blocked_in_live() -> None:
    execution = step_to_leaf_execution({"leaf": "craft_recipe", "produces": [{"name": "oak_planks", "count": 4}]})
    assert execution is not None
    assert execution.args == {"recipe": "oak_planks", "qty": 4}
    assert execution.args_source is ArgsSource.DERIVED
    assert execution.block_reason == "derived_args_not_allowed_live"


def test_array_args_are_not_explicit() -> None:
    execution = step_to_leaf_execution({"leaf": "craft_recipe", "args": ["oak_planks", 4]})
    assert execution is not None and execution.args_source is ArgsSource.DERIVED
    assert execution.args["recipe"] == "unknown"


def test_dig_block_remapped_with_original_leaf() -> None:
    execution = step_to_leaf_execution({"leaf": "dig_block", "produces": [{"name": "cobblestone", "count": 1}]})
    assert execution is not None
    assert (execution.leaf, execution.args, execution.original_leaf) == (
        "acquire_material", {"item": "cobblestone"}, "dig_block"
    )


def test_derivation_sources() -> None:
    smelt = step_to_leaf_execution({"leaf": "smelt", "consumes": [{"name": "raw_iron", "count": 1}]})
    assert smelt is not None and smelt.args == {"input": "raw_iron"}
    acquire = step_to_leaf_execution({"leaf": "acquire_material", "blockType": "oak_log", "count": 3})
    assert acquire is not None and acquire.args == {"item": "oak_log", "count": 3}
    station = step_to_leaf_execution({"leaf": "place_workstation", "workstation": "furnace"})
    assert station is not None and station.args == {"workstation": "furnace"}
    module = step_to_leaf_execution({"leaf": "build_module", "moduleId": "m1"})
    assert module is not None and module.args == {"moduleId": "m1"}


def test_missing_derivation_source_is_a_sentinel_not_a_guess() -> None:
    execution = step_to_leaf_execution({"leaf": "smelt"})
    assert execution is not None and execution.args == {"input": "unknown"}
    # even if someone marks it explicit, the sentinel blocks live dispatch
    explicit = step_to_leaf_execution({"leaf": "smelt", "args": {"input": "unknown"}})
    assert explicit is not None and explicit.block_reason == "sentinel_args"


def test_unknown_leaf_without_args_is_none() -> None:
    assert step_to_leaf_execution({"leaf": "teleport"}) is None
    assert step_to_leaf_execution({"args": {}}) is None
    passthrough = step_to_leaf_execution({"leaf": "chat", "args": {"message": "hi"}})
    assert passthrough is not None and passthrough.args_source is ArgsSource.EXPLICIT
