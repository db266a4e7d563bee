"""Safe fixes for findings: what `nemesis-lint --fix` applies and the editor offers as quick fixes.

A fix is offered only when it is unique: the finding's help names a single `did you mean` and the
misspelt name occurs exactly once inside the finding's span. Anything else is left to the author.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

import attrs

from nemesis_rules.dsl.diagnostics import Diagnostic

_SUGGESTION = re.compile(r"did you mean `([^`]+)`\?")
_QUOTED = re.compile(r"`([^`]+)`")


@attrs.frozen
class Edit:
    """Replace the text from (line, column) to (end_line, end_column) of `file`, 1-based, end exclusive."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    text: str
    title: str = ""


def suggestion_fix(diagnostic: Diagnostic, source: str) -> Edit | None:
    """The did-you-mean of `diagnostic` as an edit of `source`, or None when it is not unique."""
    suggested = _SUGGESTION.findall(diagnostic.help)
    quoted = _QUOTED.findall(diagnostic.message)
    if len(suggested) != 1 or not quoted:
        return None
    wrong, right = quoted[0], suggested[0]
    span = diagnostic.span
    lines = source.split("\n")
    if not 1 <= span.line <= len(lines) or wrong == right:
        return None
    line = lines[span.line - 1]
    end = span.end_column - 1 if span.end_line == span.line else len(line)
    found = [m.start() for m in _word(wrong).finditer(line, span.column - 1, max(end, span.column - 1))]
    if len(found) != 1:
        return None
    start = found[0] + 1
    return Edit(span.file, span.line, start, span.line, start + len(wrong), right,
                f"Replace `{wrong}` with `{right}`")


def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)" if name[:1].isalnum() or name[:1] == "_"
                      else re.escape(name))


def noqa_edit(diagnostic: Diagnostic, source: str) -> Edit | None:
    """An edit adding `# noqa: CODE` to the line where `diagnostic` starts (or its code to one there)."""
    lines = source.split("\n")
    number = diagnostic.span.line
    if not 1 <= number <= len(lines):
        return None
    line = lines[number - 1].rstrip()
    code = diagnostic.code
    existing = re.search(r"#\s*noqa\b(:[^#]*)?", line, re.IGNORECASE)
    if existing and not existing.group(1):
        return None  # a bare noqa comment already suppresses every code
    if existing:
        new_line = line[: existing.end()].rstrip() + f", {code}" + line[existing.end():]
    else:
        new_line = f"{line}  # noqa: {code}" if line.strip() else f"# noqa: {code}"
    return Edit(diagnostic.span.file, number, 1, number, len(lines[number - 1]) + 1, new_line,
                f"Suppress {code} on this line (# noqa)")


def apply(source: str, edits: Iterable[Edit]) -> tuple[str, list[Edit]]:
    """`source` with the edits that do not overlap an earlier one applied, and those applied."""
    lines = source.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def at(line: int, column: int) -> int:
        return offsets[line - 1] + column - 1

    chosen: list[tuple[int, int, Edit]] = []
    for edit in sorted(edits, key=lambda e: (e.line, e.column)):
        start, end = at(edit.line, edit.column), at(edit.end_line, edit.end_column)
        if chosen and start < chosen[-1][1]:
            continue
        chosen.append((start, end, edit))
    for start, end, edit in reversed(chosen):
        source = source[:start] + edit.text + source[end:]
    return source, [edit for _, _, edit in chosen]


def unified_diff(path: str, before: str, after: str) -> str:
    """A unified diff of one file, as `git diff` and ruff's `--diff` print it."""
    diff = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                f"a/{path}", f"b/{path}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in diff)
