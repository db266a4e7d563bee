"""Drawing one seat's view of a game with rich: counters, players, zones, the log, the menu.

Everything drawn comes from `game.view(seat)`, so a hot-seat screen shows no more than that
seat may see. A module shapes the screen with its manifest's `screen:`: the counters to show,
panels (tables whose rows a function of the viewer computes, run on the seat's seen state
like bot hints), and the zones to list; the viewer's own zones are always listed. Without it,
every counter, every player prop and every non-empty zone is shown.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from nemesis_rules.api import Decision, Option, Ruleset
from nemesis_rules.dsl.describe import describe_face, phrases, summary
from nemesis_rules.engine.view import SeenFunctions

LOG_TAIL = 8


def words(rules: Ruleset, key: str, **values: object) -> str:
    """One of the screen's own words in the ruleset's language (nemesis_rules/phrases)."""
    return phrases(rules.lang).screen[key].format(**values)


def effect_unknown(rules: Ruleset, component: str | None) -> bool:
    """Whether the component's `content_unknown` prop (or its kind's default) is set: our sources
    do not give what it does, so its effect reads as "(effect unknown)", never as its placeholder
    script (a `pass` would read as a real "do nothing")."""
    comp = rules.composition
    c = comp.components.get(component) if component else None
    if c is None:
        return False
    spec = comp.kinds.get(c.spec.kind)
    defaults = spec.value.defaults if spec is not None else {}
    return bool(c.spec.props.get("content_unknown", defaults.get("content_unknown", False)))


def view_screen(console: Console, rules: Ruleset, view: dict[str, Any]) -> None:
    me = _player_ids(view)[view["seat"]] if view["seat"] is not None else None
    title = words(rules, "sees", who=rules.label(me)) if me else words(rules, "table")
    console.rule(f"[bold]{escape(title)}[/bold]")
    screen = rules.composition.screen
    shown = screen.counters if screen.counters is not None else list(view["counters"])
    if shown:
        console.print("  ".join(f"{escape(rules.label(k))}: [bold]{view['counters'].get(k, '-')}[/bold]"
                                for k in shown), soft_wrap=False)
    if screen.panels:
        fns = SeenFunctions(rules.program, view, rules.fingerprint)
        for panel in screen.panels:
            console.print(panel_table(rules, panel, fns.call(panel.rows, me)))
    else:
        console.print(players_table(rules, view, me))
    for line in zone_lines(rules, view, me, screen.zones):
        console.print(line, soft_wrap=False)  # wrapped to the width: a hand with its cards' text is long
    tail = view["log"][-LOG_TAIL:]
    if tail:
        console.print(f"[dim]{escape(words(rules, 'log'))}[/dim]")
        for entry in tail:
            log_line(console, entry)


def log_line(console: Console, entry: dict[str, Any]) -> None:
    console.print(f"  [dim]·[/dim] {escape(entry['text'])}", soft_wrap=False)


def whole_log(console: Console, rules: Ruleset, view: dict[str, Any]) -> None:
    """Every log entry the seat may read, oldest first (the screen shows the last LOG_TAIL)."""
    console.print(f"[dim]{escape(words(rules, 'whole_log', n=len(view['log'])))}[/dim]")
    for entry in view["log"]:
        log_line(console, entry)


def screen_data(rules: Ruleset, view: dict[str, Any]) -> dict[str, Any]:
    """The screen `view_screen` draws, as plain text in lists (for a frontend that draws its own):
    the title, the counters (label, value), the panels (title, columns, rows of cells), the zone
    lines and the log tail."""
    me = _player_ids(view)[view["seat"]] if view["seat"] is not None else None
    screen = rules.composition.screen
    shown = screen.counters if screen.counters is not None else list(view["counters"])
    panels = []
    if screen.panels:
        fns = SeenFunctions(rules.program, view, rules.fingerprint)
        for panel in screen.panels:
            rows = fns.call(panel.rows, me)
            panels.append({"title": rules.label(panel.title) if panel.title else "",
                           "columns": [rules.label(c) for c in panel.columns],
                           "rows": [[cell_text(rules, c) for c in (r if isinstance(r, tuple) else (r,))] for r in rows]})
    else:
        columns, rows = players_rows(rules, view, me)
        panels.append({"title": "", "columns": columns, "rows": rows})
    return {"title": words(rules, "sees", who=rules.label(me)) if me else words(rules, "table"),
            "counters": [[rules.label(k), str(view["counters"].get(k, "-"))] for k in shown],
            "panels": panels,
            "zones": [Text.from_markup(line).plain for line in zone_lines(rules, view, me, screen.zones)],
            "log": [entry["text"] for entry in view["log"][-LOG_TAIL:]]}


def _player_ids(view: dict[str, Any]) -> list[str]:
    return [eid for eid, ent in view["entities"].items() if ent["kind"] == "player"]


def players_table(rules: Ruleset, view: dict[str, Any], me: str | None) -> Table:
    columns, rows = players_rows(rules, view, me)
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    table.add_column(escape(columns[0]))
    for c in columns[1:]:
        table.add_column(escape(c), justify="right")
    for row in rows:
        table.add_row(*map(escape, row))
    return table


def players_rows(rules: Ruleset, view: dict[str, Any], me: str | None) -> tuple[list[str], list[list[str]]]:
    """Every player's props as text: the column labels and one row a player (the viewer's `*`)."""
    players = _player_ids(view)
    props = list(dict.fromkeys(k for p in players for k in view["entities"][p]["props"]))
    rows = [[rules.label(p) + (" *" if p == me else ""),
             *[value_label(rules, view["entities"][p]["props"].get(c)) for c in props]] for p in players]
    return [rules.label("player"), *(rules.label(c) for c in props)], rows


def value_label(rules: Ruleset, value: Any) -> str:
    return "-" if value is None else rules.label(value)


def panel_table(rules: Ruleset, panel: Any, rows: Any) -> Table:
    """A panel's rows (a list of lists of values) as a table under the panel's title."""
    table = Table(title=escape(rules.label(panel.title)) if panel.title else None, title_justify="left",
                  show_edge=False, pad_edge=False, box=None, header_style="bold", show_header=bool(panel.columns))
    width = max((len(r) for r in rows if isinstance(r, tuple)), default=0)
    for i in range(max(width, len(panel.columns))):
        table.add_column(escape(rules.label(panel.columns[i])) if i < len(panel.columns) else "")
    for row in rows:
        cells = row if isinstance(row, tuple) else (row,)
        table.add_row(*[escape(cell_text(rules, c)) for c in cells])
    return table


def cell_text(rules: Ruleset, value: Any) -> str:
    """A value in a panel: lists joined, equal labels counted (`Card ×3`), a hidden
    entity as `?`, nothing as `-`. A list inside the list is one item, its parts joined by
    spaces (`[[2, b], [3, c]]` reads `2 B, 3 C`)."""
    if value is None or value == ():
        return "-"
    if isinstance(value, tuple):
        counts = Counter(_item_text(rules, v) for v in value)
        return ", ".join(label if n == 1 else f"{label} ×{n}" for label, n in counts.items())
    if isinstance(value, str) and value.startswith("?"):
        return "?"
    return rules.label(value)


def _item_text(rules: Ruleset, value: Any) -> str:
    """One item of a panel's list: a list's parts joined by spaces (empty ones left out)."""
    if isinstance(value, tuple):
        return " ".join(t for t in (_item_text(rules, v) for v in value) if t) or "-"
    return cell_text(rules, value)


def zone_lines(rules: Ruleset, view: dict[str, Any], me: str | None,
               listed: tuple[str, ...] | None = None) -> list[str]:
    lines, empty = [], 0
    for key, zone in view["zones"].items():
        mine = me is not None and key.endswith("@" + me)
        if listed is not None and not mine and key.partition("@")[0] not in listed:
            continue
        if zone["size"] == 0:
            empty += 1
            continue
        name = escape(zone_label(rules, key))
        if "entities" not in zone:
            seen = [*zone.get("known", {}), *zone.get("public", ())]  # looked at, or made public
            told = ", ".join(entity_label(rules, view, e, detail=True) for e in seen)
            known = f" ({escape(words(rules, 'you_know', what=told))})" if told else ""
            lines.append(f"{name}: [dim]{escape(words(rules, 'hidden', n=zone['size']))}[/dim]"
                         f"{backs_text(rules, zone)}{known}")
            continue
        items = Counter(entity_label(rules, view, e, detail=mine) for e in zone["entities"])
        lines.append(f"{name}: " + ", ".join(escape(t if n == 1 else f"{t} ×{n}") for t, n in items.items()))
    if empty:
        lines.append(f"[dim]{escape(words(rules, 'empty_zones', n=empty))}[/dim]")
    return lines


def backs_text(rules: Ruleset, zone: dict[str, Any]) -> str:
    """What the backs of a counted zone's cards show (` (backs: Red ×2, Yellow)`), or ""."""
    shown = [b for b in zone.get("backs", ()) if b is not None]
    if not shown:
        return ""
    told = ", ".join(label if n == 1 else f"{label} ×{n}" for label, n in Counter(map(rules.label, shown)).items())
    return f" ({escape(words(rules, 'backs', what=told))})"


