"""The typed records a module's YAML is structured into (with cattrs).

Field names here are the YAML keys; the loader reports unknown keys with a did-you-mean.
"""

from __future__ import annotations

from typing import Any

import attrs

from nemesis_rules.dsl.diagnostics import NO_SPAN, Span

Scalar = int | str | bool | None
VISIBILITIES = ("public", "owner", "owner_looks", "hidden", "secret")


@attrs.frozen
class OptionSpec:
    values: tuple[Scalar, ...]
    default: Scalar = None


@attrs.frozen
class PlayerRange:
    min: int = 1
    max: int = 8


@attrs.frozen
class PlayerReport:
    """Functions of one player entity, evaluated on a finished game's final state."""

    group: str | None = None  # -> an id whose label names the player's row (a character), or none
    survived: str | None = None  # -> true/false
    cause: str | None = None  # -> an id (how the player's character died), or none
    caveat: str | None = None  # -> an id (what qualifies its group's figures, e.g. unknown cards), or none
    objectives: str | None = None  # -> a list of entities (or one, or none): the player's goals at the end


@attrs.frozen
class PlaysReport:
    """Log entries with this message key, counted by the component of this argument."""

    message: str
    arg: str


@attrs.frozen
class ReportSpec:
    """What `nemesis simulate` reports besides how games ended: module data, all optional."""

    rounds: str | None = None  # a counter: its final value is the rounds played
    counters: tuple[str, ...] | None = None  # counters whose final mean the report shows (others: `--counters`)
    player: PlayerReport | None = None
    plays: PlaysReport | None = None
    # Card events for `nemesis simulate --out/--report`: an event name -> the zones a card entering
    # one of them counts as that event (`drawn: [hand]`); per-owner zones name every owner's copy.
    cards: dict[str, tuple[str, ...]] | None = None


@attrs.frozen
class PanelSpec:
    """A table `nemesis play` draws: `rows(viewer)` gives its rows, each a list of values."""

    rows: str  # a function of one player (the viewer; none for a spectator)
    columns: tuple[str, ...] = ()  # column headings, as names to translate
    title: str | None = None  # a name to translate


@attrs.frozen
class ScreenSpec:
    """How `nemesis play` draws a seat's view: module data, all optional."""

    counters: tuple[str, ...] | None = None  # the counters shown, in this order (default: all)
    panels: tuple[PanelSpec, ...] = ()  # modules' panels are drawn in module order
    zones: tuple[str, ...] | None = None  # the zones listed (default: all); the viewer's own always are


@attrs.frozen
class RewardTerm:
    """A shaped-reward term for learners (docs/research.md): one source and its weight. A seat's
    reward at a move is each term's change since the move before, times its weight."""

    weight: float
    player: str | None = None  # a function of one player: a number, or true (1) / false (0)
    counter: str | None = None  # a counter's value, the same for every seat
    message: str | None = None  # how many log entries have this message key, the same for every seat


@attrs.frozen
class SpielSpec:
    """How a root module is registered as an OpenSpiel game (nemesis_rules/openspiel.py, docs/research.md)."""

    name: str | None = None  # the game's name (default: `nemesis_<id>`)
    options: dict[str, Scalar] = attrs.Factory(dict)  # the game's defaults where they differ from the module's


@attrs.frozen
class Manifest:
    id: str
    name: str
    version: str
    engine: str = ">=0.1"
    requires: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    # Parts loaded only with another module: {other module id: the part's module id}. A module
    # written for several games keeps each game's specifics in such a part (docs/modding.md).
    adapters: dict[str, str] = attrs.Factory(dict)
    players: PlayerRange | None = None
    entry: str | None = None
    options: dict[str, OptionSpec] = attrs.Factory(dict)
    description: str = ""
    report: ReportSpec | None = None
    screen: ScreenSpec | None = None
    rewards: dict[str, RewardTerm] = attrs.Factory(dict)  # shaped rewards, off unless a learner asks
    openspiel: SpielSpec | None = None
    languages: tuple[str, ...] | None = None  # the catalogs it ships (None: every language loaded)


