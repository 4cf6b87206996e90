"""Shared pytest set-up: every test starts with an empty py_trees blackboard."""

from __future__ import annotations

from collections.abc import Iterator

import py_trees
import pytest


@pytest.fixture(autouse=True)
def clean_blackboard() -> Iterator[None]:
    py_trees.blackboard.Blackboard.clear()
    yield
    py_trees.blackboard.Blackboard.clear()
