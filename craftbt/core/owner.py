"""Who owns a record: this process, named so that another process can tell later whether it is gone.

An owner is ``host``, the kernel's boot id, the pid and the pid's start time
(clock ticks since boot, from ``/proc/<pid>/stat``): a pid reused after the
owner died, or a reboot, does not pass for the owner. Where ``/proc`` is
missing the boot id and start time are empty and only the pid is compared.
A record owned on another host is never judged (its owner may be alive there).
"""

from __future__ import annotations

import json
import os
import socket
from functools import cache
from pathlib import Path


@cache
def boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _stat(pid: int) -> list[str]:
    """``/proc/<pid>/stat`` from field 3 (the state) on; [] when unknown or the pid does not exist."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    # the command name (field 2) may hold spaces and parentheses: count fields after its closing one
    return stat[stat.rfind(")") + 2:].split()


def start_time(pid: int) -> str:
    """The pid's start time in clock ticks since boot ('' when unknown or the pid does not exist)."""
    fields = _stat(pid)
    return fields[19] if len(fields) > 19 else ""


def current() -> str:
    """This process as an owner string (JSON)."""
    pid = os.getpid()
    return json.dumps({"host": socket.gethostname(), "boot": boot_id(), "pid": pid, "start": start_time(pid)},
                      sort_keys=True)


def _pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: it exists
    return True


def gone(owner: str | None) -> bool:
    """Whether the owner is certainly gone; False when it may be alive (or lives on another host).

    A record with no owner was written before owners were recorded: no process can still be writing it.
    """
    if not owner:
        return True
    try:
        data = json.loads(owner)
        pid = int(data["pid"])
    except (ValueError, KeyError, TypeError):
        return True  # unreadable: nobody can claim it
    if data.get("host") != socket.gethostname():
        return False
    if data.get("boot") and boot_id() and data["boot"] != boot_id():
        return True  # the machine rebooted since
    if not _pid_exists(pid):
        return True
    fields = _stat(pid)
    if fields and fields[0] in ("Z", "X"):
        return True  # dead, not yet reaped by its parent
    started = data.get("start")
    now = fields[19] if len(fields) > 19 else ""
    return bool(started and now and started != now)  # the pid was reused by another process
