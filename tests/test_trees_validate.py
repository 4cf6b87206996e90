"""The loader and validator against the shipped library and a corpus of broken files (exact messages)."""

from __future__ import annotations

from pathlib import Path

import pytest

from craftbt.capabilities.registry import Registry
from craftbt.core.errors import ErrorCode
from craftbt.trees import model as m
from craftbt.trees.loader import load_text
from craftbt.trees.validate import validate_path, validate_text
from tests.leafkit import shared_registry

REPO = Path(__file__).resolve().parent.parent
# structures/ holds building templates (planners/building), not tree definitions
LIBRARY = sorted(p for p in (REPO / "trees" / "library").rglob("*.yaml"))

CORPUS: dict[str, list[str]] = {
    "bad_yaml.yaml": [
        "tests/corpus/bad_yaml.yaml:7:13: parse_error: invalid YAML: did not find expected ',' or '}'",
    ],
    "bad_json.json": [
        "tests/corpus/bad_json.json:1:65: parse_error: invalid JSON: Expecting property name enclosed in double quotes",
    ],
    "unknown_leaf.yaml": [
        "tests/corpus/unknown_leaf.yaml:5:9: unknown_capability: unknown capability 'craft_recpie' "
        "(at root.sequence.children[0].leaf); expected a registered capability name; did you mean 'craft_recipe'?",
    ],
    "bad_args_type.yaml": [
        "tests/corpus/bad_args_type.yaml:4:30: invalid_args: craft_recipe@1.0.0: argument 'qty' is 'twelve' "
        "(at root.args.qty); expected an integer",
    ],
    "missing_arg.yaml": [
        "tests/corpus/missing_arg.yaml:6:9: invalid_args: place_workstation@1.0.0: missing required argument "
        "'workstation' (at root.sequence.children[0].args); expected workstation: a string",
    ],
    "cycle_a.yaml": [
        "tests/corpus/cycle_b.yaml:5:9: subtree_cycle: subtree cycle: cycle_a.yaml -> cycle_b.yaml -> cycle_a.yaml "
        "(at root.selector.children[0].subtree); expected subtrees that do not include themselves",
    ],
    "unknown_key.yaml": [
        "tests/corpus/unknown_key.yaml:6:10: unknown_blackboard_key: unknown blackboard key 'tol' in '{tol}' "
        "(at root.args.recipe); expected a key declared under blackboard: or passed in by the including tree's "
        "remap; did you mean 'tool'?",
    ],
    "bad_decorator.yaml": [
        "tests/corpus/bad_decorator.yaml:4:5: bad_decorator: decorator 'retry' parameter 'attempts' must be "
        "integer, got string (at root.retry.attempts)",
    ],
    "children_as_list.yaml": [
        "tests/corpus/children_as_list.yaml:4:3: schema_error: 'sequence' must be a mapping of its fields, got "
        "list (at root.sequence); expected {sequence: {children: [...]}}",
    ],
    "unknown_kind.yaml": [
        "tests/corpus/unknown_kind.yaml:3:3: unknown_node_kind: node has no kind key (keys: 'sequnce') "
        "(at root.sequnce); expected one of sequence, selector, parallel, inverter, retry, timeout, repeat, "
        "eternal_guard, success_is_failure, failure_is_success, oneshot, leaf, condition, subtree; "
        "did you mean 'sequence'?",
    ],
    "conflicting_writers.yaml": [
        "tests/corpus/conflicting_writers.yaml:11:9: conflicting_writers: leaf name 'hello' is used twice; both "
        "would write /results/hello (at root.sequence.children[1].name); expected unique leaf names",
        "tests/corpus/food_apple.yaml:3:3: conflicting_writers: blackboard key 'food' is given conflicting initial "
        "values: 'bread' by tests/corpus/conflicting_writers.yaml and 'apple' by tests/corpus/food_apple.yaml "
        "(at blackboard.food); expected one value per key, or a remap to a different key",
    ],
    "many_problems.json": [
        "tests/corpus/many_problems.json:2:3: schema_error: tree name 'Many Problems' is not allowed (at tree); "
        "expected lowercase letters, digits and _ ([a-z0-9_]+)",
        "tests/corpus/many_problems.json:5:7: schema_error: 'memory' must be boolean, got string "
        "(at root.sequence.memory)",
        "tests/corpus/many_problems.json:7:35: invalid_args: wait@1.0.0: argument 'ms': -5 is less than the "
        "minimum of 0 (at root.sequence.children[0].args.ms)",
        "tests/corpus/many_problems.json:8:45: invalid_args: check has_item: missing required argument 'item' "
        "(at root.sequence.children[1].condition.args); expected item: a string",
        "tests/corpus/many_problems.json:9:10: bad_decorator: decorator 'timeout' needs parameter 'duration_ms' "
        "(at root.sequence.children[2].timeout); expected duration_ms: integer",
        "tests/corpus/many_problems.json:10:10: unknown_version: capability 'chat' has no version matching @7 "
        "(at root.sequence.children[3].leaf); expected one of 1.0.0",
    ],
}


