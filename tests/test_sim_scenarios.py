"""Scenario files: every shipped one loads; bad ones get structured invalid_scenario errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.world.scenarios import load_scenario, parse_scenario, shipped_scenarios
from craftbt.world.scenarios.loader import build


@pytest.mark.parametrize("path", shipped_scenarios(), ids=lambda p: p.stem)
def test_every_shipped_scenario_loads(path: Path) -> None:
    body = load_scenario(path)
    body.advance(5)
    assert body.health() > 0


def test_starter_has_trees_stone_and_iron_near_spawn() -> None:
    body = load_scenario("starter")
    assert len(body.find_blocks(["oak_log", "birch_log"], 16)) >= 3
    iron = body.find_blocks(["iron_ore"], 20)
    assert iron and any(body.block_at(p.offset(dy=1)).name == "air" or body.block_at(p.offset(dx=1)).name == "air"
                        or body.block_at(p.offset(dx=-1)).name == "air" or body.block_at(p.offset(dz=1)).name == "air"
                        or body.block_at(p.offset(dz=-1)).name == "air" for p in iron)
    assert body.inventory() == []


def errors(text: str) -> CraftbtError:
    with pytest.raises(CraftbtError) as exc:
        build(parse_scenario(text, "bad.yaml"), file="bad.yaml")
    return exc.value


def test_unknown_names_are_named_with_a_suggestion() -> None:
    err = errors("name: x\nplayer:\n  inventory:\n    - {item: cobblestne, count: 2}\n")
    p = err.problems[0]
    assert p.code is ErrorCode.INVALID_SCENARIO and p.location.file == "bad.yaml"
    assert p.location.path == "player.inventory.0.item" and p.suggestion == "cobblestone" and p.location.line == 4


def test_wrong_types_and_unknown_fields() -> None:
    err = errors("name: x\ntime: teatime\nplayer: {food: 30}\nbogus: 1\n")
    paths = {p.location.path for p in err.problems}
    assert "player.food" in paths and "bogus" in paths and any(p.startswith("time") for p in paths)
    assert all(p.code is ErrorCode.INVALID_SCENARIO for p in err.problems)


def test_yaml_syntax_and_bad_commands() -> None:
    err = errors("name: [unclosed\n")
    assert err.problems[0].location.line is not None
    err = errors("name: x\ncommands: ['/give Sterling stone 0']\n")
    assert err.problems[0].location.path == "commands.0"
    err = errors("- just\n- a list\n")
    assert "mapping" in err.problems[0].message


def test_missing_file() -> None:
    with pytest.raises(CraftbtError) as exc:
        load_scenario("/nonexistent/scenario.yaml")
    assert exc.value.code is ErrorCode.FILE_NOT_FOUND


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_loader_never_crashes_on_arbitrary_text(text: str) -> None:
    try:
        parse_scenario(text, "fuzz.yaml")
    except CraftbtError as err:
        assert all(p.code is ErrorCode.INVALID_SCENARIO for p in err.problems)


values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
fields = st.sampled_from(["name", "seed", "time", "weather", "player", "blocks", "mobs", "items", "generator", "rules"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(fields, values, max_size=5))
def test_loader_never_crashes_on_arbitrary_structures(doc: dict[str, object]) -> None:
    import json

    doc.setdefault("name", "fuzz")
    try:
        parse_scenario(json.dumps(doc), "fuzz.json")
    except CraftbtError as err:
        assert all(p.code is ErrorCode.INVALID_SCENARIO for p in err.problems)
