"""`nemesis serve`: host tables over WebSocket, with the web table at http://HOST:PORT/."""

from __future__ import annotations

import argparse
import asyncio

from nemesis_rules.cli import common


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="host games over WebSocket (docs/protocol.md) with a web table")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)")
    p.add_argument("--port", type=int, default=8765, help="port (default: 8765; 0 picks a free one)")
    p.add_argument("--data", default="nemesis-tables", metavar="DIR",
                   help="folder of the tables' saves, resumed on start (default: ./nemesis-tables)")
    p.add_argument("--allow-module", action="append", default=[], metavar="FOLDER",
                   help="a module folder clients may name besides the ruleset ids (repeatable)")
    p.add_argument("--max-tables", type=int, metavar="N",
                   help="tables held at once; a create beyond is refused (default: 100)")
    p.add_argument("--idle-hours", type=float, metavar="H",
                   help="a table nobody joined or played for this long is dropped, its save too (default: 24)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        from nemesis_rules.serve import server, tables
    except ModuleNotFoundError as error:
        raise common.CliError(f"`nemesis serve` needs {error.name}: pip install 'nemesis-rules[serve]'") from None
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        common.err(f"warning: listening on {args.host}: seat tokens travel unencrypted (ws://); "
                   "put a TLS proxy in front for play across a network")
    max_tables = tables.MAX_TABLES if args.max_tables is None else args.max_tables
    idle = tables.IDLE_SECONDS if args.idle_hours is None else args.idle_hours * 3600
    if max_tables < 1 or not 0 < idle < float("inf"):
        raise common.CliError("--max-tables must be at least 1 and --idle-hours a number above 0")
    store = tables.Tables(args.data, args.allow_module, max_tables, idle)
    for problem in store.resume():
        common.err(f"not resumed: {problem}")
    try:
        asyncio.run(server.run(store, args.host, args.port, ready=lambda text: print(text, flush=True)))
    except KeyboardInterrupt:
        pass
    return common.EXIT_OK


