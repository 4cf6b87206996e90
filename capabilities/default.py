"""The process-wide default registry, and the one way capabilities join it: a plugin.

A plugin is a ``module:attribute`` reference. The attribute is either a collection of specs (the
declarative form every shipped module uses: ``craftbt.capabilities.leaves.blocks:SPECS``, a tuple of
:class:`CapabilitySpec` and :class:`CheckSpec`), or a function taking the registry (``register(registry)``,
the shape of BehaviorTree.CPP's ``BT_REGISTER_NODES``, for a plugin that must decide at load time).
Shipped modules and user plugins are the same kind of thing and load through the same code, as pytest
loads its ``default_plugins`` and ``pytest11`` entry points alike: :data:`BUILTIN_PLUGINS` first (in
this order), then the ``craftbt.capabilities`` entry points (by name), then ``CRAFTBT_PLUGINS``.
The one difference is whose fault a failure is: what a user's plugin registers is checked and stamped with its
reference (a fault is a ``plugin_error``), what craftbt ships is
not (a fault is craftbt's bug). The shipped list is data, so this module imports no leaf family: each is
imported when the registry is first made.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import NamedTuple

from craftbt.capabilities.registry import Registry
from craftbt.capabilities.spec import CapabilitySpec, CheckSpec
from craftbt.core.errors import CraftbtError, ErrorCode

_default: Registry | None = None

#: Entry-point group through which installed packages add capabilities: ``module:function(registry)``.
PLUGIN_GROUP = "craftbt.capabilities"
#: Environment variable with extra ``module:function`` plugins, comma-separated (handy before packaging).
PLUGIN_ENV = "CRAFTBT_PLUGINS"

#: Every capability and condition check craftbt ships, one plugin per concept module, registered in this
#: order. CraftScript's ``run_script``/``call_function`` live above the capability room and join by
#: reference like any plugin, so the registry is whole whether or not the package's entry points are installed.
BUILTIN_PLUGINS: tuple[str, ...] = (
    "craftbt.capabilities.checks:CHECKS",
    "craftbt.capabilities.leaves.movement:SPECS",
    "craftbt.capabilities.leaves.blocks:SPECS",
    "craftbt.capabilities.leaves.sensing:SPECS",
    "craftbt.capabilities.leaves.crafting:SPECS",
    "craftbt.capabilities.leaves.containers:SPECS",
    "craftbt.capabilities.leaves.combat:SPECS",
    "craftbt.capabilities.leaves.survival:SPECS",
    "craftbt.capabilities.leaves.animals:SPECS",
    "craftbt.capabilities.leaves.farming:SPECS",
    "craftbt.capabilities.leaves.mechanisms:SPECS",
    "craftbt.capabilities.leaves.construction:SPECS",
    "craftbt.capabilities.leaves.exploration:SPECS",
    "craftbt.craftscript.capability:register",
)


#: What a plugin reference names: the specs to register, or a function that registers them.
Registers = Callable[[Registry], None] | Iterable[CapabilitySpec | CheckSpec]


class Plugin(NamedTuple):
    """One ``module:attribute`` to load, and whether craftbt ships it (then its faults are craftbt's)."""

    ref: str
    load: Callable[[], Registers]
    shipped: bool


def default_registry() -> Registry:
    """The process-wide registry: every shipped capability and check, then the user's plugins.

    A user's plugin is named by an entry point in the ``craftbt.capabilities`` group or listed in
    ``CRAFTBT_PLUGINS``. A plugin that cannot be loaded is a structured error, not a silent omission.
    """
    global _default
    if _default is None:
        registry = Registry()
        for plugin in plugins():
            load_plugin(registry, plugin)
        _default = registry
    return _default


def register_all(registry: Registry) -> None:
    """Register every shipped capability and check (:data:`BUILTIN_PLUGINS`) on ``registry``, no user plugin."""
    for ref in BUILTIN_PLUGINS:
        load_plugin(registry, _plugin(ref, shipped=True))


def load_plugin(registry: Registry, plugin: Plugin) -> None:
    """Run one plugin's ``register(registry)``; a user's plugin that fails is a ``plugin_error`` naming it."""
    if plugin.shipped:
        _register(registry, plugin.load())
        return
    registry.loading_plugin = plugin.ref
    try:
        _register(registry, plugin.load())
    except CraftbtError as err:
        if err.code is ErrorCode.PLUGIN_ERROR:
            raise
        raise CraftbtError.single(
            ErrorCode.PLUGIN_ERROR, f"capability plugin {plugin.ref!r} failed: {err}") from err
    except (Exception, SystemExit, KeyboardInterrupt) as exc:  # a user's plugin: which one and why
        raise CraftbtError.single(
            ErrorCode.PLUGIN_ERROR, f"capability plugin {plugin.ref!r} failed: {type(exc).__name__}: {exc}"
        ) from exc
    finally:
        registry.loading_plugin = None


def _register(registry: Registry, what: Registers) -> None:
    if callable(what):
        what(registry)
        return
    for spec in what:
        if isinstance(spec, CheckSpec):
            registry.register_check(spec)
        else:
            registry.register(spec)  # a wrong type is refused by the registry's plugin check


def plugins() -> builtins.list[Plugin]:
    """The shipped plugins, then the installed entry points (a shipped one listed again is skipped), then
    ``CRAFTBT_PLUGINS``."""
    import os
    from importlib.metadata import entry_points

    found = [_plugin(ref, shipped=True) for ref in BUILTIN_PLUGINS]
    for ep in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: e.name):
        if ep.value not in BUILTIN_PLUGINS:
            found.append(Plugin(ep.value, ep.load, shipped=False))
    for ref in filter(None, (r.strip() for r in os.environ.get(PLUGIN_ENV, "").split(","))):
        found.append(_plugin(ref, shipped=False))
    return found


def _plugin(ref: str, *, shipped: bool) -> Plugin:
    module, _, attr = ref.partition(":")
    if not module or not attr:
        raise CraftbtError.single(
            ErrorCode.PLUGIN_ERROR, f"{PLUGIN_ENV} entry {ref!r} is not 'module:attribute'"
        )

    def load() -> Registers:
        what: Registers = getattr(_import_plugin(module), attr)
        return what

    return Plugin(ref, load, shipped)


def _import_plugin(module: str) -> ModuleType:
    """Import a plugin's module. A console script does not put the working directory on ``sys.path``, so a
    top-level package that is importable from nowhere else is taken from the working directory
    (``examples.wave`` beside the tree that uses it); ``sys.path`` itself is left alone."""
    import importlib
    import importlib.machinery
    import importlib.util
    import os
    import sys

    top = module.partition(".")[0]
    if top and top not in sys.modules and importlib.util.find_spec(top) is None:
        spec = importlib.machinery.PathFinder.find_spec(top, [os.getcwd()])
        if spec is not None and spec.loader is not None:
            found = importlib.util.module_from_spec(spec)
            sys.modules[top] = found
            try:
                spec.loader.exec_module(found)
            except BaseException:
                del sys.modules[top]
                raise
    return importlib.import_module(module)
