"""Composing modules: resolve `requires`, then layer each module's data and scripts on the last.

Layering is declared: a later module adds things, `replace`s a procedure or component by name,
hooks a procedure (`before`/`after`/`instead of`), changes a phase (`extend phase`), or
`remove`s components. Two modules that replace the same thing while neither requires the other
is an error: nothing says which wins.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import attrs

from nemesis_rules.dsl import ast
from nemesis_rules.dsl.diagnostics import Diagnostic, Span, did_you_mean
from nemesis_rules.dsl.proptypes import PropType, parse_type, widen
from nemesis_rules.paths import rulesets_dir
from nemesis_rules.ruleset.load import ModuleSource, load_module, parse_script, yaml_span
from nemesis_rules.ruleset.records import (
    Catalog,
    Component,
    KindSpec,
    OptionSpec,
    PlayerRange,
    PlayerReport,
    ReportSpec,
    ScreenSpec,
)
from nemesis_rules.version import __version__


@attrs.define
class Declared:
    """A named thing with the module and place that declared it."""

    value: Any
    module: str
    span: Span


@attrs.define
class Composition:
    modules: list[ModuleSource] = attrs.Factory(list)
    symbols: dict[str, Declared] = attrs.Factory(dict)
    kinds: dict[str, Declared] = attrs.Factory(dict)  # KindSpec
    zones: dict[str, Declared] = attrs.Factory(dict)  # ZoneSpec
    counters: dict[str, Declared] = attrs.Factory(dict)  # CounterSpec
    dice: dict[str, Declared] = attrs.Factory(dict)  # tuple of faces
    layouts: dict[str, Declared] = attrs.Factory(dict)  # how a frontend draws a board (ruleset/layout.py)
    types: dict[str, Declared] = attrs.Factory(dict)  # a named prop type's text (docs/language.md, "Prop types")
    components: dict[str, Component] = attrs.Factory(dict)
    options: dict[str, OptionSpec] = attrs.Factory(dict)
    players: PlayerRange = attrs.Factory(PlayerRange)
    entry: Declared | None = None
    report: dict[str, Declared] = attrs.Factory(dict)  # "rounds", "player.group", ..., "plays" -> name(s)
    rewards: dict[str, Declared] = attrs.Factory(dict)  # term name -> RewardTerm (a later module's replaces)
    screen: ScreenSpec = attrs.Factory(ScreenSpec)
    screen_at: dict[tuple, Span] = attrs.Factory(dict)  # ("panels", i) / ("counters", i) / ("zones", i) -> span
    procs: dict[str, Declared] = attrs.Factory(dict)  # ProcDef (scripts of components included)
    fns: dict[str, Declared] = attrs.Factory(dict)  # FnDef
    modifiers: list[Declared] = attrs.Factory(list)
    events: dict[str, Declared] = attrs.Factory(dict)
    triggers: list[Declared] = attrs.Factory(list)
    hooks: list[Declared] = attrs.Factory(list)
    actions: dict[str, Declared] = attrs.Factory(dict)
    phases: dict[str, Declared] = attrs.Factory(dict)  # tuple of step names
    step_spans: dict[tuple[str, str], Span] = attrs.Factory(dict)  # (phase, step) -> where it is named
    catalogs: dict[str, dict[str, Declared]] = attrs.Factory(dict)  # lang -> key -> text
    diagnostics: list[Diagnostic] = attrs.Factory(list)
    sources: dict[str, str] = attrs.Factory(dict)
    requires: dict[str, set[str]] = attrs.Factory(dict)  # module -> every module it requires
    spans: dict[tuple, Span] = attrs.Factory(dict)  # ("kinds", kind, "props", prop) -> where written
    prop_types: dict[str, dict] = attrs.Factory(dict)  # kind -> prop -> PropType, parsed once by the checks

    def at(self, *path: Any, default: Span) -> Span:
        """Where a declaration's field was written (falling back to the declaration)."""
        return self.spans.get(path, default)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(m.id for m in self.modules)


# ---- finding modules ----
def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3]) or (0,)


