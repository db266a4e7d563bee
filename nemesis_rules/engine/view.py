"""What one player may see: the state, the log and the pending decision, redacted by the
visibility each zone declares and by entities lying face down."""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from typing import Any

from nemesis_rules.dsl.diagnostics import RulesError
from nemesis_rules.engine import limits, vm
from nemesis_rules.engine.program import Program
from nemesis_rules.engine.state import (
    E_COMP,
    E_FACE,
    E_KIND,
    E_PROPS,
    E_ZONE,
    Entities,
    GameState,
    read_record,
    tuplify,
)


def zone_visible(program: Program, zone: str, seat: int | None) -> str:
    """`all` (identities shown), `look` (all, face-down ones too: the owner of an `owner_looks`
    zone), `size` (only how many, and the backs), or `none` (not even that)."""
    levels = _seat_levels(program, seat)
    return levels.get(zone) or _learn_level(program, levels, zone, seat)


def _seat_levels(program: Program, seat: int | None) -> dict[str, str]:
    """zone -> what `seat` sees of it, as far as worked out (`_learn_level` adds the others)."""
    levels = program.seen_levels.get(seat)
    if levels is None:
        levels = program.seen_levels[seat] = {}
    return levels


def _learn_level(program: Program, levels: dict[str, str], zone: str, seat: int | None) -> str:
    level = levels[zone] = _zone_level(program, zone, seat)
    return level


def _zone_level(program: Program, zone: str, seat: int | None) -> str:
    name, _, owner = zone.partition("@")
    vis = program.zone_visibility.get(name, "public")
    if vis == "public":
        return "all"
    if vis == "owner" or vis == "owner_looks":
        owned = seat is not None and owner == program.player_ids[seat]
        return ("all" if vis == "owner" else "look") if owned else "size"
    if vis == "hidden":
        return "size"
    return "none"


def entity_view(program: Program, ent: list) -> dict[str, Any]:
    defaults = program.kind_defaults.get(ent[E_KIND])
    props = {**defaults, **ent[E_PROPS]} if defaults else dict(ent[E_PROPS])
    return {"kind": ent[E_KIND], "component": ent[E_COMP], "zone": ent[E_ZONE], "props": props,
            "face_up": ent[E_FACE]}


def view(program: Program, st: GameState, seat: int | None, with_log: bool = True,
         log_from: int = 0) -> dict[str, Any]:
    """A JSON-ready dict of what `seat` may see (None: a spectator, who sees only public things);
    `with_log=False` leaves the log out (a bot that reads only the position saves the copy), and
    `log_from` keeps only the entries from that index of the whole log on (a caller that has read
    the earlier ones skips their copy).

    In a zone the seat may only count, it still sees the face-up entities made public
    (`public`) and, where they lie, those it has peeked at (`known`: entity -> position)."""
    zones: dict[str, Any] = {}
    shown: set[str] = set()
    public = set(st.public)
    known = {e for e, seats in st.known.items() if seat in seats} if seat is not None else set()
    table, record = st.entities, read_record  # reads only: no copy of what a clone shares
    levels = _seat_levels(program, seat)
    backs = program.kind_backs  # kinds that print a prop on their back (none: no back is looked up)
    for key, members in dict.items(st.zones):
        level = levels.get(key) or _learn_level(program, levels, key, seat)
        if level == "all":
            listed = list(members)
            hidden = False
            for i, eid in enumerate(members):
                ent = record(table, eid)
                if not ent[E_FACE] and eid not in known:
                    listed[i] = {"face_down": ent[E_KIND]}
                    if backs:
                        _show_back(program, ent, listed[i])
                    hidden = True
            shown.update(members if not hidden else [e for e in listed if type(e) is str])
            zones[key] = {"size": len(members), "entities": listed}
        elif level == "look":  # the owner looks at its face-down entities too
            shown.update(members)
            zones[key] = {"size": len(members), "entities": list(members)}
        elif level == "size":
            if public.isdisjoint(members) and known.isdisjoint(members):  # nothing in it is shown
                zones[key] = {"size": len(members)}
            else:
                zones[key] = _counted_zone(st, members, public, known, shown)
            if backs:
                _show_backs(program, table, members, zones[key])
    defaults = program.kind_defaults
    entities = {}
    for eid, ent in dict.items(table):  # entity_view(program, ent), inline: a view makes hundreds
        if eid in shown or (ent[E_FACE] and ent[E_ZONE] is None):
            props = defaults.get(ent[E_KIND])
            if props:  # {**defaults, **own}: a copy of the defaults (a dict's fastest copy), then its own
                props = props.copy()
                props.update(ent[E_PROPS])
            else:
                props = dict(ent[E_PROPS])
            entities[eid] = {"kind": ent[E_KIND], "component": ent[E_COMP], "zone": ent[E_ZONE], "props": props,
                             "face_up": ent[E_FACE]}
    return {
        **({"links": seen_links(st, entities.__contains__)} if st.links else {}),
        "seat": seat,
        "players": st.players,
        "options": dict(st.options),
        "counters": dict(st.counters),
        "zones": zones,
        "entities": entities,
        "decision": _decision_view(st, seat, program, entities),
        "log": [entry for entry in st.log[log_from:] if entry["to"] is None or (seat is not None and seat in entry["to"])]
        if with_log else [],
        "result": st.result,
    }