@pytest.fixture
def registry() -> Registry:
    return shared_registry()


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: p.relative_to(REPO / "trees" / "library").as_posix())
def test_every_library_file_is_valid(path: Path, registry: Registry) -> None:
    checked = validate_path(path, registry)
    assert [p.render() for p in checked.problems] == []
    assert checked.definition is not None


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_file_is_rejected_with_exact_messages(
    name: str, registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    checked = validate_path(Path("tests/corpus") / name, registry)
    assert [p.render() for p in checked.problems] == CORPUS[name]
    assert not checked.ok


def test_every_corpus_file_is_covered() -> None:
    # the folders (interop/, btcpp_real/) are the BT.CPP interop corpora of tests/test_btcpp_interop.py
    on_disk = {p.name for p in (REPO / "tests" / "corpus").iterdir() if p.is_file()}
    helpers = {"cycle_b.yaml", "food_apple.yaml"}  # included by other corpus files
    assert on_disk - helpers == set(CORPUS)


def test_example_shape_from_tree_format_loads_to_the_model(registry: Registry) -> None:
    checked = validate_path(REPO / "trees/library/obtain_wooden_pickaxe.yaml", registry)
    defn = checked.definition
    assert defn is not None and isinstance(defn.root, m.SequenceNode)
    assert defn.root.memory is True and defn.blackboard == {"tool": "wooden_pickaxe"}
    selector, *_, pinned, sub = defn.root.children
    assert isinstance(selector, m.SelectorNode)
    leaf = selector.children[1]
    assert isinstance(leaf, m.LeafNode) and (leaf.retry, leaf.timeout_ms) == (2, 30000)
    assert isinstance(pinned, m.LeafNode) and pinned.capability == "craft_recipe@1"
    assert pinned.args == {"recipe": "{tool}", "qty": 1}
    assert isinstance(sub, m.SubtreeNode) and sub.path == "common/eat_if_hungry.yaml"


def test_problems_from_shape_and_registry_are_reported_together(registry: Registry) -> None:
    text = """
tree: two
root:
  sequence:
    children:
      - leaf: wiat
      - bogus: 1
"""
    checked = validate_text(text, registry, file="two.yaml")
    assert [(p.code, p.location.line) for p in checked.problems] == [
        (ErrorCode.UNKNOWN_CAPABILITY, 6), (ErrorCode.UNKNOWN_NODE_KIND, 7),
    ]
    assert checked.problems[0].suggestion == "wait"


def test_remap_rules(registry: Registry, tmp_path: Path) -> None:
    (tmp_path / "sub.yaml").write_text("tree: sub\nroot: {leaf: chat, args: {message: '{text}'}}\n")
    good = "tree: top\nblackboard: {msg: hi}\nroot: {subtree: sub.yaml, remap: {text: msg}}\n"
    (tmp_path / "top.yaml").write_text(good)
    assert validate_path(tmp_path / "top.yaml", registry).ok
    # the subtree alone does not declare {text}
    alone = validate_path(tmp_path / "sub.yaml", registry)
    assert [p.code for p in alone.problems] == [ErrorCode.UNKNOWN_BLACKBOARD_KEY]
    # a remap target the including tree does not have
    (tmp_path / "bad.yaml").write_text("tree: bad\nroot: {subtree: sub.yaml, remap: {text: nope}}\n")
    bad = validate_path(tmp_path / "bad.yaml", registry)
    assert {p.code for p in bad.problems} == {ErrorCode.UNKNOWN_BLACKBOARD_KEY}
    assert any("remap target 'nope'" in p.message for p in bad.problems)


def test_reference_args_are_typed_with_the_initial_value(registry: Registry) -> None:
    text = "tree: t\nblackboard: {n: lots}\nroot: {leaf: wait, args: {ms: '{n}'}}\n"
    checked = validate_text(text, registry)
    assert [p.message for p in checked.problems] == ["wait@1.0.0: argument 'ms' is 'lots'"]
    unknown_value = "tree: t\nblackboard: {n: null}\nroot: {leaf: wait, args: {ms: '{n}'}}\n"
    assert validate_text(unknown_value, registry).ok


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the file is empty"),
        ("- a\n- b\n", "a tree file must be a mapping, got list"),
        ("tree: t\nroot: {leaf: wait}\nroot: {leaf: wait}\n", "duplicate key 'root'"),
        ("tree: t\nroot: {leaf: wait, args: {ms: .nan}}\n", "non-finite number nan"),
        ("tree: t\nroot: {leaf: wait, args: {1: 2}}\n", "mapping key 1 is a int"),
        ("tree: t\nroot: {leaf: wait, args: {when: 2024-01-01}}\n", "value of type date is not allowed"),
        ("a: &a [*a]\n", "recursive alias at a[0]"),
        ("tree: t\nversion: 2\nroot: {leaf: wait}\n", "unsupported format version 2"),
        ("tree: t\nroot: {sequence: {children: []}}\n", "sequence has no children"),
        ("tree: t\nroot: {leaf: wait, sequence: {}}\n", "unknown key 'sequence' in a leaf"),
        ("tree: t\nroot: {leaf: 'wait@x'}\n", "malformed capability reference 'wait@x'"),
        ("tree: t\nroot: {inverter: {child: {leaf: wait}}, name: x}\n", "unexpected key 'name' beside 'inverter'"),
        ("tree: t\nroot: {repeat: {count: 0, child: {leaf: wait}}}\n", "decorator 'repeat' parameter 'count' is 0"),
    ],
)
def test_shape_errors(text: str, message: str) -> None:
    loaded = load_text(text, file="t.yaml")
    assert loaded.definition is None
    assert message in [p.message for p in loaded.problems]


