"""The WebSocket server: one connection is one client, joined to at most one seat or watching.

Every message is handled to the end before the next (asyncio, no await in between), so a
choice is checked and applied atomically; then each client at the table gets its own update.
Plain HTTP requests to the same port get the web table's static files.

No client can hold up the others: each connection may send RATE messages a second (BURST at
once; more are answered `rate_limited`, and STRIKES of those without a pause close it), yields to the
other connections after every message, and is sent its messages through its own bounded outbox
(a client that lets OUTBOX messages pile up unread is closed instead of being waited for).
"""

from __future__ import annotations

import asyncio
import json
import mimetypes
import re
import time
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from nemesis_rules.cli import render
from nemesis_rules.dsl.describe import phrases
from nemesis_rules.dsl.diagnostics import IllegalMoveError, RulesError
from nemesis_rules.serve import board
from nemesis_rules.serve.patches import make_patch
from nemesis_rules.serve.protocol import PROTOCOL, ProtocolError, check_client
from nemesis_rules.serve.tables import Table, Tables
from nemesis_rules.unavailable import unavailable_actions
from nemesis_rules.version import __version__

STATIC = Path(__file__).parent / "static"
WS_PATH = "/ws"
WORDS_PATH = re.compile(r"/words/([a-z]{2,3})\.json")
MAX_MESSAGE = 64 * 1024
RATE = 20.0  # messages a second one connection may send, on average ...
BURST = 40  # ... and at once
STRIKES = 100  # rate-limited messages in a row that close the connection
OUTBOX = 128  # messages waiting for a client that does not read, before it is closed
SWEEP = 60.0  # seconds between two looks for idle tables
CLOSE_TIMEOUT = 2.0  # seconds a closing handshake may take (an abuser's reply waits behind its unread frames)


class RateLimit:
    """A token bucket per connection: `take()` is True while it keeps to RATE messages a second
    (BURST at once). `strikes` counts the messages refused since it last let its bucket fill up
    (BURST / RATE seconds of quiet), so a client that keeps sending is closed however it paces."""

    def __init__(self, rate: float = RATE, burst: int = BURST) -> None:
        self.rate, self.burst, self.tokens, self.at = rate, burst, float(burst), time.monotonic()
        self.strikes = 0

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= self.burst:
            self.strikes = 0
        if self.tokens < 1:
            self.strikes += 1
            return False
        self.tokens -= 1
        return True


@dataclass
class Client:
    """A joined or watching connection: its table and seat, and what it was last sent. A client
    that asked for patches gets each update after the first as the JSON Patch from `last` to it;
    `seq` numbers its updates, so a client that misses one asks for a full view again."""
    table: str
    seat: int | None
    patches: bool = False
    seq: int = 0
    last: dict[str, Any] | None = None


