"""What every `nemesis` subcommand shares: loading modules, reading options, failing cleanly."""

from __future__ import annotations

import argparse
import contextlib
import gc
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from nemesis_rules.api import Ruleset, load_ruleset
from nemesis_rules.dsl.diagnostics import Diagnostic, RulesError

DEFAULT_MODULES = ("base",)
EXIT_OK, EXIT_DIFFERS, EXIT_USAGE = 0, 1, 2


class CliError(Exception):
    """Bad input the command reports in one line on stderr, exiting with status 2."""


def one_line(error: BaseException) -> str:
    """The first line of an error's text, with a count of the lines left out."""
    if isinstance(error, RulesError) and error.diagnostics:
        lines = [_diagnostic_text(d) for d in error.diagnostics]
    else:
        lines = [line for line in str(error).splitlines() if line.strip()] or [type(error).__name__]
    more = len(lines) - 1
    return lines[0] + (f" (and {more} more; `nemesis-lint` lists them all)" if more else "")


def _diagnostic_text(d: Diagnostic) -> str:
    """A diagnostic in one line; without a place when it has none (an API error)."""
    text = d.concise() if d.span.file not in ("", "<string>") else d.message
    return text + (f" ({d.help})" if d.help else "")


def err(text: str) -> None:
    print(f"nemesis: {text}", file=sys.stderr)


def add_module_args(parser: argparse.ArgumentParser, lang: bool = True) -> None:
    parser.add_argument("--modules", nargs="+", metavar="MODULE", default=None,
                        help="module ids under rulesets/ or folder paths, comma or space separated "
                             f"(default: {','.join(DEFAULT_MODULES)})")
    if lang:
        parser.add_argument("--lang", default="en", help="language of names and messages (default: en)")


def add_option_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option (repeatable), e.g. --option length=short")
    parser.add_argument("--mode", action=_AsOption, metavar="MODE",
                        help="short for --option mode=MODE, for rulesets with a `mode` option")


class _AsOption(argparse.Action):
    """`--mode X` is `--option mode=X`."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        namespace.option = [*(namespace.option or []), f"{self.dest}={values}"]


def module_list(values: Sequence[str] | None) -> list[str]:
    """`--modules a,b c` as ['a', 'b', 'c']."""
    names = [part.strip() for v in (values or DEFAULT_MODULES) for part in v.split(",")]
    names = [n for n in names if n]
    if not names:
        raise CliError("--modules needs at least one module id or folder")
    return names


def load(values: Sequence[str] | None, lang: str = "en") -> Ruleset:
    return load_ruleset(*module_list(values), lang=lang)


def set_aside_what_lives() -> None:
    """`rules_kept_aside` for the rest of the process (a worker that only plays games)."""
    gc.collect()
    gc.freeze()


@contextlib.contextmanager
def rules_kept_aside() -> Iterator[None]:
    """For a command that plays many games with rules it has loaded: what is alive now (the
    compiled rules above all, hundreds of thousands of objects) is kept out of the cyclic garbage
    collector's passes (`gc.freeze`) until the block ends. Else a full pass walks them all every
    few games, about a tenth of a base game's time. Freed objects are still freed at once."""
    set_aside_what_lives()
    try:
        yield
    finally:
        gc.unfreeze()


def parse_options(rules: Ruleset, pairs: Sequence[str]) -> dict[str, Any]:
    """`NAME=VALUE` pairs as game options, each value matched to one the option declares."""
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.strip():
            raise CliError(f"--option takes NAME=VALUE, got {pair!r}")
        options[name.strip()] = _option_value(rules, name.strip(), text.strip())
    return options


def _option_value(rules: Ruleset, name: str, text: str) -> Any:
    spec = rules.options.get(name)
    if spec is None:
        return text  # Game.new names the unknown option with a did-you-mean
    for value in spec.values:
        if str(value).lower() == text.lower():
            return value
    raise CliError(f"option `{name}` takes one of {', '.join(str(v) for v in spec.values)}, got {text!r}")


def check_players(rules: Ruleset, players: int | None) -> int:
    """The player count given, or the ruleset's smallest that still makes a game of several."""
    if players is None:
        return max(rules.players.min, min(2, rules.players.max))
    lo, hi = rules.players.min, rules.players.max
    if not lo <= players <= hi:
        raise CliError(f"--players must be from {lo} to {hi} for {'+'.join(rules.modules)}, got {players}")
    return players

