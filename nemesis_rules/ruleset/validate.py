"""Checks of a composed ruleset: its data (kinds, zones, components, catalogs) and, through the
script checker, every procedure, function, trigger, hook, action and phase."""

from __future__ import annotations

import re
from typing import Any

from nemesis_rules.dsl import ast, template
from nemesis_rules.dsl.check import Callable_, Checker, Environment
from nemesis_rules.dsl.diagnostics import WARNING, Diagnostic, Span, did_you_mean
from nemesis_rules.dsl.proptypes import BASE_TYPES, Names, PropType, parse_type, value_problem
from nemesis_rules.engine import limits
from nemesis_rules.engine.compile import STEP_EVENTS, lays_links, why_keys
from nemesis_rules.ruleset.compose import Composition, Declared, script_procs
from nemesis_rules.ruleset.layout import check_layouts
from nemesis_rules.ruleset.records import VISIBILITIES

BASE_LANG = "en"
RESERVED_OPTIONS = {"rules", "players", "seed", "explicit_chance", "autostart"}
NAME_RE = re.compile(r"[a-z][a-z0-9_]*")
WHEN = "a `when` condition"  # evaluated before anything runs: it cannot wait or change the state


def validate(comp: Composition, focus: str | None = None) -> Environment:
    """Append every finding to `comp.diagnostics`; return the names environment. `focus` is the
    module whose own catalog is checked (missing and unused keys): by default the last one, the
    module composed for itself; a library checked inside a module that requires it names itself."""
    script_procs(comp)
    _check_declarations(comp)
    _check_players(comp)
    _check_components(comp)
    env = environment(comp)
    if any(d.is_error and d.code.startswith("E1") for d in comp.diagnostics):
        return env  # names are missing from files that did not parse: checking scripts would cascade
    _check_report(comp, env)
    _check_rewards(comp, env)
    _check_screen(comp, env)
    check_layouts(comp)
    _check_scripts(comp, env)
    _check_catalogs(comp, env, focus)
    _unused_components(comp, env)
    _unlaid_links(comp)
    _check_graphs(comp)
    return env


def _unlaid_links(comp: Composition) -> None:
    """A link component without `ends` waits to be laid in play; rules that never call `connect`
    leave it out of the board for good (most likely its `ends` were forgotten)."""
    unlaid = [(cid, c) for cid, c in comp.components.items() if c.spec.ends is None
              and c.spec.kind in comp.kinds and comp.kinds[c.spec.kind].value.link]
    if not unlaid or lays_links(comp):
        return
    for cid, c in unlaid:
        comp.diagnostics.append(Diagnostic("W506", f"link `{cid}` has no `ends` and no rule lays a link in play",
                                           c.span, help="give it `ends: [a, b]`, or lay it with `connect`",
                                           severity=WARNING))


def _check_graphs(comp: Composition) -> None:
    """A kind's `graph:` (records.KindSpec) asks that its components, joined by the printed links of
    the named kinds, each carry every label (W507: a board may leave one out on purpose; a board's numbered ways out) and no
    label twice (E508), and all reach one another (E509). Each value of `part` (a board side) is its own graph; a part without links is not
    laid yet and is not checked."""
    for kind, decl in comp.kinds.items():
        graph = decl.value.graph
        if graph and (extra := set(graph) - {"links", "labels", "part"}):
            comp.diagnostics.append(Diagnostic("E200", f"kind `{kind}`: unknown `graph` keys {sorted(extra)} "
                                               "(allowed: labels, links, part)", decl.span))
        elif graph:
            nodes = {cid: c for cid, c in comp.components.items() if c.spec.kind == kind}
            links = {cid: c for cid, c in comp.components.items()
                     if c.spec.kind in graph.get("links", ()) and c.spec.ends is not None}
            part = graph.get("part")
            for value in {c.spec.props.get(part) for c in links.values()}:
                _check_graph_part(comp, kind, graph, {k: c for k, c in nodes.items() if c.spec.props.get(part) == value},
                                  {k: c for k, c in links.items() if c.spec.props.get(part) == value})


def _check_graph_part(comp: Composition, kind: str, graph: dict, nodes: dict, links: dict) -> None:
    carried: dict[str, list[tuple[Any, str]]] = {cid: [] for cid in nodes}
    joined: dict[str, set[str]] = {cid: set() for cid in nodes}
    for lid, link in links.items():
        ends, labels = link.spec.ends, link.spec.labels or (None, None)
        for end, label in zip(ends, labels, strict=False):
            if end in carried:
                carried[end] += [(x, lid) for x in _flat([label]) if x is not None]
                joined[end].update(e for e in ends if e != end)
    wanted = list(graph.get("labels", ()))
    for cid, got in carried.items():
        have = [x for x, _ in got]
        if missing := [x for x in wanted if x not in have]:
            comp.diagnostics.append(Diagnostic("W507", f"`{cid}` has no link labelled {', '.join(map(str, missing))} "
                                               f"(each {kind} carries {', '.join(map(str, wanted))} once)",
                                               nodes[cid].span, help="add the link, or the label to one of its links",
                                               severity=WARNING))
        for x in wanted:
            if (twice := [lid for label, lid in got if label == x])[1:]:
                comp.diagnostics.append(Diagnostic("E508", f"`{cid}` carries label {x} on more than one link: "
                                                   + ", ".join(f"`{lid}`" for lid in twice), nodes[cid].span,
                                                   help="each label names one way out: keep it on one link"))
    _check_reachable(comp, nodes, joined)


