"""The one registry of primitives: the checker, the compiler, the docs and completions read it.

A primitive declares its name, typed parameters, result type, kind, a doc line and the English
phrase a script reads it with (`nemesis explain`; other languages: nemesis_rules/phrases/):
* `pure`     reads the state (allowed everywhere, also in `fn` and `when`);
* `effect`   changes the state (procedures only);
* `chance`   draws from the seeded generator; the compiler gives it a step of its own so a
             scenario can script its outcome and a search bot can see it as a chance node;
* `decision` waits for a player (`choose`), or runs a procedure (`perform`).
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable
from typing import Any

import attrs

from nemesis_rules.engine.limits import MAX_RANGE, charge, check_length
from nemesis_rules.engine.state import E_COMP, E_FACE, E_KIND, E_PROPS, E_ZONE, read_record

TYPES = ("any", "int", "bool", "str", "entity", "zone", "list", "die", "kind", "action", "none")


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@attrs.frozen
class Param:
    name: str
    type: str = "any"
    default: Any = REQUIRED

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


@attrs.frozen
class Primitive:
    name: str
    params: tuple[Param, ...]
    returns: str
    kind: str  # pure | effect | chance | decision
    doc: str
    phrase: str  # how a script reads it in English: `{param}` placeholders, `[...]` optional parts
    impl: Callable[..., Any] | None = attrs.field(default=None, repr=False)
    varkw: bool = False  # accepts any further keyword arguments (as a dict)

    def signature(self) -> str:
        parts = []
        for p in self.params:
            text = f"{p.name}: {p.type}"
            if not p.required:
                text += f" = {_literal(p.default)}"
            parts.append(text)
        if self.varkw:
            parts.append("**args")
        return f"{self.name}({', '.join(parts)}) -> {self.returns}"


def _literal(v: Any) -> str:
    return {None: "none", True: "true", False: "false"}.get(v, repr(v)) if not isinstance(v, int) or isinstance(v, bool) else str(v)


REGISTRY: dict[str, Primitive] = {}


def primitive(name: str, *params: Param, returns: str = "none", kind: str = "pure",
              doc: str, phrase: str, varkw: bool = False) -> Callable:
    """Register the decorated function as the primitive `name`."""

    def register(fn: Callable) -> Callable:
        if name in REGISTRY:
            raise ValueError(f"primitive {name} registered twice")
        REGISTRY[name] = Primitive(name, params, returns, kind, doc, phrase, fn, varkw)
        return fn

    return register


class ScriptError(Exception):
    """A primitive met a value it cannot work with; the interpreter adds file and line."""


class Refusal(ScriptError):
    """The rules refuse the game as asked (`refuse`): a RefusedError, not a fault of the script."""


def entity_record(rt, e) -> list:
    """An entity's record, to read only (`state.read_record`); `rt.entity(e)` to change it."""
    try:
        return read_record(rt.state.entities, e)
    except (KeyError, TypeError):
        raise ScriptError(f"{e!r} is not an entity") from None


def _zone(rt, z, get=read_record) -> list[str]:
    """A zone's members, to read only; `get=operator.getitem` for a list this state may change."""
    try:
        return get(rt.state.zones, z)
    except (KeyError, TypeError):
        raise ScriptError(f"{z!r} is not a zone") from None


# What a function being computed reads (vm.Runtime.memo), by key: an entity (its id), a zone's
# contents (its name), a counter (its name), the list of entities made (MADE_KEY). Two things of
# one name share a key: a change of either then forgets more results than it needs to, never fewer.
MADE_KEY = "@made"
CHANGING_FIELDS = (E_ZONE, E_FACE)


def read(rt, key, value):
    """`value`, read from the state at `key`: noted for the function being computed, if any."""
    if rt.reads is not None:
        rt.reads.append(key)
    return value


