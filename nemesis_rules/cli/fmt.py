"""`nemesis fmt`: format `.nem` files in place, or `--check` / `--diff` them (CI, pre-commit).

Exit status: 0 nothing to change (or files formatted), 1 `--check`/`--diff` found files to
reformat, 2 a file with syntax errors or an unreadable path (it is left as it is).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nemesis_rules import fmt
from nemesis_rules.cli import common
from nemesis_rules.lint.fixes import unified_diff
from nemesis_rules.paths import rulesets_dir


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fmt", help="format .nem scripts (the AST printer; comments and layout kept)")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                   help="files or folders (default: the rulesets folder)")
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    p.add_argument("--diff", action="store_true", help="print the changes as a diff instead of writing them")
    p.set_defaults(run=run)


def nem_files(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for p in paths:
        if p.is_dir():
            found += sorted(f for f in p.rglob("*.nem") if not any(part.startswith(".") for part in f.parts))
        elif p.is_file():
            found.append(p)
        else:
            raise common.CliError(f"{p}: no such file or folder")
    return found


def run(args: argparse.Namespace) -> int:
    changed, broken = [], 0
    for path in nem_files(args.paths or [rulesets_dir()]):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            broken += 1
            print(f"{path.as_posix()}: cannot read: {error}", file=sys.stderr)
            continue
        result = fmt.format_text(text, path.as_posix())
        if result.text is None:
            broken += 1
            for d in result.diagnostics:
                print(d.render(text), file=sys.stderr)
            continue
        if result.text == text:
            continue
        changed.append(path)
        if args.diff:
            sys.stdout.write(unified_diff(path.as_posix(), text, result.text))
        elif args.check:
            print(f"would reformat {path.as_posix()}")
        else:
            path.write_text(result.text, encoding="utf-8")
    verb = "would reformat" if args.check or args.diff else "reformatted"
    print(f"{len(changed)} file(s) {verb}" + (f", {broken} with errors left as they are" if broken else ""),
          file=sys.stderr)
    if broken:
        return common.EXIT_USAGE
    return 1 if changed and (args.check or args.diff) else common.EXIT_OK