def _check_reachable(comp: Composition, nodes: dict, joined: dict[str, set[str]]) -> None:
    start = next(iter(nodes), None)
    seen, todo = {start}, [start]
    while todo:
        for other in joined.get(todo.pop(), ()):
            if other not in seen and other in joined:
                seen.add(other)
                todo.append(other)
    for cid, c in nodes.items():
        if cid not in seen:
            comp.diagnostics.append(Diagnostic("E509", f"`{cid}` cannot be reached from `{start}` through the links",
                                               c.span, help="link it to the others"))


def _unused_components(comp: Composition, env: Environment) -> None:
    """A component that starts nowhere, has no script, joins nothing, and whose id and kind no script
    names is dead data."""
    mentioned = set(env.used_names)
    for c in comp.components.values():
        mentioned |= set(c.spec.ends or ())
        if c.spec.zone and "@" in c.spec.zone:
            mentioned.add(c.spec.zone.split("@", 1)[1])
        mentioned |= {v for v in _flat(c.spec.props.values()) if isinstance(v, str)}
    for cid, c in comp.components.items():
        if c.spec.zone is None and not c.scripts and c.spec.ends is None and not {cid, c.spec.kind} & mentioned:
            comp.diagnostics.append(Diagnostic("W504", f"component `{cid}` starts in no zone and nothing uses it",
                                               c.span, help="give it a `zone:`, use it in a script, or remove it",
                                               severity=WARNING))


def _flat(values) -> list:
    out = []
    for v in values:
        out += _flat(v) if isinstance(v, tuple) else [v]
    return out


def environment(comp: Composition) -> Environment:
    env = Environment()
    for table, what in ((comp.symbols, "symbol"), (comp.components, "component"), (comp.kinds, "kind"),
                        (comp.dice, "die"), (comp.actions, "action")):
        for name in table:
            env.values[name] = what
    for faces in comp.dice.values():
        for f in faces.value:
            if isinstance(f, str):
                env.values.setdefault(f, "symbol")
    env.options = set(comp.options)
    for name in comp.options:
        env.values.setdefault(name, "option")
        for v in comp.options[name].values:
            if isinstance(v, str):
                env.values.setdefault(v, "symbol")
    for name, z in comp.zones.items():
        if z.value.per is None:
            env.values[name] = "zone"
        else:
            env.callables[name] = Callable_("zone", ("owner",), False)
    env.counters = set(comp.counters)
    env.bounds = {name: (d.value.min, d.value.max) for name, d in comp.counters.items()}
    env.names = value_names(comp)
    for name, d in comp.procs.items():
        env.callables[name] = Callable_("procedure", d.value.params, True)
    for name, d in comp.fns.items():
        env.callables[name] = Callable_("function", d.value.params, False)
    for name in comp.phases:
        env.callables[name] = Callable_("phase", (), True)
    env.events = {n: d.value.params for n, d in comp.events.items()}
    for name, k in comp.kinds.items():
        env.props |= set(k.value.props)
        for prop, t in prop_types(comp, name).items():
            env.prop_types.setdefault(prop, []).append(t)
        for field, params in k.value.scripts.items():  # one field name may differ by kind
            env.scripts.setdefault(field, set()).add(tuple(params))
        env.fn_scripts.update(k.value.functions)
    en = comp.catalogs.get(BASE_LANG, {})
    env.messages = {k.split(".", 1)[1] for k in en if k.startswith("messages.")}
    return env


# ---- data ----
def prop_types(comp: Composition, kind: str) -> dict[str, PropType]:
    """The parsed type of each prop of a kind (docs/language.md, "Prop types"), parsed once."""
    if kind not in comp.prop_types:
        types = _named_types(comp)
        comp.prop_types[kind] = {prop: parse_type(t, comp.kinds, types)[0]
                                 for prop, t in comp.kinds[kind].value.props.items()}
    return comp.prop_types[kind]


def _named_types(comp: Composition) -> dict[str, str]:
    return {name: d.value for name, d in comp.types.items()}


def value_names(comp: Composition) -> Names:
    """What a prop's value may name: a `symbol` prop holds any declared name (a symbol, or the id of a
    component, kind, zone or die face); a kind-typed prop, a component of that kind."""
    faces = {f for d in comp.dice.values() for f in d.value if isinstance(f, str)}
    declared = set(comp.symbols) | set(comp.components) | set(comp.kinds) | set(comp.zones) | faces
    return Names(declared, comp.symbols, {cid: c.spec.kind for cid, c in comp.components.items()})


def _check_type(comp: Composition, label: str, text: str, span: Span) -> None:
    """A prop's (or named type's) type names base types, kinds, named types and declared symbols only."""
    t, problem = parse_type(text, comp.kinds, _named_types(comp))
    if problem is not None:
        comp.diagnostics.append(Diagnostic("E202", f"{label}: {problem}", span))
    while t.item is not None:
        t = t.item
    if "|" not in str(text):  # a named type's symbols are checked where it is declared
        return
    for m in t.members:
        if m not in comp.symbols:
            comp.diagnostics.append(Diagnostic("E310", f"{label}: `{m}` in its type is no declared symbol",
                                               span, help=did_you_mean(m, comp.symbols) or "declare it under `symbols:`"))


