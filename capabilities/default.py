"""The process-wide default registry: every shipped leaf and check, then the user's plugins.

The registry module knows only specs; this module is the one place that knows both the registry
and the shipped leaves, so neither imports the other.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from types import ModuleType

from craftbt.capabilities.leaves import register_all
from craftbt.capabilities.registry import Registry
from craftbt.core.errors import CraftbtError, ErrorCode

_default: Registry | None = None

#: Entry-point group through which installed packages add capabilities: ``module:function(registry)``.
PLUGIN_GROUP = "craftbt.capabilities"
#: Environment variable with extra ``module:function`` plugins, comma-separated (handy before packaging).
PLUGIN_ENV = "CRAFTBT_PLUGINS"


def default_registry() -> Registry:
    """The process-wide registry: every shipped leaf and check, then the user's plugins.

    A plugin is a function taking the registry, named by an entry point in the
    ``craftbt.capabilities`` group or listed in ``CRAFTBT_PLUGINS``. A plugin
    that cannot be loaded is a structured error, not a silent omission.
    """
    global _default
    if _default is None:
        registry = Registry()
        register_all(registry)
        for ref, load in _plugins():
            registry.loading_plugin = ref
            try:
                load()(registry)
            except CraftbtError as err:
                if err.code is ErrorCode.PLUGIN_ERROR:
                    raise
                raise CraftbtError.single(
                    ErrorCode.PLUGIN_ERROR, f"capability plugin {ref!r} failed: {err}") from err
            except (Exception, SystemExit, KeyboardInterrupt) as exc:  # a user's plugin: which one and why
                raise CraftbtError.single(
                    ErrorCode.PLUGIN_ERROR, f"capability plugin {ref!r} failed: {type(exc).__name__}: {exc}"
                ) from exc
            finally:
                registry.loading_plugin = None
        _default = registry
    return _default


def _plugins() -> builtins.list[tuple[str, Callable[[], Callable[[Registry], None]]]]:
    import os
    from importlib.metadata import entry_points

    found: builtins.list[tuple[str, Callable[[], Callable[[Registry], None]]]] = [
        (ep.value, ep.load) for ep in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: e.name)
    ]
    for ref in filter(None, (r.strip() for r in os.environ.get(PLUGIN_ENV, "").split(","))):
        module, _, attr = ref.partition(":")
        if not module or not attr:
            raise CraftbtError.single(
                ErrorCode.PLUGIN_ERROR, f"{PLUGIN_ENV} entry {ref!r} is not 'module:function'"
            )

        def load(module: str = module, attr: str = attr) -> Callable[[Registry], None]:
            fn: Callable[[Registry], None] = getattr(_import_plugin(module), attr)
            return fn

        found.append((ref, load))
    return found


def _import_plugin(module: str) -> ModuleType:
    """Import a ``CRAFTBT_PLUGINS`` module. A console script does not put the working directory on
    ``sys.path``, so a top-level package that is importable from nowhere else is taken from the working
    directory (``examples.wave`` beside the tree that uses it); ``sys.path`` itself is left alone."""
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
