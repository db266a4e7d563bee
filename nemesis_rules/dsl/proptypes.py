"""Prop types: what a kind's prop holds, as its `props:` entry writes it (docs/language.md, "Prop types").

    int | bool | str | symbol | entity | list | any   a base type
    a | b | c                                          one of these symbols (a symbol set)
    list of T                                          a list whose items are each a T
    K (a kind's name)                                  the id of a component of kind K
    T (a name under `types:`)                          that named type

`none` (YAML `null`) fits every type: it means "no value". The linter checks records and script
assignments against these types; the engine does not read them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import attrs

from nemesis_rules.dsl.diagnostics import did_you_mean

BASE_TYPES = ("int", "bool", "symbol", "str", "entity", "list", "any")
LIST_OF = "list of "
MAX_DEPTH = 8  # named types naming named types: deeper is a loop


@attrs.frozen
class PropType:
    """A parsed prop type: a base type, a symbol set (`members`), a kind (`kind`) or a list (`item`)."""

    text: str
    base: str = "any"  # one of BASE_TYPES, "set" or "kind"
    members: tuple[str, ...] = ()
    kind: str | None = None
    item: PropType | None = None


def parse_type(text: str, kinds: Collection[str], types: Mapping[str, str] | None = None,
               depth: int = 0) -> tuple[PropType, str | None]:
    """The type a `props:` entry names, and a problem (with a did-you-mean) when it names none.
    `types` are the module's named types (its `types:` section)."""
    text, types = " ".join(str(text).split()), types or {}
    if text.startswith(LIST_OF):
        item, problem = parse_type(text[len(LIST_OF):], kinds, types, depth)
        return PropType(text, "list", item=item), problem
    if "|" in text:
        members = tuple(m.strip() for m in text.split("|"))
        bad = next((m for m in members if not m.isidentifier()), None)
        problem = None if bad is None else f"`{bad or '(nothing)'}` in a symbol set is not a name"
        return PropType(text, "set", members=members), problem
    if text in BASE_TYPES:
        return PropType(text, text), None
    if text in kinds:
        return PropType(text, "kind", kind=text), None
    if text in types and depth < MAX_DEPTH:
        named, problem = parse_type(types[text], kinds, types, depth + 1)
        return attrs.evolve(named, text=f"{text} ({named.text})" if named.base == "set" else text), problem
    if text in types:
        return PropType(text), f"type `{text}` names itself"
    hint = did_you_mean(text, (*BASE_TYPES, *kinds, *types))
    problem = f"unknown prop type `{text}`: a base type ({', '.join(BASE_TYPES)}), `a | b` (symbols), " \
              f"`list of T`, a kind's name or a named type" + (f"; {hint}" if hint else "")
    return PropType(text, "any"), problem


@attrs.frozen
class Names:
    """What values name: every declared name, the symbols, and each component's kind."""

    declared: Collection[str]
    symbols: Collection[str]
    kind_of: Mapping[str, str]


_BASE_CHECKS = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "symbol": lambda v: isinstance(v, str),
    "str": lambda v: isinstance(v, str),
    "entity": lambda v: isinstance(v, str),
    "list": lambda v: isinstance(v, tuple),
    "any": lambda v: True,
}


@attrs.frozen
class Problem:
    """Why a value does not fit a type: a lint code, the message and its did-you-mean help."""

    code: str
    message: str
    help: str | None = None


def value_problem(t: PropType, value: object, names: Names) -> Problem | None:
    """None when `value` (a YAML value: lists are tuples) fits `t`, else why not."""
    if value is None:
        return None
    if t.base == "list" and t.item is not None:
        if not isinstance(value, tuple):
            return Problem("E202", f"should be {t.text}, got {value!r}")
        return next((p for v in value if (p := value_problem(t.item, v, names)) is not None), None)
    if t.base in ("set", "kind"):
        if not isinstance(value, str):
            return Problem("E202", f"should be {t.text}, got {value!r}")
        return _set_problem(t, value) if t.base == "set" else _kind_problem(t, value, names)
    if not _BASE_CHECKS.get(t.base, _BASE_CHECKS["any"])(value):
        return Problem("E202", f"should be {t.text}, got {value!r}")
    if t.base == "symbol" and value not in names.declared:
        return Problem("E310", f"`{value}` is no declared symbol", did_you_mean(value, names.symbols)
                       or "declare it under `symbols:`")
    return None


def _set_problem(t: PropType, value: str) -> Problem | None:
    if value in t.members:
        return None
    return Problem("E310", f"`{value}` is not one of {t.text}", did_you_mean(value, t.members)
                   or f"one of: {', '.join(t.members)}")


def _kind_problem(t: PropType, value: str, names: Names) -> Problem | None:
    kind = names.kind_of.get(value)
    if kind == t.kind:
        return None
    if kind is None:
        ids = [c for c, k in names.kind_of.items() if k == t.kind]
        return Problem("E303", f"`{value}` is no component (a {t.kind} is wanted)", did_you_mean(value, ids))
    return Problem("E403", f"`{value}` is a {kind}, not a {t.kind}")


def widen(old: PropType, new: PropType) -> PropType | None:
    """The union of two symbol sets (or lists of them), which an `extend: true` kind may declare; None
    when the two types are not both sets."""
    if old.base == new.base == "set":
        members = (*old.members, *(m for m in new.members if m not in old.members))
        return PropType(" | ".join(members), "set", members=members)
    if old.base == new.base == "list" and old.item and new.item and (item := widen(old.item, new.item)):
        return PropType(LIST_OF + item.text, "list", item=item)
    return None
