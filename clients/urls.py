"""Server URLs as people type them: whether one can name a Hexhaven server, and if not, a
sentence that says why and shows the form that works."""

from __future__ import annotations

URL_EXAMPLE = "ws://127.0.0.1:8765"
"""A server URL as commands show it in their messages (``hexhaven serve``'s default)."""


def _parses(url: str) -> bool:
    from websockets.exceptions import InvalidURI
    from websockets.uri import parse_uri

    if any(c.isspace() for c in url):
        return False  # websockets takes "ws://a b", but no host has a space
    try:
        parse_uri(url)
    except (InvalidURI, ValueError):
        return False
    return True


def server_url_problem(url: str) -> str | None:
    """Why ``url`` cannot name a server, as one sentence naming it and showing the form
    that works; None when it can (``ws://HOST:PORT`` or ``wss://HOST:PORT``)."""
    from urllib.parse import urlparse

    from websockets.exceptions import InvalidURI
    from websockets.uri import parse_uri

    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in ("ws", "wss"):
        example = f"{'wss' if sep and scheme.lower() == 'https' else 'ws'}://{rest if sep else url}"
        if not _parses(example):
            example = URL_EXAMPLE
        return f"{url!r} is not a server URL: it must start with ws:// or wss://, e.g. {example}"
    try:
        parse_uri(url)
    except InvalidURI as exc:
        why = "it names no host" if urlparse(url).hostname is None else exc.msg
    except ValueError:  # urllib's: a port that is not a number, or out of range
        why = "its port must be a number from 1 to 65535"
    else:
        return None
    return f"{url!r} is not a server URL: {why}; the form is {URL_EXAMPLE}"


def page_url(url: str, fragment: str = "") -> str:
    """The web client's address on the server at ``url`` (the page is served on the
    websocket's own port and path): ``ws://h:8765`` -> ``http://h:8765/``, ``wss://h/a/`` ->
    ``https://h/a/``; with ``fragment`` after a ``#`` (``invite=K7QMX3PD9H``)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    scheme = "https" if parts.scheme.lower() == "wss" else "http"
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    return urlunsplit((scheme, parts.netloc, path, "", fragment))
