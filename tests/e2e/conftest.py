"""Fixtures for end-to-end tests on a real Minecraft server (helpers live in ``squidkit``).

By default the suite starts flying-squid itself (``world.mineflayer.server``) on
127.0.0.1 and a free port, once per session. With ``CRAFTBT_MC_HOST`` (and
``CRAFTBT_MC_PORT``, ``CRAFTBT_MC_VERSION``) set, tests run against that server
instead, which must be offline-mode with the bots opped; tests marked
``vanilla_only`` run only there. Without Node packages every test here is
skipped with the npm command that fixes it.

Each test gets its own bot; ``arena`` also gives it its own plot of the region
loaded around spawn (see ``squidkit``), so tests do not see each other's blocks.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from craftbt.capabilities.behaviour import CapabilityBehaviour
from craftbt.capabilities.spec import ActionResult
from craftbt.world.mineflayer.body import MineflayerBody
from craftbt.world.mineflayer.node_env import BODY_PACKAGES, SERVER_PACKAGES
from craftbt.world.mineflayer.server import FlyingSquid
from tests.e2e.squidkit import (
    FLYING_SQUID_LACKS,
    SHOWS_HELP,
    SHOWS_MARKER,
    Arena,
    McServer,
    connect,
    enter_plot,
    skip_without_node,
    squid_server,
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"vanilla_only: {FLYING_SQUID_LACKS}")
    config.addinivalue_line("markers", f"{SHOWS_MARKER}(*capabilities): {SHOWS_HELP}")


_CALL_PASSED = pytest.StashKey[bool]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.stash[_CALL_PASSED] = report.passed


@pytest.fixture(autouse=True)
def _shown_capabilities(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A test marked ``shows_on_server("a", "b")`` must run each named capability to a success.

    Every capability run in the test (by ``run_leaf``, a tree, a script) ends in ``CapabilityBehaviour._finish``;
    the names that finished ok are collected there and checked when the test ends, so the marker (which
    docs/server.md's table and ``tests/test_server_capabilities.py`` read) cannot claim what did not happen.
    """
    marker = request.node.get_closest_marker(SHOWS_MARKER)
    if marker is None:
        yield
        return
    succeeded: set[str] = set()
    finish = CapabilityBehaviour._finish

    def recording(self: CapabilityBehaviour, result: ActionResult, start_tick: int) -> None:
        finish(self, result, start_tick)
        if result.ok:
            succeeded.add(self.spec.name)

    monkeypatch.setattr(CapabilityBehaviour, "_finish", recording)
    yield
    if not request.node.stash.get(_CALL_PASSED, False):
        return  # the test failed or never ran: its own report says what went wrong
    missing = sorted(set(marker.args) - succeeded)
    if missing:
        pytest.fail(f"marked {SHOWS_MARKER}{tuple(marker.args)} but these never succeeded: {missing}")


@pytest.fixture(scope="session", autouse=True)
def _bridge_stops_cleanly() -> Iterator[None]:
    """Stop JSPyBridge's Node child and wait for it once the session is over.

    The bridge's own atexit handler terminates the child without waiting, so the interpreter
    warned at exit about a child still running and its stdin pipe left open.
    """
    yield
    connection = sys.modules.get("javascript.connection")
    proc = getattr(connection, "proc", None)
    if connection is None or proc is None:
        return
    connection.stop()
    proc.wait(timeout=10)
    reader = getattr(connection, "stdout_thread", None)
    if reader is not None:  # it forwards the child's stdout when pytest captures output; EOF ends it
        reader.join(timeout=10)
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()


@pytest.fixture(scope="session")
def mc_server() -> Iterator[McServer]:
    yield from squid_server()


@pytest.fixture
def squid_only_server() -> Iterator[FlyingSquid]:
    """A private flying-squid for tests that stop the server (disconnect handling)."""
    skip_without_node(BODY_PACKAGES + SERVER_PACKAGES)
    server = FlyingSquid().start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(autouse=True)
def _vanilla_only(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("vanilla_only") is None:
        return
    server: McServer = request.getfixturevalue("mc_server")
    if server.is_squid:
        pytest.skip(FLYING_SQUID_LACKS)


@pytest.fixture
def body(mc_server: McServer) -> Iterator[MineflayerBody]:
    """A fresh bot where it spawned, for tests that do not change the world."""
    bot = connect(mc_server)
    try:
        yield bot
    finally:
        bot.close()


@pytest.fixture
def spawned(mc_server: McServer) -> Iterator[Arena]:
    """A fresh bot where it spawned, for tests that change only its inventory (plots are few)."""
    bot = connect(mc_server)
    try:
        yield Arena(bot, bot.position().block())
    finally:
        bot.close()


@pytest.fixture
def arena(mc_server: McServer) -> Iterator[Arena]:
    """A fresh bot standing on its own plot."""
    bot = connect(mc_server)
    try:
        yield enter_plot(mc_server, bot)
    finally:
        bot.close()