def attr(rt, e, index: int):
    """A field of an entity's record that may change (CHANGING_FIELDS: its zone, its face), noted
    like `read`."""
    try:
        value = read_record(rt.state.entities, e)[index]
    except (KeyError, TypeError):
        raise ScriptError(f"{e!r} is not an entity") from None
    if rt.reads is not None:
        rt.reads.append(e)
    return value


def fixed_attr(rt, e, index: int):
    """A field of an entity's record that never changes (its kind, its component: those it was
    made with), so nothing needs noting. `entity_record(rt, e)[index]`, inline: one call less on a
    read that generated code makes thousands of times a game."""
    try:
        return read_record(rt.state.entities, e)[index]
    except (KeyError, TypeError):
        raise ScriptError(f"{e!r} is not an entity") from None


def _items(xs) -> tuple:
    if isinstance(xs, tuple):
        return xs
    raise ScriptError(f"expected a list, got {xs!r}")


# ---- zones and entities ----
@primitive("inside", Param("zone", "zone"), returns="list", doc="The entities in a zone, top first.",
           phrase="the contents of {zone}")
def inside(rt, zone):
    try:  # _zone, inline (one of the commonest primitives)
        value = tuple(read_record(rt.state.zones, zone))
    except (KeyError, TypeError):
        raise ScriptError(f"{zone!r} is not a zone") from None
    if rt.reads is not None:
        rt.reads.append(zone)
    return value


@primitive("size", Param("zone", "zone"), returns="int", doc="How many entities a zone holds.",
           phrase="the size of {zone}")
def size(rt, zone):
    return read(rt, zone, len(_zone(rt, zone)))


@primitive("top", Param("zone", "zone"), returns="entity",
           doc="The entity on top of a zone, or none when it is empty.",
           phrase="the top one of {zone}")
def top(rt, zone):
    z = _zone(rt, zone)
    return read(rt, zone, z[0] if z else None)


@primitive("bottom", Param("zone", "zone"), returns="entity",
           doc="The entity at the bottom of a zone, or none when it is empty.",
           phrase="the bottom one of {zone}")
def bottom(rt, zone):
    z = _zone(rt, zone)
    return read(rt, zone, z[-1] if z else None)


@primitive("move", Param("what", "entity"), Param("to", "zone"), Param("bottom", "bool", False),
           kind="effect", doc="Move an entity onto the top (or the bottom) of a zone.",
           phrase="put {what} [at the bottom{bottom}|on top] of {to}")
def move(rt, what, to, bottom=False):
    rt.move(what, to, bottom)


@primitive("deal", Param("source", "zone"), Param("to", "zone"), Param("n", "int", 1),
           returns="list", kind="effect",
           doc="Move up to n entities from the top of one zone to another; returns them.",
           phrase="deal [{n}|1] from the top of {source} to {to}")
def deal(rt, source, to, n=1):
    moved = tuple(_zone(rt, source)[: max(0, n)])
    for e in moved:
        rt.move(e, to, True)
    return moved


@primitive("create", Param("component", "str"), Param("to", "zone"), returns="entity",
           kind="effect", doc="Make a new entity from a component's record and put it in a zone.",
           phrase="make a new {component} in {to}")
def create(rt, component, to):
    return rt.create(component, to)


@primitive("reveal", Param("what", "entity"), kind="effect", doc="Turn an entity face up.",
           phrase="turn {what} face up")
def reveal(rt, what):
    ent = rt.entity(what)
    if ent[E_FACE] is not True:
        ent[E_FACE] = True
        rt.changed(what)


@primitive("conceal", Param("what", "entity"), kind="effect",
           doc="Turn an entity face down: nobody sees what it is, its owner included.",
           phrase="turn {what} face down")
def conceal(rt, what):
    ent = rt.entity(what)
    if ent[E_FACE] is not False:
        ent[E_FACE] = False
        rt.changed(what)


@primitive("make_public", Param("what", "entity"), kind="effect",
           doc="Let everyone see a face-up entity wherever it lies, even in a zone only its owner sees.",
           phrase="show {what} to everyone")
