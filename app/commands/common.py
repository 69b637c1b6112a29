"""What the ``hexhaven`` subcommands share: checking a server URL, the certificates a
``wss://`` connection trusts, and opening the games database, each saying on standard
error what is wrong in a sentence."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clients.urls import server_url_problem

if TYPE_CHECKING:
    import ssl

    from server.store import Store

CAFILE_HELP = (
    "trust the CA certificates in FILE (PEM) for a wss:// server, instead of the system's "
    "trust store (which SSL_CERT_FILE may also name)"
)


def bad_url(command: str, url: str) -> bool:
    """Whether ``url`` cannot name a server; if so, say why on stderr."""
    problem = server_url_problem(url)
    if problem is not None:
        print(f"hexhaven {command}: {problem}", file=sys.stderr)
    return problem is not None


def add_cafile(parser: Any) -> None:
    """Add ``--cafile FILE`` to a command that connects to a server."""
    parser.add_argument("--cafile", default=None, metavar="FILE", help=CAFILE_HELP)


def client_tls(
    url: str, cafile: str | None, server_cert: str | None = None
) -> ssl.SSLContext | None:
    """The context a connection to ``url`` verifies its server with: the CA certificates
    in ``cafile``, exactly the certificate in ``server_cert``, or (None) the system's trust
    store. Raises :class:`clients.tls.TrustError` naming the option, for a file that
    cannot be used or a ``ws://`` URL (no TLS to verify)."""
    from clients.tls import TrustError, pinned, trusting

    option, path = ("--server-cert", server_cert) if server_cert else ("--cafile", cafile)
    if path is None:
        return None
    if not url.lower().startswith("wss://"):
        raise TrustError(f"{option} is for a server that serves TLS, whose URL starts with wss://")
    try:
        return pinned(path) if server_cert else trusting(path)
    except TrustError as exc:
        raise TrustError(f"{option}: {exc}") from exc


def _store_problem(path: Path, exc: Exception) -> str:
    if path.is_dir():
        return "it is a folder, not a file"
    folder = path.parent
    if not folder.exists():
        return f"the folder {folder} does not exist"
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not path.exists() and not os.access(folder, os.W_OK):
        return f"no permission to create a file in {folder}"
    return str(exc)


def open_store(command: str, path: str | Path, *, must_exist: bool = False) -> Store | None:
    """The games database at ``path`` (created unless ``must_exist``), or None after
    saying on stderr why it cannot be opened: no such file (with ``must_exist``: nothing is
    created), a missing folder, a file that is not a database, a PostgreSQL server that
    cannot be reached..."""
    import sqlite3

    from server.store import Store, StoreError, is_postgres

    if is_postgres(str(path)):
        try:
            return Store(path)
        except StoreError as exc:
            print(f"hexhaven {command}: {exc}", file=sys.stderr)
            return None
    file = Path(path)
    if must_exist and not file.is_file():
        why = "it is a folder, not a file" if file.is_dir() else "no such file"
        print(f"hexhaven {command}: {why}: {file}", file=sys.stderr)
        return None
    try:
        return Store(file)
    except sqlite3.Error as exc:
        why = _store_problem(file, exc)
        print(f"hexhaven {command}: cannot open the database {file}: {why}", file=sys.stderr)
        return None


def port(text: str) -> int:
    """An argparse type: a TCP port number, 0 to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a port is a number, not {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {port}")
    return port


def listen_problem(exc: OSError) -> str:
    import errno
    import socket

    if isinstance(exc, socket.gaierror):
        return f"unknown host name ({exc.strerror or exc})"
    match exc.errno:
        case errno.EADDRINUSE:
            return "the port is already in use (by another server?); choose another with --port"
        case errno.EADDRNOTAVAIL:
            return "this machine has no such address (--host)"
        case errno.EACCES:
            return "permission denied (ports below 1024 need special rights)"
    return exc.strerror or str(exc)


def name_values(command: str, option: str, items: list[str]) -> dict[str, str] | None:
    """``NAME=VALUE`` options as a dict, or None after saying on stderr which one is not of
    that form."""
    out: dict[str, str] = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name:
            print(f"hexhaven {command}: {option} takes NAME=VALUE, not {item!r}", file=sys.stderr)
            return None
        out[name] = value
    return out
