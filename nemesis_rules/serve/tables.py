"""Tables: a game, its seats (a human with a secret token, or a bot) and its save on disk.

A table is saved after every change as `<data>/<id>.json` (written whole, then renamed over the
old file), so a server that stops and starts again takes every table up where it was. A save
holds every seat's token, so the folder is its owner's only (0700) and each file too (0600).
A server holds at most MAX_TABLES tables; one nobody has played or joined for IDLE_SECONDS is
dropped, its file with it.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import stat
import threading
import time
from pathlib import Path
from typing import Any

from nemesis_rules.api import Game, Ruleset
from nemesis_rules.bots import bot_seed, make_bot, play_turn
from nemesis_rules.dsl.diagnostics import RulesError
from nemesis_rules.openspiel import cached_rules
from nemesis_rules.paths import rulesets_dir
from nemesis_rules.serve.protocol import ProtocolError

HUMAN = "human"
SAVE_FORMAT = 1
MAX_TABLES = 100  # tables one server holds at once
IDLE_SECONDS = 24 * 3600  # a table nobody touched this long is dropped
FOLDER_MODE, FILE_MODE = 0o700, 0o600


class Table:
    def __init__(self, table_id: str, modules: list[str], lang: str, seats: list[str],
                 tokens: list[str | None], game: Game) -> None:
        self.id, self.modules, self.lang, self.seats, self.tokens = table_id, modules, lang, seats, tokens
        self.game = game
        self.bots = {s: make_bot(kind, bot_seed(game.state.seed, s)) for s, kind in enumerate(seats) if kind != HUMAN}
        self.touched = time.time()

    def touch(self) -> None:
        """Someone joined, watched or played: the table is not idle."""
        self.touched = time.time()

    @property
    def rules(self) -> Ruleset:
        return self.game.rules

    @property
    def decision_id(self) -> int:
        """The number of the current decision: the moves taken so far (a stale choice names an
        older one)."""
        return len(self.game.state.moves)

    def seat_of(self, token: str) -> int | None:
        """The seat whose secret `token` is (compared in constant time), else None."""
        found = None
        for seat, secret in enumerate(self.tokens):
            if secret is not None and secrets.compare_digest(secret.encode(), token.encode()):
                found = seat
        return found

    def choose(self, seat: int, decision: int, option: int) -> None:
        """`seat` takes `option` of decision number `decision`, then the bots play on.

        Raises:
            ProtocolError: the game is over, it is not this seat's decision, the decision is
                not the current one, or there is no such option; the game is unchanged.
        """
        d = self.game.decision
        if d is None:
            raise ProtocolError("game_over", "the game is over")
        if d.player != seat:
            raise ProtocolError("not_your_decision", f"the current decision is seat {d.player}'s, not yours")
        if decision != self.decision_id:
            raise ProtocolError("stale_decision", f"decision {decision} is not the current one ({self.decision_id})")
        if not 0 <= option < len(d.options):
            raise ProtocolError("illegal_option", f"choose an option from 0 to {len(d.options) - 1}")
        self.game.apply(option)
        self.touch()
        self.play_bots()

    def play_bots(self) -> None:
        while not self.game.over and self.game.decision.player in self.bots:
            play_turn(self.game, self.bots)

    def to_dict(self) -> dict[str, Any]:
        return {"format": SAVE_FORMAT, "id": self.id, "modules": self.modules, "lang": self.lang,
                "seats": self.seats, "tokens": self.tokens, "game": self.game.to_json()}


class Tables:
    """Every table of a server, saved under `data` (made 0700). Module folders a client may name
    must be listed in `allowed` (ids under rulesets/ are always allowed). At most `max_tables`
    at once; `expire()` drops those idle for `idle_seconds`."""

    def __init__(self, data: Path, allowed: list[str] = (), max_tables: int = MAX_TABLES,
                 idle_seconds: float = IDLE_SECONDS) -> None:
        self.data = Path(data)
        self.data.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
        if stat.S_IMODE(self.data.stat().st_mode) & 0o077:  # a folder made before, or by someone else
            os.chmod(self.data, FOLDER_MODE)
        self.allowed = {str(Path(a).resolve()) for a in allowed}
        self.max_tables, self.idle_seconds = max_tables, idle_seconds
        self.tables: dict[str, Table] = {}
        self.lock = threading.Lock()  # create() runs in a thread beside the server's sweep

    def resume(self) -> list[str]:
        """Load every saved table; returns the ids (a save that no longer loads is skipped with
        its reason)."""
        problems = []
        for path in sorted(self.data.glob("*.json")):
            try:
                saved = json.loads(path.read_text(encoding="utf-8"))
                rules = self._rules(saved["modules"], saved["lang"])
                table = Table(saved["id"], saved["modules"], saved["lang"], saved["seats"], saved["tokens"],
                              Game.from_json(rules, saved["game"]))
                table.touched = path.stat().st_mtime
                os.chmod(path, FILE_MODE)  # a save written before files were private
            except (OSError, ValueError, KeyError, TypeError, RulesError, ProtocolError) as err:
                problems.append(f"{path.name}: {err}")
                continue
            self.tables[table.id] = table
        self.expire()
        return problems

    def expire(self, now: float | None = None) -> list[str]:
        """Drop every table idle for `idle_seconds` (its save too); returns their ids."""
        now = time.time() if now is None else now
        with self.lock:
            idle = [t.id for t in self.tables.values() if now - t.touched >= self.idle_seconds]
            for table_id in idle:
                del self.tables[table_id]
                (self.data / f"{table_id}.json").unlink(missing_ok=True)
        return idle

    def _check_room(self) -> None:
        if len(self.tables) >= self.max_tables:
            raise ProtocolError("too_many_tables", f"this server holds {self.max_tables} tables, its most; "
                                                   "try again when one has been idle for a while")

    def create(self, modules: list[str], seats: list[str], seed: int, options: dict[str, Any],
               lang: str = "en") -> Table:
        """A new table, its bots played up to the first human decision, saved.

        Raises:
            ProtocolError: the server holds MAX_TABLES tables; a module that is not allowed; an
                option the rules do not declare; or rules, options or seats that do not make a game.
        """
        self.expire()
        self._check_room()
        rules = self._rules(modules, lang)
        unknown = sorted(set(options) - set(rules.options))
        if unknown:  # only declared options reach Game.new: never its own parameters (seed, players)
            raise ProtocolError("bad_option", f"no game option {unknown[0][:64]!r} in these rules "
                                              f"(options: {', '.join(rules.options) or 'none'})")
        try:
            game = Game.new(rules, len(seats), seed, **options)
        except RulesError as err:
            raise ProtocolError("bad_ruleset", str(err).splitlines()[0]) from None
        tokens = [secrets.token_urlsafe(16) if kind == HUMAN else None for kind in seats]
        table = Table(secrets.token_hex(4), modules, lang, list(seats), tokens, game)
        table.play_bots()
        with self.lock:
            self._check_room()  # another create may have filled the last place meanwhile
            self.tables[table.id] = table
        self.save(table)
        return table

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise ProtocolError("unknown_table", f"no table {table_id!r}")
        return table

    def save(self, table: Table) -> None:
        path = self.data / f"{table.id}.json"
        part = path.with_suffix(".part")
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        os.fchmod(fd, FILE_MODE)  # a .part left over from before keeps its mode through O_CREAT
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(table.to_dict()))
        os.replace(part, path)

    def _rules(self, modules: list[str], lang: str) -> Ruleset:
        for m in modules:
            is_id = re.fullmatch(r"[a-z0-9_]+", m) is not None and (rulesets_dir() / m / "module.yaml").is_file()
            if not is_id and str(Path(m).resolve()) not in self.allowed:
                raise ProtocolError("bad_ruleset", f"module {m!r} is not a ruleset id here, nor a folder "
                                                   "the server allows (--allow-module)")
        try:
            return cached_rules(tuple(modules), lang)
        except RulesError as err:
            raise ProtocolError("bad_ruleset", str(err).splitlines()[0]) from None