@attrs.frozen
class KindSpec:
    props: dict[str, str] = attrs.Factory(dict)
    defaults: dict[str, Any] = attrs.Factory(dict)
    scripts: dict[str, tuple[str, ...]] = attrs.Factory(dict)
    functions: dict[str, tuple[str, ...]] = attrs.Factory(dict)  # script fields holding one expression
    zones: tuple[str, ...] = ()
    link: bool = False
    extend: bool = False  # add props, defaults and scripts to a kind declared elsewhere
    back: str | None = None  # the prop printed on its back: a seat that may not see the entity sees this
    text: str | None = None  # the script field printed on its face: a frontend reads it beside the name
    # `{links: [kinds], labels: [..], part: prop}`: its components, joined by printed links of those
    # kinds, each cover every label once and all reach one another (per value of `part`; linter W507, E508, E509)
    graph: dict[str, Any] | None = None
    # the procedure (one parameter: the entity) that puts one of its components into play when a
    # test asks for it (`nemesis simulate --with ID`): dealt, revealed or on top of its deck
    in_play: str | None = None


@attrs.frozen
class ZoneSpec:
    visibility: str = "public"
    per: str | None = None
    size: int | None = None  # how many entities it holds at the start (checked)
    # the kinds of the components that may start in it, and props they must all have there (linter E510)
    holds: tuple[str, ...] | None = None
    where: dict[str, Any] | None = None


@attrs.frozen
class CounterSpec:
    min: int = 0
    max: int = 99
    start: int = 0
    clamp: bool = False


@attrs.frozen
class ComponentSpec:
    id: str
    kind: str
    count: int = 1
    zone: str | None = None
    face_up: bool = True
    props: dict[str, Any] = attrs.Factory(dict)
    ends: tuple[str, str] | None = None
    # each end's label: a scalar, or a list of scalars when the link carries several labels there
    labels: tuple[Any, Any] | None = None
    replace: bool = False


@attrs.frozen
class ComponentFile:
    symbols: tuple[str, ...] = ()
    kinds: dict[str, KindSpec] = attrs.Factory(dict)
    zones: dict[str, ZoneSpec] = attrs.Factory(dict)
    counters: dict[str, CounterSpec] = attrs.Factory(dict)
    dice: dict[str, tuple[int | str, ...]] = attrs.Factory(dict)
    types: dict[str, str] = attrs.Factory(dict)  # named prop types (a symbol set named again adds symbols)
    components: tuple[dict[str, Any], ...] = ()  # structured one by one (script fields vary)
    remove: tuple[str, ...] = ()
    # how a frontend draws a board: {name: plain data}, checked by ruleset/layout.py (docs/modding.md)
    layouts: dict[str, dict[str, Any]] = attrs.Factory(dict)


@attrs.frozen
class Catalog:
    names: dict[str, str] = attrs.Factory(dict)
    messages: dict[str, str] = attrs.Factory(dict)
    # how a call of the module's procedure or function reads in a card's text: name -> a template
    # with its parameters as `{placeholders}` (nemesis_rules/dsl/describe.py)
    readings: dict[str, str] = attrs.Factory(dict)


@attrs.frozen
class Script:
    """A script field of a component: its text and where that text starts in its file."""

    text: str
    span: Span
    line_offset: int
    col_offset: int


@attrs.frozen
class Component:
    spec: ComponentSpec
    scripts: dict[str, Script]
    module: str
    span: Span = NO_SPAN
    field_spans: dict[str, Span] = attrs.Factory(dict)  # "kind", "zone", "props.value", ...

    def at(self, field: str) -> Span:
        """Where a field (or `props.<name>`) is written, else where the component starts."""
        return self.field_spans.get(field, self.span)
