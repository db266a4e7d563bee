"""The `nemesis` command: play in the terminal, simulate many games, replay, browse the cards.

Exit status: 0 done, 1 a replay that does not reproduce, 2 bad input (unknown module, bad seed,
corrupt or tampered save, unknown option) or an internal error. It never prints a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from nemesis_rules.cli import (
    bench,
    catalog,
    common,
    compare,
    fmt,
    play,
    replay,
    serve_cmd,
    simulate,
)
from nemesis_rules.dsl.diagnostics import RulesError
from nemesis_rules.version import __version__

PROG = "nemesis"
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # as a shell reports a command stopped by SIGPIPE


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and a `CliError`, not usage and an exit."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise common.CliError(f"{message} (see `{self.prog} --help`)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Play, simulate, replay and browse nemesis-rules games.",
                     epilog="Exit status: 0 done, 1 a replay differs, 2 bad input.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    simulate.add_parser(sub)
    compare.add_parser(sub)
    play.add_parser(sub)
    replay.add_parser(sub)
    catalog.add_parsers(sub)
    bench.add_parser(sub)
    fmt.add_parser(sub)
    serve_cmd.add_parser(sub)
    sub.add_parser("scenario", help="run scenario files and report each expectation (see `nemesis scenario --help`)",
                   add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run `nemesis` with `argv` (default: `sys.argv[1:]`) and return the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(argv)
    except SystemExit as stop:  # --help and --version
        return stop.code if isinstance(stop.code, int) else common.EXIT_USAGE
    except common.CliError as error:
        common.err(str(error))
    except RulesError as error:
        common.err(common.one_line(error))
    except BrokenPipeError:  # the reader left (`nemesis simulate | head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
        return EXIT_BROKEN_PIPE
    except OSError as error:
        common.err(_os_text(error))
    except KeyboardInterrupt:
        common.err("interrupted")
        return EXIT_INTERRUPTED
    except Exception as error:  # the last line of defence: a crash is a line, not a traceback
        common.err(f"internal error: {type(error).__name__}: {error} (please report it)")
    return common.EXIT_USAGE


def _dispatch(argv: list[str]) -> int:
    if argv and argv[0] == "scenario":
        return _scenario(argv[1:])
    args = build_parser().parse_args(argv)
    if args.command is None:
        build_parser().print_help(sys.stderr)
        return common.EXIT_USAGE
    return args.run(args)


def _scenario(argv: list[str]) -> int:
    try:
        module = importlib.import_module("nemesis_rules.cli.scenario_cmd")
    except ModuleNotFoundError as error:
        if error.name != "nemesis_rules.cli.scenario_cmd":
            raise
        raise common.CliError("`nemesis scenario` is not available yet in this version") from None
    return module.main(argv)


def _os_text(error: OSError) -> str:
    if error.filename is not None:
        return f"{error.filename}: {error.strerror or error}"
    return str(error)


if __name__ == "__main__":
    sys.exit(main())