def make_public(rt, what):
    entity_record(rt, what)
    if what not in rt.state.public:
        rt.state.public.append(what)


@primitive("make_private", Param("what", "entity"), kind="effect",
           doc="Undo make_public: the entity's zone decides again who sees it.",
           phrase="stop showing {what} to everyone")
def make_private(rt, what):
    if what in rt.state.public:
        rt.state.public.remove(what)


@primitive("peek", Param("player", "entity"), Param("what", "entity"), kind="effect",
           doc="The player secretly looks at an entity: it shows in that player's view, where it lies, "
               "until it moves or its zone is shuffled.",
           phrase="{player} secretly looks at {what}")
def peek(rt, player, what):
    entity_record(rt, what)
    seats = rt.state.known.setdefault(what, [])
    seat = rt.seat_of(player)
    if seat not in seats:
        seats.append(seat)
        seats.sort()


@primitive("entities", Param("kind", "kind"), returns="list",
           doc="Every entity of a kind, in the order they were made.",
           phrase="every {kind}")
def entities(rt, kind):
    # entities are only ever added and never change kind: a list made stays right until one is made
    table = rt.state.entities
    made = rt.by_kind.get(kind)
    if made is None or made[0] is not table or made[1] > len(table):
        made = _at_start(rt, table, kind)
    if made[1] != len(table):  # only the ones made since are looked at (a dict keeps its order)
        new = itertools.islice(dict.items(table), made[1], None) if made[1] else dict.items(table)
        made = (table, len(table), made[2] + tuple([k for k, e in new if e[E_KIND] == kind]))  # a list: no generator
        rt.by_kind[kind] = made
    return read(rt, MADE_KEY, made[2])


def _at_start(rt, table: dict, kind: str) -> tuple:
    """(table, n, the first n entities' ids of this kind): a game's players then the program's
    components, in that order, known once per program and player count, else none known."""
    program, players = rt.program, rt.state.players
    known = program.kind_index.get(players)
    if known is None:
        ids = (*program.player_ids[:players], *(eid for eid, _, _ in program.initial))
        kinds: dict[str, list] = {"player": list(program.player_ids[:players])}
        for eid, cid, _ in program.initial:
            kinds.setdefault(program.templates[cid][0], []).append(eid)
        known = program.kind_index[players] = (ids, {k: tuple(v) for k, v in kinds.items()})
    ids, kinds = known
    checked = rt.by_kind.get(None)  # whether this table starts so (looked at once)
    if checked is None or checked[0] is not table:
        checked = rt.by_kind[None] = (table, tuple(itertools.islice(table, len(ids))) == ids)
    if not checked[1]:
        return (table, 0, ())
    return (table, len(ids), kinds.get(kind, ()))


@primitive("owner", Param("zone", "zone"), returns="entity",
           doc="The entity that owns a per-owner zone (`hand@player2` -> player2), or none.",
           phrase="the owner of {zone}")
def owner(rt, zone):
    _, _, who = str(zone).partition("@")
    return who or None


@primitive("has_script", Param("what", "entity"), Param("script", "str"), returns="bool",
           doc="Whether an entity's component defines the named script field (or expression field).",
           phrase="{what} has the script {script}")
def has_script(rt, what, script):
    name = f"{entity_record(rt, what)[E_COMP]}.{script}"
    return name in rt.program.procs or name in rt.program.fns


@primitive("prop", Param("what", "entity"), Param("name", "str"), returns="any",
           doc="A property read by name (for names computed at run time).",
           phrase="{name} of {what}")
def prop(rt, what, name):
    return rt.get_attr(what, name)


# ---- the graph of links ----
# Rules that never lay a link in play read the printed graph (`rt.program.graph`), fixed at load.
# Rules that do (`Program.grows`) read through the versions in GROWN instead (compile.py binds
# them): the printed graph with the links laid so far (`graph_of`), noted as read at GRAPH_KEY.
GRAPH_KEY = "@graph"
GROWN: dict[str, Callable] = {}


