"""The Python runtime's loader: runs a script's sources, which the host
hands over at run time (`game:live/sources`), as if componentize-py had
built them in.

componentize-py keeps only the modules imported while it pre-initialises
the runtime, so the standard library a game script may use is imported
here, once, at build time (STDLIB below). A script's own modules are
served from the sources by a finder on `sys.meta_path`, compiled with the
paths the author knows, so tracebacks name the script's files. The host
may have them compiled ahead (`Loader.prepare`, called away from the game's
frame); else each is compiled when it is imported. The entry module (the
first file) is imported on the first call into the script, and
its `WitWorld` gets the calls: `entrypoint`, and `on_update(clock)`,
`on_wake(clock, wakes)`, `save_state` and `restore_state` where it defines
them.
"""

# The standard library the runtime carries (imported at build time).
import abc
import array
import base64
import bisect
import collections
import colorsys
import copy
import dataclasses
import datetime
import enum
import fractions
import functools
import heapq
import itertools
import json
import math
import operator
import random
import re
import statistics
import string
import struct
import textwrap
import time
import types
import typing
import traceback
import sys
import importlib
import importlib.machinery

import wit_world
from wit_world import exports
from wit_world.imports import sources as _sources

# Every binding a script may import, loaded now for the same reason.
from wit_world.imports import (  # noqa: F401
{{engine-modules}}
)



class _Finder:
    """Finds the script's modules among its sources."""

    def __init__(self, root, files):
        self.root = root
        self.files = files
        # Code compiled ahead by `prepare`, by path.
        self.code = {}

    def origin(self, path):
        return f"{self.root}/{path}"

    def find_spec(self, name, path=None, target=None):
        base = name.replace(".", "/")
        for path, package in ((base + ".py", False), (base + "/__init__.py", True)):
            if path in self.files:
                spec = importlib.machinery.ModuleSpec(
                    name, self, origin=self.origin(path), is_package=package
                )
                spec.has_location = True
                if package:
                    spec.submodule_search_locations = [self.origin(base)]
                return spec
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        path = module.__spec__.origin[len(self.root) + 1 :]
        module.__file__ = module.__spec__.origin
        code = self.code.pop(path, None)
        if code is None:
            code = compile(self.files[path], module.__spec__.origin, "exec")
        exec(code, module.__dict__)

    def prepare(self):
        for path, text in self.files.items():
            try:
                self.code[path] = compile(text, self.origin(path), "exec")
            except SyntaxError:
                pass  # raised again when the module is imported

    def check(self):
        for path, text in self.files.items():
            try:
                compile(text, self.origin(path), "exec")
            except SyntaxError as error:
                return "".join(traceback.format_exception_only(error)).rstrip()
        return None


class _NotCarried:
    """Last on `sys.meta_path`: a standard library module the runtime
    does not carry is named as such, with the way to get it."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in sys.stdlib_module_names:
            raise ModuleNotFoundError(
                f"No module named {name!r}: the live Python runtime carries the "
                "standard library modules the book lists (A script in Python or JavaScript), not this one "
                "(`host build` makes a component with every module a script imports)",
                name=name,
            )
        return None


def _finder():
    files = _sources.files()
    finder = _Finder(_sources.root(), {file.path: file.text for file in files})
    # The host hands the entry module over first.
    finder.entry = files[0].path.removesuffix(".py").replace("/", ".") if files else "app"
    return finder


class _World:
    """What a script's `class WitWorld(wit_world.WitWorld)` derives from.

    The runtime's own `wit_world.WitWorld` is abstract over every export of
    `stateful-script`; a script defines only those it uses (one that never
    waits has no `on_wake`), so scripts get this base instead.
    """


_World.__name__ = _World.__qualname__ = "WitWorld"
_World.__module__ = "wit_world"

_script = None
# The finder `Loader.prepare` made, its modules compiled.
_prepared = None


def _user():
    """The script's `WitWorld`, importing its `app` module on first use."""
    global _script, _prepared
    if _script is None:
        finder = _prepared or _finder()
        _prepared = None
        sys.meta_path.insert(0, finder)
        sys.meta_path.append(_NotCarried())
        wit_world.WitWorld = _World
        # Seeded now, from the instance's own random source, not frozen
        # into the runtime at build time.
        random.seed()
        app = importlib.import_module(finder.entry)
        _script = app.WitWorld()
    return _script


def _own(error):
    """`error` with only the script's frames in its traceback, not the
    loader's or importlib's before them (the one loader frame left is the
    export that was called)."""
    tb = error.__traceback__
    root = _sources.root() + "/"
    while tb is not None and not tb.tb_frame.f_code.co_filename.startswith(root):
        tb = tb.tb_next
    return error.with_traceback(tb)


class WitWorld(wit_world.WitWorld):
    def entrypoint(self) -> None:
        try:
            _user().entrypoint()
        except BaseException as error:
            raise _own(error) from None

    def on_update(self, clock: runtime.FrameClock) -> None:
        try:
            update = getattr(_user(), "on_update", None)
            if update is not None:
                update(clock)
        except BaseException as error:
            raise _own(error) from None

    def on_wake(self, clock: runtime.FrameClock, wakes: typing.List[tasks.Wake]) -> None:
        try:
            wake = getattr(_user(), "on_wake", None)
            if wake is not None:
                wake(clock, wakes)
        except BaseException as error:
            raise _own(error) from None

    def save_state(self):
        try:
            save = getattr(_user(), "save_state", None)
            return save() if save is not None else None
        except BaseException as error:
            raise _own(error) from None

    def restore_state(self, state: bytes) -> None:
        try:
            script = _user()
            restore = getattr(script, "restore_state", None)
            if restore is not None:
                restore(state)
            else:
                script.entrypoint()
        except BaseException as error:
            raise _own(error) from None


class Loader(exports.Loader):
    def check(self):
        return _finder().check()

    def prepare(self):
        global _prepared
        if _script is None and _prepared is None:
            _prepared = _finder()
            _prepared.prepare()

