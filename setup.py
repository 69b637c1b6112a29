"""Build hook: a regular install compiles the engine's hot modules, the rollouts
(``bots/playout.py``), and the learning environments' encoding, action index and stepping
(``features/``, ``learn/core.py``) with mypyc where a C compiler works, and falls back to
pure Python where none does.

The engine is plain, typed Python; compiled, the same source runs about twice as fast, so
bots search deeper in the same time. README's install compiles (about a minute, once)::

    .venv/bin/pip install .

Editable installs (``pip install -e .``: the tests, CI and development) stay interpreted:
compiled modules beside the sources would hide every edit. ``HEXHAVEN_COMPILE`` chooses:

- unset: compile a regular install when a C compiler and Python's headers work, else stay
  pure Python (``hexhaven play`` then says so on stderr);
- ``0``: pure Python;
- ``1``: compile, and fail the install if that cannot be done (no compiler, or an editable
  install). With ``--no-build-isolation`` the mypy already in the environment compiles::

    HEXHAVEN_COMPILE=1 .venv/bin/pip install --no-build-isolation .

The action and event dataclasses stay interpreted, so malformed actions still reach the
engine's own checks. The decisions are the functions below; ``tests/app/test_install.py``
calls them.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from setuptools import Distribution, Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import BaseError, CCompilerError

COMPILED = [
    "engine/board.py",
    "engine/constants.py",
    "engine/defaults.py",
    "engine/errors.py",
    "engine/longest.py",
    "engine/notation.py",
    "engine/pieces.py",
    "engine/replay.py",
    "engine/rng.py",
    "engine/rules.py",
    "engine/state.py",
    "engine/tables.py",
    "engine/topology.py",
    "engine/view.py",
    "bots/playout.py",
    "bots/value/net.py",
    "features/actions.py",
    "features/encoding.py",
    "learn/core.py",
]

MYPY_OPTIONS = ["--follow-imports=silent"]
"""The build's environment holds only setuptools and mypy: the modules the compiled ones
reach without needing (``bots/__init__.py`` and what it imports: pydantic, websockets) are
read for their types and not checked."""

Mode = Literal["auto", "on", "off"]
BUILDS = frozenset({"bdist_wheel", "build", "build_ext", "install", "bdist", "bdist_egg"})
"""setup.py commands that build extension modules (a wheel, or a legacy install)."""
EDITABLE = frozenset({"editable_wheel", "develop"})
"""setup.py commands of an editable install."""
PURE = "hexhaven: the engine stays pure Python"


class CompileRefused(SystemExit):
    """HEXHAVEN_COMPILE=1 asked for a compile that cannot be done; the message says why."""


def compile_mode(environ: Mapping[str, str]) -> Mode:
    """What ``HEXHAVEN_COMPILE`` asks: unset or empty ``auto``, ``1`` ``on``, ``0`` ``off``.
    Raises CompileRefused for any other value."""
    value = environ.get("HEXHAVEN_COMPILE", "").strip()
    match value:
        case "":
            return "auto"
        case "1":
            return "on"
        case "0":
            return "off"
    raise CompileRefused(f"HEXHAVEN_COMPILE is 1 (compile) or 0 (pure Python), not {value!r}")


def compiler_problem() -> str | None:
    """Why no extension module can be built here (no working C compiler, or no Python
    headers), or None when a small one builds. It builds with setuptools' own ``build_ext``,
    so ``CC`` and the rest of the environment count as in the real build."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp, "hexhaven_probe.c")
        source.write_text("#include <Python.h>\nint hexhaven_probe(void) { return 0; }\n")
        dist = Distribution(
            {"name": "hexhaven-probe", "ext_modules": [Extension("hexhaven_probe", [str(source)])]}
        )
        probe = build_ext(dist)
        probe.build_temp = probe.build_lib = tmp
        try:
            probe.ensure_finalized()
            probe.run()
        except (CCompilerError, BaseError, OSError) as exc:
            return str(exc).strip() or type(exc).__name__
    return None


def should_compile(
    mode: Mode, argv: Sequence[str], problem: Callable[[], str | None] = compiler_problem
) -> bool:
    """Whether this run of setup.py (its command line ``argv``) compiles: only a command
    that builds extensions, never an editable install, never with ``off``; with ``auto``
    when ``problem()`` finds nothing wrong. Raises CompileRefused when ``on`` cannot be
    honoured."""
    commands = set(argv[1:])
    if mode == "off":
        return False
    if commands & EDITABLE:
        if mode == "on":
            raise CompileRefused(
                "HEXHAVEN_COMPILE=1 compiles regular installs only (pip install .): an "
                "editable install's compiled modules would hide every edit of the sources"
            )
        return False
    if not commands & BUILDS:
        return False
    found = problem()
    if found is None:
        return True
    if mode == "on":
        raise CompileRefused(f"HEXHAVEN_COMPILE=1, but no extension module builds here: {found}")
    print(f"{PURE}: no C compiler works here ({found})", file=sys.stderr)
    return False


class BuildExtOrPure(build_ext):
    """``build_ext`` that, unless the compile was asked for, ends in a pure-Python build
    when compiling fails: the modules it built are removed, the sources stay."""

    required = False

    def run(self) -> None:
        try:
            super().run()
        except (CCompilerError, BaseError, OSError) as exc:
            if self.required:
                raise
            for ext in self.extensions:
                Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
            print(f"{PURE}: compiling it failed ({exc})", file=sys.stderr)


def ext_modules(mode: Mode, argv: Sequence[str]) -> list[Any]:
    """The extension modules this run builds: mypyc's, or none."""
    if not should_compile(mode, argv):
        return []
    BuildExtOrPure.required = mode == "on"
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        if mode == "on":
            raise CompileRefused(f"HEXHAVEN_COMPILE=1 needs mypy installed: {exc}") from exc
        print(f"{PURE}: mypy, which compiles it, is missing ({exc})", file=sys.stderr)
        return []
    try:
        modules: list[Any] = mypycify([*COMPILED, *MYPY_OPTIONS], opt_level="3")
    except SystemExit:
        if mode == "on":
            raise
        print(f"{PURE}: mypyc could not compile it (its messages are above)", file=sys.stderr)
        return []
    return modules


if __name__ == "__main__":
    mode = compile_mode(os.environ)
    setup(ext_modules=ext_modules(mode, sys.argv), cmdclass={"build_ext": BuildExtOrPure})