def graph_of(rt):
    """The graph as it stands: the printed one, with the links laid in play when there are any
    (built again only when they change: `GameState.links` is replaced, never changed in place)."""
    laid = rt.state.links
    if not laid:
        return rt.program.graph
    grown = rt.grown
    if grown is None or grown[0] is not laid:
        grown = rt.grown = (laid, rt.program.graph.grown(laid))
    return grown[1]


def _graph_read(rt):
    if rt.reads is not None:
        rt.reads.append(GRAPH_KEY)
    return graph_of(rt)


def _grown(name: str) -> Callable:
    def register(fn: Callable) -> Callable:
        GROWN[name] = fn
        return fn
    return register


@primitive("neighbors", Param("node", "entity"), returns="list",
           doc="The entities joined to this one by a link, by the link's label here.",
           phrase="the neighbours of {node}")
def neighbors(rt, node):
    return rt.program.graph.neighbors.get(node, ())


@_grown("neighbors")
def grown_neighbors(rt, node):
    return _graph_read(rt).neighbors.get(node, ())


@primitive("links", Param("node", "entity"), returns="list",
           doc="The links that touch an entity, by their label there (printed ones first among equal "
               "labels, then those laid in play in the order they were laid).",
           phrase="the links at {node}")
def links(rt, node):
    return rt.program.graph.links.get(node, ())


@_grown("links")
def grown_links(rt, node):
    return _graph_read(rt).links.get(node, ())


@primitive("link_at", Param("node", "entity"), Param("label", "any"), returns="entity",
           doc="The link with this label at an entity, or none.",
           phrase="the link labelled {label} at {node}")
def link_at(rt, node, label):
    return rt.program.graph.by_label.get((node, label))


@_grown("link_at")
def grown_link_at(rt, node, label):
    return _graph_read(rt).by_label.get((node, label))


@primitive("other_end", Param("link", "entity"), Param("node", "entity"), returns="entity",
           doc="The other end of a link.",
           phrase="the other end of {link} from {node}")
def other_end(rt, link, node):
    a, b = _ends(rt.program.graph, link)
    return b if node == a else a


@_grown("other_end")
def grown_other_end(rt, link, node):
    a, b = _ends(_graph_read(rt), link)
    return b if node == a else a


@primitive("ends", Param("link", "entity"), returns="list", doc="Both ends of a link.",
           phrase="both ends of {link}")
def ends(rt, link):
    return _ends(rt.program.graph, link)


@_grown("ends")
def grown_ends(rt, link):
    return _ends(_graph_read(rt), link)


@primitive("label_at", Param("link", "entity"), Param("node", "entity"), returns="any",
           doc="The label a link carries at one of its ends (the lowest, where it carries several).",
           phrase="the label of {link} at {node}")
def label_at(rt, link, node):
    return rt.program.graph.labels.get((link, node))


@_grown("label_at")
def grown_label_at(rt, link, node):
    return _graph_read(rt).labels.get((link, node))


@primitive("labels_at", Param("link", "entity"), Param("node", "entity"), returns="list",
           doc="Every label a link carries at one of its ends, lowest first (empty for none).",
           phrase="the labels of {link} at {node}")
def labels_at(rt, link, node):
    return tuple(sorted(rt.program.graph.label_sets.get((link, node), ())))


@_grown("labels_at")
def grown_labels_at(rt, link, node):
    return tuple(sorted(_graph_read(rt).label_sets.get((link, node), ())))


@primitive("rings", Param("node", "entity"), Param("kind", "kind"), Param("avoid", "list", ()), returns="list",
           doc="The nodes a node reaches along links of one kind, by distance: `[[node], [those one link "
               "away], [two links away], ...]`, each in the order found; never through a link in `avoid`.",
           phrase="the nodes around {node} along links of kind {kind}, nearest first[, not through {avoid}]")
def rings(rt, node, kind, avoid=()):
    return _rings(rt, rt.program.graph, node, kind, avoid)


