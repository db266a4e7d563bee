"""Tables: a game, its seats (a human with a secret token, or a bot) and its save on disk.

A table is saved after every change as `<data>/<id>.json` (written whole, then renamed over the
old file), so a server that stops and starts again takes every table up where it was.
"""

from __future__ import annotations

import json
import os
import re
import secrets
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


class Table:
    def __init__(self, table_id: str, modules: list[str], lang: str, seats: list[str],
                 tokens: list[str | None], game: Game) -> None:
        self.id, self.modules, self.lang, self.seats, self.tokens = table_id, modules, lang, seats, tokens
        self.game = game
        self.bots = {s: make_bot(kind, bot_seed(game.state.seed, s)) for s, kind in enumerate(seats) if kind != HUMAN}

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
        self.play_bots()

    def play_bots(self) -> None:
        while not self.game.over and self.game.decision.player in self.bots:
            play_turn(self.game, self.bots)

    def to_dict(self) -> dict[str, Any]:
        return {"format": SAVE_FORMAT, "id": self.id, "modules": self.modules, "lang": self.lang,
                "seats": self.seats, "tokens": self.tokens, "game": self.game.to_json()}


class Tables:
    """Every table of a server, saved under `data`. Module folders a client may name must be
    listed in `allowed` (ids under rulesets/ are always allowed)."""

    def __init__(self, data: Path, allowed: list[str] = ()) -> None:
        self.data = Path(data)
        self.data.mkdir(parents=True, exist_ok=True)
        self.allowed = {str(Path(a).resolve()) for a in allowed}
        self.tables: dict[str, Table] = {}

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
            except (OSError, ValueError, KeyError, TypeError, RulesError, ProtocolError) as err:
                problems.append(f"{path.name}: {err}")
                continue
            self.tables[table.id] = table
        return problems

    def create(self, modules: list[str], seats: list[str], seed: int, options: dict[str, Any],
               lang: str = "en") -> Table:
        """A new table, its bots played up to the first human decision, saved.

        Raises:
            ProtocolError: a module that is not allowed, or rules, options or seats that do
                not make a game.
        """
        rules = self._rules(modules, lang)
        try:
            game = Game.new(rules, len(seats), seed, **options)
        except RulesError as err:
            raise ProtocolError("bad_ruleset", str(err).splitlines()[0]) from None
        tokens = [secrets.token_urlsafe(16) if kind == HUMAN else None for kind in seats]
        table = Table(secrets.token_hex(4), modules, lang, list(seats), tokens, game)
        table.play_bots()
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
        part.write_text(json.dumps(table.to_dict()), encoding="utf-8")
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
