"""The authoritative asyncio websocket server (lobby, games, seats, timers, persistence).

Arrives with the protocol and server issue.
"""
