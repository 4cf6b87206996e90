"""Round trips: file -> model -> py_trees -> model, model -> on-disk -> model, model -> BT.CPP XML -> model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import py_trees
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from py_trees.common import Status

from craftbt.capabilities.context import CapabilityContext
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.trees import model as m
from craftbt.trees.btcpp import decode_value, encode_value, xml_text_ok
from craftbt.trees.btcpp_export import to_xml
from craftbt.trees.btcpp_import import from_xml
from craftbt.trees.build import build
from craftbt.trees.dump import from_py_trees, to_data, to_json, to_yaml
from craftbt.trees.loader import from_dict, load_file, load_text
from craftbt.trees.validate import walk
from tests.fakes import FakeBody
from tests.leafkit import shared_registry

REPO = Path(__file__).resolve().parent.parent
# structures/ holds building templates (planners/building), not tree definitions
LIBRARY = sorted(p for p in (REPO / "trees" / "library").rglob("*.yaml"))


def same(a: m.TreeDefinition, b: m.TreeDefinition) -> bool:
    return a.model_dump() == b.model_dump()


def ctx() -> CapabilityContext:
    return CapabilityContext(body=FakeBody(), registry=shared_registry())


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: p.name)
def test_library_round_trips(path: Path) -> None:
    defn = load_file(path)
    built = build(defn, ctx())
    assert same(from_py_trees(built), defn)
    assert same(from_dict(to_data(defn)), defn)
    assert same(load_text(to_yaml(defn), fmt="yaml").definition or defn.model_copy(update={"tree": "x"}), defn)
    assert same(load_text(to_json(defn), fmt="json").definition or defn.model_copy(update={"tree": "x"}), defn)
    xml = to_xml(defn, registry=shared_registry())
    assert same(from_xml(xml, registry=shared_registry()), defn)


def test_export_is_groot_shaped() -> None:
    defn = load_file(REPO / "trees/library/obtain_wooden_pickaxe.yaml")
    xml = to_xml(defn, registry=shared_registry())
    assert '<root BTCPP_format="4" main_tree_to_execute="obtain_wooden_pickaxe">' in xml
    # the compact form, file paths as valid model names, subtrees share the caller's blackboard
    assert '<craft_recipe recipe="{tool}" qty="1" version="1" />' in xml
    assert '<acquire_material item="oak_log" count="3" radius="24" retry="2" timeout_ms="30000" />' in xml
    assert '<SubTree ID="common-2Feat_if_hungry-2Eyaml" _autoremap="true" />' in xml
    assert '<BehaviorTree ID="common-2Feat_if_hungry-2Eyaml">' in xml  # included so Groot2 can open it
    assert '<has_item item="oak_log" count="3" />' in xml
    # initial values through BT.CPP's own SetBlackboard, a null key declared as json:null
    assert '<SetBlackboard output_key="tool" value="wooden_pickaxe" />' in xml
    assert '<SetBlackboard output_key="food" value="json:null" />' in xml
    assert "_description" not in xml and "<Blackboard" not in xml
    assert '<input_port name="recipe" />' in xml


def test_import_of_hand_written_groot_xml() -> None:
    xml = """<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <ReactiveFallback>
      <has_item item="torch"/>
      <SubTree ID="Crafting" what="{thing}"/>
    </ReactiveFallback>
  </BehaviorTree>
  <BehaviorTree ID="Crafting">
    <RetryUntilSuccessful num_attempts="3"><craft_recipe recipe="{what}" qty="4"/></RetryUntilSuccessful>
  </BehaviorTree>
</root>"""
    defn = from_xml(xml, registry=shared_registry())
    assert defn.tree == "main"
    root = defn.root
    assert isinstance(root, m.SelectorNode) and root.memory is False
    cond, retry = root.children
    assert isinstance(cond, m.ConditionNode) and cond.args == {"item": "torch"}
    assert isinstance(retry, m.DecoratorNode) and retry.params == {"attempts": 3}
    assert isinstance(retry.child, m.LeafNode) and retry.child.args == {"recipe": "{thing}", "qty": 4}


@pytest.mark.parametrize(
    ("xml", "code", "message"),
    [
        ("<root><BehaviorTree", ErrorCode.PARSE_ERROR, "invalid XML: unclosed token"),
        ("<tree/>", ErrorCode.CONVERSION_ERROR, "the document element is <tree>"),
        ("<root BTCPP_format='3'/>", ErrorCode.CONVERSION_ERROR, "BTCPP_format '3' is not supported"),
        ("<root><BehaviorTree ID='a'><Inverter/></BehaviorTree></root>", ErrorCode.CONVERSION_ERROR,
         "<Inverter> must have exactly one child, has 0"),
        ("<root><BehaviorTree ID='a'><Parallel failure_count='2'><wait/></Parallel></BehaviorTree></root>",
         ErrorCode.CONVERSION_ERROR, "Parallel failure_count=2 has no equivalent"),
        ("<root><BehaviorTree ID='a'><SubTree ID='a'/></BehaviorTree></root>", ErrorCode.SUBTREE_CYCLE,
         "subtree cycle: a -> a"),
    ],
)
def test_xml_import_errors(xml: str, code: ErrorCode, message: str) -> None:
    with pytest.raises(CraftbtError) as err:
        from_xml(xml)
    assert (err.value.code, err.value.problems[0].message) == (code, message)


def test_built_tree_runs_and_keeps_definitions() -> None:
    text = """
tree: t
blackboard: {msg: hi}
root:
  sequence:
    children:
      - leaf: chat
        args: {message: "{msg}"}
        retry: 1
      - timeout: {duration_ms: 100, child: {leaf: wait, args: {ms: 1000}}}