def version_in_range(version: str, spec: str) -> bool:
    """`spec` is comma-separated comparisons, e.g. ">=0.1,<1"."""
    v = _version(version)
    for part in filter(None, (p.strip() for p in spec.split(","))):
        m = re.fullmatch(r"(>=|<=|==|!=|>|<)?\s*([\d.]+)", part)
        if not m:
            return False
        op, bound = m[1] or "==", _version(m[2])
        width = max(len(v), len(bound))
        a, b = v + (0,) * (width - len(v)), bound + (0,) * (width - len(bound))
        if not {">=": a >= b, "<=": a <= b, "==": a == b, "!=": a != b, ">": a > b, "<": a < b}[op]:
            return False
    return True


MODULE_ID = re.compile(r"[a-z][a-z0-9_]*")


def resolve_folder(name: str | Path, search: list[Path]) -> Path | None:
    path = Path(name)
    if path.is_dir():
        return path
    return _by_id(name, search)


def _by_id(name: str | Path, search: list[Path]) -> Path | None:
    if isinstance(name, str) and re.fullmatch(r"[a-z0-9_]+", name):
        for root in search:
            if (root / name).is_dir():
                return root / name
    return None


def _required_folder(req: str, via: Path, search: list[Path], absolute: bool) -> Path | str:
    """The folder a `requires:` entry names: a module id (searched), or a path relative to the
    requiring module's folder (an absolute one only when allowed); else why not, as text."""
    if re.fullmatch(r"[a-z0-9_]+", req):
        return _by_id(req, search) or "not found"
    path = Path(req)
    if path.is_absolute() and not absolute:
        return "an absolute path (name a module id, or a path relative to this module)"
    folder = path if path.is_absolute() else via / path
    return folder if folder.is_dir() else "not a folder next to this module"


def collect(names: list[str | Path], search: list[Path] | None = None,
            display_root: Path | None = None, cache: dict[str, ModuleSource] | None = None,
            absolute_requires: bool = False) -> Composition:
    """Load the named modules and everything they require, in dependency order.

    `cache` (folder -> loaded module) lets several compositions share the modules they have in
    common, as when the linter checks base and each expansion that requires it."""
    search = list(search or []) + [rulesets_dir()]
    for n in names:
        p = Path(n)
        if p.is_dir() and p.parent not in search:
            search.insert(0, p.parent)
    comp = Composition()
    loaded: dict[str, ModuleSource] = {}
    order: list[ModuleSource] = []
    state: dict[str, str] = {}

    def visit(name: str | Path, via: ModuleSource | None, index: int = 0) -> str | None:
        folder = resolve_folder(name, search) if via is None else _required_folder(
            str(name), via.path, search, absolute_requires)
        if isinstance(folder, str) and folder != "not found":
            comp.diagnostics.append(Diagnostic("E705", f"requires `{name}`: {folder}",
                                               via.manifest_at("requires", index)))
            return None
        if not isinstance(folder, Path):
            span = via.manifest_at("requires", index) if via else Span(str(name), 1, 1, 1, 2)
            known = [p.name for root in search if root.is_dir() for p in root.iterdir() if p.is_dir()]
            hint = did_you_mean(str(name), known) or "check the module id or give a folder path"
            what = f"requires module `{name}`, which is not found" if via else f"no module `{name}`"
            comp.diagnostics.append(Diagnostic("E700", what, span, help=hint))
            return None
        key = folder.resolve().as_posix()
        if state.get(key) == "done":
            return loaded[key].id
        if state.get(key) == "visiting":
            span = via.manifest_at("requires", index) if via else Span(str(name), 1, 1, 1, 2)
            comp.diagnostics.append(Diagnostic("E701", f"modules require each other in a cycle at `{folder.name}`",
                                               span, help="remove one of the `requires` entries"))
            return None
        state[key] = "visiting"
        src = cache.get(key) if cache is not None else None
        if src is None:
            src = load_module(folder, display_root)
            if cache is not None:
                cache[key] = src
        loaded[key] = src
        deps: set[str] = set()
        for i, req in enumerate(src.manifest.requires if src.manifest else ()):
            got = visit(req, src, i)
            if got:
                deps |= {got} | comp.requires.get(got, set())
        comp.requires[src.id] = deps
        state[key] = "done"
        order.append(src)
        return src.id

    for n in names:
        visit(n, None)
    _visit_adapters(order, visit)
    comp.modules = order
    return comp


