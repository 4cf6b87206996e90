"""The generated JSON Schema agrees with the validator on the library and the shape corpus."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from craftbt.capabilities.default import default_registry
from craftbt.trees.schema import resolvable_refs, tree_schema
from tests.leafkit import shared_registry

REPO = Path(__file__).resolve().parent.parent
# structures/ holds building templates (planners/building), not tree definitions
LIBRARY = sorted(p for p in (REPO / "trees" / "library").rglob("*.yaml"))


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = tree_schema(shared_registry())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def errors(validator: jsonschema.Draft202012Validator, doc: Any) -> list[str]:
    return [e.message for e in validator.iter_errors(doc)]


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: p.name)
def test_schema_accepts_library_files(validator: jsonschema.Draft202012Validator, path: Path) -> None:
    assert errors(validator, yaml.safe_load(path.read_text())) == []


@pytest.mark.parametrize(
    "name",
    ["unknown_leaf.yaml", "bad_args_type.yaml", "missing_arg.yaml", "bad_decorator.yaml", "unknown_kind.yaml"],
)
def test_schema_rejects_shape_and_args_errors(validator: jsonschema.Draft202012Validator, name: str) -> None:
    assert errors(validator, yaml.safe_load((REPO / "tests" / "corpus" / name).read_text())) != []


def test_leaf_args_are_bound_to_their_capability(validator: jsonschema.Draft202012Validator) -> None:
    good = {"tree": "t", "root": {"leaf": "wait@1", "args": {"ms": 5}}}
    assert errors(validator, good) == []
    assert errors(validator, {"tree": "t", "root": {"leaf": "wait", "args": {"message": "x"}}}) != []
    assert errors(validator, {"tree": "t", "root": {"leaf": "chat", "args": {"message": 3}}}) != []
    cond = {"tree": "t", "root": {"condition": {"check": "has_item", "args": {"count": 2}}}}
    assert errors(validator, cond) != []


def test_resolvable_refs_cover_pins() -> None:
    refs = resolvable_refs(shared_registry())
    assert refs["wait@1.0.0"] == ["wait@1.0.0", "wait@1", "wait"]


def test_an_independent_validator_reports_the_unknown_leaf_first(tmp_path: Path) -> None:
    """check-jsonschema, which knows nothing of craftbt, leads with the real problem, deep in the tree."""
    import json
    import shutil
    import subprocess

    tool = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(tree_schema(default_registry())), encoding="utf-8")
    tree = tmp_path / "bad.yaml"
    tree.write_text(
        "tree: bad\nversion: 1\nroot:\n  sequence:\n    children:\n"
        "      - leaf: craft_recipe\n        args: {recipe: stick, qty: 1}\n"
        "      - selector:\n          children:\n            - leaf: craft_itme\n              args: {recipe: stick}\n",
        encoding="utf-8",
    )
    done = subprocess.run([tool, "--schemafile", str(schema), str(tree)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    errors = [line for line in done.stdout.splitlines() if "::$" in line]
    assert errors, done.stdout
    assert ".selector.children[0].leaf: 'craft_itme' is not one of" in errors[0]