"""
    defn = load_text(text).definition
    assert defn is not None
    context = ctx()
    body = context.body
    assert isinstance(body, FakeBody)
    built = build(defn, context)
    for _ in range(20):
        built.tree.tick()
        if built.root.status != Status.RUNNING:
            break
        body.advance(1)
    assert body.said == ["hi"] and body.now_ticks() == 3
    assert built.root.status == Status.FAILURE  # the wait outlived its 100 ms timeout (game time)
    names = [n.name for n in built.root.iterate()]
    assert "chat#1" in names and "wait#2" in names


def test_build_refuses_an_invalid_definition() -> None:
    defn = m.TreeDefinition(tree="t", root=m.LeafNode(capability="wiat"))
    with pytest.raises(CraftbtError) as err:
        build(defn, ctx())
    assert err.value.code is ErrorCode.UNKNOWN_CAPABILITY


# -- hypothesis: generated valid trees --------------------------------------------------------
names = st.none() | st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=12)
text_values = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=20)


def leaves() -> st.SearchStrategy[m.Node]:
    wait = st.builds(
        lambda ms, name, retry, timeout, ref: m.LeafNode(
            capability=ref, args={} if ms is None else {"ms": ms}, name=name, retry=retry, timeout_ms=timeout
        ),
        st.none() | st.integers(0, 60_000), names, st.none() | st.integers(0, 4),
        st.none() | st.integers(1, 10**6), st.sampled_from(["wait", "wait@1", "wait@1.0.0"]),
    )
    chat = st.builds(
        lambda msg, key, src: m.LeafNode(capability="chat", args={"message": msg}, idempotency_key=key,
                                         args_source=src),
        text_values.filter(lambda t: "{" not in t), st.none() | text_values.filter(lambda t: "{" not in t),
        st.sampled_from(["explicit", "derived"]),
    )
    cond = st.builds(
        lambda item, count, name: m.ConditionNode(check="has_item", args={"item": item, "count": count}, name=name),
        text_values.filter(lambda t: "{" not in t), st.integers(1, 64), names,
    )
    return st.one_of(wait, chat, cond)


def decorate(child: st.SearchStrategy[m.Node]) -> st.SearchStrategy[m.Node]:
    params = st.sampled_from([
        (m.DecoratorKind.INVERTER, {}), (m.DecoratorKind.RETRY, {"attempts": 3}),
        (m.DecoratorKind.TIMEOUT, {"duration_ms": 250}), (m.DecoratorKind.REPEAT, {"count": -1}),
        (m.DecoratorKind.SUCCESS_IS_FAILURE, {}), (m.DecoratorKind.FAILURE_IS_SUCCESS, {}),
        (m.DecoratorKind.ONESHOT, {}),
        (m.DecoratorKind.ETERNAL_GUARD, {"condition": {"check": "food_above", "args": {"value": 5}}}),
    ])
    return st.builds(lambda kp, c, name: m.DecoratorNode(decorator=kp[0], params=kp[1], child=c, name=name),
                     params, child, names)


def composites(children: st.SearchStrategy[m.Node]) -> st.SearchStrategy[m.Node]:
    kids = st.lists(children, min_size=1, max_size=4)
    return st.one_of(
        st.builds(lambda c, mem, n: m.SequenceNode(children=c, memory=mem, name=n), kids, st.booleans(), names),
        st.builds(lambda c, mem, n: m.SelectorNode(children=c, memory=mem, name=n), kids, st.booleans(), names),
        st.builds(lambda c, p, n: m.ParallelNode(children=c, policy=p, name=n), st.lists(children, min_size=2,
                  max_size=3), st.sampled_from(list(m.ParallelPolicy)), names),
    )


trees_st = st.builds(
    lambda root, desc, board: m.TreeDefinition(tree="generated", root=root, description=desc, blackboard=board),
    st.recursive(leaves(), lambda c: composites(c) | decorate(c), max_leaves=12),
    st.text(max_size=30),
    st.dictionaries(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True),
                    st.none() | st.integers() | text_values | st.lists(st.integers(), max_size=3), max_size=3),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees_st)
def test_generated_trees_round_trip(defn: m.TreeDefinition) -> None:
    leaf_names = [n.name for n in walk_nodes(defn.root) if isinstance(n, m.LeafNode) and n.name is not None]
    assume(len(leaf_names) == len(set(leaf_names)))  # duplicates are a validation error, tested elsewhere
    py_trees.blackboard.Blackboard.clear()
    built = build(defn, ctx())
    assert same(from_py_trees(built), defn)
    assert same(from_dict(to_data(defn)), defn)
    reloaded = load_text(to_yaml(defn), fmt="yaml")
    assert reloaded.problems == [] and reloaded.definition is not None and same(reloaded.definition, defn)
    rejson = load_text(to_json(defn), fmt="json")
    assert rejson.problems == [] and rejson.definition is not None and same(rejson.definition, defn)
    texts = [defn.description, *(n.name for n in walk_nodes(defn.root) if n.name)]
    if all(xml_text_ok(t) for t in texts):
        assert same(from_xml(to_xml(defn, registry=shared_registry())), defn)
    else:
        with pytest.raises(CraftbtError) as err:
            to_xml(defn)
        assert err.value.code is ErrorCode.CONVERSION_ERROR


def walk_nodes(node: m.Node) -> list[m.Node]:
    return [n for n, _ in walk(node)]


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                    | st.text(), lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(), c, max_size=3),
                    max_leaves=8))
def test_xml_attribute_values_round_trip(value: Any) -> None:
    assert decode_value(encode_value(value)) == value
