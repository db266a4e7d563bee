"""`nemesis play`: hot-seat play in the terminal, bots in the seats no human takes.

Seats 0..K-1 are human. At a human's decision the screen shows that seat's view only, then a
numbered menu; the player types a number, `log` (the whole history), `save FILE`, `help` or `quit`. It reads standard input
line by line, so a script can drive it as well as a person.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape

from nemesis_rules.api import Decision, Game
from nemesis_rules.bots import BOT_KINDS, Bot, bot_seed, make_bot, play_turn
from nemesis_rules.cli import common, render
from nemesis_rules.cli.savefile import (
    Saved,
    check_fingerprint,
    check_modules,
    finished_game,
    read_save,
    restore,
    write_save,
)
from nemesis_rules.unavailable import unavailable_actions

QUIT = "quit"
TRANSCRIPT_WIDTH = 160  # columns when the output is not a terminal (a file, a test, a pipe)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="play in the terminal (hot seat), bots in the other seats")
    common.add_module_args(p)
    p.add_argument("--players", type=int, default=None, help="players (default: 2, or the ruleset's range)")
    p.add_argument("--humans", type=int, default=None, help="human seats, the first ones (default: 1)")
    p.add_argument("--seed", type=int, default=None, help="the game's seed (default: 0)")
    p.add_argument("--bots", choices=BOT_KINDS, default=None,
                   help="bot for the other seats (default: heuristic, or the save's)")
    p.add_argument("--load", default=None, metavar="FILE", help="resume a game saved with `save FILE`")
    p.add_argument("--after", default=None, metavar="SAVE",
                   help="start from the final state of a finished saved game (with a --mode of the rules "
                        "that continues one)")
    common.add_option_arg(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    game, modules, saved = _start(args)
    humans = _first(args.humans, saved.humans if saved else None, 1)
    if not 0 <= humans <= game.state.players:
        raise common.CliError(f"--humans must be from 0 to {game.state.players}, got {humans}")
    kind = _first(args.bots, saved.bots if saved and saved.bots in BOT_KINDS else None, "heuristic")
    bots = {s: make_bot(kind, bot_seed(game.state.seed, s))
            for s in range(humans, game.state.players)}
    console = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else TRANSCRIPT_WIDTH)
    session = Session(game, modules, humans, bots, kind, console, sys.stdin)
    return session.run()


def _first(*values: Any) -> Any:
    return next(v for v in values if v is not None)


def _start(args: argparse.Namespace) -> tuple[Game, list[str], Saved | None]:
    if args.load is None:
        modules = common.module_list(args.modules)
        rules = common.load(modules, args.lang)
        options = common.parse_options(rules, args.option)
        seed = 0 if args.seed is None else args.seed
        after = finished_game(args.after, modules, lambda m: common.load(m, args.lang)) if args.after else None
        return Game.new(rules, common.check_players(rules, args.players), seed, after=after, **options), modules, None
    if args.after is not None:
        raise common.CliError("--load resumes a saved game; --after starts a new one: give one of them")
    if args.players is not None or args.seed is not None or args.option:
        raise common.CliError("--load resumes a saved game: --players, --seed and --option come from the save")
    saved = read_save(args.load)
    if not args.modules:
        check_modules(args.load, saved)
    modules = common.module_list(args.modules) if args.modules else saved.modules or []
    if not modules:
        raise common.CliError(f"{args.load} names no modules: give them with --modules")
    rules = common.load(modules, args.lang)
    check_fingerprint(args.load, saved, rules)
    return restore(rules, saved), modules, saved


class Session:
    """One hot-seat session: asks humans, lets bots play, until the game ends or a human quits."""

    def __init__(self, game: Game, modules: list[str], humans: int, bots: dict[int, Bot], bot_kind: str,
                 console: Console, stdin: TextIO) -> None:
        self.game, self.rules = game, game.rules
        self.modules, self.humans, self.bots, self.bot_kind = modules, humans, bots, bot_kind
        self.console, self.stdin = console, stdin
        self.last_seat: int | None = None

    def run(self) -> int:
        while not self.game.over:
            d = self.game.decision
            assert d is not None
            if d.player in self.bots:
                play_turn(self.game, self.bots)
                continue
            if self._human_turn(d) == QUIT:
                self.console.print(self._words("left"))
                return common.EXIT_OK
        self._finish()
        return common.EXIT_OK

    def _human_turn(self, d: Decision) -> str | None:
        self._hand_over(d.player)
        view = self.game.view(d.player)
        render.view_screen(self.console, self.rules, view)
        render.menu(self.console, self.rules, d, view, unavailable_actions(self.game, d.player))
        return self._ask(d)

    def _hand_over(self, seat: int) -> None:
        if self.humans > 1 and seat != self.last_seat:
            who = self.rules.label(self.rules.program.player_ids[seat])
            if self.last_seat is not None and self._interactive():
                self.console.clear()
            self.console.rule(escape(self._words("your_turn", who=who)))
            if self._interactive():
                self.console.input(self._words("press_enter"))
        self.last_seat = seat

    def _words(self, key: str, **values: object) -> str:
        return render.words(self.rules, key, **values)

    def _interactive(self) -> bool:
        return self.stdin.isatty() and self.console.is_terminal

    def _ask(self, d: Decision) -> str | None:
        while True:
            self.console.print("> ", end="")
            line = self.stdin.readline()
            if not line:
                self.console.print("\n" + self._words("end_of_input"))
                return QUIT
            if not self._interactive():
                self.console.print(line.strip(), markup=False, highlight=False)  # a transcript shows the input
            reply = self._handle(d, line.strip())
            if reply != "again":
                return reply

    def _handle(self, d: Decision, text: str) -> str | None:
        word, _, rest = text.partition(" ")
        if word.lower() in ("quit", "q", "exit"):
            return QUIT
        if word.lower() == "log":
            render.whole_log(self.console, self.rules, self.game.view(d.player))
            return "again"
        if word.lower() == "save":
            self._save(rest.strip())
            return "again"
        if text.isdigit() and 1 <= int(text) <= len(d.options):
            self.game.apply(int(text) - 1)
            return None
        if word.lower() in ("help", "?", "h"):
            self.console.print(self._words("help"))
        else:
            self.console.print(self._words("not_an_option", n=len(d.options)))
        return "again"

    def _save(self, path: str) -> None:
        if not path:
            self.console.print(self._words("say_where"))
            return
        try:
            write_save(path, self.game, self.modules, self.humans, self.bot_kind)
        except OSError as error:
            self.console.print(self._words("could_not_save", path=path, error=error.strerror or error), markup=False)
            return
        self.console.print(self._words("saved", path=path), markup=False)

    def _finish(self) -> None:
        render.view_screen(self.console, self.rules, self.game.view(None))  # the public table
        result = self.game.result
        assert result is not None
        render.result_screen(self.console, self.rules, result)
