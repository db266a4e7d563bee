"""The `nemesis-lint` command: lint modules and report findings as ruff does.

Exit status: 0 clean (warnings allowed unless `--strict`), 1 findings, 2 a usage error, an
unreadable path or an internal error. It never prints a Python traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from nemesis_rules.dsl.diagnostics import Diagnostic
from nemesis_rules.lint import fixes, formats, runner, scope
from nemesis_rules.lint.codes import FATAL_CODES, lookup, suggest
from nemesis_rules.lint.noqa import Suppressions
from nemesis_rules.lint.selection import CodeFilter, UsageError, build_filter
from nemesis_rules.ruleset import parse_cache

PROG = "nemesis-lint"
EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    """Run nemesis-lint with `argv` (default: `sys.argv[1:]`) and return the exit status."""
    _tolerate_unencodable_output()
    try:
        return _run(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as stop:
        return _exit_status(stop)
    except KeyboardInterrupt:
        _say_error("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_FINDINGS
    except Exception as error:  # the last line of defence: a crash is not a traceback
        _say_error(runner.internal_error(error, PROG).concise())
        return EXIT_USAGE


def _run(argv: list[str]) -> int:
    args = _parser().parse_args(_rule_alias(argv))
    if args.explain is not None:
        return explain(args.explain)
    try:
        code_filter = build_filter(args.select, args.ignore)
    except UsageError as error:
        return _usage_error(str(error))
    if args.statistics and args.format not in ("text", "concise"):
        return _usage_error("--statistics works with the text formats only")
    paths = [scope.resolve(p) for p in args.paths] or [default_path()]
    with parse_cache.enabled() if not args.no_cache else contextlib.nullcontext():
        findings, sources = collect(paths, code_filter)
        shown = _split(args, findings, paths)
        if args.diff:
            return _show_fixes(_fixable(args, shown), sources, args.fix_catalogs)
        if (args.fix or args.fix_catalogs) and _apply_fixes(_fixable(args, shown), sources, args.fix_catalogs):
            findings, sources = collect(paths, code_filter)
            shown = _split(args, findings, paths)
    _report(args, shown, sources)
    return exit_status(findings, strict=args.strict)


def _split(args: argparse.Namespace, findings: list[Diagnostic], paths: list[Path]) -> scope.Shown:
    translations = args.translations or args.select is not None
    return scope.split(findings, paths, dependencies=args.dependencies, translations=translations)


def _fixable(args: argparse.Namespace, shown: scope.Shown) -> list[Diagnostic]:
    """The findings whose fixes may be applied: never a dependency's; missing translations only
    for `--fix-catalogs`."""
    return shown.findings + (shown.translations if args.fix_catalogs else [])


def _report(args: argparse.Namespace, shown: scope.Shown, sources: dict[str, str]) -> None:
    """The findings shown, then a line for each group only counted (on stderr after JSON, SARIF
    and GitHub annotations, whose output must stay machine-readable)."""
    text_format = args.format in ("text", "concise")
    text = _render(args, shown.findings, sources)
    if text_format and not shown.findings and shown.errors_not_shown():
        # "All checks passed!" would hide that the run fails on a dependency's error
        text = text.replace(formats.summary_line([]), "No findings in the modules named, but a dependency has errors:")
    _write(text, colour=text_format)
    for note in shown.notes():
        if text_format:
            _write(f"{note}\n", colour=False)
        else:
            _say_error(note)


def _rule_alias(argv: list[str]) -> list[str]:
    """`nemesis-lint rule CODE` is another spelling of `--explain CODE`."""
    if len(argv) == 2 and argv[0] == "rule" and not Path("rule").exists():
        return ["--explain", argv[1]]
    return argv


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Lint nemesis-rules modules: .nem scripts and YAML components.",
        epilog="Exit status: 0 clean, 1 findings, 2 usage error or unreadable path. "
        "Suppress a finding with `# noqa: CODE` on its line. Reference: docs/lint.md.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="module folders, files or module ids under rulesets/ (default: the rulesets folder)")
    parser.add_argument("--format", choices=sorted(formats.FORMATTERS), default="text",
                        help="output format (default: text)")
    parser.add_argument("--select", action="append", metavar="CODE[,CODE]",
                        help="report only these codes, prefixes (E3) or names (default: ALL)")
    parser.add_argument("--ignore", action="append", metavar="CODE[,CODE]",
                        help="do not report these codes, prefixes or names")
    parser.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    parser.add_argument("--statistics", action="store_true",
                        help="print the number of findings a code instead of the findings")
    parser.add_argument("--fix", action="store_true",
                        help="apply the safe fixes (a single did-you-mean, a translation stub), then report what is left")
    parser.add_argument("--fix-catalogs", action="store_true",
                        help="with --fix or --diff, also add the missing translations to the catalogs "
                             "(i18n/*.yaml) as English copies marked for translation; implies --fix")
    parser.add_argument("--diff", action="store_true",
                        help="print the safe fixes as a diff instead of applying them (exit 1 if any)")
    parser.add_argument("--dependencies", action="store_true",
                        help="also show the findings in the modules the named ones require "
                             "(default: one line counting them)")
    parser.add_argument("--translations", action="store_true",
                        help="show each missing translation (W600); default: one line counting them, "
                             "unless --select names codes")
    parser.add_argument("--no-cache", action="store_true",
                        help="parse every file anew: no cache of parsed files (NEMESIS_CACHE_DIR=off turns off every "
                             "cache; the cache folder is NEMESIS_CACHE_DIR, else ~/.cache/nemesis-rules)")
    parser.add_argument("--explain", metavar="CODE",
                        help="explain a code (or name): what it does, why, and the fix")
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}")
    return parser


def version() -> str:
    """The version of nemesis-rules (`nemesis_rules.version`, else the installed metadata)."""
    with contextlib.suppress(ImportError, AttributeError):
        return str(importlib.import_module("nemesis_rules.version").__version__)
    from importlib import metadata

    try:
        return metadata.version("nemesis-rules")
    except metadata.PackageNotFoundError:
        return "unknown"


def default_path() -> Path:
    """The rulesets folder: `nemesis_rules.paths.rulesets_dir()` if it exists."""
    try:
        folder = Path(importlib.import_module("nemesis_rules.paths").rulesets_dir())
    except (ImportError, AttributeError):
        return Path("rulesets")
    return _relative_to_cwd(folder)


def _relative_to_cwd(path: Path) -> Path:
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def explain(code_or_name: str) -> int:
    rule = lookup(code_or_name)
    if rule is None:
        hint = suggest(code_or_name)
        return _usage_error(f"unknown code `{code_or_name}`" + (f"; {hint}" if hint else ""))
    _write(rule.explain() + "\n", colour=False)
    return EXIT_CLEAN


def collect(paths: Sequence[Path], code_filter: CodeFilter) -> tuple[list[Diagnostic], dict[str, str]]:
    """The findings to report, selected, not suppressed, sorted and without repeats."""
    diagnostics, sources = runner.lint_paths(paths)
    suppressed = Suppressions(sources)
    kept = [d for d in diagnostics if code_filter.allows(d.code) and not suppressed.covers(d)]
    return sorted(dict.fromkeys(kept), key=_position), sources


def _position(d: Diagnostic) -> tuple[str, int, int, str]:
    return d.span.file, d.span.line, d.span.column, d.code


def exit_status(findings: Sequence[Diagnostic], strict: bool = False) -> int:
    if any(d.code in FATAL_CODES for d in findings):
        return EXIT_USAGE
    if any(formats.severity_of(d) == "error" for d in findings) or (strict and findings):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def planned_fixes(findings: Sequence[Diagnostic], sources: dict[str, str],
                  catalogs: bool = False) -> dict[str, tuple[str, str]]:
    """File -> (text now, text after the safe fixes), for the files a fix changes. Translation
    catalogs get stubs only when `catalogs` is true (`--fix-catalogs`): a typo's fix must not
    write hundreds of lines into files a translator keeps."""
    edits: dict[str, list[fixes.Edit]] = {}
    for d in findings:
        source = sources.get(d.span.file)
        edit = fixes.suggestion_fix(d, source) if source is not None else None
        stub = fixes.translation_stub(d, sources.get) if catalogs else None
        for found in (edit, stub):
            if found is not None and found.file in sources:
                edits.setdefault(found.file, []).append(found)
    planned = {}
    for file, file_edits in edits.items():
        after, _ = fixes.apply(sources[file], file_edits)
        if after != sources[file]:
            planned[file] = (sources[file], after)
    return planned


def _show_fixes(findings: Sequence[Diagnostic], sources: dict[str, str], catalogs: bool) -> int:
    planned = planned_fixes(findings, sources, catalogs)
    _write("".join(fixes.unified_diff(f, *planned[f]) for f in sorted(planned)), colour=False)
    return EXIT_FINDINGS if planned else EXIT_CLEAN


def _apply_fixes(findings: Sequence[Diagnostic], sources: dict[str, str], catalogs: bool) -> int:
    planned = planned_fixes(findings, sources, catalogs)
    for file, (_, after) in planned.items():
        Path(file).write_text(after, encoding="utf-8")
    if planned:
        _say_error(f"fixed {len(planned)} file(s): {', '.join(sorted(planned))}")
    return len(planned)


def _render(args: argparse.Namespace, findings: list[Diagnostic], sources: dict[str, str]) -> str:
    if args.statistics:
        return formats.format_statistics(findings)
    return formats.FORMATTERS[args.format](findings, sources, version())


# ---- output ----


def _write(text: str, colour: bool) -> None:
    if colour and _wants_colour():
        _write_coloured(text)
    else:
        sys.stdout.write(text)
    sys.stdout.flush()


def _wants_colour() -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or sys.stdout.isatty()


def _write_coloured(text: str) -> None:
    from rich.console import Console
    from rich.text import Text

    styled = Text(text)
    styled.highlight_regex(r"(?m)^[^\s|=].*?:\d+:\d+:", "bold")
    styled.highlight_regex(r"(?m)(?<=\d: )E\d{3}\b", "bold red")
    styled.highlight_regex(r"(?m)(?<=\d: )W\d{3}\b", "bold yellow")
    styled.highlight_regex(r"\^+", "red")
    styled.highlight_regex(r"(?m)= help:", "cyan")
    console = Console(highlight=False, markup=False, emoji=False, soft_wrap=True)
    console.print(styled, end="")


def _usage_error(message: str) -> int:
    _say_error(message)
    return EXIT_USAGE


def _say_error(message: str) -> None:
    with contextlib.suppress(Exception):
        sys.stderr.write(f"{PROG}: {formats.printable(message)}\n")
        sys.stderr.flush()


def _exit_status(stop: SystemExit) -> int:
    code = stop.code
    if code is None or isinstance(code, int):
        return code or EXIT_CLEAN
    _say_error(str(code))
    return EXIT_USAGE


def _tolerate_unencodable_output() -> None:
    """Print names that the terminal's encoding cannot show as escapes, not as a crash."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]


def _silence_stdout() -> None:
    """After a closed pipe (`nemesis-lint | head`), send the rest of the output nowhere."""
    with contextlib.suppress(Exception):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
