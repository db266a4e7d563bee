"""Card coverage of a module: per deck, what is encoded and what the sources leave unknown.

A module that wants a coverage report keeps a `coverage.toml` next to its `module.yaml` (TOML,
because every `*.yaml` of a module folder is read as a component file):

    [[decks]]
    name = "Event"                       # the deck's name in the report
    size = 20                            # how many cards the printed deck has (left out: unknown)
    select = {kind = "event_card"}       # which components belong to the deck
    source = "rules L613-632"            # where the deck and its size are stated
    unknown = [                          # cards known to exist whose content is not known
      {name = "every card's effect", count = 20, source = "rules L12"},
      {name = "the split of values", components = ["card_x"], source = "rules L40"},
    ]
    decided = [                          # encoded details no source gives, settled by a decision
      {name = "the cost of card_y", components = ["card_y"], source = "DECISIONS.md D3"},
    ]

`select` takes `kind` (a kind or a list), `zone` (the component's starting zone; shell patterns
such as `hand@*`; a string or a list) and `props` (values every prop must have): a component
belongs to the deck when it matches all of those given; `components` lists more ids explicitly.
An `unknown` entry either names encoded `components` whose content is partly unknown (they are
counted among the encoded cards) or stands for cards that are not encoded at all: its `count`
says how many (left out: an unknown number). A `decided` entry names encoded `components` (or,
left out, the whole deck) whose content a recorded decision settled where the sources are silent
or disagree; its `source` says where the decision is written. Every entry needs a `source`.
The table shows the three columns encoded / decided / unknown (the decided column only when the
module has a `decided` entry).

The engine knows no game: decks are whatever the file names. `report()` counts the module's
composed components (its requirements included) and `render()` writes the Markdown table that
`tools/coverage_report.py` puts into the module's README between the coverage markers.
"""

from __future__ import annotations

import tomllib
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import attrs

from nemesis_rules.ruleset.compose import Composition, compose

COVERAGE_FILE = "coverage.toml"
START = "<!-- coverage:start -->"
END = "<!-- coverage:end -->"

_DECK_KEYS = {"name", "size", "select", "source", "unknown", "decided"}
_SELECT_KEYS = {"kind", "zone", "props", "components"}
_UNKNOWN_KEYS = {"name", "count", "components", "source"}
_DECIDED_KEYS = {"name", "components", "source"}


class CoverageError(Exception):
    """coverage.toml is malformed or does not fit the module's components."""


@attrs.frozen
class Unknown:
    name: str
    source: str
    count: int | None = None
    components: tuple[str, ...] = ()


@attrs.frozen
class Decided:
    name: str
    source: str
    components: tuple[str, ...] = ()


@attrs.frozen
class Deck:
    name: str
    source: str
    size: int | None
    select: dict[str, Any]
    unknown: tuple[Unknown, ...]
    decided: tuple[Decided, ...] = ()


@attrs.frozen
class DeckCoverage:
    deck: Deck
    components: tuple[str, ...]  # ids of the encoded components, in file order
    entities: int  # how many entities those components make (their counts summed)

    @property
    def accounted(self) -> int:
        """Encoded entities plus the counted cards that are not encoded."""
        return self.entities + sum(u.count or 0 for u in self.deck.unknown if not u.components)

    @property
    def exact(self) -> bool:
        """Every not-encoded entry gives its count, so `accounted` must equal the size."""
        return all(u.count is not None for u in self.deck.unknown if not u.components)


@attrs.frozen
class Report:
    module: str
    decks: tuple[DeckCoverage, ...]
    problems: tuple[str, ...]  # coverage.toml and the components disagree


def _as_list(value: Any) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CoverageError(f"{where}: needs a non-empty text")
    return value.strip()


