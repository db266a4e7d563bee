"""Safe fixes for findings: what `nemesis-lint --fix` applies and the editor offers as quick fixes.

A fix is offered only when it is unique: the finding's help names a single `did you mean` and the
misspelt name occurs exactly once inside the finding's span. Anything else is left to the author.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable

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


_MISSING = re.compile(r"^`(names|messages)\.([^`]+)` has no (\w+) translation")
STUB_MARK = "# TODO: translate (English copy)"


def translation_stub(diagnostic: Diagnostic, read: Callable[[str], str | None]) -> Edit | None:
    """For a key missing in a language (W600): the English entry copied into that language's
    catalog, marked for translation (players see the same English text as before)."""
    m = _MISSING.match(diagnostic.message)
    file = diagnostic.span.file
    if m is None or not file.endswith("/en.yaml"):
        return None
    section, key, lang = m.groups()
    target = file[: -len("en.yaml")] + f"{lang}.yaml"
    english = (read(file) or "").split("\n")
    number = diagnostic.span.line
    entry = re.match(rf"\s*{re.escape(key)}:\s*(.*?)\s*(#.*)?$", english[number - 1]) if number <= len(english) else None
    translated = read(target)
    if translated is None or entry is None or not entry.group(1) or entry.group(1)[0] in "|>":
        return None
    return _insert_entry(target, translated, section, f"{key}: {entry.group(1)}  {STUB_MARK}")


def _insert_entry(file: str, text: str, section: str, entry: str) -> Edit | None:
    """An edit adding `entry` at the end of the block mapping `section:` of a YAML text."""
    lines = text.split("\n")
    heads = [i for i, line in enumerate(lines) if re.match(rf"{section}:\s*(#.*)?$", line)]
    if not heads:
        end = len(lines) if lines[-1] else len(lines) - 1
        return Edit(file, end + 1, 1, end + 1, 1, f"{section}:\n  {entry}\n", f"Add `{section}:` with a stub")
    last, indent = heads[0], "  "
    for i in range(heads[0] + 1, len(lines)):
        line = lines[i]
        if line.strip() and not line[:1].isspace() and not line.startswith("#"):
            break
        if line.strip() and not line.lstrip().startswith("#"):
            last, indent = i, line[: len(line) - len(line.lstrip())]
    return Edit(file, last + 2, 1, last + 2, 1, f"{indent}{entry}\n", "Add a stub marked for translation")


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
