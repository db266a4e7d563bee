"""The compact save (format 3): a state written as what differs from the game's setup layout.

The rules already know every starting entity (the players, then the components in program
order), its kind, component, printed props and face, and where setup places it. A save names
the rules (their fingerprint) and writes only the rest:

* `made`: the ids of the entities made in play (`component#N`), in the order they were made;
* `zones`: each zone whose members differ from the layout's, as entity numbers (an entity's
  number is its place in the list of entities: the starting ones, then `made`); an entity's own
  zone field is not written, it is the zone that lists it;
* `face`: the numbers of the entities whose face differs from their component's;
* `props`: `[number, {prop: value}]` for each entity with props that differ from its component's;
* every other field as in the full form (`GameState.to_dict`): counters, stack, pending, log ...
  (`links`, the links laid in play, only when there are some)

Loading starts from the layout (shared, copy on access, like a clone) and applies the
differences, so both ways cost about what the game changed. A state the compact form cannot say
(an entity deleted or its zone field edited by hand) is written in the full form, format 2, which
the checks then refuse with a message naming the fault.
"""

from __future__ import annotations

from itertools import chain, compress, count, repeat
from operator import ne
from typing import Any

import attrs

from nemesis_rules.dsl.diagnostics import RulesError
from nemesis_rules.engine.program import Program
from nemesis_rules.engine.state import (
    E_COMP,
    E_FACE,
    E_KIND,
    E_PROPS,
    E_ZONE,
    Entities,
    GameState,
    Zones,
    canonical_json,
    read_record,
    seal,
    tuplify,
)

FORMAT_VERSION = 3  # 3: the compact save; 2: the full form (still read)
_FLAT = {str, int, bool, type(None)}
FIELDS = ("format", "players", "seed", "options", "ruleset", "made", "zones", "face", "props", "counters",
          "rng", "stack", "pending", "log", "result", "next_id", "forced", "moves", "explicit_chance",
          "public", "known", "ask_forced")


@attrs.frozen
class Layout:
    """Where a game of these rules and this many players stands before its entry procedure runs."""

    ids: tuple[str, ...]  # the starting entities, in the order a game makes them
    index: dict[str, int]  # id -> its number
    records: Entities  # id -> record as setup leaves it (only ever shared, never changed)
    values: list[list]  # the records in order
    zones: Zones  # zone -> members as setup leaves them (likewise)
    zone_names: list[str]  # the zones in order
    members: list[list[str]]  # their members, in that order
    kinds: list[str]  # per entity number: its kind, component and setup zone
    comps: list[str]
    first_zones: list[str | None]
    faces: list[bool]
    props: list[dict]
    id_list: list[str]  # `ids` as a list (a state's keys are compared with it)
    zone_set: frozenset[str]  # the zones' names
    sizes: list[int]  # per zone, in order: how many entities setup puts there
    numbers: dict[str, tuple[int, ...]]  # zone -> the numbers of the entities setup puts there


def place_components(program: Program, st: GameState) -> None:
    """Make the players and the starting components, and put each where setup says: a copy of
    the layout (worked out once per player count, `_place`), record by record."""
    base = layout(program, st.players)
    st.entities = Entities({eid: [r[0], r[1], dict(r[2]), r[3], r[4]] for eid, r in dict.items(base.records)})
    st.zones = Zones({name: members[:] for name, members in dict.items(base.zones)})
    st.counters = {name: c[2] for name, c in program.counters.items()}


def _place(program: Program, st: GameState) -> None:
    """Make the players and the starting components in `st`, and put each where setup says."""
    for i in range(st.players):
        pid = program.player_ids[i]
        st.entities[pid] = ["player", None, {}, True, "player"]
        for z in program.kind_zones.get("player", ()):
            st.zones[f"{z}@{pid}"] = []
    for name, per in program.zone_per.items():
        if per is None:
            st.zones[name] = []
    for eid, cid, _ in program.initial:
        kind, props, face = program.templates[cid]
        st.entities[eid] = [kind, None, dict(props), face, cid]
        for z in program.kind_zones.get(kind, ()):
            st.zones[f"{z}@{eid}"] = []
    for eid, _, zone in program.initial:
        if zone is None:
            continue
        if zone not in st.zones:
            raise RulesError(f"component {eid} starts in zone {zone!r}, which this game does not have")
        st.zones[zone].append(eid)
        st.entities[eid][E_ZONE] = zone
    st.counters = {name: c[2] for name, c in program.counters.items()}