@_grown("rings")
def grown_rings(rt, node, kind, avoid=()):
    return _rings(rt, _graph_read(rt), node, kind, avoid)


def _rings(rt, graph, node, kind, avoid):
    # a breadth-first search in Python: the same walk written in a script makes a function call
    # per node and per link, and a bot may ask for it at every decision
    blocked = set(_items(avoid))
    seen, front, out = {node}, [node], [(node,)]
    while front:
        ahead = []
        for here in front:
            for link in graph.links.get(here, ()):
                if link in blocked or entity_record(rt, link)[E_KIND] != kind:
                    continue
                a, b = graph.ends[link]
                there = b if here == a else a
                if there not in seen:
                    seen.add(there)
                    ahead.append(there)
        if ahead:
            out.append(tuple(ahead))
        front = ahead
    return tuple(out)


def _ends(graph, link) -> tuple:
    try:
        return graph.ends[link]
    except (KeyError, TypeError):
        raise ScriptError(f"{link!r} is not a link") from None


@primitive("connect", Param("a", "entity"), Param("b", "entity"), Param("link", "entity"),
           Param("label_a", "any", None), Param("label_b", "any", None), returns="entity", kind="effect",
           doc="Lay `link` (an entity of a link kind, laid nowhere yet: a tile drawn, or one just made "
               "with `create`) between a and b, with a label at each end (a number, a name, none, or a "
               "list of numbers or of names); returns the link. Every graph read sees it from now on.",
           phrase="lay {link} between {a} and {b}[, labelled {label_a} at {a}][ and {label_b} at {b}]")
def connect(rt, a, b, link, label_a=None, label_b=None):
    rt.lay_link(link, a, b, label_a, label_b)
    return link


@primitive("disconnect", Param("link", "entity"), kind="effect",
           doc="Lift a link laid in play (`connect`) off the graph; the entity stays where it is. "
               "A printed link cannot be lifted.",
           phrase="lift {link} off the board")
def disconnect(rt, link):
    rt.lift_link(link)


# ---- lists and numbers ----
@primitive("count", Param("items", "list"), returns="int", doc="The length of a list.",
           phrase="the number of {items}")
def count(rt, items):
    return len(items) if isinstance(items, tuple) else len(_items(items))


@primitive("sum", Param("items", "list"), returns="int", doc="The sum of a list of integers.",
           phrase="the sum of {items}")
def sum_(rt, items):
    return sum(_items(items))


@primitive("min", Param("items", "list"), returns="any", doc="The smallest item, or none.",
           phrase="the smallest of {items}")
def min_(rt, items):
    xs = _items(items)
    return min(xs) if xs else None


@primitive("max", Param("items", "list"), returns="any", doc="The largest item, or none.",
           phrase="the largest of {items}")
def max_(rt, items):
    xs = _items(items)
    return max(xs) if xs else None


@primitive("abs", Param("x", "int"), returns="int", doc="The absolute value.",
           phrase="the absolute value of {x}")
def abs_(rt, x):
    return abs(x)


@primitive("clamp", Param("x", "int"), Param("lo", "int"), Param("hi", "int"), returns="int",
           doc="x limited to lo..hi.",
           phrase="{x} kept between {lo} and {hi}")
def clamp(rt, x, lo, hi):
    return max(lo, min(hi, x))


@primitive("any", Param("items", "list"), returns="bool", doc="Whether any item is true.",
           phrase="at least one of {items} holds")
def any_(rt, items):
    return any(_items(items))


@primitive("all", Param("items", "list"), returns="bool", doc="Whether every item is true.",
           phrase="all of {items} hold")
def all_(rt, items):
    return all(_items(items))


@primitive("unique", Param("items", "list"), returns="list",
           doc="The items without repeats, in the order they first appear.",
           phrase="{items} without repeats")
def unique(rt, items):
    return tuple(dict.fromkeys(_items(items)))


@primitive("first", Param("items", "list"), returns="any", doc="The first item, or none.",
           phrase="the first of {items}")