def zone_label(rules: Ruleset, key: str) -> str:
    name, _, owner = key.partition("@")
    return f"{rules.label(name)} ({rules.label(owner)})" if owner else rules.label(name)


def entity_label(rules: Ruleset, view: dict[str, Any], entry: str | dict[str, Any], detail: bool) -> str:
    """Its component's name (copies then count together) and what its face reads (`with_text`),
    with its set props when it is the viewer's own; a face-down entity as its kind and its back.
    Only props the catalog names are shown: an unnamed prop is the rules' bookkeeping, and its
    id is no word for a player (`cost 1`, not `item_class quest`)."""
    if isinstance(entry, dict):
        face_down = words(rules, "face_down", kind=rules.label(entry.get("face_down", "?")))
        return f"{face_down} ({rules.label(entry['back'])})" if entry.get("back") is not None else face_down
    ent = view["entities"].get(entry, {})
    label = with_text(rules, ent, rules.label(ent.get("component") or entry))
    props = {k: v for k, v in ent.get("props", {}).items() if v not in (None, False, 0, ()) and k in rules.names}
    if not detail or not props:
        return label
    return f"{label} [{', '.join(prop_label(rules, k, v) for k, v in props.items())}]"


def prop_label(rules: Ruleset, key: str, value: Any) -> str:
    """A shown prop: its label and value, a flag that is set by its label alone (`Not In Combat`)."""
    return rules.label(key) if value is True else f"{rules.label(key)} {value_label(rules, value)}"


