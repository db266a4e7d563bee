"""`nemesis replay FILE`: re-run a saved game from its seed and check that it reproduces.

Exit 0 when every step and the final state match the save, 1 with the first differing step when
they do not, 2 when the file is not a save or was tampered with.
"""

from __future__ import annotations

import argparse
import sys

from nemesis_rules.api import Game, Ruleset
from nemesis_rules.cli import common
from nemesis_rules.cli.savefile import (
    Saved,
    check_modules,
    fingerprint_modules,
    read_save,
    state_hash,
    step_hash,
)
from nemesis_rules.dsl.diagnostics import RulesError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="re-run a saved game and confirm it reproduces")
    p.add_argument("file", metavar="FILE", help="a save written by `nemesis play` (or a game's to_json())")
    p.add_argument("--step", action="store_true", help="show each decision and what was chosen")
    p.add_argument("--modules", nargs="+", metavar="MODULE", default=None,
                   help="modules to replay with (default: those the save names)")
    p.add_argument("--lang", default=None, help="language of the --step output (default: the save's)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    saved = read_save(args.file)
    rules = _rules(args, saved)
    if saved.ruleset and saved.ruleset != rules.fingerprint:
        return _differs(f"the save was made with rules {saved.ruleset}; these rules are {rules.fingerprint}")
    return replay(rules, saved, show=args.step)


def _rules(args: argparse.Namespace, saved: Saved) -> Ruleset:
    if args.modules or saved.modules:
        if not args.modules:
            check_modules(args.file, saved)
        return common.load(args.modules or saved.modules, args.lang or saved.lang)
    guessed = fingerprint_modules(saved.ruleset)
    try:
        return common.load(guessed, args.lang or saved.lang)
    except RulesError as error:
        raise common.CliError(f"{common.one_line(error)}; the file names rules {saved.ruleset!r} but not "
                              "their folders: give them with --modules") from None


def replay(rules: Ruleset, saved: Saved, show: bool = False) -> int:
    game = Game.new(rules, saved.players, saved.seed, **saved.options)
    pause = show and sys.stdin.isatty()
    for i, move in enumerate(saved.moves, 1):
        problem = _apply(game, i, move, show)
        if problem is None and saved.steps is not None and step_hash(game) != saved.steps[i - 1]:
            problem = f"step {i}: the state after move {move} differs from the saved one"
        if problem:
            return _differs(problem)
        if pause:
            input("  (Enter for the next step) ")
    if state_hash(game, saved.final_form) != saved.final:
        return _differs(f"step {len(saved.moves)} (the end): the final state differs from the saved one")
    print(f"replay ok: {len(saved.moves)} moves reproduce the saved game ({_outcome(game)})")
    return common.EXIT_OK


def _apply(game: Game, i: int, move: int, show: bool) -> str | None:
    d = game.decision
    if d is None:
        return f"step {i}: the game is already over, but the save has more moves"
    if not 0 <= move < len(d.options):
        return f"step {i}: move {move} is not an option ({len(d.options)} options)"
    if show:
        print(f"{i:>5}. {game.rules.label(game.rules.program.player_ids[d.player])}: "
              f"{d.text or d.prompt or 'choose'} -> {d.options[move].label}")
    logged = len(game.state.log)
    try:
        game.apply(move)
    except RulesError as error:
        return f"step {i}: the rules failed: {common.one_line(error)}"
    if show:
        for entry in game.log[logged:]:
            print(f"         {entry['text']}")
    return None


def _outcome(game: Game) -> str:
    result = game.result
    if result is None:
        return "game not finished"
    winners = ", ".join(game.rules.label(game.rules.program.player_ids[s]) for s in result["winners"]) or "nobody"
    return f"{game.rules.label(result['reason'])}; winners: {winners}"


def _differs(text: str) -> int:
    print(f"replay differs: {text}")
    return common.EXIT_DIFFERS