def _check_printed(comp: Composition, name: str, d: Any) -> None:
    """A kind's `back` names one of its props, its `text` one of its script or expression fields."""
    k = d.value
    if k.back is not None and k.back not in k.props:
        comp.diagnostics.append(Diagnostic("E306", f"kind `{name}` prints undeclared prop `{k.back}` on its back",
                                           comp.at("kinds", name, "back", default=d.span),
                                           help=did_you_mean(k.back, k.props)))
    if k.in_play is not None and k.in_play not in comp.procs:
        comp.diagnostics.append(Diagnostic("E302", f"kind `{name}` puts its components into play with unknown "
                                           f"procedure `{k.in_play}`", comp.at("kinds", name, "in_play", default=d.span),
                                           help=did_you_mean(k.in_play, comp.procs)))
    fields = {**k.scripts, **k.functions}
    if k.text is not None and k.text not in fields:
        comp.diagnostics.append(Diagnostic("E306", f"kind `{name}` prints undeclared script field `{k.text}` on its face",
                                           comp.at("kinds", name, "text", default=d.span),
                                           help=did_you_mean(k.text, fields)))


def _check_declarations(comp: Composition) -> None:
    diags = comp.diagnostics
    names = value_names(comp)
    for name, d in comp.kinds.items():
        k = d.value
        types = prop_types(comp, name)
        for prop, t in k.props.items():
            _check_type(comp, f"`{name}.{prop}`", t, comp.at("kinds", name, "props", prop, default=d.span))
        for prop, value in k.defaults.items():
            span = comp.at("kinds", name, "defaults", prop, default=d.span)
            if prop not in k.props:
                diags.append(Diagnostic("E306", f"default for undeclared prop `{prop}` of kind `{name}`", span,
                                        help=did_you_mean(prop, k.props)))
            elif (problem := value_problem(types[prop], value, names)) is not None:
                diags.append(Diagnostic(problem.code, f"default of `{name}.{prop}`: {problem.message}", span,
                                        help=problem.help))
        _check_printed(comp, name, d)
        for z in k.zones:
            spec = comp.zones.get(z)
            if spec is None:
                diags.append(Diagnostic("E305", f"kind `{name}` owns unknown zone `{z}`",
                                        comp.at("kinds", name, "zones", default=d.span),
                                        help=did_you_mean(z, comp.zones)))
            elif spec.value.per != name:
                diags.append(Diagnostic("E305", f"zone `{z}` must say `per: {name}` to belong to `{name}`",
                                        spec.span))
    for name, d in comp.types.items():
        _check_type(comp, f"type `{name}`", d.value, d.span)
        if name in comp.kinds or name in BASE_TYPES:  # types are not names in scripts: only these clash
            comp.diagnostics.append(Diagnostic("E500", f"`{name}` is both a type and a "
                                               f"{'kind' if name in comp.kinds else 'base type'}", d.span))
    for name, d in comp.zones.items():
        z = d.value
        if z.visibility not in VISIBILITIES:
            diags.append(Diagnostic("E202", f"unknown visibility `{z.visibility}` for zone `{name}`",
                                    comp.at("zones", name, "visibility", default=d.span),
                                    help=did_you_mean(z.visibility, VISIBILITIES) or ", ".join(VISIBILITIES)))
        for k in z.holds or ():
            if k not in comp.kinds:
                diags.append(Diagnostic("E304", f"zone `{name}` holds unknown kind `{k}`",
                                        comp.at("zones", name, "holds", default=d.span),
                                        help=did_you_mean(k, comp.kinds)))
        held = [comp.kinds[k].value.props for k in z.holds or () if k in comp.kinds]
        for prop in z.where or {}:
            if held and not any(prop in props for props in held):
                diags.append(Diagnostic("E306", f"zone `{name}` asks for prop `{prop}`, which its kinds lack",
                                        comp.at("zones", name, "where", prop, default=d.span),
                                        help=did_you_mean(prop, {p for props in held for p in props})))
        if z.per is not None and z.per not in comp.kinds and z.per != "player":
            diags.append(Diagnostic("E304", f"zone `{name}` is per unknown kind `{z.per}`",
                                    comp.at("zones", name, "per", default=d.span),
                                    help=did_you_mean(z.per, comp.kinds)))
    for name, d in comp.counters.items():
        c = d.value
        if not c.min <= c.start <= c.max:
            diags.append(Diagnostic("E202", f"counter `{name}` starts at {c.start}, outside {c.min}..{c.max}",
                                    comp.at("counters", name, "start", default=d.span)))
    for name, d in comp.dice.items():
        if not d.value:
            diags.append(Diagnostic("E202", f"die `{name}` has no faces", d.span))
    for name, spec in comp.options.items():
        if name in RESERVED_OPTIONS:
            diags.append(Diagnostic("E202", f"option name `{name}` is taken by Game.new", _module_span(comp),
                                    help="rename the option"))
        if spec.default is not None and spec.default not in spec.values:
            diags.append(Diagnostic("E202", f"option `{name}` defaults to {spec.default!r}, not one of its values",
                                    _module_span(comp)))
    _check_names(comp)


def _module_span(comp: Composition) -> Span:
    return comp.modules[-1].manifest_at("options") if comp.modules else Span()


def _check_names(comp: Composition) -> None:
    tables = {"symbol": comp.symbols, "kind": comp.kinds, "zone": comp.zones, "counter": comp.counters,
              "die": comp.dice}
    seen: dict[str, str] = {}
    for what, table in tables.items():
        for name, d in table.items():
            if not NAME_RE.fullmatch(name):
                comp.diagnostics.append(Diagnostic("E202", f"{what} name `{name}` must be lowercase letters, "
                                                   "digits and _", d.span))
            if name in seen and seen[name] != what and what != "symbol":
                comp.diagnostics.append(Diagnostic("E500", f"`{name}` is both a {seen[name]} and a {what}", d.span,
                                                   help="names share one namespace in scripts"))
            seen.setdefault(name, what)


