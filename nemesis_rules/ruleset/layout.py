"""Board layouts: how a frontend draws a module's board, as plain data (`layouts:` in a component
file; the schema is in docs/modding.md, "Drawing the board").

The engine never reads a layout to play: `nemesis serve` hands the one that fits the game's
options to the web page, which draws what the view holds where the layout says. This module
checks a layout's shape and that every id, kind, prop, zone, counter and option it names
exists, so a typo is a lint finding instead of a board drawn wrong.
"""

from __future__ import annotations

from typing import Any

from nemesis_rules.dsl.diagnostics import Diagnostic, Span, did_you_mean
from nemesis_rules.ruleset.compose import Composition

POINT = "a point [x, y]"
FIELDS = {  # field -> what it holds (for the finding that names a misshapen one)
    "when": "game options that choose this layout, {option: value}",
    "size": "the drawing's size [width, height]",
    "places": "place ids (board spaces) and their centres {id: [x, y]}",
    "grid": "hex positions from props {kind, row, column, size, shifted_rows: odd|even}",
    "links": "the link kinds drawn between their ends",
    "stubs": "link kinds drawn as a mark at their first end, with its label (an entrance)",
    "numbers": "whether each end's label is drawn (true; false where labels are no printed numbers)",
    "laid": "a zone of a link: the link is drawn solid once it holds something",
    "tiles": "zones of a place whose member is the place's face (its name and colour)",
    "hidden": "zones of a place not drawn on the board",
    "face": "props of a face {colour: prop, mark: prop}",
    "figures": "the figures {kinds: [kinds], colour: prop, injuries: prop}",
    "badges": "props shown beside an entity's name on the board (a state)",
    "piles": "zones drawn as a counted pile {zone: [x, y]}",
    "tracks": "counters drawn as tracks [{counter, at: [x, y], entity, spaces: prop}]",
}
SHIFTS = ("odd", "even")


def check_layouts(comp: Composition) -> None:
    """Append a finding for every misshapen field and every name a layout gives that does not exist."""
    for name, declared in comp.layouts.items():
        layout = declared.value
        if not isinstance(layout, dict):
            comp.diagnostics.append(Diagnostic("E202", f"layout `{name}` must be a mapping of fields",
                                               declared.span, help=", ".join(FIELDS)))
            continue
        _Checker(comp, name, declared.span).run(layout)


