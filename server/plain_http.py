"""The server's answers to plain HTTP requests on its websocket port: ``/healthz``,
``/metrics`` (:mod:`server.metrics`), and the web client's page and assets
(:mod:`server.web`; 404 for any other path). Only GET and HEAD are answered; any other
method is 405 with ``Allow: GET, HEAD`` (the connection leaves out a HEAD's body). A
websocket handshake (a GET with ``Upgrade: websocket``) is not answered here: it goes on to
become a connection.
"""

from __future__ import annotations

from http import HTTPStatus

from websockets import http11
from websockets.server import ServerProtocol

from server import web
from server.metrics import CONTENT_TYPE, ServerMetrics

__all__ = ["respond"]


def respond(
    protocol: ServerProtocol,
    request: http11.Request,
    database_up: bool,
    metrics: ServerMetrics,
) -> http11.Response | None:
    """The answer to ``request``, or None for a websocket handshake. ``/healthz`` is 200
    while ``database_up``, else 503; ``/metrics`` is ``metrics`` in Prometheus' text
    format."""
    path = request.path.partition("?")[0]
    if request.method not in web.METHODS:
        response = protocol.reject(
            HTTPStatus.METHOD_NOT_ALLOWED,
            f"this server answers GET and HEAD requests only, not {request.method}\n",
        )
        response.headers["Allow"] = web.ALLOW
        return response
    if request.method == "GET" and "websocket" in request.headers.get("Upgrade", "").lower():
        return None
    if path == "/healthz":
        if database_up:
            return protocol.reject(HTTPStatus.OK, "ok\n")
        return protocol.reject(
            HTTPStatus.SERVICE_UNAVAILABLE,
            "the database is unreachable; games wait until it is back\n",
        )
    if path == "/metrics":
        response = protocol.reject(HTTPStatus.OK, metrics.text().decode())
        del response.headers["Content-Type"]
        response.headers["Content-Type"] = CONTENT_TYPE
        return response
    return _web(protocol, request.path)


def _web(protocol: ServerProtocol, path: str) -> http11.Response:
    """The web client's file ``path`` names, or a 404."""
    found = web.lookup(path)
    if found is None:
        response = protocol.reject(HTTPStatus.NOT_FOUND, "not found\n")
    else:
        response = protocol.reject(HTTPStatus.OK, "")
        response.body = found.body
        del response.headers["Content-Length"]
        response.headers["Content-Length"] = str(len(found.body))
        del response.headers["Content-Type"]
        response.headers["Content-Type"] = found.content_type
    for name, value in web.HEADERS.items():
        response.headers[name] = value
    return response