def _count(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise CoverageError(f"{where}: must be a whole number of cards, got {value!r}")
    return value


def load_decks(path: Path) -> list[Deck]:
    """Read and shape-check a coverage.toml.

    Raises:
        CoverageError: the file is missing or malformed.
    """
    if not path.is_file():
        raise CoverageError(f"{path}: no such file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise CoverageError(f"{path}: {err}") from None
    if not isinstance(data.get("decks"), list) or set(data) != {"decks"}:
        raise CoverageError(f"{path}: wants only `[[decks]]` tables")
    decks = []
    for i, raw in enumerate(data["decks"], 1):
        where = f"{path.name}: deck {i}"
        if not isinstance(raw, dict):
            raise CoverageError(f"{where}: must be a mapping")
        if extra := set(raw) - _DECK_KEYS:
            raise CoverageError(f"{where}: unknown keys {sorted(extra)} (allowed: {sorted(_DECK_KEYS)})")
        name = _text(raw.get("name"), f"{where} name")
        where = f"{path.name}: deck `{name}`"
        select = raw.get("select") or {}
        if not isinstance(select, dict) or not select:
            raise CoverageError(f"{where}: `select` needs kind, zone, props or components")
        if extra := set(select) - _SELECT_KEYS:
            raise CoverageError(f"{where}: unknown select keys {sorted(extra)} (allowed: {sorted(_SELECT_KEYS)})")
        if "props" in select and not isinstance(select["props"], dict):
            raise CoverageError(f"{where}: `select.props` must be a mapping")
        unknown = []
        for j, u in enumerate(_as_list(raw.get("unknown")), 1):
            uwhere = f"{where} unknown {j}"
            if not isinstance(u, dict):
                raise CoverageError(f"{uwhere}: must be a mapping")
            if extra := set(u) - _UNKNOWN_KEYS:
                raise CoverageError(f"{uwhere}: unknown keys {sorted(extra)} (allowed: {sorted(_UNKNOWN_KEYS)})")
            comps = tuple(str(c) for c in _as_list(u.get("components")))
            if comps and u.get("count") is not None:
                raise CoverageError(f"{uwhere}: give `components` (encoded) or `count` (not encoded), not both")
            unknown.append(Unknown(_text(u.get("name"), f"{uwhere} name"), _text(u.get("source"), f"{uwhere} source"),
                                   _count(u.get("count"), f"{uwhere} count"), comps))
        decks.append(Deck(name, _text(raw.get("source"), f"{where} source"), _count(raw.get("size"), f"{where} size"),
                          dict(select), tuple(unknown), _decided(raw.get("decided"), where)))
    return decks


def unknowns(comp: Composition) -> dict[str, list[str]]:
    """Per component id, the names of the `unknown` entries that name it in the coverage.toml of
    each composed module (a module without one adds nothing): what our sources do not give.

    Raises:
        CoverageError: a coverage.toml is malformed.
    """
    found: dict[str, list[str]] = {}
    for src in comp.modules:
        path = Path(src.path) / COVERAGE_FILE
        if path.is_file():
            for deck in load_decks(path):
                for u in deck.unknown:
                    for cid in u.components:
                        found.setdefault(cid, []).append(u.name)
    return found


def _decided(raw: Any, where: str) -> tuple[Decided, ...]:
    out = []
    for j, d in enumerate(_as_list(raw), 1):
        dwhere = f"{where} decided {j}"
        if not isinstance(d, dict):
            raise CoverageError(f"{dwhere}: must be a mapping")
        if extra := set(d) - _DECIDED_KEYS:
            raise CoverageError(f"{dwhere}: unknown keys {sorted(extra)} (allowed: {sorted(_DECIDED_KEYS)})")
        out.append(Decided(_text(d.get("name"), f"{dwhere} name"), _text(d.get("source"), f"{dwhere} source"),
                           tuple(str(c) for c in _as_list(d.get("components")))))
    return tuple(out)


def _matches(select: dict[str, Any], cid: str, spec) -> bool:
    if cid in _as_list(select.get("components")):
        return True
    rules = {k: v for k, v in select.items() if k != "components"}
    if not rules:
        return False
    if "kind" in rules and spec.kind not in _as_list(rules["kind"]):
        return False
    if "zone" in rules and not any(fnmatchcase(spec.zone or "", str(p)) for p in _as_list(rules["zone"])):
        return False
    return all(spec.props.get(k) == v for k, v in (rules.get("props") or {}).items())


def report(module: str | Path, search: list[Path] | None = None) -> Report:
    """Count a module's components deck by deck against its coverage.toml.

    Raises:
        CoverageError: coverage.toml is missing or malformed, or the module does not load.
    """
    comp = compose([module], search)
    root = comp.modules[-1] if comp.modules else None
    if root is not None and root.manifest is not None and root.manifest.adapters:
        # a module written for several games (`adapters`) is counted as loaded with the first
        comp = compose([next(iter(root.manifest.adapters)), module], search)
    errors = [d for d in comp.diagnostics if d.is_error]
    if errors:
        raise CoverageError(f"{module}: the module does not load: {errors[0].message}")
    decks = load_decks(Path(root.path) / COVERAGE_FILE)
    specs = {cid: c.spec for cid, c in comp.components.items()}
    problems: list[str] = []
    covered: dict[str, str] = {}
    results = []
    for deck in decks:
        for cid in _as_list(deck.select.get("components")):
            if cid not in specs:
                problems.append(f"deck `{deck.name}` selects component `{cid}`, which the module does not have")
        ids = tuple(cid for cid, spec in specs.items() if _matches(deck.select, cid, spec))
        for cid in ids:
            if cid in covered:
                problems.append(f"component `{cid}` is in two decks: `{covered[cid]}` and `{deck.name}`")
            covered.setdefault(cid, deck.name)
        for kind, entries in (("unknown", deck.unknown), ("decided", deck.decided)):
            for u in entries:
                for cid in u.components:
                    if cid not in ids:
                        problems.append(f"deck `{deck.name}`: {kind} entry `{u.name}` names `{cid}`, "
                                        f"which is not one of the deck's components")
        cov = DeckCoverage(deck, ids, sum(specs[c].count for c in ids))
        if deck.size is not None:
            if cov.exact and cov.accounted != deck.size:
                problems.append(f"deck `{deck.name}`: {cov.entities} encoded + the counted unknown cards make "
                                f"{cov.accounted}, but the deck has {deck.size}")
            elif cov.accounted > deck.size:
                problems.append(f"deck `{deck.name}`: {cov.accounted} cards accounted for, more than its {deck.size}")
        results.append(cov)
    kinds = {k for d in decks for k in _as_list(d.select.get("kind"))}
    for cid, spec in specs.items():
        if spec.kind in kinds and cid not in covered:
            problems.append(f"component `{cid}` (kind `{spec.kind}`) is in no deck of {COVERAGE_FILE}")
    return Report(root.manifest.id if root.manifest else str(module), tuple(results), tuple(problems))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _unknown_label(u: Unknown) -> str:
    if u.components:
        return f"{u.name} ({len(u.components)} encoded)"
    return f"{u.name} ({u.count if u.count is not None else 'how many: unknown'})"


def _decided_label(d: Decided) -> str:
    return f"{d.name} ({len(d.components)} encoded)" if d.components else f"{d.name} (the deck)"


def render(rep: Report) -> str:
    """The Markdown that goes between the coverage markers."""
    with_decided = any(cov.deck.decided for cov in rep.decks)
    mid = " decided |" if with_decided else ""
    lines = [
        f"<!-- Generated by tools/coverage_report.py from {COVERAGE_FILE} and the module's components; "
        "do not edit. -->",
        "",
        f"| deck | size | encoded (entities / components) |{mid} content unknown | source |",
        "| --- | --- | --- |" + (" --- |" if with_decided else "") + " --- | --- |",
    ]
    for cov in rep.decks:
        d = cov.deck
        size = "unknown" if d.size is None else str(d.size)
        unknown = "; ".join(_unknown_label(u) for u in d.unknown) or "none"
        decided = f" {_cell('; '.join(_decided_label(x) for x in d.decided) or 'none')} |" if with_decided else ""
        lines.append(f"| {_cell(d.name)} | {size} | {cov.entities} / {len(cov.components)} |{decided} "
                     f"{_cell(unknown)} | {_cell(d.source)} |")
    total_e = sum(c.entities for c in rep.decks)
    total_c = sum(len(c.components) for c in rep.decks)
    lines += ["", f"{len(rep.decks)} decks; {total_e} entities from {total_c} components encoded.", ""]
    lines.append("The unknown entries, with their sources:")
    lines.append("")
    for cov in rep.decks:
        for u in cov.deck.unknown:
            comps = f" (encoded as {', '.join(f'`{c}`' for c in u.components)})" if u.components else ""
            lines.append(f"* {_cell(cov.deck.name)}: {_cell(u.name)}{comps}: {_cell(u.source)}")
    if with_decided:
        lines += ["", "The decided entries, with where each decision is written:", ""]
        for cov in rep.decks:
            for x in cov.deck.decided:
                comps = f" (encoded as {', '.join(f'`{c}`' for c in x.components)})" if x.components else ""
                lines.append(f"* {_cell(cov.deck.name)}: {_cell(x.name)}{comps}: {_cell(x.source)}")
    if rep.problems:
        lines += ["", "Problems (coverage.toml and the components disagree):", ""]
        lines += [f"* {_cell(p)}" for p in rep.problems]
    return "\n".join(lines)


def splice(readme: str, table: str) -> str:
    """README text with the part between the markers replaced by `table`.

    Raises:
        CoverageError: the markers are missing or out of order.
    """
    start, end = readme.find(START), readme.find(END)
    if start < 0 or end < start:
        raise CoverageError(f"the README needs the markers `{START}` and `{END}`, in that order")
    return readme[: start + len(START)] + "\n" + table + "\n" + readme[end:]
