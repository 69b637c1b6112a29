"""Serving over TLS: the server's certificate and key, loaded once at start, and the copy
of its certificate that its own bot processes trust.

The bots connect to the address the server listens on (often a loopback address its
certificate does not name), so they do not check names: each trusts exactly the
certificate the server presents (``hexhaven bot --server-cert FILE``), from a copy written
when the server loaded it. A certificate file replaced on disk later (a renewal) changes
nothing until the server is restarted, for the server and its bots alike."""

from __future__ import annotations

import os
import re
import ssl
import tempfile
from pathlib import Path
from typing import NoReturn

_PEM_CERTIFICATE = re.compile(
    r"-----BEGIN CERTIFICATE-----\r?\n.+?\r?\n-----END CERTIFICATE-----", re.DOTALL
)


class TLSError(ValueError):
    """A certificate or key the server cannot serve with; the message names the file and
    the reason."""


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace")
    except OSError as exc:
        raise TLSError(f"cannot read the {what} {path}: {exc.strerror or exc}") from exc


def _encrypted(key: Path) -> NoReturn:
    raise TLSError(
        f"the key {key} is encrypted: give it unencrypted, in a file readable by the "
        "server's user alone"
    )


class ServerTLS:
    """The server's TLS context, made from a certificate file (PEM: the server's own
    certificate first, then its chain) and its private key (PEM, unencrypted), and the
    file its bots trust (:attr:`bots_trust`)."""

    def __init__(self, certfile: str | os.PathLike[str], keyfile: str | os.PathLike[str]) -> None:
        """Raises :class:`TLSError` for a file that cannot be read, holds no certificate
        or key, an encrypted key, or a key that is not the certificate's."""
        cert, key = Path(certfile), Path(keyfile)
        found = _PEM_CERTIFICATE.search(_read(cert, "certificate file"))
        if found is None:
            raise TLSError(f"the certificate file {cert} holds no PEM certificate")
        if "PRIVATE KEY-----" not in _read(key, "key file"):
            raise TLSError(f"the key file {key} holds no PEM private key")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        try:
            context.load_cert_chain(cert, key, password=lambda: _encrypted(key))
        except ssl.SSLError as exc:
            if "KEY_VALUES_MISMATCH" in str(exc):
                why = f"the key {key} is not the key of the certificate in {cert}"
            else:
                why = f"cannot load the certificate {cert} with the key {key}: {exc}"
            raise TLSError(why) from exc
        self.context = context
        """What the server listens with."""
        self.certificate = found.group(0) + "\n"
        """The server's own certificate (PEM), as it presents it."""
        self._folder = tempfile.TemporaryDirectory(prefix="hexhaven-tls-")
        self.bots_trust = Path(self._folder.name) / "server-certificate.pem"
        """A copy of :attr:`certificate` (removed when this object goes, or the process
        ends), the one certificate the server's bot processes trust."""
        self.bots_trust.write_text(self.certificate, encoding="ascii")

    def close(self) -> None:
        """Remove the bots' copy of the certificate."""
        self._folder.cleanup()
