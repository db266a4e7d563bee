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

Loading starts from the layout (shared, copy on access, like a clone) and applies the
differences, so both ways cost about what the game changed. A state the compact form cannot say
(an entity deleted or its zone field edited by hand) is written in the full form, format 2, which
the checks then refuse with a message naming the fault.
"""

from __future__ import annotations

from itertools import chain, compress, count, repeat
from operator import itemgetter, ne
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
_zone_of, _comp_of, _kind_of = itemgetter(E_ZONE), itemgetter(E_COMP), itemgetter(E_KIND)
_face_of, _props_of = itemgetter(E_FACE), itemgetter(E_PROPS)
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
        found = program.layouts[players] = Layout(
            ids, {eid: i for i, eid in enumerate(ids)}, st.entities, values, st.zones, list(st.zones),
            list(st.zones.values()), [r[E_KIND] for r in values], [r[E_COMP] for r in values],
            [r[E_ZONE] for r in values], [r[E_FACE] for r in values], [r[E_PROPS] for r in values])
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
    if tuple(keys[:n0]) != base.ids:
        return None
    made = keys[n0:]
    index = base.index if not made else {**base.index, **{eid: n0 + j for j, eid in enumerate(made)}}
    comps, kinds, faces, printed = base.comps[:], base.kinds[:], base.faces[:], base.props[:]
    for eid in made:
        comp = eid.partition("#")[0]
        if comp not in program.templates:
            return None
        kind, props, face = program.templates[comp]
        comps.append(comp), kinds.append(kind), faces.append(face), printed.append(props)
    if list(map(_comp_of, values)) != comps or list(map(_kind_of, values)) != kinds:
        return None
    # C loops find the few entities that differ; Python looks only at those
    face = list(compress(count(), map(ne, map(_face_of, values), faces)))
    now = list(map(_props_of, values))
    props: list[list] = []
    for i in compress(count(), map(ne, now, printed)):
        mine, theirs = now[i], printed[i]
        if not theirs.keys() <= mine.keys():
            return None  # a prop deleted by hand
        props.append([i, {k: v for k, v in mine.items() if k not in theirs or theirs[k] != v}])
    zones = _zones(program, st, base, index, values, n0)
    if zones is None:
        return None
    return {
        "format": FORMAT_VERSION, "players": st.players, "seed": st.seed, "options": st.options,
        "ruleset": st.ruleset, "made": made, "zones": zones, "face": face, "props": props,
        "counters": st.counters, "rng": st.rng, "stack": st.stack, "pending": st.pending, "log": st.log,
        "result": st.result, "next_id": st.next_id, "forced": st.forced, "moves": st.moves,
        "explicit_chance": st.explicit_chance, "public": st.public, "known": st.known,
        "ask_forced": st.ask_forced,
        **({"chances": st.chances} if st.explicit_chance else {}),
        **({"prior": st.prior} if st.prior is not None else {}),
    }


def _zones(program: Program, st: GameState, base: Layout, index: dict[str, int], values: list[list],
           n0: int) -> dict[str, list[int]] | None:
    """The zones that differ from the layout, by entity number; None when the zones and the
    entities' own zone fields disagree (the compact form keeps only the zones' lists)."""
    nz = len(base.zone_names)
    made = list(dict.keys(st.entities))[n0:]
    names = base.zone_names + [f"{z}@{eid}" for j, eid in enumerate(made, n0)
                               for z in program.kind_zones.get(values[j][E_KIND], ())]
    members = list(map(dict.get, repeat(st.zones), names))  # in the layout's order, whatever the state's
    if len(names) != len(st.zones) or None in members:
        return None  # zones added or lost by hand (a game only ever adds those of the entities it makes)
    changed = [*compress(range(nz), map(ne, members, base.members)), *range(nz, len(names))]
    out: dict[str, list[int]] = {}
    for z in changed:
        if not members[z] and z >= nz:
            continue
        try:
            numbers = out[names[z]] = list(map(index.__getitem__, members[z]))
        except (KeyError, TypeError):
            return None
        if list(map(_zone_of, map(values.__getitem__, numbers))) != [names[z]] * len(numbers):
            return None  # a member whose field names another zone
    listed = list(chain.from_iterable(out.values()))
    fields = list(map(_zone_of, values))
    if len(set(listed)) != len(listed) or sum(map(out.__contains__, fields)) != len(listed):
        return None  # listed twice, or a field naming a zone that does not list it
    # a field outside the changed zones must name the zone setup put it in (which still lists it),
    # and an entity in no zone must not lie where setup put it either
    first = base.first_zones + [None] * (len(values) - n0)
    for i in compress(count(), map(ne, fields, first)):
        if fields[i] not in out and (fields[i] is not None or first[i] not in out):
            return None
    return out


# ---- reading (the checks in savecheck.py come first) ----
def decode(program: Program, data: dict[str, Any]) -> GameState:
    """The state a checked compact save describes."""
    base = layout(program, data["players"])
    templates, kind_zones = program.templates, program.kind_zones
    entities = base.records.share()
    zones = base.zones.share()
    for eid in data["made"]:
        comp = eid.partition("#")[0]
        kind, printed, face = templates[comp]
        entities[eid] = [kind, None, dict(printed), face, comp]
        for z in kind_zones.get(kind, ()):
            zones[f"{z}@{eid}"] = []
    ids = base.ids + tuple(data["made"])
    came: dict[str, str] = {}
    left: set[str] = set()
    lists = {name: list(map(ids.__getitem__, numbers)) for name, numbers in data["zones"].items()}
    dict.update(zones, lists)
    zones.owned.update(lists)
    for name, members in lists.items():  # set operations, so that only what moved costs
        now, before = set(members), set(dict.get(base.zones, name, ()))
        left |= before - now
        came.update(dict.fromkeys(now - before, name))
    # each moved entity gets its own copy of its record (what `Records` would do on access)
    fresh = {e: [r[0], z, dict(r[2]), r[3], r[4]]
             for e, z in chain(came.items(), zip(left - came.keys(), repeat(None))) for r in (read_record(entities, e),)}
    dict.update(entities, fresh)
    entities.owned.update(fresh)
    for i in data["face"]:
        ent = entities[ids[i]]
        ent[E_FACE] = not ent[E_FACE]
    for i, changed in data["props"]:
        entities[ids[i]][E_PROPS].update(changed if set(map(type, changed.values())) <= _FLAT else tuplify(changed))
    return GameState.from_dict(data, entities, zones)