def _check_players(comp: Composition) -> None:
    lo, hi = comp.players.min, comp.players.max
    if not 1 <= lo <= hi <= limits.MAX_PLAYERS:
        span = next((m.manifest_at("players") for m in reversed(comp.modules) if m.manifest and m.manifest.players),
                    Span())
        comp.diagnostics.append(Diagnostic("E806", f"players {{min: {lo}, max: {hi}}}: need 1 <= min <= max <= "
                                           f"{limits.MAX_PLAYERS}", span))


def _check_components(comp: Composition) -> None:
    names = value_names(comp)
    sizes: dict[str, int] = {}
    total = 0
    for cid, c in comp.components.items():
        spec = c.spec
        if not NAME_RE.fullmatch(cid):
            comp.diagnostics.append(Diagnostic("E202", f"component id `{cid}` must be lowercase letters, digits "
                                               "and _", c.span))
        kind = comp.kinds.get(spec.kind)
        if kind is None:
            comp.diagnostics.append(Diagnostic("E304", f"unknown kind `{spec.kind}`", c.at("kind"),
                                               help=did_you_mean(spec.kind, comp.kinds)))
            continue
        if spec.count < 1:
            comp.diagnostics.append(Diagnostic("E202", f"`count` must be at least 1, got {spec.count}",
                                               c.at("count")))
        elif spec.count > limits.MAX_COMPONENT_COUNT:
            comp.diagnostics.append(Diagnostic("E803", f"`count` {spec.count:,} is above the limit of "
                                               f"{limits.MAX_COMPONENT_COUNT:,} copies", c.at("count"),
                                               help="model a large quantity as a counter or a prop"))
        total += max(0, spec.count)
        types = prop_types(comp, spec.kind)
        for prop, value in spec.props.items():
            _check_prop(comp, cid, types, names, prop, value, c.at(f"props.{prop}"))
            if (problem := _beyond_limits(value)) is not None:
                comp.diagnostics.append(Diagnostic("E804", f"prop `{prop}`: {problem}", c.at(f"props.{prop}")))
        if spec.zone is not None:
            _check_zone_ref(comp, spec.zone, c.at("zone"))
            _check_zone_holds(comp, cid, c, kind.value)
            sizes[spec.zone.split("@")[0]] = sizes.get(spec.zone.split("@")[0], 0) + spec.count
        _check_link(comp, cid, kind.value.link, c)
    if total > limits.MAX_COMPONENTS and comp.components:
        first = next(iter(comp.components.values()))
        comp.diagnostics.append(Diagnostic("E803", f"the components make {total:,} entities; the limit is "
                                           f"{limits.MAX_COMPONENTS:,}", first.span))
    for name, d in comp.zones.items():
        want = d.value.size
        if want is not None and sizes.get(name, 0) != want:
            comp.diagnostics.append(Diagnostic("E501", f"zone `{name}` should start with {want} entities, "
                                               f"the components put {sizes.get(name, 0)} there", d.span,
                                               help="check the counts of its components"))


def _beyond_limits(value: Any, depth: int = 0) -> str | None:
    """What makes a data value too large for a game (None when it fits)."""
    if isinstance(value, int) and not isinstance(value, bool) and not -limits.MAX_INT <= value <= limits.MAX_INT:
        return f"integer beyond the limit of ±{limits.MAX_INT}"
    if isinstance(value, str | tuple) and len(value) > limits.MAX_LENGTH:
        return f"longer than {limits.MAX_LENGTH:,}"
    if isinstance(value, tuple):
        if depth > limits.MAX_NESTING:
            return f"lists nested deeper than {limits.MAX_NESTING}"
        return next((p for v in value if (p := _beyond_limits(v, depth + 1)) is not None), None)
    return None


def _check_prop(comp: Composition, cid: str, types: dict[str, PropType], names: Names, prop: str, value: Any,
                span: Span) -> None:
    if prop not in types:
        comp.diagnostics.append(Diagnostic("E306", f"component `{cid}` sets undeclared prop `{prop}`", span,
                                           help=did_you_mean(prop, types) or "declare it in the kind's props"))
    elif (problem := value_problem(types[prop], value, names)) is not None:
        comp.diagnostics.append(Diagnostic(problem.code, f"prop `{prop}` of `{cid}`: {problem.message}", span,
                                           help=problem.help))


def _check_zone_holds(comp: Composition, cid: str, c, kind) -> None:
    """A zone's `holds` names the kinds that may start in it, its `where` the props they have there."""
    name = c.spec.zone.split("@")[0]
    zone = comp.zones.get(name)
    if zone is None:
        return
    holds, where = zone.value.holds, zone.value.where or {}
    if holds is not None and c.spec.kind not in holds:
        comp.diagnostics.append(Diagnostic("E510", f"`{cid}` is a {c.spec.kind}; zone `{name}` holds "
                                           f"{' or '.join(holds)}", c.at("zone"),
                                           help="put it in a zone of its kind, or give it the right kind"))
        return
    for prop, want in where.items():
        have = c.spec.props.get(prop, kind.defaults.get(prop))
        if have != want:
            comp.diagnostics.append(Diagnostic("E510", f"`{cid}` has {prop} {have}; zone `{name}` holds only "
                                               f"{prop} {want}", c.at(f"props.{prop}") if prop in c.spec.props
                                               else c.at("zone"), help=f"set `{prop}: {want}`, or use the zone "
                                               f"for {prop} {have}"))


