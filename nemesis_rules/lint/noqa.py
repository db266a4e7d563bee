"""Per-line suppression comments: `# noqa` and `# noqa: E300, W503` (codes or names).

The comment must sit on the line where the finding starts. It works the same in `.nem` scripts
and in YAML files, where `#` starts a comment too.
"""

from __future__ import annotations

import re

from nemesis_rules.dsl.diagnostics import Diagnostic
from nemesis_rules.lint.codes import lookup

_NOQA = re.compile(r"#\s*noqa\b(?::(?P<codes>[^#]*))?", re.IGNORECASE)
_CODE = re.compile(r"[EW]\d{3}", re.IGNORECASE)
EVERY_CODE = None  # the comment has no codes: it suppresses every code


def codes_in_comment(line: str) -> frozenset[str] | None:
    """The codes a line suppresses: a set, EVERY_CODE for a bare `# noqa`, or an empty set."""
    found: set[str] = set()
    for match in _NOQA.finditer(line):
        named = _codes_of(match.group("codes") or "")
        if not named:
            return EVERY_CODE
        found |= named
    return frozenset(found)


def _codes_of(text: str) -> set[str]:
    codes = set()
    for word in re.split(r"[\s,]+", text.strip()):
        known = lookup(word) if word else None
        if known is not None:
            codes.add(known.code)
        elif _CODE.fullmatch(word):
            codes.add(word.upper())
    return codes


class Suppressions:
    """Answers "is this finding suppressed by a comment?" from the source texts."""

    def __init__(self, sources: dict[str, str]) -> None:
        self._sources = sources
        self._lines: dict[str, list[str]] = {}

    def covers(self, diagnostic: Diagnostic) -> bool:
        line = self._line(diagnostic.span.file, diagnostic.span.line)
        if "#" not in line:
            return False
        codes = codes_in_comment(line)
        return codes is EVERY_CODE or diagnostic.code in codes

    def _line(self, path: str, number: int) -> str:
        if path not in self._lines:
            source = self._sources.get(path)
            self._lines[path] = source.split("\n") if isinstance(source, str) else []
        lines = self._lines[path]
        return lines[number - 1] if 1 <= number <= len(lines) else ""
