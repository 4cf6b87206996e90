"""Leaf results go through the py_trees Blackboard client API, so py_trees' own tools show them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import py_trees
import pytest

from craftbt.capabilities.context import CapabilityContext
from craftbt.trees.build import build
from craftbt.trees.loader import load_text
from tests.fakes import FakeBody
from tests.leafkit import shared_registry

TREE = """
tree: t
blackboard: {msg: hi}
root:
  sequence:
    children:
      - leaf: chat
        name: say
        args: {message: "{msg}"}
      - leaf: chat
        name: say.twice
        args: {message: again}
"""


@pytest.fixture
def ran() -> Iterator[py_trees.behaviour.Behaviour]:
    py_trees.blackboard.Blackboard.clear()
    py_trees.blackboard.Blackboard.enable_activity_stream(100)
    defn = load_text(TREE).definition
    assert defn is not None
    built = build(defn, CapabilityContext(body=FakeBody(), registry=shared_registry()))
    for _ in range(5):
        built.tree.tick()
    assert built.root.status == py_trees.common.Status.SUCCESS
    yield built.root
    py_trees.blackboard.Blackboard.disable_activity_stream()
    py_trees.blackboard.Blackboard.clear()


def test_unicode_blackboard_lists_results(ran: py_trees.behaviour.Behaviour) -> None:
    shown = py_trees.display.unicode_blackboard()
    assert "/results/say" in shown and "/last_result" in shown
    # registered keys: the metadata view names the writing leaf
    meta = py_trees.display.unicode_blackboard(display_only_key_metadata=True)
    assert "/results/say" in meta and "say" in meta


def test_writes_are_in_the_activity_stream(ran: py_trees.behaviour.Behaviour) -> None:
    stream = py_trees.display.unicode_blackboard_activity_stream()
    assert "/results/say : INITIALISED" in stream and "/results/say : WRITE" in stream
    assert "/results/say.twice" not in stream  # a dotted name cannot be a py_trees key: stored directly
    assert "/results/say.twice" in py_trees.blackboard.Blackboard.storage


def test_dot_tree_draws_the_leaf_writing_its_result(ran: py_trees.behaviour.Behaviour) -> None:
    dot = py_trees.display.dot_tree(ran, with_blackboard_variables=True).to_string()
    assert 'say -> "/results/say"' in dot


def test_runs_do_not_leave_blackboard_clients_behind(tmp_path: Path) -> None:
    """py_trees registers every client class-wide: a long-lived process must not keep one per leaf per run."""
    import craftbt

    before = len(py_trees.blackboard.Blackboard.clients)
    for _ in range(3):
        outcome = craftbt.run_tree(craftbt.library_tree("greet"), craftbt.starter_world(seed=0), home=tmp_path)
        assert outcome.ok
    assert len(py_trees.blackboard.Blackboard.clients) == before
    assert "/results/say_hello" in py_trees.blackboard.Blackboard.storage  # the values stay


def test_a_leaf_registers_its_result_keys_again_after_the_blackboard_was_cleared() -> None:
    """Registration is skipped while it stands, and redone once ``Blackboard.clear()`` forgot it."""
    from craftbt.capabilities.behaviour import publish_result
    from craftbt.capabilities.spec import ActionResult

    py_trees.blackboard.Blackboard.clear()
    client = py_trees.blackboard.Client(name="leaf")
    for _ in range(2):
        publish_result(client, "leaf", ActionResult.success())
        meta = py_trees.blackboard.Blackboard.metadata
        assert client.unique_identifier in meta["/results/leaf"].write
        assert client.unique_identifier in meta["/last_result"].write
        py_trees.blackboard.Blackboard.clear()