def _check_zone_ref(comp: Composition, zone: str, span: Span) -> None:
    name, _, owner = zone.partition("@")
    spec = comp.zones.get(name)
    if spec is None:
        comp.diagnostics.append(Diagnostic("E305", f"unknown zone `{name}`", span,
                                           help=did_you_mean(name, comp.zones)))
    elif spec.value.per is None and owner:
        comp.diagnostics.append(Diagnostic("E305", f"zone `{name}` has no owner; write just `{name}`", span))
    elif spec.value.per is not None and not owner:
        comp.diagnostics.append(Diagnostic("E305", f"zone `{name}` belongs to each {spec.value.per}; "
                                           f"write `{name}@<id>`", span))
    elif owner and spec.value.per != "player" and owner not in comp.components:
        comp.diagnostics.append(Diagnostic("E303", f"unknown owner `{owner}` in zone `{zone}`", span,
                                           help=did_you_mean(owner, comp.components)))


def _check_link(comp: Composition, cid: str, is_link: bool, c) -> None:
    spec = c.spec
    # a link without `ends` is a tile laid in play (`connect`), which gives its labels there
    if is_link and spec.ends is None and spec.labels is not None:
        comp.diagnostics.append(Diagnostic("E201", f"link `{cid}` has `labels` but no `ends: [a, b]`", c.at("labels"),
                                           help="a link laid in play gets its labels from `connect`"))
    if not is_link and (spec.ends is not None or spec.labels is not None):
        comp.diagnostics.append(Diagnostic("E200", f"`{cid}` is not of a link kind; `ends`/`labels` do not "
                                           "apply", c.at("ends" if spec.ends is not None else "labels"),
                                           help="add `link: true` to its kind"))
    for end in spec.ends or ():
        if end not in comp.components:
            comp.diagnostics.append(Diagnostic("E303", f"link `{cid}` ends at unknown component `{end}`",
                                               c.at("ends"), help=did_you_mean(end, comp.components)))
    for label in spec.labels or ():
        if isinstance(label, dict) or (isinstance(label, tuple) and not all(
                isinstance(x, int | str) for x in label)):
            comp.diagnostics.append(Diagnostic("E202", f"link `{cid}`: a label is a number, a name, nothing, "
                                               "or a list of numbers and names", c.at("labels")))
    if is_link and spec.ends is not None and spec.count != 1:  # a printed link joins its two ends once
        comp.diagnostics.append(Diagnostic("E202", f"link `{cid}` must have count 1", c.at("count")))


# ---- scripts ----
def _check_scripts(comp: Composition, env: Environment) -> None:
    checker = Checker(env)
    for d in comp.procs.values():
        checker.check_body(d.value.params, d.value.body)
    for d in comp.fns.values():
        checker.check_expr(d.value.params, d.value.expr)
    for d in comp.modifiers:
        m = d.value
        _same_arity(comp, env, m.name, m.params, m.span, {"function"}, "modifier")
        if m.when is not None:
            checker.check_expr(m.params, m.when, what=WHEN)
        checker.check_expr(m.params, m.expr, what="a modifier")
    for d in comp.triggers:
        t = d.value
        if t.event not in env.events:
            comp.diagnostics.append(Diagnostic("E308", f"trigger on unknown event `{t.event}`", t.span,
                                               help=did_you_mean(t.event, env.events)))
        elif len(t.params) != len(env.events[t.event]):
            comp.diagnostics.append(Diagnostic("E400", f"event `{t.event}` has {len(env.events[t.event])} "
                                               f"parameters, the trigger names {len(t.params)}", t.span))
        _when_and_body(checker, t.params, t.when, t.body)
    for d in comp.hooks:
        h = d.value
        if h.target in env.events and h.target not in comp.procs:
            how = "instead of" if h.kind == "instead" else h.kind
            comp.diagnostics.append(Diagnostic(
                "E302", f"`{how}` hook on the event `{h.target}`, which no procedure performs", h.span,
                help=f"react with `on {h.target}(...)`; to replace a moment, hook the procedure that performs it "
                     "(a module announces it as a procedure of the same name)"))
            continue
        _same_arity(comp, env, h.target, h.params, h.span, {"procedure"}, "hook")
        env.called.add(h.target)
        _when_and_body(checker, h.params, h.when, h.body)
    for d in comp.actions.values():
        _check_action(checker, d.value)
        env.used_messages.update(f"why.{key}" for key in why_keys(d.value, comp.fns) if key)
    _check_phases(comp, env)
    _check_entry(comp, env)
    comp.diagnostics += checker.diagnostics
    _unused_procs(comp, env)
    _engine_called(comp, env)


def _when_and_body(checker: Checker, params, when, body) -> None:
    if when is not None:
        checker.check_expr(params, when, what=WHEN)
    checker.check_body(params, body)


def _same_arity(comp, env, name, params, span, kinds, what) -> None:
    target = env.callables.get(name)
    if target is None or target.what not in kinds:
        known = [n for n, c in env.callables.items() if c.what in kinds]
        comp.diagnostics.append(Diagnostic("E302", f"{what} on unknown {'/'.join(sorted(kinds))} `{name}`", span,
                                           help=did_you_mean(name, known)))
    elif len(target.params) != len(params):
        comp.diagnostics.append(Diagnostic("E400", f"`{name}` has {len(target.params)} parameters, the {what} "
                                           f"names {len(params)}", span))


