"""`nemesis scenario FILE...`: run scenario files and report pass/fail per expectation.

Exit status: 0 every scenario passed, 1 an expectation failed, 2 bad input (an unreadable or
malformed file, an unknown module or name, a bad command line). It never prints a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from nemesis_rules.scenario import Report, run_file

PROG = "nemesis scenario"
EXIT_PASS, EXIT_FAIL, EXIT_BAD_INPUT = 0, 1, 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command with `argv` (default: `sys.argv[1:]`); return the exit status."""
    try:
        args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else EXIT_BAD_INPUT
    try:
        return _run(args)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # the last line of defence: a crash is not a traceback
        print(f"{PROG}: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Run scenario files (see docs/scenarios.md).")
    parser.add_argument("paths", nargs="+", metavar="FILE",
                        help="scenario files, or folders searched for *.yaml")
    parser.add_argument("-v", "--verbose", action="store_true", help="list passing expectations too")
    parser.add_argument("-q", "--quiet", action="store_true", help="print failures and the summary only")
    parser.add_argument("--show", action="store_true",
                        help="also print the position after setup (every zone, face-down things too) and "
                             "the whole log of each step")
    return parser


def _run(args: argparse.Namespace) -> int:
    files, missing = expand(args.paths)
    for path in missing:
        print(f"ERROR {path}: no such file or folder")
    reports = [run_file(f, args.show) for f in files]
    for report in reports:
        _print(report, args.verbose, args.quiet)
        for line in report.shown:
            print(line)
    _summary(reports, len(missing))
    return exit_status(reports, bad_paths=len(missing))


def expand(paths: Sequence[str]) -> tuple[list[Path], list[str]]:
    """Files as given and every *.yaml/*.yml under folders (sorted); paths that do not exist."""
    files: list[Path] = []
    missing: list[str] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            files += sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
        elif path.exists():
            files.append(path)
        else:
            missing.append(name)
    return files, missing


def _print(report: Report, verbose: bool, quiet: bool) -> None:
    status = report.status
    if status == "ERROR":
        print(f"ERROR {report.error}")
        return
    if not (quiet and status == "PASS"):
        n = len(report.checks)
        print(f"{status} {report.path} ({n} check{'' if n == 1 else 's'})")
    for check in report.checks:
        if not check.ok:
            print(f"  {check}")
        elif verbose:
            print(f"  ok {check}")


def _summary(reports: list[Report], bad_paths: int) -> None:
    counts = {s: sum(r.status == s for r in reports) for s in ("PASS", "FAIL", "ERROR")}
    counts["ERROR"] += bad_paths
    total = len(reports) + bad_paths
    print(f"{total} scenario{'' if total == 1 else 's'}: {counts['PASS']} passed, {counts['FAIL']} failed, "
          f"{counts['ERROR']} could not run")


def exit_status(reports: list[Report], bad_paths: int = 0) -> int:
    if bad_paths or any(r.status == "ERROR" for r in reports) or not reports:
        return EXIT_BAD_INPUT
    return EXIT_FAIL if any(r.status == "FAIL" for r in reports) else EXIT_PASS


if __name__ == "__main__":
    raise SystemExit(main())
