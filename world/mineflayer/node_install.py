"""``craftbt node install``: put the pinned Node packages (mineflayer, pathfinder, minecraft-data,
flying-squid) where the body and the test server look for them.

The package ships ``package.json`` and ``package-lock.json`` (``node/`` beside this module); the
install copies both into the target folder (``$CRAFTBT_HOME/node`` by default) and runs ``npm ci``
there, so a wheel user gets exactly the versions a checkout's ``npm ci`` gets. Node's version is
checked against ``engines.node`` first. Nothing here runs on its own: the body never installs
packages on the fly (:mod:`node_env` only looks).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from craftbt.core.home import default_home
from craftbt.world.mineflayer.node_env import BODY_PACKAGES, PACKAGE_DIR, SERVER_PACKAGES, node_binary

#: package.json and package-lock.json as shipped in the package (links to the checkout's own)
MANIFEST_DIR = PACKAGE_DIR / "node"
MANIFESTS = ("package.json", "package-lock.json")
#: the packages `node install` reports (what the body and the server load)
REPORTED = (*BODY_PACKAGES, *SERVER_PACKAGES)


class NodeInstallErrorCode(StrEnum):
    NODE_MISSING = "node_missing"
    NODE_TOO_OLD = "node_too_old"
    NPM_MISSING = "npm_missing"
    NPM_FAILED = "npm_failed"
    MANIFEST_MISSING = "manifest_missing"


class NodeInstallError(Exception):
    """The Node packages could not be installed; ``detail`` says why and what to do."""

    def __init__(self, code: NodeInstallErrorCode, detail: str) -> None:
        super().__init__(f"{code.value}: {detail}")
        self.code = code
        self.detail = detail


@dataclass
class NodeInstall:
    """What ``install`` did."""

    prefix: Path
    node_version: str
    versions: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    skipped: bool = False  #: already installed from the same lock file

    @property
    def node_modules(self) -> Path:
        return self.prefix / "node_modules"


def default_prefix() -> Path:
    """``$CRAFTBT_HOME/node`` (``.craftbt/node`` in the working directory without it)."""
    return default_home() / "node"


def _manifest(name: str) -> Path:
    path = MANIFEST_DIR / name
    if not path.is_file():
        raise NodeInstallError(NodeInstallErrorCode.MANIFEST_MISSING,
                               f"{path} is missing from the installed package; reinstall craftbt")
    return path


def required_node() -> str:
    """The ``engines.node`` range of the shipped package.json, e.g. ``>=20``."""
    data = json.loads(_manifest("package.json").read_text(encoding="utf-8"))
    return str(data.get("engines", {}).get("node", ">=0"))


def _major(version: str) -> int | None:
    found = re.search(r"(\d+)", version)
    return int(found.group(1)) if found else None


def check_node(node: str | None = None) -> str:
    """Node's version (``v22.3.0``), or :class:`NodeInstallError` when it is absent or below ``engines.node``."""
    node = node or node_binary()
    if node is None:
        raise NodeInstallError(NodeInstallErrorCode.NODE_MISSING,
                               f"Node.js is not on PATH; install Node {required_node()} (https://nodejs.org) "
                               "or set NODE_BIN to its executable")
    try:
        version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30,
                                 check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError) as err:
        raise NodeInstallError(NodeInstallErrorCode.NODE_MISSING, f"{node} --version failed: {err}") from None
    need = _major(required_node())
    have = _major(version)
    if need is not None and (have is None or have < need):
        raise NodeInstallError(NodeInstallErrorCode.NODE_TOO_OLD,
                               f"Node {version or '(no version)'} at {node}; the packages need {required_node()}")
    return version


def installed_versions(node_modules: Path) -> dict[str, str]:
    """The version of each reported package found under ``node_modules`` (absent ones left out)."""
    versions = {}
    for name in REPORTED:
        manifest = node_modules / name / "package.json"
        try:
            versions[name] = str(json.loads(manifest.read_text(encoding="utf-8"))["version"])
        except (OSError, ValueError, KeyError):
            continue
    return versions


def _current(prefix: Path) -> bool:
    """Installed from the same lock and every reported package present."""
    lock = prefix / "package-lock.json"
    if not lock.is_file() or lock.read_bytes() != _manifest("package-lock.json").read_bytes():
        return False
    return set(installed_versions(prefix / "node_modules")) == set(REPORTED)


def install(prefix: Path | None = None, *, force: bool = False) -> NodeInstall:
    """``npm ci`` the shipped package.json and lock into ``prefix`` (default :func:`default_prefix`)."""
    target = (prefix or default_prefix()).expanduser().resolve()
    node_version = check_node()
    if not force and _current(target):
        return NodeInstall(target, node_version, installed_versions(target / "node_modules"), skipped=True)
    npm = os.environ.get("NPM_BIN") or shutil.which("npm")
    if npm is None:
        raise NodeInstallError(NodeInstallErrorCode.NPM_MISSING,
                               "npm is not on PATH (it comes with Node.js) ; or set NPM_BIN to its executable")
    target.mkdir(parents=True, exist_ok=True)
    for name in MANIFESTS:
        shutil.copyfile(_manifest(name), target / name)
    started = time.monotonic()
    try:
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=target,
                              capture_output=True, text=True, timeout=1800)
    except (OSError, subprocess.SubprocessError) as err:
        raise NodeInstallError(NodeInstallErrorCode.NPM_FAILED, f"{npm} ci could not run: {err}") from None
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
        raise NodeInstallError(NodeInstallErrorCode.NPM_FAILED,
                               f"npm ci in {target} exited {done.returncode}:\n{tail}")
    versions = installed_versions(target / "node_modules")
    missing = [name for name in REPORTED if name not in versions]
    if missing:
        raise NodeInstallError(NodeInstallErrorCode.NPM_FAILED,
                               f"npm ci in {target} succeeded but left out {', '.join(missing)}")
    return NodeInstall(target, node_version, versions, seconds=time.monotonic() - started)