def first(rt, items):
    xs = _items(items)
    return xs[0] if xs else None


@primitive("last", Param("items", "list"), returns="any", doc="The last item, or none.",
           phrase="the last of {items}")
def last(rt, items):
    xs = _items(items)
    return xs[-1] if xs else None


@primitive("sort", Param("items", "list"), returns="list", doc="The items in ascending order.",
           phrase="{items} from the smallest")
def sort(rt, items):
    return tuple(sorted(_items(items), key=_order))


@primitive("reverse", Param("items", "list"), returns="list", doc="The items in reverse order.",
           phrase="{items} in reverse order")
def reverse(rt, items):
    return _items(items)[::-1]


@primitive("without", Param("items", "list"), Param("item", "any"), returns="list",
           doc="The list without every occurrence of an item.",
           phrase="{items} without {item}")
def without(rt, items, item):
    return tuple(x for x in _items(items) if x != item)


@primitive("flatten", Param("lists", "list"), returns="list",
           doc="The items of each list in turn, as one list (`lists` is a list of lists).",
           phrase="the items of every list in {lists}")
def flatten(rt, lists):
    # one pass, where joining n lists with `+` one after another copies the items n times
    return check_length(tuple(itertools.chain.from_iterable(map(_items, _items(lists)))))


@primitive("index_of", Param("items", "list"), Param("item", "any"), returns="int",
           doc="The position of an item (from 0), or -1.",
           phrase="the position of {item} in {items}")
def index_of(rt, items, item):
    xs = _items(items)
    return xs.index(item) if item in xs else -1


@primitive("range", Param("start", "int"), Param("stop", "int"), returns="list",
           doc="The integers start, start+1, ..., stop-1.",
           phrase="the numbers from {start} up to {stop}, {stop} excluded")
def range_(rt, start, stop):
    if stop - start > MAX_RANGE:
        raise ScriptError(f"range() longer than {MAX_RANGE:,}")
    if stop - start > 64:
        charge(stop - start)
    return tuple(range(start, stop))


def _keyed(items, keys) -> list[tuple]:
    xs, ks = _items(items), _items(keys)
    if len(xs) != len(ks):
        raise ScriptError(f"{len(xs)} items but {len(ks)} keys")
    return sorted(zip(ks, range(len(xs)), xs, strict=True), key=lambda t: (_order(t[0]), t[1]))


def _order(v) -> tuple:
    return (str(type(v)), v)


@primitive("sort_by", Param("items", "list"), Param("keys", "list"), returns="list",
           doc="The items ordered by the matching keys (a list as long as items); ties keep their order.",
           phrase="{items} ordered by {keys}")
def sort_by(rt, items, keys):
    return tuple(x for _, _, x in _keyed(items, keys))


@primitive("min_by", Param("items", "list"), Param("keys", "list"), returns="any",
           doc="The item with the smallest matching key (the first of equals), or none.",
           phrase="the one of {items} with the smallest of {keys}")
def min_by(rt, items, keys):
    ordered = _keyed(items, keys)
    return ordered[0][2] if ordered else None


@primitive("max_by", Param("items", "list"), Param("keys", "list"), returns="any",
           doc="The item with the largest matching key (the first of equals), or none.",
           phrase="the one of {items} with the largest of {keys}")
def max_by(rt, items, keys):
    ordered = _keyed(items, keys)
    if not ordered:
        return None
    best = ordered[-1][0]
    return next(x for k, _, x in ordered if k == best)


@primitive("text", Param("value", "any"), returns="str",
           doc="A value as a string (to build a name: \"p\" + text(n)).",
           phrase="{value} as text")
def text(rt, value):
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "none"}[value]
    return str(value) if isinstance(value, int | str) else ",".join(text(rt, v) for v in value)


@primitive("pair", Param("a", "any"), Param("b", "any"), returns="list", doc="A two-item list.",
           phrase="the pair {a} and {b}")
def pair(rt, a, b):
    return (a, b)


