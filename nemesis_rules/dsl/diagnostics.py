"""Diagnostics: what every stage reports instead of raising.

A `Diagnostic` has a stable code, a severity, a message, a `Span` and an optional help line.
Stages append to a list (one sink, as jlox's `Lox.run` does); `RulesError` wraps diagnostics
when an API caller needs an exception.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import attrs


@attrs.frozen(slots=True)
class Span:
    """Where a node or finding sits: 1-based lines and columns, end exclusive."""

    file: str = "<string>"
    line: int = 1
    column: int = 1
    end_line: int = 1
    end_column: int = 1

    def shifted(self, lines: int, columns: int = 0) -> Span:
        """The span moved down by `lines` and right by `columns` (a script inside YAML)."""
        return Span(self.file, self.line + lines, self.column + columns,
                    self.end_line + lines, self.end_column + columns)


NO_SPAN = Span()

ERROR = "error"
WARNING = "warning"


@attrs.frozen(slots=True)
class Diagnostic:
    code: str
    message: str
    span: Span = NO_SPAN
    severity: str = ERROR
    help: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def concise(self) -> str:
        s = self.span
        return f"{s.file}:{s.line}:{s.column}: {self.code} {self.message}"

    def render(self, source: str | None = None) -> str:
        """The full form: the concise line, the source line with a caret, then `help:`."""
        lines = [self.concise()]
        excerpt = caret_excerpt(source, self.span) if source is not None else ""
        if excerpt:
            lines.append(excerpt)
        if self.help:
            lines.append(f"  = help: {self.help}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        s = self.span
        return {
            "path": s.file,
            "line": s.line,
            "column": s.column,
            "end_line": s.end_line,
            "end_column": s.end_column,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "help": self.help,
        }


def caret_excerpt(source: str, span: Span) -> str:
    """A gutter with the span's first line and carets under the span (clipped to that line)."""
    src_lines = source.splitlines()
    if not 1 <= span.line <= len(src_lines):
        return ""
    text = src_lines[span.line - 1].replace("\t", " ")
    start = max(span.column - 1, 0)
    end = span.end_column - 1 if span.end_line == span.line else len(text)
    width = max(1, min(end, len(text)) - start)
    gutter = str(span.line)
    pad = " " * len(gutter)
    return f"{pad} |\n{gutter} | {text}\n{pad} | {' ' * start}{'^' * width}"


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """A 'did you mean' hint for a misspelt name, or an empty string."""
    close = difflib.get_close_matches(name, sorted(set(known)), n=5, cutoff=0.6)
    plausible = [c for c in close if _covers_most(name, c)]
    return f"did you mean `{plausible[0]}`?" if plausible else ""


def _covers_most(name: str, candidate: str) -> bool:
    """Whether the letters the two names share in order make up two thirds of the longer one:
    a typo keeps most of a name; a short name that merely shares a few letters (`red` for
    `purged`) is no suggestion."""
    matcher = difflib.SequenceMatcher(None, name, candidate)
    shared = sum(block.size for block in matcher.get_matching_blocks())
    return 3 * shared >= 2 * max(len(name), len(candidate))


class RulesError(Exception):
    """Raised by the public API when rules cannot load or a game cannot go on.

    Carries the diagnostics; `str()` renders them concisely.
    """

    def __init__(self, diagnostics: Diagnostic | Iterable[Diagnostic] | str) -> None:
        if isinstance(diagnostics, str):
            diagnostics = Diagnostic("E000", diagnostics)
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        super().__init__(self._text())

    def _text(self) -> str:
        parts = []
        for d in self.diagnostics:
            parts.append(d.concise() + (f" ({d.help})" if d.help else ""))
        return "\n".join(parts)


class IllegalMoveError(RulesError, ValueError):
    """An option that is not legal at the current decision; the game is unchanged."""


class RefusedError(RulesError):
    """The rules refuse the game as asked (the script's `refuse`): no game, and no fault of the script."""


def brief(value: object, limit: int = 60) -> str:
    """`repr(value)` cut to `limit` characters, for quoting untrusted input in a message (a huge
    integer is described, since Python refuses to write one of over 4,300 digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"an integer of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."