def layout(program: Program, players: int) -> Layout:
    """The setup layout for `players` (worked out once per program and player count)."""
    found = program.layouts.get(players)
    if found is None:
        st = GameState(players, 0, {}, "")
        _place(program, st)
        ids, values = tuple(st.entities), list(st.entities.values())
        index = {eid: i for i, eid in enumerate(ids)}
        found = program.layouts[players] = Layout(
            ids, index, st.entities, values, st.zones, list(st.zones),
            list(st.zones.values()), [r[E_KIND] for r in values], [r[E_COMP] for r in values],
            [r[E_ZONE] for r in values], [r[E_FACE] for r in values], [r[E_PROPS] for r in values],
            list(ids), frozenset(st.zones), [len(m) for m in st.zones.values()],
            {name: tuple(index[e] for e in members) for name, members in st.zones.items()})
    return found


# ---- writing ----
def encode(program: Program, st: GameState) -> str:
    """The state's compact save: canonical JSON sealed by `_digest`, or the full form when the
    compact one cannot say this state."""
    body = compact(program, st)
    return st.to_json() if body is None else seal(canonical_json(body))


def compact(program: Program, st: GameState) -> dict[str, Any] | None:
    base = layout(program, st.players)
    keys, values = list(dict.keys(st.entities)), list(dict.values(st.entities))
    n0 = len(base.ids)
    if keys[:n0] != base.id_list:
        return None
    made = keys[n0:]
    index, wanted = base.index, base.values  # each entity's number; its record as setup (or making) leaves it
    if made:
        index, wanted = {**index, **dict(zip(made, count(n0)))}, wanted[:]
        for eid in made:
            comp = eid.partition("#")[0]
            if comp not in program.templates:
                return None
            kind, printed, face = program.templates[comp]
            wanted.append([kind, None, printed, face, comp])
    zones = _zones(program, st, base, index, values, made)
    if zones is None:
        return None
    # how many fields name a listed zone, less how many entities are listed: setup's count to start
    out, unlisted = zones
    # one C loop finds the records that differ from setup's (a few hundred of some 700: the moved
    # ones mostly); a plain loop looks at those (3.11 runs it faster than a chain of maps)
    face: list[int] = []
    props: list[list] = []
    for i in compress(count(), map(ne, values, wanted)):
        now, then = values[i], wanted[i]
        if now[E_COMP] != then[E_COMP] or now[E_KIND] != then[E_KIND]:
            return None
        if now[E_FACE] != then[E_FACE]:
            face.append(i)
        if now[E_PROPS] != then[E_PROPS]:
            mine, printed = now[E_PROPS], then[E_PROPS]
            if not printed.keys() <= mine.keys():
                return None  # a prop deleted by hand
            props.append([i, {k: v for k, v in mine.items() if k not in printed or printed[k] != v}])
        field, first = now[E_ZONE], then[E_ZONE]
        if field != first:
            # a field outside the changed zones must name the zone setup put it in (which still
            # lists it), and an entity in no zone must not lie where setup put it either
            if field in out:
                unlisted += 1
            elif field is not None or first not in out:
                return None
            if first in out:
                unlisted -= 1
    if unlisted:
        return None  # a field naming a listed zone that does not list it
    return {
        "format": FORMAT_VERSION, "players": st.players, "seed": st.seed, "options": st.options,
        "ruleset": st.ruleset, "made": made, "zones": out, "face": face, "props": props,
        "counters": st.counters, "rng": st.rng, "stack": st.stack, "pending": st.pending, "log": st.log,
        "result": st.result, "next_id": st.next_id, "forced": st.forced, "moves": st.moves,
        "explicit_chance": st.explicit_chance, "public": st.public, "known": st.known,
        "ask_forced": st.ask_forced,
        **({"chances": st.chances} if st.explicit_chance else {}),
        **({"prior": st.prior} if st.prior is not None else {}),
        **({"links": st.links} if st.links else {}),
        **({"asked": st.asked} if st.asked else {}),
    }


