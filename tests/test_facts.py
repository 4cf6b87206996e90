"""Fact templates: the cached splitter fills exactly what a plain regex substitution fills."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from craftbt.capabilities.facts import PLACEHOLDER, instantiate


def reference(fact: str, args: dict[str, Any]) -> str | None:
    """The straightforward definition: every placeholder names a scalar reachable through dicts."""
    def fill(match: re.Match[str]) -> str:
        value: Any = args
        for part in match.group(1).split("."):
            if not isinstance(value, dict) or part not in value:
                raise KeyError(part)
            value = value[part]
        if isinstance(value, dict | list) or value is None:
            raise KeyError(match.group(1))
        return str(value)

    try:
        return PLACEHOLDER.sub(fill, fact)
    except KeyError:
        return None


names = st.sampled_from(["item", "count", "pos", "x", "block", "a_b"])
scalars = st.one_of(st.integers(-5, 70), st.sampled_from(["oak_log", "stone", ""]), st.booleans(), st.none())
args_strategy = st.recursive(
    st.dictionaries(names, scalars, max_size=4),
    lambda inner: st.dictionaries(names, st.one_of(scalars, inner, st.lists(scalars, max_size=2)), max_size=4),
    max_leaves=8,
)
pieces = st.one_of(
    st.sampled_from(["has:", "near:", "*", ":", "{", "}", "{}", "x"]),
    names.map(lambda n: "{" + n + "}"),
    st.lists(names, min_size=2, max_size=3).map(lambda ns: "{" + ".".join(ns) + "}"),
)


@given(st.lists(pieces, max_size=6).map("".join), args_strategy)
def test_instantiate_matches_the_regex_definition(fact: str, args: dict[str, Any]) -> None:
    assert instantiate(fact, args) == reference(fact, args)


def test_instantiate_examples() -> None:
    assert instantiate("has:{item}*{count}", {"item": "stick", "count": 4}) == "has:stick*4"
    assert instantiate("near:{pos.x}", {"pos": {"x": 3}}) == "near:3"
    assert instantiate("has:{item}", {}) is None
    assert instantiate("has:{item}", {"item": None}) is None
    assert instantiate("has:{item}", {"item": ["a"]}) is None
    assert instantiate("plain", {}) == "plain"