def _check_action(checker: Checker, a: ast.ActionDef) -> None:
    scope = [a.actor]
    for p in a.params:
        checker.env.used_messages.add(f"{a.name}.{p.name}")  # the prompt that asks for it
        checker.check_expr(scope, p.domain, what="a parameter's domain")
        scope.append(p.name)
    if a.cost is not None:
        checker.check_expr([a.actor], a.cost, what="a `cost`")
    if a.when is not None:
        checker.check_expr([a.actor], a.when, what=WHEN)
    checker.check_body(scope, a.body)


def _check_phases(comp: Composition, env: Environment) -> None:
    for name, d in comp.phases.items():
        for step in d.value:
            target = env.callables.get(step)
            span = comp.step_spans.get((name, step), d.span)
            if target is None or target.what not in ("procedure", "phase"):
                comp.diagnostics.append(Diagnostic("E302", f"phase `{name}` names unknown step `{step}`", span,
                                                   help=did_you_mean(step, comp.procs) or f"add `proc {step}():`"))
            elif target.params:
                comp.diagnostics.append(Diagnostic("E400", f"step `{step}` must take no parameters", span))
            env.called.add(step)


def _check_entry(comp: Composition, env: Environment) -> None:
    if comp.entry is None:
        if comp.modules:
            comp.diagnostics.append(Diagnostic("E201", "no module names an `entry` procedure",
                                               comp.modules[0].manifest_span, help="add `entry: main` to module.yaml"))
        return
    target = env.callables.get(comp.entry.value)
    if target is None or target.what not in ("procedure", "phase"):
        comp.diagnostics.append(Diagnostic("E302", f"entry procedure `{comp.entry.value}` not found",
                                           comp.entry.span, help=did_you_mean(comp.entry.value, comp.procs)))
    elif target.params:
        comp.diagnostics.append(Diagnostic("E400", "the entry procedure must take no parameters", comp.entry.span))
    env.called.add(comp.entry.value)


# Names the engine itself shows (api.Ruleset.label): a module's catalog may translate them
ENGINE_LABELS = ("player", "pass", "true", "false")

# Called by the engine when a module defines them: what each must be, and its parameters
ENGINE_CALLED = {
    "pay_cost": ("procedure", ("actor", "cost")),
    "can_pay": ("function", ("actor", "cost")),
    "bot_hint": ("function", ("me", "prompt", "option")),  # the heuristic bot's score of an option
    "bot_search_here": ("function", ("me", "prompt")),  # whether the search bot searches a decision
    "bot_value": ("function", ("me",)),  # the search bot's score of a position for a player
}
HOOK_NAMES = set(ENGINE_CALLED)


def _engine_called(comp: Composition, env: Environment) -> None:
    for name, (what, params) in ENGINE_CALLED.items():
        declared = comp.procs.get(name) or comp.fns.get(name)
        if declared is not None:
            _callable_shape(comp, env.callables[name], name, what, params, declared.span, "an engine hook")
    for name in STEP_EVENTS:  # the engine emits them with 2 arguments around every phase step
        d = comp.events.get(name)
        if d is not None and len(d.value.params) != 2:
            comp.diagnostics.append(Diagnostic(
                "E400", f"the engine emits `{name}(phase, step)` with 2 arguments; it declares "
                f"{len(d.value.params)}", d.span, help=f"declare it as `event {name}(phase, step)`"))


def _callable_shape(comp: Composition, target, name: str, what: str, params: tuple[str, ...], span: Span,
                    where: str) -> None:
    """What the engine calls by name must be a `what` with these parameters (E402, E400)."""
    keyword = "fn" if what == "function" else "proc"
    if target.what != what:
        comp.diagnostics.append(Diagnostic(
            "E402", f"{where} names the {target.what} `{name}`; the engine calls it as a {what}", span,
            help=f"declare it as `{keyword} {name}({', '.join(params)}) ...`"))
    elif len(target.params) != len(params):
        n = len(params)
        comp.diagnostics.append(Diagnostic(
            "E400", f"{where}: `{name}` must take {n} parameter{'s' if n > 1 else ''} ({', '.join(params)}): "
            f"the engine calls it with {n} argument{'s' if n > 1 else ''}; it takes {len(target.params)}", span))


def _unused_procs(comp: Composition, env: Environment) -> None:
    top = comp.modules[-1].id if comp.modules else None
    for what, table in (("procedure", comp.procs), ("function", comp.fns)):
        for name, d in table.items():
            if "." in name or name in env.called or name in HOOK_NAMES or d.module != top:
                continue  # modules below the one checked are checked on their own
            comp.diagnostics.append(Diagnostic("W503", f"{what} `{name}` is never called", d.span,
                                               help="call it, name it as a phase step, or remove it",
                                               severity=WARNING))


# ---- what `nemesis simulate` reports (module.yaml `report:`) ----
def _check_report(comp: Composition, env: Environment) -> None:
    """Each field names a counter, a function of one player, or a logged message and its argument."""
    for field, d in comp.report.items():
        if field == "rounds" or field.startswith("counters."):
            _check_counter(comp, env, f"report `{field.partition('.')[0]}`", d.value, d.span)
        elif field == "plays":
            _check_plays(comp, env, d)
        elif field.startswith("cards."):
            _check_card_zones(comp, field, d)
        else:
            _check_player_function(comp, env, f"report `{field}`", d.value, d.span)