# ---- players, counters, options ----
@primitive("players", returns="list", doc="The player entities in seat order.",
           phrase="the players")
def players(rt):
    return rt.program.player_ids[: rt.state.players]


@primitive("prior_players", Param("prop", "str"), returns="list",
           doc="In a game that continues a finished one (Game.new(after=...)): the value of `prop` of "
               "each player of that game, in seat order (none where unset); an empty list otherwise.",
           phrase="{prop} of each player of the game this one continues")
def prior_players(rt, prop):
    prior = rt.state.prior
    return tuple(p.get(prop) for p in prior["players"]) if prior is not None else ()


@primitive("prior_result", returns="str",
           doc="In a game that continues a finished one: the reason that game ended; none otherwise.",
           phrase="how the game this one continues ended")
def prior_result(rt):
    return rt.state.prior["result"].get("reason") if rt.state.prior is not None else None


@primitive("asked_in_play", returns="list",
           doc="The entities a test asked to put into play once setup is done (`nemesis simulate --with`), "
               "one of each component asked for; an empty list in any other game.",
           phrase="the components asked to be put into play")
def asked_in_play(rt):
    first = {}
    for eid, cid, _ in rt.program.initial:
        first.setdefault(cid, eid)
    return tuple(first[cid] for cid in rt.state.asked if cid in first)


@primitive("player_count", returns="int", doc="How many players the game has.",
           phrase="the number of players")
def player_count(rt):
    return rt.state.players


@primitive("seat", Param("player", "entity"), returns="int", doc="A player's seat, from 0.",
           phrase="the seat of {player}")
def seat(rt, player):
    return rt.seat_of(player)


@primitive("player_at", Param("seat", "int"), returns="entity",
           doc="The player in a seat (seats wrap around).",
           phrase="the player in seat {seat}")
def player_at(rt, seat):
    return rt.program.player_ids[seat % rt.state.players]


@primitive("next_player", Param("player", "entity"), returns="entity",
           doc="The player in the next seat, wrapping around.",
           phrase="the player after {player}")
def next_player(rt, player):
    return rt.program.player_ids[(rt.seat_of(player) + 1) % rt.state.players]


@primitive("option", Param("name", "str"), returns="any", doc="A game option's value.",
           phrase="the option {name}")
def option(rt, name):
    return rt.state.options.get(name)


@primitive("counter", Param("name", "str"), returns="int", doc="A counter read by name.",
           phrase="the counter {name}")
def counter(rt, name):
    return read(rt, name, rt.state.counters[name])


# ---- log and end ----
@primitive("log", Param("message", "str"), Param("to", "any", None), kind="effect", varkw=True,
           doc="Add a message (a catalog key) to the log; `to` limits it to a player or a list.",
           phrase="[tell {to}|tell everyone]: {message}")
def log(rt, message, to=None, **args):
    rt.add_log(message, to, args)


@primitive("end_game", Param("reason", "str"), Param("winners", "list", ()), kind="effect",
           doc="End the game: the result names the reason and the winners (player entities; the result lists their seats).",
           phrase="end the game: {reason}[; the winners: {winners}]")
def end_game(rt, reason, winners=()):
    rt.end_game(reason, winners)


@primitive("fail", Param("message", "str"), kind="effect",
           doc="Stop with a rules error: a state the module's rules say cannot happen.",
           phrase="stop with a rules error: {message}")
def fail(rt, message):
    raise ScriptError(str(message))


@primitive("refuse", Param("message", "str"), kind="effect",
           doc="Stop: the rules do not allow this game as asked (a mode that cannot follow the game it "
               "continues, say), which is no fault of the script; Game.new raises a RefusedError.",
           phrase="refuse the game: {message}")
def refuse(rt, message):
    raise Refusal(str(message))


# ---- chance (each gets its own step; see the module doc) ----
@primitive("roll", Param("die", "die"), returns="any", kind="chance",
           doc="Roll a declared die; returns the face.",
           phrase="roll {die}")
