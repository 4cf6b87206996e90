"""Random documents and random text into the loader and validator: only CraftbtError-shaped results escape."""

from __future__ import annotations

import json
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from craftbt.core.errors import CraftbtError, Problem
from craftbt.trees.btcpp_import import from_xml
from craftbt.trees.validate import validate_text
from tests.leafkit import shared_registry

KEYS = st.sampled_from(["tree", "root", "version", "blackboard", "sequence", "selector", "parallel", "children",
                        "leaf", "args", "condition", "check", "subtree", "remap", "retry", "timeout", "child",
                        "attempts", "inverter", "eternal_guard", "name", "memory", "policy", "ms", "message",
                        "eat_if_hungry.yaml", "{x}", "wait", "chat"]) | st.text(max_size=6)
SCALARS = (st.none() | st.booleans() | st.integers(-10, 10**6) | st.floats(allow_nan=False, allow_infinity=False)
           | st.sampled_from(["wait", "chat@1", "has_item", "{key}", "common/eat_if_hungry.yaml", "success_on_one"])
           | st.text(max_size=10))
DOCS = st.recursive(SCALARS, lambda c: st.lists(c, max_size=4) | st.dictionaries(KEYS, c, max_size=5),
                    max_leaves=30)
TREEISH = st.builds(lambda name, root: {"tree": name, "root": root},
                    st.sampled_from(["t", "Bad Name", "x1"]), DOCS)


def check(text: str, fmt: str) -> None:
    checked = validate_text(text, shared_registry(), file=f"fuzz.{fmt}", fmt=fmt)
    assert all(isinstance(p, Problem) and p.render() for p in checked.problems)
    # a document that did not decode always says why; a clean one always decodes (a decoded one may
    # still have registry problems, e.g. a leaf missing a required argument, and keeps its definition)
    if checked.definition is None:
        assert not checked.ok
    if checked.ok:
        assert checked.definition is not None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCS | TREEISH)
def test_random_documents_as_yaml_and_json(doc: Any) -> None:
    check(yaml.safe_dump(doc, allow_unicode=True), "yaml")
    check(json.dumps(doc), "json")


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200) | st.text(alphabet="{}[]:,-&*!|>'\"# \n\tabc01", max_size=120))
def test_random_text(text: str) -> None:
    check(text, "yaml")
    check(text, "json")


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet="<>/=\"' rootBehaviorTreeIDSequencewaitAction{}", max_size=120))
def test_random_xml(text: str) -> None:
    try:
        from_xml(text, registry=shared_registry())
    except CraftbtError as err:
        assert err.problems
