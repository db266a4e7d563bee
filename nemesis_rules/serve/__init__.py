"""`nemesis serve`: games at tables over WebSocket, and a small web table as its reference client.

The protocol is in `protocol.py` (and docs/protocol.md), the tables and their saves in
`tables.py`, the server in `server.py`. Needs the `serve` extra (`websockets`).
"""
