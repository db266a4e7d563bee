"""Run the checks on paths: call the loader and turn whatever goes wrong into diagnostics.

The loader (`nemesis_rules.ruleset.check_api.check_paths`) does the checking: it checks a file
as part of its module (keeping only that file's findings) and follows `requires`. This module
reports paths that cannot be read, and turns a crash or a malformed answer into E999.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Iterable, Sequence
from pathlib import Path

from nemesis_rules.dsl.diagnostics import Diagnostic, Span
from nemesis_rules.lint.codes import INTERNAL_ERROR, UNREADABLE_FILE
from nemesis_rules.ruleset import check_api

TRACEBACK_ENV = "NEMESIS_LINT_TRACEBACK"

Sources = dict[str, str]


def path_problem(path: Path) -> str:
    """Why `path` cannot be linted, or an empty string."""
    try:
        if not path.exists():
            return "no such file or folder"
        mode = os.R_OK | (os.X_OK if path.is_dir() else 0)
        return "" if os.access(path, mode) else "permission denied"
    except (OSError, ValueError) as error:
        return f"cannot read the path: {error}"


def unreadable(path: Path, reason: str) -> Diagnostic:
    return Diagnostic(UNREADABLE_FILE.code, reason, Span(str(path)))


def internal_error(error: BaseException, where: str) -> Diagnostic:
    if os.environ.get(TRACEBACK_ENV):
        traceback.print_exception(error)
    detail = str(error).strip()
    message = f"internal error: {type(error).__name__}" + (f": {detail}" if detail else "")
    help_ = "this is a bug in nemesis-rules, not in your module; please report it"
    return Diagnostic(INTERNAL_ERROR.code, _shorten(message), Span(where), help=help_)


def _shorten(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def lint_paths(paths: Sequence[Path]) -> tuple[list[Diagnostic], Sources]:
    """Every finding for `paths` and the source text of each file, without raising."""
    problems = [(p, path_problem(p)) for p in paths]
    found = [unreadable(p, why) for p, why in problems if why]
    roots = _unique(p for p, why in problems if not why)
    if not roots:
        return found, {}
    diagnostics, sources = _call_loader(roots)
    return found + diagnostics, sources


def _unique(paths: Iterable[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))


def _call_loader(roots: list[Path]) -> tuple[list[Diagnostic], Sources]:
    try:
        diagnostics, sources = check_api.check_paths(roots)
        return _checked(diagnostics, sources)
    except Exception as error:  # a crash must become a finding
        return [internal_error(error, str(roots[0]))], {}


def _checked(diagnostics: object, sources: object) -> tuple[list[Diagnostic], Sources]:
    """The loader's answer, after checking its shape."""
    if not isinstance(sources, dict):
        raise TypeError(f"check_paths returned sources of type {type(sources).__name__}")
    items = list(diagnostics)  # type: ignore[call-overload]
    strange = [d for d in items if not isinstance(d, Diagnostic)]
    if strange:
        raise TypeError(f"check_paths returned a {type(strange[0]).__name__}, not a Diagnostic")
    texts = {str(k): v for k, v in sources.items() if isinstance(v, str)}
    return items, texts
