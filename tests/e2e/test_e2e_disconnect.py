"""The server going away: a running action fails with body_disconnected, later calls raise, nothing hangs."""

from __future__ import annotations

import time

import pytest

from craftbt.world.body import ActionStatus, BlockPos, BodyError, BodyErrorCode
from craftbt.world.mineflayer.body import MineflayerBody
from craftbt.world.mineflayer.server import FlyingSquid, free_port
from tests.e2e.squidkit import finish, wait_until

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("how", ["stop", "kill"])
def test_server_gone_mid_goto(squid_only_server: FlyingSquid, how: str) -> None:
    body = MineflayerBody.connect(squid_only_server.host, squid_only_server.port, f"gone_{how}", timeout_s=30)
    try:
        start = body.position().block()
        handle = body.goto(BlockPos(start.x + 40, start.y, start.z), tolerance=1.0)
        wait_until(lambda: body.position().distance_to(start) > 1.0, 15, "the bot to start walking")
        if how == "stop":
            squid_only_server.stop()
        else:
            squid_only_server.kill()
        t0 = time.monotonic()
        assert finish(handle, 15) is ActionStatus.FAILED
        assert time.monotonic() - t0 < 15
        err = handle.error()
        assert err is not None and err.code is BodyErrorCode.BODY_DISCONNECTED
        with pytest.raises(BodyError) as info:
            body.observe()
        assert info.value.code is BodyErrorCode.BODY_DISCONNECTED
        with pytest.raises(BodyError) as info:
            body.dig(start.offset(dy=-1))
        assert info.value.code is BodyErrorCode.BODY_DISCONNECTED
        assert not body.connected
        handle.cancel("after the fact")  # idempotent, no error
        assert handle.status() is ActionStatus.FAILED
    finally:
        body.close()


def test_connect_refused_is_a_body_error(squid_only_server: FlyingSquid) -> None:
    port = free_port()
    t0 = time.monotonic()
    with pytest.raises(BodyError) as info:
        MineflayerBody.connect("127.0.0.1", port, "nobody", timeout_s=10)
    assert info.value.code is BodyErrorCode.BODY_DISCONNECTED
    assert time.monotonic() - t0 < 10


def test_closed_body_refuses_and_bad_arguments(squid_only_server: FlyingSquid) -> None:
    with pytest.raises(BodyError) as info:
        MineflayerBody.connect(squid_only_server.host, 0, "x")
    assert info.value.code is BodyErrorCode.INVALID_ARGUMENT
    with pytest.raises(BodyError) as info:
        MineflayerBody.connect(squid_only_server.host, squid_only_server.port, "a" * 17)
    assert info.value.code is BodyErrorCode.INVALID_ARGUMENT
    body = MineflayerBody.connect(squid_only_server.host, squid_only_server.port, "closer", timeout_s=30)
    body.close()
    body.close()
    with pytest.raises(BodyError) as info:
        body.chat("hello")
    assert info.value.code is BodyErrorCode.BODY_DISCONNECTED