class _Checker:
    def __init__(self, comp: Composition, name: str, span: Span) -> None:
        self.comp, self.name, self.span = comp, name, span

    def at(self, *path: Any) -> Span:
        return self.comp.spans.get(("layouts", self.name, *path), self.span)

    def problem(self, code: str, text: str, span: Span, hint: str | None = None) -> None:
        self.comp.diagnostics.append(Diagnostic(code, f"layout `{self.name}`: {text}", span, help=hint))

    def misshapen(self, field: str) -> None:
        self.problem("E202", f"`{field}` must be {FIELDS[field]}", self.at(field))

    def run(self, layout: dict[str, Any]) -> None:
        for field in layout:
            if field not in FIELDS:
                self.problem("E200", f"no field `{field}`", self.at(field), did_you_mean(field, FIELDS))
        if "size" not in layout:
            self.problem("E201", "needs `size`, the drawing's [width, height]", self.span)
        for field, value in layout.items():
            check = getattr(self, f"check_{field}", None)
            if check is not None:
                check(value)

    # ---- one method a field
    def check_when(self, value: Any) -> None:
        if not isinstance(value, dict):
            return self.misshapen("when")
        for option, wanted in value.items():
            spec = self.comp.options.get(option)
            if spec is None:
                self.problem("E309", f"`when`: no game option `{option}`", self.at("when", option),
                             did_you_mean(option, self.comp.options))
            elif wanted not in spec.values:
                self.problem("E309", f"`when`: option `{option}` has no value {wanted!r}", self.at("when", option),
                             f"values: {', '.join(map(str, spec.values))}")

    def check_size(self, value: Any) -> None:
        if not _is_point(value) or min(value) <= 0:
            self.misshapen("size")

    def check_places(self, value: Any) -> None:
        if not isinstance(value, dict):
            return self.misshapen("places")
        for place, point in value.items():
            if place not in self.comp.components:
                self.problem("E303", f"`places`: unknown component `{place}`", self.at("places", place),
                             did_you_mean(str(place), self.comp.components))
            elif not _is_point(point):
                self.problem("E202", f"`places`: `{place}` must be {POINT}", self.at("places", place))

    def check_grid(self, value: Any) -> None:
        if not (isinstance(value, dict) and set(value) <= {"kind", "row", "column", "size", "shifted_rows"}
                and isinstance(value.get("size"), (int, float)) and value.get("shifted_rows", "odd") in SHIFTS):
            return self.misshapen("grid")
        if self.kind(value.get("kind"), "grid"):
            for prop in ("row", "column"):
                self.prop(value["kind"], value.get(prop), "grid")

    def check_links(self, value: Any) -> None:
        if not _is_names(value):
            return self.misshapen("links")
        for i, kind in enumerate(value):
            if self.kind(kind, "links", i) and not self.comp.kinds[kind].value.link:
                self.problem("E304", f"`links`: kind `{kind}` is not a link kind", self.at("links", i))

    def check_stubs(self, value: Any) -> None:
        if not _is_names(value):
            return self.misshapen("stubs")
        for i, kind in enumerate(value):
            self.kind(kind, "stubs", i)

    def check_numbers(self, value: Any) -> None:
        if not isinstance(value, bool):
            self.misshapen("numbers")

    def check_laid(self, value: Any) -> None:
        if not isinstance(value, str):
            return self.misshapen("laid")
        self.zone(value, "laid")

    def check_tiles(self, value: Any) -> None:
        self.zones(value, "tiles")

    def check_hidden(self, value: Any) -> None:
        self.zones(value, "hidden")

    def check_face(self, value: Any) -> None:
        if not (isinstance(value, dict) and set(value) <= {"colour", "mark"} and _is_names(list(value.values()))):
            self.misshapen("face")

    def check_figures(self, value: Any) -> None:
        if not (isinstance(value, dict) and set(value) <= {"kinds", "colour", "injuries"}
                and _is_names(value.get("kinds", [])) and _is_names([v for k, v in value.items() if k != "kinds"])):
            return self.misshapen("figures")
        for kind in value.get("kinds", []):
            self.kind(kind, "figures")

    def check_badges(self, value: Any) -> None:
        if not _is_names(value):
            self.misshapen("badges")

    def check_piles(self, value: Any) -> None:
        if not isinstance(value, dict) or not all(_is_point(p) for p in value.values()):
            return self.misshapen("piles")
        for zone in value:
            self.zone(zone, "piles", zone)

    def check_tracks(self, value: Any) -> None:
        if not isinstance(value, list) or not all(
                isinstance(t, dict) and set(t) <= {"counter", "at", "entity", "spaces"} and _is_point(t.get("at"))
                and isinstance(t.get("counter"), str) for t in value):
            return self.misshapen("tracks")
        for i, track in enumerate(value):
            if track["counter"] not in self.comp.counters:
                self.problem("E300", f"`tracks`: unknown counter `{track['counter']}`", self.at("tracks", i),
                             did_you_mean(track["counter"], self.comp.counters))
            entity = track.get("entity")
            if entity is not None and entity not in self.comp.components:
                self.problem("E303", f"`tracks`: unknown component `{entity}`", self.at("tracks", i))

    # ---- names
    def kind(self, kind: Any, field: str, *key: Any) -> bool:
        if kind in self.comp.kinds:
            return True
        self.problem("E304", f"`{field}`: unknown kind `{kind}`", self.at(field, *key),
                     did_you_mean(str(kind), self.comp.kinds))
        return False

    def prop(self, kind: str, prop: Any, field: str) -> None:
        if prop not in self.comp.kinds[kind].value.props:
            self.problem("E306", f"`{field}`: kind `{kind}` has no prop `{prop}`", self.at(field),
                         did_you_mean(str(prop), self.comp.kinds[kind].value.props))

    def zone(self, zone: str, field: str, *key: Any) -> None:
        if zone not in self.comp.zones:
            self.problem("E305", f"`{field}`: unknown zone `{zone}`", self.at(field, *key),
                         did_you_mean(zone, self.comp.zones))

    def zones(self, value: Any, field: str) -> None:
        if not _is_names(value):
            return self.misshapen(field)
        for i, zone in enumerate(value):
            self.zone(zone, field, i)


def _is_point(value: Any) -> bool:
    return (isinstance(value, list) and len(value) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value))


def _is_names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def layout_for(comp: Composition, options: dict[str, Any]) -> dict[str, Any] | None:
    """The first layout (in declaration order) whose `when` the game's options meet, or None."""
    for declared in comp.layouts.values():
        layout = declared.value
        if isinstance(layout, dict) and all(options.get(k) == v for k, v in (layout.get("when") or {}).items()):
            return layout
    return None


def link_ends(comp: Composition, layout: dict[str, Any]) -> dict[str, list]:
    """Each printed link of the layout's link kinds: {id: [end a, end b, label at a, label at b]}
    (the links laid during play are in the view's `links`)."""
    kinds = set(layout.get("links", ())) | set(layout.get("stubs", ()))
    return {cid: [*c.spec.ends, *(c.spec.labels or (None, None))]
            for cid, c in comp.components.items() if c.spec.kind in kinds and c.spec.ends}