def _show_back(program: Program, ent: list, placeholder: dict[str, Any]) -> None:
    """A face-down entity's placeholder gets what its kind prints on its back (`back: prop`), when
    this one prints something there (a support card with no colour shows no back)."""
    prop = program.kind_backs.get(ent[E_KIND])
    if prop is not None:
        back = _prop(program, ent, prop)
        if back is not None:
            placeholder["back"] = back


def _show_backs(program: Program, table: Entities, members: list[str], zone: dict[str, Any]) -> None:
    """A counted zone shows each member's back (`backs`, in the zone's order; None where its kind
    prints nothing there), when one of them prints something."""
    backs = program.kind_backs
    seen = [None] * len(members)
    for i, eid in enumerate(members):
        ent = read_record(table, eid)
        prop = backs.get(ent[E_KIND])
        if prop is not None:
            seen[i] = _prop(program, ent, prop)
    if any(b is not None for b in seen):
        zone["backs"] = seen


def _prop(program: Program, ent: list, prop: str) -> Any:
    """An entity's prop, its kind's default where it has none of its own."""
    props = ent[E_PROPS]
    return props[prop] if prop in props else program.kind_defaults[ent[E_KIND]].get(prop)


def _counted_zone(st: GameState, members: list[str], public: set[str], known: set[str],
                  shown: set[str]) -> dict[str, Any]:
    zone: dict[str, Any] = {"size": len(members)}
    exposed = [e for e in members if e in public and read_record(st.entities, e)[E_FACE] and e not in known]
    if exposed:
        zone["public"] = exposed
    peeked = {e: i for i, e in enumerate(members) if e in known}
    if peeked:
        zone["known"] = peeked
    shown.update(exposed, peeked)
    return zone


def seen_links(st: GameState, sees: Callable[[str], bool]) -> list[list]:
    """The links laid in play that a seat sees: those whose link and both ends it sees (a link
    to a tile still hidden in a pile stays hidden with the tile)."""
    return [list(row) for row in st.links if sees(row[0]) and sees(row[1]) and sees(row[2])]


def _decision_view(st: GameState, seat: int | None, program: Program,
                   shown: dict[str, Any]) -> dict[str, Any] | None:
    """The pending decision as `seat` sees it: its options only if it decides, and each option
    naming an entity the seat does not see (a card face down in its own hand) as that entity's
    placeholder in a zone (`{"face_down": kind}`, with its back), so that an option tells no more
    than the zones do (the option's index stays what a move names)."""
    d = st.pending
    if d is None:
        return None
    if d["player"] == -1:
        return {"player": -1, "prompt": d["prompt"], "chance": True}
    if d["player"] != seat:
        return {"player": d["player"], "prompt": d["prompt"]}
    return {"player": d["player"], "prompt": d["prompt"],
            "options": [_seen_option(program, st.entities, shown, o) for o in d["options"]],
            "optional": d["optional"]}


def _seen_option(program: Program, table: Entities, shown: dict[str, Any], value: Any) -> Any:
    if type(value) is str:
        if value in shown or value not in table:  # seen, or no entity (a symbol, a player)
            return value
        ent = read_record(table, value)
        placeholder = {"face_down": ent[E_KIND]}
        _show_back(program, ent, placeholder)
        return placeholder
    if type(value) in (tuple, list):
        return type(value)(_seen_option(program, table, shown, v) for v in value)
    return value


HIDDEN_KIND = "?"  # the kind of a placeholder whose kind the seat does not see (no script names it)


