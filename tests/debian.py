"""Programs the tests drive that come from Debian's packages (Chromium, tmux): installed
with apt-get the first time one is missing, once for all the test workers."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def installed(program: Path, package: str) -> str:
    """The path of ``program``, after installing ``package`` with apt-get if it is missing
    (the test workers each ask: one installs while the others wait for it). Raises when it
    cannot be installed."""
    if program.exists():
        return str(program)
    with open(Path(tempfile.gettempdir()) / f"hexhaven-{package}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not program.exists():
            _install(program, package)
    return str(program)


def _install(program: Path, package: str) -> None:
    if shutil.which("apt-get") is None:
        raise RuntimeError(f"{program} is missing and there is no apt-get to install it")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    began = time.monotonic()
    subprocess.run(["apt-get", "update", "-q"], check=True, env=env, stdout=subprocess.DEVNULL)
    subprocess.run(
        ["apt-get", "install", "-y", "-q", package], check=True, env=env, stdout=subprocess.DEVNULL
    )
    print(f"installed {package} in {time.monotonic() - began:.1f} s", file=sys.stderr)