def _visit_adapters(order: list[ModuleSource], visit) -> None:
    """Load each module's `adapters` part whose other module is loaded too, until none is left:
    a part is loaded after both (it requires them), so it layers on the two."""
    done: set[str] = set()
    while True:
        ids = {src.id for src in order}
        todo = [(src, part) for src in list(order) if src.manifest
                for other, part in src.manifest.adapters.items() if other in ids and part not in ids | done]
        if not todo:
            return
        for src, part in todo:
            done.add(part)
            visit(part, src, 0)


# ---- layering ----
def compose(names: list[str | Path], search: list[Path] | None = None,
            display_root: Path | None = None, cache: dict[str, ModuleSource] | None = None,
            absolute_requires: bool = False) -> Composition:
    comp = collect(names, search, display_root, cache, absolute_requires)
    for src in comp.modules:
        comp.diagnostics += src.diagnostics
        comp.sources.update(src.sources)
    _check_manifests(comp)
    replaced: dict[tuple[str, str], list[Declared]] = {}
    for src in comp.modules:
        _add_data(comp, src, replaced)
        _add_scripts(comp, src, replaced)
        _add_catalogs(comp, src)
    _check_replacements(comp, replaced)
    return comp


def _check_manifests(comp: Composition) -> None:
    ids = set(comp.ids)
    for src in comp.modules:
        m = src.manifest
        if m is None:
            continue
        if not MODULE_ID.fullmatch(m.id):
            comp.diagnostics.append(Diagnostic("E203", f"module id {m.id[:40]!r} must be a lowercase name "
                                               "(letters, digits and _)", src.manifest_at("id")))
        if not version_in_range(__version__, m.engine):
            comp.diagnostics.append(Diagnostic(
                "E703", f"module `{m.id}` supports engine {m.engine}; this engine is {__version__}",
                src.manifest_at("engine"), help="update the module's `engine` range after checking it"))
        for i, other in enumerate(m.conflicts):
            if other in ids:
                comp.diagnostics.append(Diagnostic(
                    "E704", f"module `{m.id}` cannot be combined with `{other}`", src.manifest_at("conflicts", i),
                    help=f"load `{m.id}` or `{other}`, not both"))
        if m.players is not None:
            comp.players = m.players
        if m.entry is not None:
            comp.entry = Declared(m.entry, m.id, src.manifest_at("entry"))
        comp.options.update(m.options)
        if m.report is not None:
            _add_report(comp, src, m.report)
        if m.screen is not None:
            _add_screen(comp, src, m.screen)
        for name, term in m.rewards.items():
            comp.rewards[name] = Declared(term, m.id, src.manifest_at("rewards", name))


def _add_screen(comp: Composition, src: ModuleSource, spec: ScreenSpec) -> None:
    """`counters` and `zones` of a later module replace the earlier ones; panels add up."""
    now = comp.screen
    for field in ("counters", "zones"):
        names = getattr(spec, field)
        if names is not None:
            now = attrs.evolve(now, **{field: names})
            for i in range(len(names)):
                comp.screen_at[(field, i)] = src.manifest_at("screen", field, i)
    start = len(now.panels)
    for i in range(len(spec.panels)):
        comp.screen_at[("panels", start + i)] = src.manifest_at("screen", "panels", i, "rows")
    comp.screen = attrs.evolve(now, panels=now.panels + spec.panels)


