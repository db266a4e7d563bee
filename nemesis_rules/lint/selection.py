"""`--select` / `--ignore`: which codes to report, by prefix, as ruff does.

A selector is `ALL`, a code prefix (`E`, `E3`, `E30`, `E301`) or a code's name
(`unknown-primitive`). When both lists match a code, the longer (more specific) prefix wins;
on a tie, `--ignore` wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import attrs

from nemesis_rules.lint.codes import BY_CODE, lookup, suggest

ALL = "ALL"
_PREFIX = re.compile(r"[EW]\d{0,3}")


class UsageError(ValueError):
    """A bad command-line argument; the CLI prints it and exits with status 2."""


@attrs.frozen(slots=True)
class CodeFilter:
    """The codes to report: `select` and `ignore` hold code prefixes ("" selects all)."""

    select: tuple[str, ...] = ("",)
    ignore: tuple[str, ...] = ()

    def allows(self, code: str) -> bool:
        chosen = _longest_match(self.select, code)
        return chosen >= 0 and chosen > _longest_match(self.ignore, code)


def _longest_match(prefixes: Iterable[str], code: str) -> int:
    """The length of the longest prefix of `code` among `prefixes`, or -1."""
    return max((len(p) for p in prefixes if code.startswith(p)), default=-1)


def parse_selectors(values: Iterable[str] | None) -> tuple[str, ...]:
    """Prefixes from repeated, comma-separated command-line values.

    Raises:
        UsageError: a selector that matches no known code or name.
    """
    items = [v.strip() for value in values or () for v in value.split(",")]
    return tuple(_prefix_of(item) for item in items if item)


def _prefix_of(selector: str) -> str:
    if selector.upper() == ALL:
        return ""
    known = lookup(selector)
    if known is not None:
        return known.code
    prefix = selector.upper()
    if _PREFIX.fullmatch(prefix) and any(code.startswith(prefix) for code in BY_CODE):
        return prefix
    hint = suggest(selector)
    raise UsageError(f"unknown code or prefix `{selector}`" + (f"; {hint}" if hint else ""))


def build_filter(select: Iterable[str] | None, ignore: Iterable[str] | None) -> CodeFilter:
    """The filter for `--select` (default: all codes) and `--ignore`."""
    chosen = parse_selectors(select) or ("",)
    return CodeFilter(chosen, parse_selectors(ignore))
