"""TLS for clients: which certificates a ``wss://`` connection trusts, and what a failed
TLS connection means in words.

By default a client verifies the server with the system's trust store (and, as Python's
ssl does, the files ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` name). :func:`trusting` trusts
one CA file instead; :func:`pinned` trusts exactly one certificate, whatever name it
carries, which is how a server's own bots reach it by an address its certificate does not
name."""

from __future__ import annotations

import os
import re
import ssl
from typing import Any

from websockets.exceptions import InvalidMessage

_PEM_CERTIFICATE = re.compile(
    r"-----BEGIN CERTIFICATE-----\r?\n.+?\r?\n-----END CERTIFICATE-----", re.DOTALL
)

_NAME_MISMATCH = (62, 64)
"""OpenSSL's verify codes for a certificate that names neither the host nor the address
connected to (``X509_V_ERR_HOSTNAME_MISMATCH``, ``X509_V_ERR_IP_ADDRESS_MISMATCH``)."""

Where = str | os.PathLike[str]
"""A file's path."""


class TrustError(ValueError):
    """A CA or certificate file that cannot be trusted from (missing, unreadable, or
    holding no PEM certificate); the message names the file and the reason."""


def first_certificate(path: Where) -> str:
    """The first PEM certificate in the file ``path`` (a server's certificate file starts
    with its own, then its chain). Raises :class:`TrustError` when the file cannot be read
    or holds none."""
    try:
        with open(path, encoding="ascii", errors="replace") as file:
            text = file.read()
    except OSError as exc:
        raise TrustError(f"cannot read {os.fspath(path)}: {exc.strerror or exc}") from exc
    found = _PEM_CERTIFICATE.search(text)
    if found is None:
        raise TrustError(f"{os.fspath(path)} holds no PEM certificate")
    return found.group(0) + "\n"


def trusting(cafile: Where | None = None) -> ssl.SSLContext:
    """A client context that verifies the server's certificate and name: against the CA
    certificates in ``cafile`` alone, or (None) the system's trust store, which
    ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` may name. Raises :class:`TrustError` for a
    ``cafile`` that cannot be read or holds no certificate."""
    if cafile is None:
        return ssl.create_default_context()
    first_certificate(cafile)  # a clear sentence for a missing or empty file
    try:
        return ssl.create_default_context(cafile=os.fspath(cafile))
    except ssl.SSLError as exc:
        raise TrustError(f"{os.fspath(cafile)} holds no usable certificate: {exc}") from exc


def pinned(certfile: Where) -> ssl.SSLContext:
    """A client context that trusts exactly the first certificate in ``certfile`` (the
    server's own; the rest of the file, its chain, is not trusted): a server that presents
    that very certificate, and proves it holds its key, is accepted whatever address it was
    reached by; any other is refused with ``ssl.SSLCertVerificationError``, even one the
    same CA signed, and even when the file's first certificate is a CA's. Raises
    :class:`TrustError` for a file that cannot be read or holds no certificate."""
    pem = first_certificate(certfile)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False  # the one certificate trusted names the server
    context.verify_mode = ssl.CERT_REQUIRED
    context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN  # a trust anchor that is no CA
    try:
        context.load_verify_locations(cadata=pem)
    except ssl.SSLError as exc:
        raise TrustError(f"{os.fspath(certfile)} holds no usable certificate: {exc}") from exc
    context.sslobject_class = _pinned_object(ssl.PEM_cert_to_DER_cert(pem))
    return context


def _pinned_object(pin: bytes) -> type[ssl.SSLObject]:
    """The TLS connections of a :func:`pinned` context: once OpenSSL has verified the
    server's chain up to the certificate trusted, the server's own certificate must be
    that one (a chain that merely leads to it, as to a CA, is refused)."""

    class Pinned(ssl.SSLObject):
        def do_handshake(self) -> None:
            super().do_handshake()
            if self.getpeercert(binary_form=True) != pin:
                refusal = ssl.SSLCertVerificationError(
                    1, "the server's certificate is not the one trusted"
                )
                refusal.verify_message = "not the certificate trusted"
                raise refusal

    return Pinned


def connect_options(url: str, context: ssl.SSLContext | None) -> dict[str, Any]:
    """What ``websockets``' ``connect`` takes for ``url``: the context for a ``wss://``
    URL (none given: the system's trust store); nothing for ``ws://``."""
    if context is None or not url.lower().startswith("wss://"):
        return {}
    return {"ssl": context}


def tls_problem(exc: BaseException, url: str) -> str | None:
    """A sentence for a connection to ``url`` that failed for want of TLS on one side or
    for a certificate not trusted; None for any other failure."""
    secure = url.lower().startswith("wss://")
    if isinstance(exc, ssl.SSLCertVerificationError):
        why = getattr(exc, "verify_message", None) or exc.reason or str(exc)
        if getattr(exc, "verify_code", None) in _NAME_MISMATCH:
            return (
                f"the server's certificate does not carry the name in {url} ({why}): connect "
                "by a name it carries"
            )
        return (
            f"the server's certificate is not trusted ({why}): give the CA certificate that "
            "signed it with --cafile FILE, or add it to the system's trust store"
        )
    if secure and isinstance(exc, ssl.SSLError | ConnectionResetError):
        what = exc.reason if isinstance(exc, ssl.SSLError) else None
        return (
            f"the TLS handshake failed ({what or 'the server closed the connection'}): if the "
            "server does not serve TLS, its URL starts with ws://"
        )
    if not secure and isinstance(exc, InvalidMessage):
        return f"no websocket answer ({exc}): if the server serves TLS, its URL starts with wss://"
    return None