def _add_report(comp: Composition, src: ModuleSource, spec: ReportSpec) -> None:
    """Field by field: a module's `report:` field overrides the same field of a module below it."""
    fields: dict[str, Any] = {"rounds": spec.rounds, "plays": spec.plays}
    if spec.player is not None:
        fields.update({f"player.{f.name}": getattr(spec.player, f.name) for f in attrs.fields(PlayerReport)})
    for i, name in enumerate(spec.counters or ()):  # each module adds its own counters to the list
        comp.report[f"counters.{name}"] = Declared(name, src.id, src.manifest_at("report", "counters", i))
    for event, zones in (spec.cards or {}).items():  # each event's zones replace a lower module's
        comp.report[f"cards.{event}"] = Declared(tuple(zones), src.id, src.manifest_at("report", "cards", event))
        for i in range(len(zones)):
            comp.spans[("report", "cards", event, i)] = src.manifest_at("report", "cards", event, i)
    for field, value in fields.items():
        if value is None:
            continue
        path = ("report", *field.split("."))
        if field == "plays":
            comp.spans[(*path, "arg")] = src.manifest_at(*path, "arg")
            path = (*path, "message")
        comp.report[field] = Declared(value, src.id, src.manifest_at(*path))


def _declare(table: dict[str, Declared], name: str, value: Any, module: str, span: Span,
             comp: Composition, what: str) -> None:
    if name in table:
        prev = table[name]
        comp.diagnostics.append(Diagnostic(
            "E500", f"{what} `{name}` is declared twice (first in {prev.span.file}:{prev.span.line})", span,
            help="rename one, or use `replace` in a later module"))
        return
    table[name] = Declared(value, module, span)


def _add_data(comp: Composition, src: ModuleSource, replaced: dict) -> None:
    for file, record, raw in src.files:
        def at(*path: Any, key: bool = True) -> Span:
            return yaml_span(raw, path, file, key=key)  # noqa: B023 (used at once)

        for i, name in enumerate(record.symbols):
            _declare(comp.symbols, name, name, src.id, yaml_span(raw, ("symbols", i), file), comp, "symbol")
        for name, spec in record.kinds.items():
            if not spec.extend:
                _declare(comp.kinds, name, spec, src.id, at("kinds", name), comp, "kind")
        _record_spans(comp, raw, file)
        for name, spec in record.zones.items():
            _declare(comp.zones, name, spec, src.id, at("zones", name), comp, "zone")
        for name, spec in record.counters.items():
            _declare(comp.counters, name, spec, src.id, at("counters", name), comp, "counter")
        for name, faces in record.dice.items():
            _declare(comp.dice, name, faces, src.id, at("dice", name), comp, "die")
        for name, layout in record.layouts.items():
            _declare(comp.layouts, name, _json_like(layout), src.id, at("layouts", name), comp, "layout")
            _record_layout_spans(comp, raw, file, name)
        for name, text in record.types.items():
            _declare_type(comp, name, text, src.id, at("types", name))
        for i, cid in enumerate(record.remove):
            if comp.components.pop(cid, None) is None:
                hint = did_you_mean(cid, comp.components)
                comp.diagnostics.append(Diagnostic("E303", f"cannot remove unknown component `{cid}`",
                                                   yaml_span(raw, ("remove", i), file), help=hint))
    for file, record, raw in src.files:  # after every declaration of the module, whatever the file order
        for name, spec in record.kinds.items():
            if spec.extend:
                _extend_kind(comp, name, spec, yaml_span(raw, ("kinds", name), file, key=True))
    for c in src.components:
        cid = c.spec.id
        if RESERVED_ID.fullmatch(cid):
            comp.diagnostics.append(Diagnostic(
                "E500", f"component id `{cid}` is a player's id (player1, player2, …): it would replace "
                "that player's record", c.span, help="give the component another id"))
            continue
        if c.spec.replace:
            if cid not in comp.components:
                comp.diagnostics.append(Diagnostic("E303", f"`replace: true` but no earlier component `{cid}`",
                                                   c.span, help=did_you_mean(cid, comp.components)))
            replaced.setdefault(("component", cid), []).append(Declared(c, src.id, c.span))
            comp.components[cid] = c
        elif cid in comp.components:
            prev = comp.components[cid]
            comp.diagnostics.append(Diagnostic(
                "E500", f"component `{cid}` is declared twice (first in {prev.span.file}:{prev.span.line})",
                c.span, help="give it another id, or `replace: true` in a later module"))
        else:
            comp.components[cid] = c