def roll(rt, die):
    faces = rt.program.dice[die]
    return faces[rt.below(len(faces))]


@primitive("pick", Param("items", "list"), returns="any", kind="chance",
           doc="One item at random (none for an empty list).",
           phrase="one of {items} at random")
def pick(rt, items):
    xs = _items(items)
    return xs[rt.below(len(xs))] if xs else None


@primitive("draw_random", Param("zone", "zone"), returns="entity", kind="chance",
           doc="A random entity of a zone (it stays there), or none when the zone is empty.",
           phrase="one of {zone} at random (it stays there)")
def draw_random(rt, zone):
    z = _zone(rt, zone)
    return z[rt.below(len(z))] if z else None


@primitive("random_int", Param("lo", "int"), Param("hi", "int"), returns="int", kind="chance",
           doc="A random integer from lo to hi inclusive.",
           phrase="a random number from {lo} to {hi}")
def random_int(rt, lo, hi):
    if hi < lo:
        raise ScriptError(f"random_int({lo}, {hi}): empty range")
    return lo + rt.below(hi - lo + 1)


@primitive("shuffle", Param("zone", "zone"), kind="effect",
           doc="Shuffle a zone with the seeded generator.",
           phrase="shuffle {zone}")
def shuffle(rt, zone):
    z = _zone(rt, zone, operator.getitem)  # shuffled in place: this state's own list
    for i in range(len(z) - 1, 0, -1):
        j = rt.below(i + 1)
        z[i], z[j] = z[j], z[i]
    known = rt.state.known
    if known:  # a peeked entity is lost in the shuffle
        for e in z:
            known.pop(e, None)
    rt.changed(zone)


# ---- decisions ----
@primitive("choose", Param("player", "entity"), Param("options", "list"), Param("prompt", "str", ""),
           Param("optional", "bool", False), returns="any", kind="decision",
           doc="Ask a player to pick one option; with optional=true passing gives none.",
           phrase="{player} chooses one of {options}[ ({prompt})][, or passes{optional}]")
def choose(rt, player, options, prompt="", optional=False):
    raise AssertionError("compiled as a step of its own")


@primitive("perform", Param("action", "action"), Param("actor", "entity"), kind="decision",
           doc="Run a declared action: ask its parameters, pay its cost, run its body.",
           phrase="{actor} performs {action}")
def perform(rt, action, actor):
    raise AssertionError("compiled as a step of its own")


@primitive("put_in_play", Param("what", "entity"), kind="decision",
           doc="Run the procedure the entity's kind names under `in_play:` (its module data), which puts "
               "it into play: dealt to a seat, revealed, or on top of its deck.",
           phrase="{what} is put into play")
def put_in_play(rt, what):
    raise AssertionError("compiled as a step of its own")


@primitive("actions", Param("actor", "entity"), returns="list",
           doc="The declared actions the actor may take now (when holds, cost payable).",
           phrase="the actions {actor} may take now")
def actions(rt, actor):
    return rt.available_actions(actor)


@primitive("available", Param("action", "action"), Param("actor", "entity"), returns="bool",
           doc="Whether the actor may take the action now: `action in actions(actor)`, testing that action alone.",
           phrase="{actor} may take {action} now")
def available(rt, action, actor):
    return rt.action_available(action, actor)


@primitive("cost_of", Param("action", "action"), Param("actor", "entity"), returns="int",
           doc="An action's cost for an actor (0 when it declares none).",
           phrase="the cost of {action} for {actor}")
def cost_of(rt, action, actor):
    return rt.action_cost(action, actor)


ENTITY_ATTRS = {
    "id": "The entity's id.",
    "kind": "Its kind.",
    "zone": "The zone it is in.",
    "component": "The component it was made from.",
    "face_up": "Whether it is face up.",
}
ENTITY_ATTR_INDEX = {"kind": E_KIND, "zone": E_ZONE, "face_up": E_FACE, "component": E_COMP}
PROPS = E_PROPS
