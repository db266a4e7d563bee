"""What the web page needs besides the view to draw the board and the seat: the module's layout
(ruleset/layout.py), the printed links' ends, the names of what the seat sees, the text of its
own cards, and each option's value and the ids it names (`refs`), so a click on the board can
choose it. All of it comes from the view of that seat: it tells no more than the view does.
"""

from __future__ import annotations

from typing import Any

from nemesis_rules.api import Ruleset
from nemesis_rules.cli import render
from nemesis_rules.dsl.describe import phrases
from nemesis_rules.ruleset.compose import Composition
from nemesis_rules.ruleset.layout import layout_for, link_ends


def board_data(rules: Ruleset, seen: dict[str, Any]) -> dict[str, Any]:
    """The layout that fits the game's options (None: the modules declare none), the ends of its
    printed links, the bounds of the counters it draws as tracks, every seen entity's name, the
    name of each seen kind (a chip drops its kind's word), the text of the seat's own entities,
    and the page's own words in the table's language."""
    comp = rules.composition
    layout = layout_for(comp, seen["options"])
    names = _words(rules, seen)
    names.update((eid, rules.label(ent["component"] or eid)) for eid, ent in seen["entities"].items())
    kinds = {ent["kind"]: rules.label(ent["kind"]) for ent in seen["entities"].values()}
    return {"layout": layout, "ends": link_ends(comp, layout) if layout else {}, "bounds": _bounds(comp, layout),
            "names": names, "kinds": kinds, "texts": _texts(rules, seen, names), "words": phrases(rules.lang).page}


def _bounds(comp: Composition, layout: dict[str, Any] | None) -> dict[str, list[int]]:
    """[min, max] of each counter the layout draws as a track: its spaces when no entity gives them."""
    tracks = (layout or {}).get("tracks") or ()
    return {t["counter"]: [comp.counters[t["counter"]].value.min, comp.counters[t["counter"]].value.max]
            for t in tracks if t["counter"] in comp.counters}


def _words(rules: Ruleset, seen: dict[str, Any]) -> dict[str, str]:
    """The label of every named prop, text prop value (a list's each), zone and counter of the view (a page shows
    them as they read in the table's language). A prop the catalog does not name is the rules'
    bookkeeping: it has no label, and a page leaves it out, as the terminal does (render.entity_label)."""
    words = {z.partition("@")[0] for z in seen["zones"]} | set(seen["counters"])
    for ent in seen["entities"].values():
        for key, value in ent["props"].items():
            if key in rules.names:
                words.add(key)
            words.update(v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str))
    return {w: rules.label(w) for w in words}


def _texts(rules: Ruleset, seen: dict[str, Any], names: dict[str, str]) -> dict[str, str]:
    """What the face of each seen entity in a player's zone reads (its kind's `text:`: the seat's
    own hand and objectives, a card another shows), and of each entity an option of its decision
    names; an entity whose kind prints no text has none. The view holds only what the seat sees."""
    players = {eid for eid, ent in seen["entities"].items() if ent["kind"] == "player"}
    mine = [e for key, zone in seen["zones"].items() if key.partition("@")[2] in players
            for e in zone.get("entities", ()) if isinstance(e, str)]
    mine += [r for option in (seen.get("decision") or {}).get("options") or () for r in refs(seen, option)]
    texts = {}
    for eid in dict.fromkeys(mine):
        ent = seen["entities"].get(eid)
        if ent is not None:
            text = render.with_text(rules, ent, names[eid])
            if text != names[eid]:
                texts[eid] = text.removeprefix(f"{names[eid]}: ")
    return texts


def refs(seen: dict[str, Any], value: Any) -> list[str]:
    """The ids an option's (seen) value names that are entities of the view, in order, once each."""
    found: list[str] = []
    todo = [value]
    while todo:
        v = todo.pop(0)
        if isinstance(v, str) and v in seen["entities"] and v not in found:
            found.append(v)
        elif isinstance(v, (list, tuple)):
            todo[:0] = list(v)
    return found


def options(rules: Ruleset, seen: dict[str, Any], decision: Any) -> list[dict[str, Any]]:
    """The options of the seat's decision: index, label, value (as the view shows it: a hidden
    entity is its placeholder) and refs."""
    shown = (seen.get("decision") or {}).get("options") or ()
    values = [shown[o.index] if o.index < len(shown) else o.value for o in decision.options]  # pass: None
    return [{"index": o.index, "label": render.option_label(rules, seen, o), "value": _json(values[o.index]),
             "refs": refs(seen, values[o.index])} for o in decision.options]


def _json(value: Any) -> Any:
    return [_json(v) for v in value] if isinstance(value, (list, tuple)) else value
