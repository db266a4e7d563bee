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

from itertools import chain, compress, count
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
    seal,
    tuplify,
)

FORMAT_VERSION = 3  # 3: the compact save; 2: the full form (still read)
_zone_of = itemgetter(E_ZONE)
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


def place_components(program: Program, st: GameState) -> None:
    """Make the players and the starting components, and put each where setup says."""
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
        place_components(program, st)
        ids = tuple(st.entities)
        found = program.layouts[players] = Layout(
            ids, {eid: i for i, eid in enumerate(ids)}, st.entities, list(st.entities.values()), st.zones)
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
    face: list[int] = []
    props: list[list] = []
    changed = list(compress(count(), map(ne, values, base.values)))  # starting entities not as set up
    for i in changed:
        if not _diff(i, values[i], base.values[i], face, props):
            return None
    for j, eid in enumerate(made, n0):
        comp = values[j][E_COMP]
        template = program.templates.get(comp)
        if template is None or eid.partition("#")[0] != comp:
            return None
        if not _diff(j, values[j], [template[0], None, template[1], template[2], comp], face, props):
            return None
    zones = _zones(program, st, base, index, keys, values, made, changed)
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


def _diff(i: int, ent: list, was: list, face: list[int], props: list[list]) -> bool:
    """Note entity i's face and props where they differ from `was` (False: it cannot be said)."""
    if ent[E_KIND] != was[E_KIND] or ent[E_COMP] != was[E_COMP]:
        return False
    if ent[E_FACE] != was[E_FACE]:
        face.append(i)
    now, printed = ent[E_PROPS], was[E_PROPS]
    if now != printed:
        if any(k not in now for k in printed):
            return False
        props.append([i, {k: v for k, v in now.items() if k not in printed or printed[k] != v}])
    return True


def _zones(program: Program, st: GameState, base: Layout, index: dict[str, int], keys: list[str],
           values: list[list], made: list[str], changed: list[int]) -> dict[str, list[int]] | None:
    """The zones that differ from the layout, by entity number; None when the zones and the
    entities' own zone fields disagree (the compact form keeps only the zones' lists)."""
    was = base.zones
    own_zones = sum(len(program.kind_zones.get(values[j][E_KIND], ())) for j in range(len(base.ids), len(values)))
    if len(st.zones) != len(was) + own_zones or not was.keys() <= st.zones.keys():
        return None
    out: dict[str, list[int]] = {}
    for name, members in dict.items(st.zones):
        before = dict.get(was, name)
        if members == before or (before is None and not members):
            continue
        try:
            numbers = out[name] = list(map(index.__getitem__, members))
        except (KeyError, TypeError):
            return None
        if list(map(_zone_of, map(values.__getitem__, numbers))) != [name] * len(numbers):
            return None  # a member whose field names another zone
    listed = list(chain.from_iterable(out.values()))
    if len(set(listed)) != len(listed) or sum(map(out.__contains__, map(_zone_of, values))) != len(listed):
        return None  # listed twice, or a field naming a zone that does not list it
    # a field outside the changed zones must name the zone setup put it in (which still lists it),
    # and an entity in no zone must not lie where setup put it either
    n0 = len(base.ids)
    for i in [*changed, *range(n0, len(values))]:
        zone, first = values[i][E_ZONE], base.values[i][E_ZONE] if i < n0 else None
        if zone != first and zone not in out and (zone is not None or first not in out):
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
    left: set[str] = set()
    placed: set[str] = set()
    for name, numbers in data["zones"].items():  # set operations, so that only what moved costs
        members = zones[name] = list(map(ids.__getitem__, numbers))
        now, before = set(members), dict.get(base.zones, name, ())
        placed |= now
        left.update(set(before) - now)
        for e in now.difference(before):
            entities[e][E_ZONE] = name
    for e in left - placed:
        entities[e][E_ZONE] = None
    for i in data["face"]:
        ent = entities[ids[i]]
        ent[E_FACE] = not ent[E_FACE]
    for i, changed in data["props"]:
        entities[ids[i]][E_PROPS].update(tuplify(changed))
    return GameState.from_dict(data, entities, zones)