class Server:
    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.clients: dict[ServerConnection, Client] = {}
        self.outboxes: dict[ServerConnection, asyncio.Queue[str]] = {}

    async def handle(self, ws: ServerConnection) -> None:
        self.outboxes[ws] = outbox = asyncio.Queue(OUTBOX)
        writer = asyncio.create_task(self.write(ws, outbox))
        self.send(ws, {"type": "welcome", "protocol": PROTOCOL, "server": f"nemesis-rules {__version__}"})
        limit = RateLimit()
        try:
            async for raw in ws:
                if limit.take():
                    await self.on_message(ws, raw)
                elif limit.strikes >= STRIKES:
                    await ws.close(1008, "too many messages")
                    break
                else:
                    self.refuse(ws, ProtocolError("rate_limited", f"at most {RATE:g} messages a second"))
                await asyncio.sleep(0)  # the other connections' messages go between this one's
        except ConnectionClosed:
            pass
        finally:
            self.clients.pop(ws, None)
            self.outboxes.pop(ws, None)
            writer.cancel()

    async def write(self, ws: ServerConnection, outbox: asyncio.Queue[str]) -> None:
        """Send `ws` its messages in order, however slowly it reads, while the others play on."""
        try:
            while True:
                await ws.send(await outbox.get())
        except ConnectionClosed:
            pass

    async def on_message(self, ws: ServerConnection, raw: str | bytes) -> None:
        try:
            try:
                message = json.loads(raw)
            except (ValueError, UnicodeDecodeError, RecursionError):
                raise ProtocolError("bad_json", "a message is one JSON object") from None
            await self.dispatch(ws, check_client(message))
        except ProtocolError as err:
            self.refuse(ws, err)

    def refuse(self, ws: ServerConnection, err: ProtocolError) -> None:
        self.send(ws, {"type": "error", "protocol": PROTOCOL, "code": err.code, "message": str(err)})

    async def dispatch(self, ws: ServerConnection, m: dict[str, Any]) -> None:
        kind = m["type"]
        if kind == "create":
            # in a thread: loading a ruleset the first time takes seconds, other tables play on
            table = await asyncio.to_thread(self.tables.create, m["ruleset"], m["seats"], m.get("seed", 0),
                                            m.get("options", {}), m.get("lang", "en"))
            seats = [{"seat": s, "kind": k, **({"token": table.tokens[s]} if table.tokens[s] else {})}
                     for s, k in enumerate(table.seats)]
            self.send(ws, {"type": "created", "protocol": PROTOCOL, "table": table.id, "seats": seats})
        elif kind in ("join", "watch"):
            table = self.tables.get(m["table"])
            seat = None
            if kind == "join":
                seat = table.seat_of(m["token"])
                if seat is None:
                    raise ProtocolError("bad_token", "this token opens no seat at this table")
            self.clients[ws] = Client(table.id, seat, m.get("patches", False))
            table.touch()
            self.send(ws, {"type": "joined", "protocol": PROTOCOL, "table": table.id, "seat": seat})
            self.send_update(ws, table)
        elif kind == "full":
            if ws not in self.clients:
                raise ProtocolError("not_joined", "join or watch a table before asking for its view")
            self.clients[ws].last = None
            self.send_update(ws, self.tables.get(self.clients[ws].table))
        else:
            await self.choose(ws, m)

    async def choose(self, ws: ServerConnection, m: dict[str, Any]) -> None:
        client = self.clients.get(ws)
        if client is None or client.seat is None:
            raise ProtocolError("not_joined", "join a seat with its token before choosing")
        table, seat = self.tables.get(client.table), client.seat
        try:
            table.choose(seat, m["decision"], m["option"])
        except (IllegalMoveError, RulesError) as err:
            raise ProtocolError("illegal_option", str(err).splitlines()[0]) from None
        self.tables.save(table)
        for other, c in list(self.clients.items()):
            if c.table == table.id:
                self.send_update(other, table)

    def send_update(self, ws: ServerConnection, table: Table) -> None:
        """Send `ws` the table as its seat sees it now: a full `update`, or a `patch` against the
        last one when it asked for patches and has had a full view."""
        client = self.clients[ws]
        client.seq += 1
        now = update(table, client.seat)
        self.send(ws, update_message(table, client.seq, client.last if client.patches else None, now))
        client.last = now if client.patches else None

    def send(self, ws: ServerConnection, message: dict[str, Any]) -> None:
        """Queue `message` for `ws`, never waiting: a client whose outbox is full is closed."""
        outbox = self.outboxes.get(ws)
        if outbox is None:
            return
        try:
            outbox.put_nowait(json.dumps(message, ensure_ascii=False))
        except asyncio.QueueFull:
            self.clients.pop(ws, None)
            self.outboxes.pop(ws, None)
            ws.transport.abort()  # it reads nothing, so a closing handshake would wait on it too

    def http(self, connection: ServerConnection, request: Request) -> Response | None:
        """Static files for a plain HTTP request; None lets a WebSocket upgrade on /ws go on."""
        path = request.path.split("?", 1)[0]
        if path == WS_PATH:
            return None
        if words := WORDS_PATH.fullmatch(path):  # the page's own words, before it joins a table
            return _respond(json.dumps(phrases(words[1]).page, ensure_ascii=False).encode(), "application/json")
        name = "index.html" if path == "/" else path.lstrip("/")
        file = STATIC / name
        if "/" in name or not file.is_file():
            return connection.respond(HTTPStatus.NOT_FOUND, "not found\n")
        return _respond(file.read_bytes(), mimetypes.guess_type(name)[0] or "application/octet-stream")


def _respond(body: bytes, kind: str) -> Response:
    headers = Headers([("Content-Type", f"{kind}; charset=utf-8"), ("Content-Length", str(len(body))),
                       ("Cache-Control", "no-store")])
    return Response(200, "OK", headers, body)


def update(table: Table, seat: int | None) -> dict[str, Any]:
    """What `seat` (None: a spectator) gets after a change (an `update` message without its type,
    protocol and seq): its view, its decision if it is its turn (who is to choose otherwise), the
    screen the terminal would draw, and the result."""
    game, rules = table.game, table.rules
    seen = game.view(seat)
    d = game.decision
    decision = None
    if d is not None:
        decision = {"id": table.decision_id, "player": d.player, "prompt": render.question(rules, d)}
        if d.player == seat:
            decision["options"] = board.options(rules, seen, d)
            decision["unavailable"] = unavailable_actions(game, seat)
    result = game.result if game.over else None
    if result is not None:
        winners = ", ".join(rules.label(rules.program.player_ids[s]) for s in result["winners"])
        result = {"reason": str(result["reason"]), "winners": list(result["winners"]),
                  "text": render.words(rules, "game_over", reason=rules.label(result["reason"]),
                                       winners=winners or render.words(rules, "nobody"))}
    document = {"table": table.id, "seat": seat, "view": seen, "decision": decision,
                "screen": render.screen_data(rules, seen), "result": result,
                "board": board.board_data(rules, seen)}
    return json.loads(json.dumps(document))  # as the client reads it: tuples are lists, keys are strings


def update_message(table: Table, seq: int, last: dict[str, Any] | None, now: dict[str, Any]) -> dict[str, Any]:
    """The message numbered `seq` that brings a client from the update `last` to `now`: a `patch`
    (serve/patches.py), or the whole `update` when it has none (its first, or it wants no patches)."""
    if last is not None:
        return {"type": "patch", "protocol": PROTOCOL, "table": table.id, "seq": seq, "ops": make_patch(last, now)}
    return {"type": "update", "protocol": PROTOCOL, "seq": seq, **now}


async def run(tables: Tables, host: str, port: int, ready=print) -> None:
    """Serve until cancelled; `ready(text)` is told the address once it listens."""
    server = Server(tables)
    async with serve(server.handle, host, port, process_request=server.http, max_size=MAX_MESSAGE,
                     close_timeout=CLOSE_TIMEOUT) as ws_server:
        bound = ws_server.sockets[0].getsockname()
        ready(f"nemesis serve: http://{bound[0]}:{bound[1]}/ (WebSocket {WS_PATH}), "
              f"{len(tables.tables)} table(s) in {tables.data}")
        while True:
            await asyncio.sleep(SWEEP)
            tables.expire()
