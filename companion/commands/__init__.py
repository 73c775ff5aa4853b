"""Sub-commands of the ``companion`` CLI: one module each, found automatically.

A command module defines ``register(subparsers)``, which adds its parser and sets
``func=handler`` where ``handler(args) -> int`` is the exit status. Modules are registered
in alphabetical order; the CLI maps every deliberate error to a one-line message.
"""

from __future__ import annotations

import argparse
import pkgutil
from importlib import import_module


def register_all(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = import_module(f"{__name__}.{info.name}")
        module.register(subparsers)