def test_args_that_passed_are_not_checked_again_and_a_failure_is_always_reported() -> None:
    """Planners emit the same leaves over and over: args that passed both checks are remembered by their
    content; a failing one is never remembered, so a bad tree reports its problem every time."""
    import craftbt.trees.validate as validate

    registry = shared_registry()
    good = m.TreeDefinition(tree="t", root=m.LeafNode(name="a", capability="craft_recipe",
                                                      args={"recipe": "stick", "qty": 2}))
    bad = m.TreeDefinition(tree="t", root=m.LeafNode(name="a", capability="craft_recipe",
                                                     args={"recipe": "stick", "qty": 0}))
    validate._valid_args.clear()
    validate._valid_nodes.clear()
    assert validate.validate_definition(good, registry).ok
    assert len(validate._valid_args) == 1
    for _ in range(2):
        assert [p.code for p in validate.validate_definition(bad, registry).problems] == [ErrorCode.INVALID_ARGS]
    assert len(validate._valid_args) == 1
    assert validate.validate_definition(good, registry).ok


def test_a_node_that_passed_is_skipped_but_never_one_that_differs_or_reads_the_blackboard() -> None:
    """A leaf or condition that raised no problem is remembered whole (a planner's has_item checks and crafts
    come back in every plan); one whose args differ only in a value's type (``True`` for ``1``), one that
    names a blackboard key, and one that raised a problem are checked every time."""
    import craftbt.trees.validate as validate

    registry = shared_registry()

    def tree(*nodes: m.Node, blackboard: dict[str, object] | None = None) -> m.TreeDefinition:
        return m.TreeDefinition(tree="t", blackboard=blackboard or {},
                                root=m.SequenceNode(name="s", children=list(nodes)))

    def has(count: object) -> m.ConditionNode:
        return m.ConditionNode(check="has_item", args={"item": "stick", "count": count})

    def craft(name: str, qty: object, recipe: str = "stick") -> m.LeafNode:
        return m.LeafNode(name=name, capability="craft_recipe", args={"recipe": recipe, "qty": qty})

    validate._valid_nodes.clear()
    assert validate.validate_definition(tree(has(1), craft("a", 2)), registry).ok
    assert len(validate._valid_nodes) == 2
    codes = [p.code for p in validate.validate_definition(tree(has(True), craft("a", True)), registry).problems]
    assert codes == [ErrorCode.INVALID_ARGS, ErrorCode.INVALID_ARGS], codes
    assert validate.validate_definition(tree(craft("a", 2, "{item}"), blackboard={"item": "stick"}), registry).ok
    unknown = validate.validate_definition(tree(craft("a", 2, "{item}")), registry).problems
    assert [p.code for p in unknown] == [ErrorCode.UNKNOWN_BLACKBOARD_KEY], unknown
    twice = tree(craft("a", 0), craft("b", 0))
    assert len(validate.validate_definition(twice, registry).problems) == 2
    assert len(validate._valid_nodes) == 2
    assert validate.validate_definition(tree(craft("b", 0)), registry).problems


