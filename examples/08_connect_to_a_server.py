"""08: connect to a real Minecraft server through mineflayer (skips cleanly without one).

Needs Node.js 20+ and the pinned Node packages (``craftbt node install``), and a server: your own
(offline mode, or a bot account), or a local one from ``craftbt server start``. ``craftbt.create_bot``
with a ``host`` and ``port`` joins it, as mineflayer's ``createBot`` does. On a real server nothing that
moves or changes the world runs without a geofence; the tree here only chats.

    craftbt node install && craftbt server start --port 25565 &
    CRAFTBT_MC_HOST=127.0.0.1 CRAFTBT_MC_PORT=25565 python examples/08_connect_to_a_server.py
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile

import craftbt

host = os.environ.get("CRAFTBT_MC_HOST", "127.0.0.1")
port = int(os.environ.get("CRAFTBT_MC_PORT", "25565"))

try:
    socket.create_connection((host, port), timeout=2).close()
except OSError:
    print(f"skipped: no Minecraft server at {host}:{port} (start one with `craftbt server start`, "
          "or set CRAFTBT_MC_HOST and CRAFTBT_MC_PORT)")
    sys.exit(0)

try:
    bot = craftbt.create_bot(host=host, port=port, username="craftbt_example",
                             geofence="-32,-64,-32:32,320,32",  # what a world-changing leaf may touch
                             home=tempfile.mkdtemp(prefix="craftbt-08-"))
except (craftbt.BodyError, craftbt.CraftbtError) as err:
    print(f"skipped: cannot join {host}:{port}: {err}")  # names `craftbt node install` when Node is missing
    sys.exit(0)
with bot:  # leaving the block disconnects the bot
    outcome = bot.run_tree(craftbt.library_tree("greet"))
    print("status on the server:", outcome.status, "| position:", bot.body.observe().position)
    assert outcome.ok