RESERVED_ID = re.compile(r"player[0-9]+")  # the players' own entities (compile.py names them so)


def _declare_type(comp: Composition, name: str, text: str, module: str, span: Span) -> None:
    """A named type is declared once, except a symbol set, which a later declaration widens (an
    expansion adds its own pieces to a type of the game's)."""
    prev = comp.types.get(name)
    wider = prev and widen(parse_type(prev.value, ())[0], _symbol_set(text))
    if wider:
        prev.value = wider.text
    else:
        _declare(comp.types, name, str(text), module, span, comp, "type")


def _symbol_set(text: str) -> PropType:
    """A type's text as parsed, where a bare name that is no type is a one-symbol set (a later
    module adds a single symbol: `bag_token: twitchling`)."""
    parsed = parse_type(text, ())[0]
    name = str(text).strip()
    return PropType(name, "set", members=(name,)) if parsed.base == "any" and name.isidentifier() else parsed


def _record_spans(comp: Composition, raw: Any, file: str) -> None:
    """The place of each field of kinds, zones and counters, for findings on the right line."""
    for section in ("kinds", "zones", "counters"):
        entries = raw.get(section) if isinstance(raw, dict) else None
        if not isinstance(entries, dict):
            continue
        for name, fields in entries.items():
            if not isinstance(fields, dict):
                continue
            for field, value in fields.items():
                comp.spans[(section, name, field)] = yaml_span(raw, (section, name, field), file)
                if isinstance(value, dict):
                    for key in value:
                        comp.spans[(section, name, field, key)] = yaml_span(raw, (section, name, field, key), file)