def with_text(rules: Ruleset, ent: dict[str, Any], label: str) -> str:
    """A seen entity's label followed by what its face reads, when its kind prints a script field
    there (`text:`, e.g. an objective's condition): `Ab Ovo: The result is ...`. Read once a
    component (`rules.faces`)."""
    key = (ent.get("component"), ent.get("kind"), label)
    text = rules.faces.get(key)
    if text is None:
        text = rules.faces[key] = _read_face(rules, ent, label)
    return text


def _read_face(rules: Ruleset, ent: dict[str, Any], label: str) -> str:
    spec = rules.composition.kinds.get(ent.get("kind"))
    field = spec.value.text if spec is not None else None
    if field is None:
        return label
    if effect_unknown(rules, ent.get("component")):
        return f"{label}: {words(rules, 'effect_unknown')}"
    name = f"{ent.get('component')}.{field}"
    composition = rules.composition
    script = composition.procs.get(name) or composition.fns.get(name)
    if script is None:
        return label
    reading = describe_face(rules, script.value, ent["kind"], face_holder(rules, ent["kind"], field))
    return f"{label}: {summary(reading, width=TEXT_WIDTH)}"


def face_holder(rules: Ruleset, kind: str, field: str) -> str | None:
    """The parameter of a kind's script field that names who holds the card (its first): its
    face reads it as "you"."""
    spec = rules.composition.kinds.get(kind)
    params = (spec.value.scripts.get(field) or spec.value.functions.get(field)) if spec is not None else None
    return params[0] if params else None