def _zones(program: Program, st: GameState, base: Layout, index: dict[str, int], values: list[list],
           made: list[str]) -> tuple[dict[str, list[int]], int] | None:
    """The zones that differ from the layout, by entity number, and how many entities setup puts
    in them less how many they list now (`compact` counts the moved ones: every field naming a
    listed zone must be listed there); None when a listed entity's own zone field names another
    zone (the compact form keeps only the zones' lists)."""
    nz = len(base.zone_names)
    names = base.zone_names
    if made:
        names = names + [f"{z}@{eid}" for eid in made for z in program.kind_zones.get(values[index[eid]][E_KIND], ())]
    if len(names) != len(st.zones):
        return None  # zones added by hand (a game only ever adds those of the entities it makes)
    try:  # in the layout's order, whatever the state's
        members = list(map(dict.__getitem__, repeat(st.zones), names))
    except KeyError:
        return None  # a zone lost by hand
    if None in members[nz:]:
        return None
    sizes = base.sizes
    out: dict[str, list[int]] = {}
    listed: list[int] = []
    unmoved = 0
    # the zones that differ from setup's, and those of entities made in play that hold something
    for z in chain(compress(range(nz), map(ne, members, base.members)), compress(range(nz, len(names)), members[nz:])):
        name = names[z]
        try:
            numbers = out[name] = list(map(index.__getitem__, members[z]))
        except (KeyError, TypeError):
            return None  # a member that is no entity
        for i in numbers:
            if values[i][E_ZONE] != name:
                return None  # a member whose field names another zone
        listed += numbers
        if z < nz:
            unmoved += sizes[z]
    if len(set(listed)) != len(listed):
        return None  # listed twice
    return out, unmoved - len(listed)


# ---- reading (the checks in savecheck.py come first) ----
def decode(program: Program, data: dict[str, Any]) -> GameState:
    """The state a checked compact save describes."""
    base = layout(program, data["players"])
    templates, kind_zones = program.templates, program.kind_zones
    entities = base.records.share()
    zones = base.zones.share()
    ids, first = base.ids, base.first_zones
    if made := data["made"]:
        for eid in made:
            comp = eid.partition("#")[0]
            kind, printed, face = templates[comp]
            entities[eid] = [kind, None, dict(printed), face, comp]
            for z in kind_zones.get(kind, ()):
                zones[f"{z}@{eid}"] = []
        ids, first = ids + tuple(made), first + [None] * len(made)
    listed = data["zones"]
    lists = {}
    # where each entity lies: where setup put it, but nowhere if a listed zone had it at setup, and
    # in the zone that lists it (plain loops: 3.11 runs them faster than map over __setitem__)
    where = first[:]
    at_setup = base.numbers
    for name in listed:
        for i in at_setup.get(name, ()):
            where[i] = None
    for name, numbers in listed.items():
        lists[name] = list(map(ids.__getitem__, numbers))
        for i in numbers:
            where[i] = name
    dict.update(zones, lists)
    zones.owned.update(lists)
    # a moved entity's record: a new list, its props still shared with the layout's record (the
    # table does not own it, so whoever reaches it through the table gets a copy first)
    fresh = {}
    for i in compress(count(), map(ne, where, first)):
        eid = ids[i]
        r = read_record(entities, eid)
        fresh[eid] = [r[0], where[i], r[2], r[3], r[4]]
    dict.update(entities, fresh)
    for i in data["face"]:
        ent = entities[ids[i]]
        ent[E_FACE] = not ent[E_FACE]
    for i, changed in data["props"]:
        entities[ids[i]][E_PROPS].update(changed if set(map(type, changed.values())) <= _FLAT else tuplify(changed))
    return GameState.from_dict(data, entities, zones)