def seen_state(program: Program, seen: dict[str, Any], ruleset: str) -> GameState:
    """A state holding only what a view shows, for pure functions to read on a seat's behalf.

    Every entity the seat cannot see becomes a placeholder with a fresh id `?N`: face down, no
    props of its own (its kind's defaults answer), and the kind `?` unless the view shows its
    kind. A zone the seat may not even count is absent. The generator, the stack and the log are
    empty, so nothing read from this state can tell more than the view did.
    """
    st = GameState(seen["players"], 0, dict(seen["options"]), ruleset)
    st.counters = dict(seen["counters"])
    st.links = tuplify(seen.get("links", ()))
    entities = st.entities
    for eid, ent in seen["entities"].items():
        # the props are shared with the view, not copied: nothing runs here that could change them
        entities[eid] = [ent["kind"], ent["zone"], ent["props"], ent.get("face_up", True), ent["component"]]
    hidden = 0

    def placeholder(kind: str, zone: str) -> str:
        nonlocal hidden
        hidden += 1
        pid = f"?{hidden}"
        entities[pid] = [kind, zone, {}, False, ""]
        return pid

    for key, z in seen["zones"].items():
        if "entities" in z:
            st.zones[key] = [e if isinstance(e, str) else placeholder(e["face_down"], key) for e in z["entities"]]
        else:
            st.zones[key] = _counted_members(z, lambda key=key: placeholder(HIDDEN_KIND, key))
    return st


def _unseen_zones(program: Program, zones: dict[str, list[str]], seat: int | None) -> list[str]:
    """The zones the seat may not even count (`none`), worked out once per seat and set of zones
    (a game adds zones only with the entities it makes); every zone's level is learned on the way."""
    keys = list(zones)
    found = program.unseen_zones.get(seat)
    if found is None or found[0] != keys:
        levels = _seat_levels(program, seat)
        found = program.unseen_zones[seat] = (
            keys, [k for k in keys if (levels.get(k) or _learn_level(program, levels, k, seat)) == "none"])
    return found[1]


def seen_state_of(program: Program, st: GameState, seat: int | None) -> GameState:
    """`seen_state(program, view(program, st, seat), st.ruleset)` without the view in between (what
    a bot reads at every decision): equal to it, but built without copying what the seat sees.
    An entity or a zone the seat sees whole is `st`'s own list (so an entity's props are its own,
    not merged with its kind's defaults; reads fall back to those just the same). Valid until `st`
    changes, and nothing may write to it: pure functions read it between two moves of `st`."""
    out = GameState(st.players, 0, dict(st.options), st.ruleset)
    out.counters = dict(st.counters)
    entities, levels, zones = st.entities, _seat_levels(program, seat), out.zones
    public = set(st.public)
    known = {e for e, seats in st.known.items() if seat in seats} if seat is not None else set()
    shown: set[str] = set()
    made: dict[str, list] = {}  # the placeholders, in the order the view's zones list them
    # every zone as it is (reads only: no copy of what a clone shares), less those the seat may not
    # even count; then the ones that hold something, as the seat sees them
    dict.update(zones, st.zones)
    for key in _unseen_zones(program, st.zones, seat):
        dict.__delitem__(zones, key)
    for key, members in compress(dict.items(st.zones), dict.values(st.zones)):
        level = levels[key]
        if level == "all":
            for e in members:
                if not read_record(entities, e)[E_FACE] and e not in known:
                    zones[key] = [_seen_member(entities, e, key, known, shown, made) for e in members]
                    break
            else:  # listed as it is already
                shown.update(members)
        elif level == "look":  # the owner looks at its face-down entities too
            shown.update(members)
        elif level == "size":
            if public.isdisjoint(members) and known.isdisjoint(members):  # nothing in it is shown
                zones[key] = _placeholders(made, len(members), key)
                continue
            counted = _counted_zone(st, members, public, known, shown)
            if len(counted) == 1:  # what is public there lies face down: nothing is shown
                zones[key] = _placeholders(made, len(members), key)
            else:
                zones[key] = [e if e is not None else _placeholders(made, 1, key)[0]
                              for e in _counted_members(counted, lambda: None)]
    out.entities = Entities({e: ent for e, ent in dict.items(entities) if e in shown or (ent[E_FACE] and ent[E_ZONE] is None)})
    if st.links:
        out.links = tuplify(seen_links(st, out.entities.__contains__))
    out.entities.update(made)
    return out