TEXT_WIDTH = 160  # a card's text on the screen (cut at a word beyond it)


def option_label(rules: Ruleset, view: dict[str, Any], option: Option) -> str:
    """An option as the deciding seat reads it: an entity it sees with what its face reads, one it
    does not see as the view's placeholder (a face-down card reads as its kind and back, never
    its name)."""
    seen = _seen_option(view, option)
    if seen is not option.value:
        return _placeholder_label(rules, view, seen)
    ent = view["entities"].get(option.value) if isinstance(option.value, str) else None
    return with_text(rules, ent, option.label) if ent is not None else option.label


def _seen_option(view: dict[str, Any], option: Option) -> Any:
    """The option's value as the seat's view gives it (redacted where it names a hidden entity)."""
    options = (view.get("decision") or {}).get("options")
    if options is None or option.index >= len(options) or options[option.index] == option.value:
        return option.value
    return options[option.index]


def _placeholder_label(rules: Ruleset, view: dict[str, Any], value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(_placeholder_label(rules, view, v) for v in value)
    if isinstance(value, dict):
        return entity_label(rules, view, value, detail=False)
    return value_label(rules, value)


def menu(console: Console, rules: Ruleset, decision: Decision, view: dict[str, Any],
         unavailable: list[dict[str, str]] = ()) -> None:
    """The decision's options, numbered; `view`: the deciding seat's (an option it sees reads as
    on the screen); then the actions it is not offered, with why (nemesis_rules/unavailable.py)."""
    console.print(f"[bold]{escape(question(rules, decision))}[/bold]", soft_wrap=False)
    for o in decision.options:
        console.print(f"  [cyan]{o.index + 1:>2}[/cyan]. {escape(option_label(rules, view, o))}", soft_wrap=False)
    unavailable_lines(console, rules, unavailable)
    console.print(f"[dim]{escape(words(rules, 'menu_hint'))}[/dim]")


def unavailable_lines(console: Console, rules: Ruleset, unavailable: list[dict[str, str]]) -> None:
    """The actions not offered, greyed, one a line cut to the screen's width (DECISIONS.md U5)."""
    if not unavailable:
        return
    console.print(f"[dim]{escape(words(rules, 'unavailable'))}[/dim]", soft_wrap=False)
    for a in unavailable:
        console.print(f"[dim]      {escape(a['label'])}: {escape(a['reason'])}[/dim]", soft_wrap=False, no_wrap=True,
                      overflow="ellipsis", crop=True)


def question(rules: Ruleset, decision: Decision) -> str:
    """The decision's prompt in words; an action's parameter (`play.card`) without a message reads
    as the action's name and the parameter's (a modder's module may not name it: lint W604)."""
    prompt = decision.prompt or ""
    action, dot, param = prompt.partition(".")
    if dot and prompt not in rules.messages and decision.text == rules.message(prompt):
        return words(rules, "which", action=rules.label(action), param=rules.label(param))
    return decision.text or words(rules, "choose")


def result_screen(console: Console, rules: Ruleset, result: dict[str, Any]) -> None:
    winners = ", ".join(rules.label(rules.program.player_ids[s]) for s in result["winners"]) or words(rules, "nobody")
    console.rule(f"[bold]{escape(words(rules, 'game_over_title'))}[/bold]")
    console.print(escape(words(rules, "game_over", reason=rules.label(result["reason"]), winners=winners)))