def _check_rewards(comp: Composition, env: Environment) -> None:
    """Each shaped-reward term names one source: a function of one player, a counter or a message."""
    for name, d in comp.rewards.items():
        term, where = d.value, f"reward `{name}`"
        sources = [s for s in ("player", "counter", "message") if getattr(term, s) is not None]
        if len(sources) != 1:
            comp.diagnostics.append(Diagnostic("E201", f"{where} names {len(sources)} sources: give one of "
                                               "`player`, `counter` or `message`", d.span))
        elif term.player is not None:
            _check_player_function(comp, env, where, term.player, d.span)
        elif term.counter is not None:
            _check_counter(comp, env, where, term.counter, d.span)
        elif env.messages and term.message not in env.messages:
            comp.diagnostics.append(Diagnostic("E307", f"{where}: unknown message key `{term.message}`", d.span,
                                               help=did_you_mean(term.message, env.messages)
                                               or "name a message that log() writes (i18n/en.yaml `messages:`)"))


def _check_screen(comp: Composition, env: Environment) -> None:
    """`nemesis play`'s screen: counters, functions of the viewer, zone names."""
    screen = comp.screen
    for i, name in enumerate(screen.counters or ()):
        _check_counter(comp, env, "screen `counters`", name, comp.screen_at[("counters", i)])
    for i, name in enumerate(screen.zones or ()):
        if name not in comp.zones:
            comp.diagnostics.append(Diagnostic("E305", f"screen `zones`: unknown zone `{name}`",
                                               comp.screen_at[("zones", i)], help=did_you_mean(name, comp.zones)))
    for i, panel in enumerate(screen.panels):
        _check_player_function(comp, env, "screen panel", panel.rows, comp.screen_at[("panels", i)])


def _check_counter(comp: Composition, env: Environment, where: str, name: str, span: Span) -> None:
    if name not in env.counters:
        comp.diagnostics.append(Diagnostic("E300", f"{where}: unknown counter `{name}`", span,
                                           help=did_you_mean(name, env.counters) or "declare it under `counters:`"))


def _check_player_function(comp: Composition, env: Environment, where: str, name: str, span: Span) -> None:
    """`name` must be a function of one player; the engine calls it, so it counts as used."""
    target = env.callables.get(name)
    if target is None:
        functions = [n for n, c in env.callables.items() if c.what == "function"]
        comp.diagnostics.append(Diagnostic("E302", f"{where}: unknown function `{name}`", span,
                                           help=did_you_mean(name, functions) or f"add `fn {name}(p) = ...`"))
    else:
        _callable_shape(comp, target, name, "function", ("player",), span, where)
    env.called.add(name)


def _check_card_zones(comp: Composition, field: str, d) -> None:
    """`report: cards: EVENT: [zone, ...]`: each a declared zone."""
    for i, name in enumerate(d.value):
        if name not in comp.zones:
            comp.diagnostics.append(Diagnostic("E305", f"report `{field}`: unknown zone `{name}`",
                                               comp.at("report", *field.split("."), i, default=d.span),
                                               help=did_you_mean(name, comp.zones)))


def _check_plays(comp: Composition, env: Environment, d) -> None:
    message, arg = d.value.message, d.value.arg
    if not env.messages:
        return  # no English catalog: W600 says so
    if message not in env.messages:
        comp.diagnostics.append(Diagnostic("E307", f"report `plays`: unknown message key `{message}`", d.span,
                                           help=did_you_mean(message, env.messages)
                                           or "name a message that log() writes (i18n/en.yaml `messages:`)"))
        return
    args = _placeholders(comp.catalogs[BASE_LANG][f"messages.{message}"].value)
    if arg not in args:
        comp.diagnostics.append(Diagnostic(
            "E400", f"report `plays`: message `{message}` has no argument `{arg}`",
            comp.at("report", "plays", "arg", default=d.span),
            help=did_you_mean(arg, args) or f"its English text names: {', '.join(sorted(args)) or 'nothing'}"))


# ---- translations ----
_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}?")


def _placeholders(text: str) -> set[str]:
    """The names of a template's fields, `{name}` or `{name|...}` (`{{` and `}}` are literal braces)."""
    return {m[1].partition("|")[0] for m in _FIELD.finditer(text) if m[1]}


def bad_placeholder(text: str) -> str | None:
    """The first field of a template that is neither `{name}` nor `{name|key=text|...|text}` (the
    engine fills only those: dsl/template.py)."""
    for m in _FIELD.finditer(text):
        field = m.group()
        if field in ("{{", "}}"):
            continue
        if not field.endswith("}"):
            return field
        name, bar, choices = m[1].partition("|")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or (bar and template.bad_choices(bar + choices)):
            return field
    return None