def _json_like(value: Any) -> Any:
    """Plain dicts and lists all the way down (a layout is handed to frontends as JSON)."""
    if isinstance(value, dict):
        return {k: _json_like(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_like(v) for v in value]
    return value


def _record_layout_spans(comp: Composition, raw: Any, file: str, name: str) -> None:
    """The place of each field of a layout and of each key under it (a place id, a zone)."""
    fields = raw["layouts"][name]
    if not isinstance(fields, dict):
        return
    for field, value in fields.items():
        comp.spans[("layouts", name, field)] = yaml_span(raw, ("layouts", name, field), file)
        keys = value if isinstance(value, dict) else range(len(value)) if isinstance(value, list) else ()
        for key in keys:  # a place id, a zone, a list's index
            comp.spans[("layouts", name, field, key)] = yaml_span(raw, ("layouts", name, field, key), file)


def _extend_kind(comp: Composition, name: str, spec: KindSpec, span: Span) -> None:
    """`extend: true` adds props, defaults and scripts to a kind declared in another file or module."""
    base = comp.kinds.get(name)
    if base is None:
        comp.diagnostics.append(Diagnostic("E304", f"`extend: true` but no kind `{name}` is declared before",
                                           span, help=did_you_mean(name, comp.kinds)))
        return
    old = base.value
    props = dict(old.props)
    for prop, t in spec.props.items():
        wider = widen(parse_type(old.props[prop], ())[0], parse_type(t, ())[0]) if prop in old.props else None
        if prop in old.props and old.props[prop] != t and wider is None:
            comp.diagnostics.append(Diagnostic("E500", f"kind `{name}` already has prop `{prop}` as {old.props[prop]}",
                                               span, help="extend with new props only, or add symbols to a set"))
        props[prop] = t if wider is None else wider.text  # an extension may add symbols to a set
    base.value = attrs.evolve(old, props=props, defaults={**old.defaults, **spec.defaults},
                              scripts={**old.scripts, **spec.scripts},
                              functions={**old.functions, **spec.functions}, zones=(*old.zones, *spec.zones),
                              back=spec.back or old.back, text=spec.text or old.text, graph=spec.graph or old.graph,
                              in_play=spec.in_play or old.in_play)


def _add_scripts(comp: Composition, src: ModuleSource, replaced: dict) -> None:
    for module in src.scripts:
        for d in module.decls:
            _add_decl(comp, src.id, d, replaced)


def _add_decl(comp: Composition, mod: str, d: ast.Decl, replaced: dict) -> None:
    match d:
        case ast.ProcDef(replace=True):
            if d.name not in comp.procs:
                comp.diagnostics.append(Diagnostic("E302", f"`replace proc {d.name}` but no such procedure",
                                                   d.span, help=did_you_mean(d.name, comp.procs)))
            replaced.setdefault(("proc", d.name), []).append(Declared(d, mod, d.span))
            comp.procs[d.name] = Declared(d, mod, d.span)
        case ast.ProcDef():
            _one_callable(comp, d.name, "procedure", d.span)
            _declare(comp.procs, d.name, d, mod, d.span, comp, "procedure")
        case ast.FnDef():
            _one_callable(comp, d.name, "function", d.span)
            _declare(comp.fns, d.name, d, mod, d.span, comp, "function")
        case ast.EventDef():
            _declare(comp.events, d.name, d, mod, d.span, comp, "event")
        case ast.ActionDef():
            _declare(comp.actions, d.name, d, mod, d.span, comp, "action")
        case ast.PhaseDef():
            _one_callable(comp, d.name, "phase", d.span)
            _declare(comp.phases, d.name, d.steps, mod, d.span, comp, "phase")
            comp.step_spans.update({(d.name, n): sp for n, sp in zip(d.steps, d.step_spans, strict=False)})
        case ast.PhaseExtend():
            _extend_phase(comp, mod, d, replaced)
        case ast.ModifierDef():
            comp.modifiers.append(Declared(d, mod, d.span))
        case ast.TriggerDef():
            comp.triggers.append(Declared(d, mod, d.span))
        case ast.HookDef():
            comp.hooks.append(Declared(d, mod, d.span))


def _one_callable(comp: Composition, name: str, what: str, span: Span) -> None:
    """A call `name(...)` must mean one thing: a procedure, a function and a phase share names."""
    for other, table in (("procedure", comp.procs), ("function", comp.fns), ("phase", comp.phases)):
        prev = table.get(name)
        if other != what and prev is not None:
            comp.diagnostics.append(Diagnostic(
                "E500", f"`{name}` is already a {other} (in {prev.span.file}:{prev.span.line}); "
                f"a {what} cannot share its name", _name_span(comp, span, name),
                help=f"rename one of them: a call `{name}(...)` must mean one thing"))


def _name_span(comp: Composition, span: Span, name: str) -> Span:
    """The declared name inside a declaration's span (for the caret), else the whole span."""
    lines = comp.sources.get(span.file, "").splitlines()
    line = lines[span.line - 1] if 0 < span.line <= len(lines) else ""
    at = line.find(name, span.column - 1)
    if at < 0:
        return span
    return Span(span.file, span.line, at + 1, span.line, at + 1 + len(name))


def _extend_phase(comp: Composition, mod: str, d: ast.PhaseExtend, replaced: dict) -> None:
    phase = comp.phases.get(d.name)
    if phase is None:
        comp.diagnostics.append(Diagnostic("E302", f"`extend phase {d.name}` but no such phase", d.span,
                                           help=did_you_mean(d.name, comp.phases)))
        return
    steps = list(phase.value)
    for ch in d.changes:
        target = ch.step if ch.op in ("remove", "replace") else ch.anchor
        if target not in steps:
            comp.diagnostics.append(Diagnostic("E302", f"phase `{d.name}` has no step `{target}`", ch.span,
                                               help=did_you_mean(target, steps) or f"steps: {', '.join(steps)}"))
            continue
        i = steps.index(target)
        if ch.op == "remove":
            del steps[i]
        elif ch.op == "replace":
            steps[i] = ch.anchor
            replaced.setdefault(("step", f"{d.name}.{ch.step}"), []).append(Declared(ch, mod, ch.span))
        else:
            steps.insert(i if ch.op == "before" else i + 1, ch.step)
        if ch.op != "remove":
            comp.step_spans[(d.name, ch.anchor if ch.op == "replace" else ch.step)] = ch.span
    phase.value = tuple(steps)


def _add_catalogs(comp: Composition, src: ModuleSource) -> None:
    for lang, files in src.catalogs.items():
        table = comp.catalogs.setdefault(lang, {})
        for file, catalog, raw in files:
            _add_catalog(table, file, catalog, raw, src.id, comp)


def _add_catalog(table: dict, file: str, catalog: Catalog, raw: Any, mod: str, comp: Composition) -> None:
    for section, entries in (("names", catalog.names), ("messages", catalog.messages),
                             ("readings", catalog.readings)):
        for key, text in entries.items():
            full = f"{section}.{key}"
            span = yaml_span(raw, (section, key), file, key=True)
            if full in table and table[full].module == mod:
                comp.diagnostics.append(Diagnostic("E500", f"translation `{key}` is given twice", span))
            table[full] = Declared(text, mod, span)


def _check_replacements(comp: Composition, replaced: dict) -> None:
    for (what, name), entries in replaced.items():
        for i, a in enumerate(entries):
            for b in entries[i + 1:]:
                if a.module != b.module and a.module not in comp.requires.get(b.module, set()):
                    comp.diagnostics.append(Diagnostic(
                        "E702", f"modules `{a.module}` and `{b.module}` both replace {what} `{name}`",
                        b.span, help=f"make `{b.module}` require `{a.module}` (then it wins), or drop one"))


# ---- component scripts become procedures (and expression fields functions) ----
def script_procs(comp: Composition) -> None:
    """Parse each component's script fields into procedures named `<component>.<field>`; a field
    the kind declares under `functions:` holds one expression and becomes a function."""
    for cid, c in comp.components.items():
        kind = comp.kinds.get(c.spec.kind)
        declared: dict[str, tuple[str, ...]] = kind.value.scripts if kind else {}
        functions: dict[str, tuple[str, ...]] = kind.value.functions if kind else {}
        for field, script in c.scripts.items():
            if kind is not None and field not in declared and field not in functions:
                known = sorted(set(declared) | set(functions) | {f for f in (
                    "id", "kind", "count", "zone", "face_up", "props", "ends", "labels", "replace")})
                comp.diagnostics.append(Diagnostic(
                    "E200", f"unknown field `{field}` for a component of kind `{c.spec.kind}`",
                    Span(script.span.file, script.span.line, 1, script.span.line, 2),
                    help=did_you_mean(field, known) or f"declare it under kinds.{c.spec.kind}.scripts"))
                continue
            if field in functions:
                _expression_field(comp, c, cid, field, script, functions[field])
                continue
            body, diags = parse_script(script, script.span.file)
            comp.diagnostics += diags
            if body is None:
                continue
            params = ("this", *declared.get(field, ()))
            proc = ast.ProcDef(f"{cid}.{field}", params, body.stmts, span=body.span)
            comp.procs[proc.name] = Declared(proc, c.module, script.span)


def _expression_field(comp: Composition, c, cid: str, field: str, script, params: tuple[str, ...]) -> None:
    """An expression field is read as `return <expr>`: one expression, no statements."""
    wrapped = attrs.evolve(script, text="return " + script.text.strip(), col_offset=script.col_offset - 7)
    body, diags = parse_script(wrapped, script.span.file)
    comp.diagnostics += diags
    if body is None:
        return
    if len(body.stmts) != 1 or not isinstance(body.stmts[0], ast.Return) or body.stmts[0].value is None:
        comp.diagnostics.append(Diagnostic("E100", f"`{field}` holds one expression, not statements", script.span,
                                           help=f"write a condition such as `count(x) > 0` (`{field}` is declared "
                                                f"under the kind's `functions:`)"))
        return
    fn = ast.FnDef(f"{cid}.{field}", ("this", *params), body.stmts[0].value, span=body.span)
    comp.fns[fn.name] = Declared(fn, c.module, script.span)

