"""What one player may see: the state, the log and the pending decision, redacted by the
visibility each zone declares and by entities lying face down."""

from __future__ import annotations

from typing import Any

from nemesis_rules.engine.program import Program
from nemesis_rules.engine.state import E_COMP, E_FACE, E_KIND, E_PROPS, E_ZONE, GameState


def zone_visible(program: Program, zone: str, seat: int | None) -> str:
    """`all` (identities shown), `size` (only how many), or `none` (not even that)."""
    name, _, owner = zone.partition("@")
    vis = program.zone_visibility.get(name, "public")
    if vis == "public":
        return "all"
    if vis == "owner":
        owned = seat is not None and owner == program.player_ids[seat]
        return "all" if owned else "size"
    if vis == "hidden":
        return "size"
    return "none"


def entity_view(program: Program, ent: list) -> dict[str, Any]:
    props = dict(program.kind_defaults.get(ent[E_KIND], {}))
    props.update(ent[E_PROPS])
    return {"kind": ent[E_KIND], "component": ent[E_COMP], "zone": ent[E_ZONE], "props": props}


def view(program: Program, st: GameState, seat: int | None) -> dict[str, Any]:
    """A JSON-ready dict of what `seat` may see (None: a spectator, who sees only public things)."""
    zones: dict[str, Any] = {}
    shown: set[str] = set()
    public = set(st.public)
    for key, members in st.zones.items():
        level = zone_visible(program, key, seat)
        if level == "none":
            continue
        if level == "size":
            exposed = [e for e in members if e in public and st.entities[e][E_FACE]]
            zones[key] = {"size": len(members), "public": exposed} if exposed else {"size": len(members)}
            shown.update(exposed)
            continue
        listed = []
        for eid in members:
            ent = st.entities[eid]
            if ent[E_FACE]:
                listed.append(eid)
                shown.add(eid)
            else:
                listed.append({"face_down": ent[E_KIND]})
        zones[key] = {"size": len(members), "entities": listed}
    entities = {eid: entity_view(program, ent) for eid, ent in st.entities.items()
                if eid in shown or (ent[E_ZONE] is None and ent[E_FACE])}
    return {
        "seat": seat,
        "players": st.players,
        "options": dict(st.options),
        "counters": dict(st.counters),
        "zones": zones,
        "entities": entities,
        "decision": _decision_view(st, seat),
        "log": [entry for entry in st.log if entry["to"] is None or (seat is not None and seat in entry["to"])],
        "result": st.result,
    }


def _decision_view(st: GameState, seat: int | None) -> dict[str, Any] | None:
    d = st.pending
    if d is None:
        return None
    if d["player"] == -1:
        return {"player": -1, "prompt": d["prompt"], "chance": True}
    if d["player"] != seat:
        return {"player": d["player"], "prompt": d["prompt"]}
    return {"player": d["player"], "prompt": d["prompt"], "options": list(d["options"]),
            "optional": d["optional"]}