def _check_catalogs(comp: Composition, env: Environment, focus: str | None = None) -> None:
    base = comp.catalogs.get(BASE_LANG)
    if not comp.catalogs:
        return
    if base is None:
        span = comp.modules[0].manifest_span if comp.modules else Span()
        comp.diagnostics.append(Diagnostic("W600", "no English catalog (i18n/en.yaml)", span, severity=WARNING))
        return
    top = focus or (comp.modules[-1].id if comp.modules else None)
    _unused_keys(comp, env, base, top)
    _untitled_components(comp, base, top)
    _unprompted_parameters(comp, base, top)
    for lang in _shipped_languages(comp):
        table = comp.catalogs.get(lang, {})
        for key, d in base.items():
            if d.module != top:
                continue
            if key not in table:
                comp.diagnostics.append(Diagnostic("W600", f"`{key}` has no {lang} translation (English is used)",
                                                   d.span, severity=WARNING, help=f"add it to i18n/{lang}.yaml"))
            elif _placeholders(d.value) != _placeholders(table[key].value):
                comp.diagnostics.append(Diagnostic(
                    "E602", f"`{key}` has placeholders {sorted(_placeholders(table[key].value))} in {lang} but "
                    f"{sorted(_placeholders(d.value))} in en", table[key].span))
    for lang, table in comp.catalogs.items():
        for key, d in table.items():
            if lang != BASE_LANG and key not in base and d.module == top:
                comp.diagnostics.append(Diagnostic("W601", f"`{key}` in {lang} is not in the English catalog",
                                                   d.span, severity=WARNING, help="add it to en.yaml or remove it"))


def _shipped_languages(comp: Composition) -> list[str]:
    """The languages besides English the checked module must translate: those its `languages:`
    names and those it has a catalog for; without `languages:`, every language loaded."""
    src = comp.modules[-1] if comp.modules else None
    declared = src.manifest.languages if src is not None and src.manifest is not None else None
    if declared is None:
        return [lang for lang in comp.catalogs if lang != BASE_LANG]
    for i, lang in enumerate(declared):
        if lang != BASE_LANG and lang not in src.catalogs:
            comp.diagnostics.append(Diagnostic(
                "W600", f"module `{src.id}` ships `{lang}` but has no i18n/{lang}.yaml", src.manifest_at("languages", i),
                severity=WARNING, help=f"add i18n/{lang}.yaml, or remove `{lang}` from `languages:`"))
    return [lang for lang in dict.fromkeys((*declared, *src.catalogs)) if lang != BASE_LANG and lang in src.catalogs]


def _check_reading(comp: Composition, name: str, d: Declared) -> None:
    """A `readings:` entry names a procedure or function and fills only its parameters."""
    declared = comp.procs.get(name) or comp.fns.get(name)
    if declared is None:
        comp.diagnostics.append(Diagnostic("W601", f"reading `{name}` names no procedure or function", d.span,
                                           help="remove it or fix its spelling", severity=WARNING))
        return
    if unknown := _placeholders(d.value) - set(declared.value.params):
        comp.diagnostics.append(Diagnostic(
            "E602", f"reading `{name}` fills {sorted(unknown)}, not parameters of `{name}`", d.span,
            help=f"its parameters: {', '.join(declared.value.params) or 'none'}"))


def _unused_keys(comp: Composition, env: Environment, base: dict, top: str | None) -> None:
    headings = {n for p in comp.screen.panels for n in (p.title, *p.columns) if n}  # screen panels' words
    data_words = {v for c in comp.components.values() for v in (c.spec.props or {}).values()
                  if isinstance(v, str)}  # names written as prop values are shown too
    for key, d in base.items():
        if d.module != top:
            continue  # a module below the one checked is checked on its own
        section, _, name = key.partition(".")
        if section == "messages" and name not in env.used_messages:
            comp.diagnostics.append(Diagnostic("W601", f"message `{name}` is never used", d.span,
                                               help="remove it, or use it in log() or a prompt", severity=WARNING))
        if section == "readings":
            _check_reading(comp, name, d)
        if section == "names" and not any(name in known for known in (
                env.values, env.callables, env.counters, env.props, env.scripts, env.events, headings, data_words,
                ENGINE_LABELS)):
            comp.diagnostics.append(Diagnostic("W601", f"name `{name}` translates nothing declared",
                                               d.span, help="remove it or fix its spelling", severity=WARNING))
    for table in comp.catalogs.values():
        for key, d in table.items():
            if d.module == top and key.startswith("messages.") and (bad := bad_placeholder(str(d.value))):
                comp.diagnostics.append(Diagnostic(
                    "E603", f"`{key}`: `{bad[:40]}` is not a `{{name}}` or `{{name|key=text|text}}` placeholder",
                    d.span, help="only `{name}` and `{name|key=text|text}` are filled; write `{{` for a brace"))


def _unprompted_parameters(comp: Composition, base: dict, top: str | None) -> None:
    """Every parameter of the checked module's actions asks a player (`choose(..., prompt="a.p")`):
    without an English message the question reads only the action's and the parameter's names."""
    for name, d in comp.actions.items():
        if d.module != top:
            continue
        for p in d.value.params:
            if f"messages.{name}.{p.name}" not in base:
                comp.diagnostics.append(Diagnostic(
                    "W604", f"action `{name}` asks for `{p.name}` with no prompt (it reads “{name}: choose {p.name}”)",
                    p.span, severity=WARNING,
                    help=f"add `{name}.{p.name}: \"...?\"` under `messages:` in i18n/en.yaml (and each language shipped)"))


def _untitled_components(comp: Composition, base: dict, top: str | None) -> None:
    """Every component shows its name (`nemesis cards`, the screen, the log): the checked module
    names each of its own in English (the other languages are checked key by key)."""
    for cid, c in comp.components.items():
        if c.module == top and f"names.{cid}" not in base:
            comp.diagnostics.append(Diagnostic(
                "W600", f"component `{cid}` has no name in en (it shows as “{cid.replace('_', ' ')}”)",
                c.span, severity=WARNING, help=f"add `{cid}: ...` under `names:` in i18n/en.yaml"))