class LazySeenState(GameState):
    """`seen_state_of(program, st, seat)`, made at the first read of its entities or zones: the
    hints of many decisions read neither (which card pays, what to discard), and then the seat's
    seen state costs nothing. The same promise: valid until `st` changes; nothing writes to it."""

    __slots__ = ("_source",)

    def __init__(self, program: Program, st: GameState, seat: int | None) -> None:
        super().__init__(st.players, 0, dict(st.options), st.ruleset)
        self.counters = dict(st.counters)
        if st.links:  # read by graph reads, which do not make the entities
            self.links = tuplify(seen_links(st, lambda e: sees_entity(program, st, seat, e)))
        self._source = (program, st, seat)

    def _made(self) -> None:
        program, st, seat = self._source
        self._source = None
        full = seen_state_of(program, st, seat)
        # GameState's own fields from now on, in a class of the same slots without the properties:
        # a hint reads them some hundred times a decision, and each read of a property is a call
        _ENTITIES_FIELD.__set__(self, full.entities)
        _ZONES_FIELD.__set__(self, full.zones)
        self.__class__ = _MadeSeenState

    # read only while not made (then the class has no properties)
    @property
    def entities(self) -> dict[str, list]:
        self._made()
        return self.entities

    @entities.setter
    def entities(self, value: dict[str, list]) -> None:  # GameState.__init__ sets it
        _ENTITIES_FIELD.__set__(self, value)

    @property
    def zones(self) -> dict[str, list[str]]:
        self._made()
        return self.zones

    @zones.setter
    def zones(self, value: dict[str, list[str]]) -> None:
        _ZONES_FIELD.__set__(self, value)


_ENTITIES_FIELD, _ZONES_FIELD = GameState.__dict__["entities"], GameState.__dict__["zones"]


class _MadeSeenState(GameState):
    """A `LazySeenState` once made: its entities and zones are GameState's own fields again."""

    __slots__ = LazySeenState.__slots__


def sees_entity(program: Program, st: GameState, seat: int | None, eid: str) -> bool:
    """Whether `seat` sees the entity `eid` (it is in `seen_state_of(program, st, seat)` by its id)."""
    ent = dict.get(st.entities, eid)  # read only
    if ent is None:
        return False
    zone = ent[E_ZONE]
    if zone is None:
        return ent[E_FACE]
    level = zone_visible(program, zone, seat)
    peeked = seat is not None and seat in st.known.get(eid, ())
    if level == "look":
        return True
    if level == "all":
        return ent[E_FACE] or peeked
    return level == "size" and (peeked or (ent[E_FACE] and eid in st.public))


def _seen_member(entities: dict, e: str, zone: str, known: set[str], shown: set[str], made: dict) -> str:
    ent = read_record(entities, e)
    if ent[E_FACE] or e in known:
        shown.add(e)
        return e
    pid = _placeholder_ids(len(made) + 1)[len(made)]
    made[pid] = [ent[E_KIND], zone, {}, False, ""]
    return pid


_PLACEHOLDER_IDS = [f"?{i}" for i in range(1, 1001)]


def _placeholder_ids(n: int) -> list[str]:
    """The names of the first `n` placeholders (or more): `?1`, `?2` ..."""
    while len(_PLACEHOLDER_IDS) < n:
        _PLACEHOLDER_IDS.append(f"?{len(_PLACEHOLDER_IDS) + 1}")
    return _PLACEHOLDER_IDS


def _placeholders(made: dict[str, list], n: int, zone: str) -> list[str]:
    """`n` new placeholders of an unseen kind in `zone`, numbered on from those `made` so far.
    They share one record: nothing writes to a seen state."""
    first = len(made)
    ids = _placeholder_ids(first + n)[first:first + n]
    made.update(dict.fromkeys(ids, [HIDDEN_KIND, zone, {}, False, ""]))
    return ids


def _counted_members(zone: dict[str, Any], hidden: Callable[[], str | None]) -> list[str | None]:
    """A counted zone's members: peeked entities where they lie, public ones in the last free
    places (where they lie is not shown), placeholders made by `hidden()` elsewhere."""
    members: list[str | None] = [None] * zone["size"]
    for e, i in zone.get("known", {}).items():
        members[i] = e
    public = list(zone.get("public", ()))
    free = [i for i, m in enumerate(members) if m is None]
    for e, i in zip(public, free[len(free) - len(public):], strict=True):
        members[i] = e
    return [m if m is not None else hidden() for m in members]


class SeenFunctions:
    """The rules' pure functions, run on what one seat sees (its `seen_state`): what a bot's hints
    and a module's screen panels read, so neither can show or use a hidden card."""

    def __init__(self, program: Program, seen: dict[str, Any] | GameState, ruleset: str) -> None:
        """`seen`: a seat's view, or a state that holds only what it shows (`seen_state_of`)."""
        self.program = program
        state = seen if isinstance(seen, GameState) else seen_state(program, seen, ruleset)
        self.rt = vm.Runtime(program, state)

    def call(self, name: str, *args: Any) -> Any:
        """`name(*args)`; raises RulesError naming the call when the function fails."""
        limits.work[0] = 0
        try:
            return self.program.fns[name](self.rt, list(args))
        except (RulesError, *vm._RUNTIME_ERRORS) as err:  # a type fault too (an entity < a string)
            shown = ", ".join(repr(a) if not isinstance(a, str) else a for a in args)
            raise RulesError(f"{name}({shown}) failed on a seat's view: {err}") from None