def test_the_fast_validator_is_never_more_lenient_than_the_python_one() -> None:
    """``surely_valid`` (the Rust validator, when installed) lets args skip the Python JSON Schema validator: for
    every args model of the default registry and args of every shape a tree may hold, it says valid only where
    the Python validator finds no error; a value that is no JSON goes to the Python validator."""
    import craftbt.trees.validate as validate
    from craftbt.capabilities.default import default_registry

    if validate.jsonschema_rs is None:
        pytest.skip("jsonschema_rs is not installed: every check goes through the Python validator")
    registry = default_registry()
    models = {spec.args_model for spec in registry.list()} | {check.args_model for check in registry.checks()}
    values: list[object] = ["", "stick", "{item}", "x" * 300, 0, 1, -1, 2.0, 2.5, 10**20, True, False, None, [],
                            ["stick"], {}, {"x": 1, "y": 64, "z": -3}, {"x": "1"}, float("inf")]
    said_valid = 0
    for model in sorted(models, key=lambda m: m.__name__):
        fields = [*model.model_json_schema().get("properties", {}), "unknown"]
        instances: list[dict[str, object]] = [{}]
        instances += [{name: value} for name in fields for value in values]
        instances += [{name: value for name in fields} for value in values]
        instances.append({name: values[i % len(values)] for i, name in enumerate(fields)})
        for instance in instances:
            if validate.surely_valid(model, instance):
                said_valid += 1
                errors = list(validate.args_validator(model).iter_errors(instance))
                assert not errors, (model.__name__, instance, errors[0].message)
    assert said_valid > 50  # the battery holds valid args too: the agreement is not vacuous
    validate.surely_valid(next(iter(models)), {"x": object()})  # no JSON: False or the Python answer, never a raise


def test_a_node_remembered_as_valid_is_checked_again_against_another_registry() -> None:
    """The memo of nodes that passed is keyed by the capability or check and its args model, so a registry that
    lacks the capability, or whose check takes stricter args, is never answered from what another registry
    accepted (a planner's tree validated, then the registry changed)."""
    from pydantic import BaseModel, ConfigDict, Field

    import craftbt.trees.validate as validate
    from craftbt.capabilities.spec import CheckSpec

    class AtLeastFive(BaseModel):
        model_config = ConfigDict(extra="forbid")
        item: str
        count: int = Field(ge=5)

    plan = m.TreeDefinition(tree="t", root=m.SequenceNode(name="s", children=[
        m.ConditionNode(check="has_item", args={"item": "stick", "count": 1}),
        m.LeafNode(name="a", capability="craft_recipe", args={"recipe": "stick", "qty": 2})]))
    validate._valid_nodes.clear()
    validate._valid_args.clear()
    assert validate.validate_definition(plan, shared_registry()).ok
    other = Registry()
    other.register_check(CheckSpec("has_item", AtLeastFive, lambda _ctx, _args: True))
    codes = sorted(p.code for p in validate.validate_definition(plan, other).problems)
    assert codes == sorted([ErrorCode.INVALID_ARGS, ErrorCode.UNKNOWN_CAPABILITY]), codes
    assert validate.validate_definition(plan, shared_registry()).ok
