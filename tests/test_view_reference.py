"""`view` (engine/view.py, written for speed) gives what its plain first form gave: the same
dict, in the same key order, for every seat and the spectator along random games."""

from __future__ import annotations

import json
import random

from nemesis_rules import Game, load_ruleset
from nemesis_rules.engine.state import E_COMP, E_FACE, E_KIND, E_PROPS, E_ZONE
from nemesis_rules.engine.view import _counted_zone, _decision_view, _zone_level, entity_view, view


def _reference_view(program, st, seat, log_from=0):
    """The view as it was first written (one entity_view per entity, `_zone_level` per zone, every
    counted zone through `_counted_zone`, which the fast view calls only when something is shown)."""
    zones, shown = {}, set()
    public = set(st.public)
    known = {e for e, seats in st.known.items() if seat in seats} if seat is not None else set()
    for key, members in dict.items(st.zones):
        level = _zone_level(program, key, seat)
        if level == "none":
            continue
        if level == "size":
            zones[key] = _counted_zone(st, members, public, known, shown)
            backs = [_back(program, dict.__getitem__(st.entities, e)) for e in members]
            if any(b is not None for b in backs):
                zones[key]["backs"] = backs
            continue
        listed = []
        for eid in members:
            ent = dict.__getitem__(st.entities, eid)
            if ent[E_FACE] or eid in known or level == "look":
                listed.append(eid)
                shown.add(eid)
            else:
                back = _back(program, ent)
                listed.append({"face_down": ent[E_KIND]} if back is None else {"face_down": ent[E_KIND], "back": back})
        zones[key] = {"size": len(members), "entities": listed}
    entities = {eid: entity_view(program, ent) for eid, ent in dict.items(st.entities)
                if eid in shown or (ent[E_FACE] and ent[E_ZONE] is None)}
    return {"seat": seat, "players": st.players, "options": dict(st.options), "counters": dict(st.counters),
            "zones": zones, "entities": entities, "decision": _decision_view(st, seat, program, entities),
            "log": [e for e in st.log[log_from:] if e["to"] is None or (seat is not None and seat in e["to"])],
            "result": st.result}


def _back(program, ent):
    """What the entity's kind prints on its back (`back: prop`), or None."""
    prop = program.kind_backs.get(ent[E_KIND])
    return None if prop is None else entity_view(program, ent)["props"][prop]


def test_entity_view_is_the_record_view_inlines() -> None:
    program = load_ruleset("base").program
    kind = next(k for k, d in program.kind_defaults.items() if d)
    ent = [kind, None, {"extra": 1}, True, "c"]
    assert entity_view(program, ent) == {"kind": kind, "component": "c", "zone": None,
                                         "props": {**program.kind_defaults[kind], "extra": 1}, "face_up": True}
    assert ent[E_COMP] == "c" and ent[E_PROPS] == {"extra": 1}


def test_view_equals_the_reference_along_random_games() -> None:
    rules = load_ruleset("base")
    program = rules.program
    checked = 0
    for seed in (3,):
        game, rng = Game.new(rules, players=4, seed=seed), random.Random(seed)
        step = 0
        while not game.over and step < 250:
            game.apply(rng.randrange(len(game.decision)))
            step += 1
            if step % 4:
                continue
            st = game.state
            st.public.extend(e for e in list(dict.keys(st.entities))[step % 7::40] if e not in st.public)
            for seat in (0, 1, 2, 3, None):
                log_from = max(0, len(st.log) - 3)
                got, want = view(program, st, seat, log_from=log_from), _reference_view(program, st, seat, log_from)
                assert json.dumps(got) == json.dumps(want), (seed, step, seat)
                checked += 1
    assert checked > 100
