"""`nemesis cards` (the component catalog) and `nemesis explain ID` (how the engine reads one).

Both read scripts back from their parsed form (never from stored prose): as sentences in the
chosen language (`dsl/describe.py`) and, in `explain`, as DSL source with the names and messages
they use in that language.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from nemesis_rules import coverage
from nemesis_rules.api import Ruleset, catalog_sections
from nemesis_rules.cli import common
from nemesis_rules.cli.render import effect_unknown, face_holder, words
from nemesis_rules.dsl import ast
from nemesis_rules.dsl.describe import (
    as_lines,
    describe_decl,
    describe_expression,
    describe_face,
    describe_script,
    summary,
)
from nemesis_rules.dsl.diagnostics import RulesError, did_you_mean
from nemesis_rules.dsl.printer import decl, expr, to_source
from nemesis_rules.ruleset import reference
from nemesis_rules.ruleset.compose import Composition, compose
from nemesis_rules.ruleset.records import Component
from nemesis_rules.ruleset.validate import BASE_LANG, validate


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("cards", help="list the components: id, kind, count, name, effect")
    common.add_module_args(p)
    p.add_argument("--kind", default=None, help="only components of this kind")
    p.set_defaults(run=run_cards)
    p = sub.add_parser("explain", help="show how the engine reads a component or a procedure")
    p.add_argument("id", metavar="ID", nargs="?", help="a component id, or a procedure, function, action, phase or event")
    p.add_argument("--search", metavar="WORD", default=None,
                   help="list the procedures, functions, events and actions whose name or doc holds WORD")
    common.add_module_args(p)
    p.set_defaults(run=run_explain)


# ---- loading for browsing ----
def browse(modules: list[str] | None, lang: str) -> Ruleset:
    """The rules, or, when they do not load for play, their components and catalogs anyway."""
    try:
        return common.load(modules, lang)
    except RulesError as error:
        comp = compose(common.module_list(modules))
        validate(comp)
        if not comp.components or lang not in set(comp.catalogs) | {BASE_LANG}:
            raise
        common.err(f"warning: not playable yet ({common.one_line(error)}); browsing its components anyway")
        return _browsing(comp, lang)


def _browsing(comp: Composition, lang: str) -> Ruleset:
    names, messages, readings = catalog_sections(comp.catalogs, lang)
    return Ruleset(modules=comp.ids, lang=lang, program=SimpleNamespace(player_ids=()),  # type: ignore[arg-type]
                   composition=comp, players=comp.players, options=dict(comp.options), fingerprint="",
                   warnings=[], names=names, messages=messages, readings=readings)


# ---- cards ----
def run_cards(args: argparse.Namespace) -> int:
    rules = browse(args.modules, args.lang)
    comps = list(rules.composition.components.values())
    if args.kind is not None:
        kinds = {c.spec.kind for c in comps}
        if args.kind not in kinds:
            hint = did_you_mean(args.kind, kinds) or f"kinds: {', '.join(sorted(kinds))}"
            raise common.CliError(f"no components of kind `{args.kind}` ({hint})")
        comps = [c for c in comps if c.spec.kind == args.kind]
    console = Console(highlight=False)
    table = cards_table(rules, comps)
    if effect_room(console, table) < EFFECT_MIN_WIDTH:
        print_records(console, rules, comps)
    else:
        console.print(table)
    return common.EXIT_OK


def effect_room(console: Console, table: Table) -> int:
    """The columns left on this console for the texts after the fixed columns (unknown parts,
    effect), which share it (the console's width when there are none)."""
    if not table.expand:
        return console.width
    fixed = table.columns[:len(FIXED_COLUMNS)]
    used = sum(max(len(c.header), *(len(cell) for cell in c.cells)) + 1 for c in fixed)
    return console.width - used


def print_records(console: Console, rules: Ruleset, comps: list[Component]) -> None:
    """The catalog on a narrow console or a pipe: one line a component, its unknown parts and
    effect below it, indented and wrapped (never cut)."""
    unknown = unknown_parts(rules)
    console.print(escape(f"{len(comps)} components, {sum(c.spec.count for c in comps)} pieces"))
    for c in comps:
        console.print(escape(f"{c.spec.id}  {c.spec.kind} ×{c.spec.count}  {c.spec.zone or '-'}  "
                             f"{rules.label(c.spec.id)}"))
        for title, text in (("unknown", "; ".join(unknown.get(c.spec.id, ()))), ("effect", effect_summary(rules, c))):
            if text:
                console.print(Padding(Text(f"{title}: {text}"), (0, 0, 0, RECORD_INDENT)))


FIXED_COLUMNS = (("id", "left"), ("kind", "left"), ("count", "right"), ("zone", "left"), ("name", "left"))


def cards_table(rules: Ruleset, comps: list[Component]) -> Table:
    """One row a component; an `unknown` column (what the coverage tables say our sources do not
    give of it) and an `effect` column (its scripts' first sentences) when any has one.

    The effect column takes the width left and is cut with an ellipsis where it runs out."""
    table = Table(box=None, header_style="bold", pad_edge=False,
                  title=f"{len(comps)} components, {sum(c.spec.count for c in comps)} pieces")
    for name, justify in FIXED_COLUMNS:
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    rows = [[c.spec.id, c.spec.kind, str(c.spec.count), c.spec.zone or "-", rules.label(c.spec.id)] for c in comps]
    unknown = unknown_parts(rules)
    for title, texts in (("unknown", ["; ".join(unknown.get(c.spec.id, ())) for c in comps]),
                         ("effect", [effect_summary(rules, c) for c in comps])):
        if any(texts):
            table.expand = True
            table.add_column(title, no_wrap=True, overflow="ellipsis", ratio=1)
            rows = [[*row, text] for row, text in zip(rows, texts, strict=True)]
    for row in rows:
        table.add_row(*map(escape, row))
    return table


def unknown_parts(rules: Ruleset) -> dict[str, list[str]]:
    """What the modules' coverage tables say our sources do not give, per component id."""
    try:
        return coverage.unknowns(rules.composition)
    except coverage.CoverageError as error:
        common.err(f"warning: the coverage table is not read ({error})")
        return {}


def effect_summary(rules: Ruleset, c: Component) -> str:
    """The first sentences of each script field, or "". A field is named (by its catalog label)
    unless it is the only one and is called `effect`: `use: ...; dropped: ...`. A card whose
    content is unknown reads "(effect unknown)", whatever placeholder scripts it has."""
    if effect_unknown(rules, c.spec.id):
        return words(rules, "effect_unknown")
    scripts = script_procs(rules, c)
    texts = [summary(describe_face(rules, proc, c.spec.kind, face_holder(rules, c.spec.kind, field)),
                     width=SUMMARY_WIDTH) for field, proc in scripts.items()]
    if len(texts) > 1 or (scripts and next(iter(scripts)) != "effect"):
        texts = [f"{rules.label(field)}: {text}" for field, text in zip(scripts, texts, strict=True)]
    return "; ".join(texts)


SUMMARY_WIDTH = 160  # the table cuts the column to the terminal; this bounds a very long script
EFFECT_MIN_WIDTH = 40  # a console leaving the effect column less prints records instead (a pipe: 80)
RECORD_INDENT = 4


def script_procs(rules: Ruleset, c: Component) -> dict[str, ast.ProcDef]:
    """A component's script fields (what it does), parsed, by field name."""
    procs = rules.composition.procs
    return {f: procs[f"{c.spec.id}.{f}"].value for f in c.scripts if f"{c.spec.id}.{f}" in procs}


def expression_fields(rules: Ruleset, c: Component) -> dict[str, ast.FnDef]:
    """A component's expression fields (conditions such as `usable`), parsed, by field name."""
    fns = rules.composition.fns
    return {f: fns[f"{c.spec.id}.{f}"].value for f in c.scripts if f"{c.spec.id}.{f}" in fns}


# ---- explain ----
def run_explain(args: argparse.Namespace) -> int:
    if (args.id is None) == (args.search is None):
        raise common.CliError("name one ID, or search with --search WORD (see `nemesis explain --help`)")
    rules = browse(args.modules, args.lang)
    text = explain(rules, args.id) if args.search is None else search_names(rules, args.search)
    Console(highlight=False).print(escape(text), soft_wrap=True)
    return common.EXIT_OK


def explain(rules: Ruleset, name: str) -> str:
    """How the engine reads `name`, as text."""
    comp = rules.composition
    if name in comp.components:
        return explain_component(rules, comp.components[name])
    tables = {"procedure": comp.procs, "function": comp.fns, "action": comp.actions, "phase": comp.phases,
              "event": comp.events}
    for what, table in tables.items():
        if name in table:
            return explain_declared(rules, what, name, table[name].value)
    known = [*comp.components, *(n for t in tables.values() for n in t)]
    hint = did_you_mean(name, known) or "`nemesis cards` lists the components"
    raise common.CliError(f"no component or procedure `{name}` in {'+'.join(rules.modules)} ({hint})")


def search_names(rules: Ruleset, word: str) -> str:
    """The public names whose name or doc holds `word`: signature, kind, where, doc."""
    found = reference.search(reference.entries(rules.composition), word)
    if not found:
        raise common.CliError(f"no procedure, function, event or action of {'+'.join(rules.modules)} "
                              f"mentions `{word}` (docs/reference.md lists them all)")
    return "\n".join(f"{e.signature}: {e.what} ({e.module}, {Path(e.file).name}:{e.line})"
                     + (f"\n    {e.doc}" if e.doc else "") for e in found)


def explain_component(rules: Ruleset, c: Component) -> str:
    s = c.spec
    lines = [f"{s.id}: {rules.label(s.id)}",
             f"  {s.kind}, {s.count} {'pieces' if s.count != 1 else 'piece'}"
             + (f", starts in {s.zone}" if s.zone else "") + ("" if s.face_up else ", face down")
             + f" (module {c.module})"]
    lines += _props(rules, _all_props(rules, s.kind, s.props))
    lines += [f"  unknown in our sources (coverage.toml): {text}" for text in unknown_parts(rules).get(s.id, ())]
    if s.ends:
        lines.append(f"  joins {rules.label(s.ends[0])} and {rules.label(s.ends[1])}"
                     + (f", labelled {s.labels[0]} / {s.labels[1]}" if s.labels else ""))
    scripts = script_procs(rules, c)
    conditions = expression_fields(rules, c)
    for field, fn in conditions.items():
        lines += _condition(rules, field, fn, s.kind)
    unknown = effect_unknown(rules, s.id)
    if unknown and not scripts:
        lines.append(f"  effect: {words(rules, 'effect_unknown')}")
    for field, proc in scripts.items():
        lines += _script(rules, field, proc, s.kind, unknown)
    lines += _words(rules, (*conditions.values(), *scripts.values()))
    return "\n".join(lines)


def _all_props(rules: Ruleset, kind: str, props: dict[str, Any]) -> dict[str, Any]:
    spec = rules.composition.kinds.get(kind)
    merged = dict(spec.value.defaults) if spec else {}
    merged.update(props)
    return merged


def _props(rules: Ruleset, props: dict[str, Any]) -> list[str]:
    if not props:
        return []
    lines = ["  props:"]
    for k, v in props.items():
        label = "-" if v is None else rules.label(v)
        raw = str(v).lower() if isinstance(v, bool) else str(v)  # as a script writes it
        shown = raw if label in (raw, raw.replace("_", " ")) else f"{raw} ({label})"
        lines.append(f"    {k}: {shown}")
    return lines


def _script(rules: Ruleset, field: str, proc: ast.ProcDef, kind: str, unknown: bool = False) -> list[str]:
    """A script field read as sentences (or as "(effect unknown)" on a card whose content is
    unknown: its script is a placeholder), then its DSL source."""
    params = [p for p in proc.params if p != "this"]
    body = to_source(ast.Body(proc.body)).rstrip("\n").splitlines()
    reading = [f"    {words(rules, 'effect_unknown')}"] if unknown else as_lines(describe_script(rules, proc, kind), "    ")
    return [f"  {field}({', '.join(params)}):", *reading,
            "    script:", *(f"        {line}" for line in body)]


def _condition(rules: Ruleset, field: str, fn: ast.FnDef, kind: str) -> list[str]:
    """An expression field read as a sentence, then its DSL source."""
    params = [p for p in fn.params if p != "this"]
    return [f"  {field}({', '.join(params)}):", *as_lines(describe_expression(rules, fn, kind), "    "),
            "    expression:", f"        {expr(fn.expr)}"]


def explain_declared(rules: Ruleset, what: str, name: str, node: Any) -> str:
    """A declaration with its hooks, modifiers or triggers: as sentences, then as DSL source."""
    if what == "phase":  # the composition keeps a phase as its steps
        node = ast.PhaseDef(name, node)
    lines = [f"{name}: {what}" + (f" ({rules.label(name)})" if rules.label(name) != name.replace("_", " ") else "")]
    declared = (node, *_attached(rules, name))
    for d in declared:
        lines += as_lines(describe_decl(rules, d), "  ")
    lines.append("  script:")
    for i, d in enumerate(declared):
        lines += [""] * (i > 0) + ["    " + line for line in decl(d)]
    lines += _words(rules, declared)
    return "\n".join(lines)


def _attached(rules: Ruleset, name: str) -> list[Any]:
    """Hooks on a procedure, modifiers of a function, triggers of an event."""
    comp = rules.composition
    hooks = [d.value for d in comp.hooks if d.value.target == name]
    mods = [d.value for d in comp.modifiers if d.value.name == name]
    triggers = [d.value for d in comp.triggers if d.value.event == name]
    return hooks + mods + triggers


def _words(rules: Ruleset, nodes: tuple[Any, ...]) -> list[str]:
    """The names and messages scripts use, in the ruleset's language."""
    found: dict[str, str] = {}
    for node in nodes:
        for leaf in ast.walk(node):
            if isinstance(leaf, ast.Str) and leaf.value in rules.messages:
                found[leaf.value] = rules.messages[leaf.value]
            elif isinstance(leaf, ast.Name) and leaf.id in rules.names:
                found[leaf.id] = rules.names[leaf.id]
    if not found:
        return []
    return [f"  in {rules.lang}:"] + [f"    {k} = {v}" for k, v in found.items()]

