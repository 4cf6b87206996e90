"""Seed 000's argument names are accepted as aliases (S000-39, S000-57, S000-59 to S000-62)."""

from __future__ import annotations

from typing import Any

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.trees import model as m
from craftbt.trees.validate import validate_definition

VEC = {"x": 1, "y": 64, "z": 2}

CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("plant_crop", {"cropType": "carrots"}, {"crop": "carrots"}),
    ("manage_farm", {"cropType": "potatoes", "maxOperations": 5}, {"crop": "potatoes", "max_operations": 5}),
    ("interact_with_block", {"position": VEC, "interactionType": "toggle"},
     {"position": VEC, "interaction_type": "toggle"}),
    ("operate_piston", {"position": VEC, "powerSource": VEC}, {"position": VEC, "power_source": VEC}),
    ("control_redstone", {"action": "toggle", "powerSource": VEC, "targetPosition": VEC},
     {"action": "toggle", "power_source": VEC, "target_position": VEC}),
    ("wait", {"ms": 10, "checkAbort": False}, {"ms": 10, "check_abort": False}),
]


@pytest.mark.parametrize(("capability", "seed_args", "ours"), CASES, ids=[c[0] for c in CASES])
def test_seed_names_validate_in_a_tree_and_mean_the_same(capability: str, seed_args: dict[str, Any],
                                                         ours: dict[str, Any]) -> None:
    registry = default_registry()
    spec = registry.get(capability)
    tree = m.TreeDefinition(tree="t", root=m.LeafNode(capability=capability, args=seed_args))
    checked = validate_definition(tree, registry)
    assert checked.ok, [p.render() for p in checked.problems]
    assert spec.args_model.model_validate(seed_args) == spec.args_model.model_validate(ours)
    for alias in seed_args.keys() - ours.keys():
        assert alias in spec.args_schema()["properties"]


def test_giving_both_names_keeps_ours_with_a_warning() -> None:
    """The seed's conflict rule, the same for a model's own seed names and the contract table's aliases."""
    from craftbt.capabilities.contracts import WarningCode, normalize_spec_args

    spec = default_registry().get("plant_crop")
    assert spec.args_model.model_validate({"cropType": "wheat", "crop": "carrots"}).crop == "carrots"
    args, record = normalize_spec_args(spec, {"cropType": "wheat", "crop": "carrots"})
    assert args == {"crop": "carrots"}
    assert record is not None and [w.code for w in record.warnings] == [WarningCode.ALIAS_CONFLICT]


def test_an_unknown_name_is_still_refused() -> None:
    tree = m.TreeDefinition(tree="t", root=m.LeafNode(capability="plant_crop", args={"cropKind": "wheat"}))
    assert not validate_definition(tree, default_registry()).ok
