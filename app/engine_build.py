"""Which build of the engine runs: the mypyc-compiled one or pure Python, the line
``hexhaven play`` shows in its game log to say which, and the one line ``hexhaven play`` and
``hexhaven serve`` print when a regular install could not compile it.

A regular install (``pip install .``) compiles the engine where a C compiler works
(``setup.py``); without one it installs pure Python, and since the build's warning is easy
to miss among pip's lines, the program says so when it runs. Editable installs are
interpreted on purpose (the tests, development) and print nothing (the game log still names
their build).
"""

from __future__ import annotations

import json
import sys
from importlib import metadata
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType
from typing import TextIO

DIST = "hexhaven"
COMPILED = "Engine: compiled (mypyc)."
INTERPRETED = "Engine: pure Python (interpreted)."
NOTICE = (
    "hexhaven: the engine runs as pure Python, about half as fast; `pip install .` again "
    "where a C compiler works (Debian: apt install gcc python3-dev) compiles it"
)


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from a compiled extension module."""
    return (module.__file__ or "").endswith(tuple(EXTENSION_SUFFIXES))


def engine_line(module: ModuleType | None = None) -> str:
    """:data:`COMPILED` or :data:`INTERPRETED`: the build of the engine in use (``module``,
    one of its compiled modules; default ``engine.rules``)."""
    if module is None:
        import engine.rules

        module = engine.rules
    return COMPILED if is_compiled(module) else INTERPRETED


def _is_editable(dist: metadata.Distribution) -> bool:
    """Whether pip recorded ``dist`` as an editable install (``direct_url.json``)."""
    text = dist.read_text("direct_url.json")
    if not text:
        return False
    try:
        info = json.loads(text)
    except ValueError:
        return False
    dir_info = info.get("dir_info") if isinstance(info, dict) else None
    return isinstance(dir_info, dict) and dir_info.get("editable") is True


def is_regular_install(module_file: str, path: list[str] | None = None) -> bool:
    """Whether ``module_file`` belongs to a non-editable install of Hexhaven: a distribution
    on ``path`` (default ``sys.path``) that an installer recorded (its ``RECORD`` lists the
    file) and that ``direct_url.json`` does not call editable. False for an editable
    install, and for sources run where they are (``PYTHONPATH``, a build's ``egg-info``)."""
    target = Path(module_file).resolve()
    for dist in metadata.distributions(name=DIST, path=sys.path if path is None else path):
        if dist.read_text("RECORD") is None or _is_editable(dist):
            continue
        for file in dist.files or ():
            if file.name == target.name and Path(str(dist.locate_file(file))).resolve() == target:
                return True
    return False


def interpreted_notice(module: ModuleType, path: list[str] | None = None) -> str | None:
    """The notice for an engine (``module``, one of its compiled modules) that runs as pure
    Python from a regular install, or None: compiled, or an editable install or sources."""
    if is_compiled(module) or not is_regular_install(module.__file__ or "", path):
        return None
    return NOTICE


def warn_if_interpreted(stream: TextIO | None = None) -> None:
    """Print :data:`NOTICE` on ``stream`` (stderr) when the engine in use needs it."""
    import engine.rules

    notice = interpreted_notice(engine.rules)
    if notice is not None:
        print(notice, file=sys.stderr if stream is None else stream)
