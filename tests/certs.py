"""Real certificates for TLS tests, made by ``trustme``: a test CA, a server certificate
it signed for ``localhost`` (not for 127.0.0.1), and another it signed for the same name."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import trustme
from cryptography.hazmat.primitives import serialization


@dataclass(frozen=True)
class Certs:
    ca: Path
    """The test CA's certificate (PEM): what a client given ``--cafile`` trusts."""
    cert: Path
    """The server's certificate, then its chain (PEM)."""
    key: Path
    """The server's private key (PEM, unencrypted)."""
    other: Path
    """Another certificate of the same CA for the same name, with its key in ``other_key``."""
    other_key: Path
    encrypted_key: Path
    """The server's key, encrypted with a password."""


def make_certs(folder: Path) -> Certs:
    """Write the test CA's certificates and keys into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    ca = trustme.CA()
    server = ca.issue_cert("localhost")
    other = ca.issue_cert("localhost")
    certs = Certs(
        ca=folder / "ca.pem",
        cert=folder / "server.pem",
        key=folder / "server.key",
        other=folder / "other.pem",
        other_key=folder / "other.key",
        encrypted_key=folder / "encrypted.key",
    )
    ca.cert_pem.write_to_path(str(certs.ca))
    server.private_key_pem.write_to_path(str(certs.key))
    for blob in server.cert_chain_pems:
        blob.write_to_path(str(certs.cert), append=True)
    other.private_key_pem.write_to_path(str(certs.other_key))
    other.cert_chain_pems[0].write_to_path(str(certs.other))
    key = serialization.load_pem_private_key(server.private_key_pem.bytes(), password=None)
    certs.encrypted_key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"secret"),
        )
    )
    return certs
