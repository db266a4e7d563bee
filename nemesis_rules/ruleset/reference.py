"""The public names of a ruleset's modules: every procedure, function, event and action declared in
their `.nem` files, with its parameters and its doc (the `##` lines above it).

One list feeds docs/reference.md (tools/gen_reference.py), `nemesis explain --search` and the
language server's completion and hover.
"""

from __future__ import annotations

import attrs

from nemesis_rules.dsl import ast
from nemesis_rules.dsl.printer import expr
from nemesis_rules.ruleset.compose import Composition

WHAT = {ast.ProcDef: "procedure", ast.FnDef: "function", ast.EventDef: "event", ast.ActionDef: "action"}


@attrs.frozen
class Entry:
    name: str
    what: str  # procedure | function | event | action
    signature: str  # `name(a, b)`; an action's parameters with their domains
    doc: str
    module: str
    file: str
    line: int


def signature(d: ast.ProcDef | ast.FnDef | ast.EventDef | ast.ActionDef) -> str:
    if isinstance(d, ast.ActionDef):
        return f"{d.name}({', '.join([d.actor] + [f'{p.name} in {expr(p.domain)}' for p in d.params])})"
    return f"{d.name}({', '.join(d.params)})"


def entries(comp: Composition) -> list[Entry]:
    """Every public name of the composed modules, module by module, in the order written
    (a `replace proc` declares no new name)."""
    found = []
    for src in comp.modules:
        for module in src.scripts:
            found += [Entry(d.name, WHAT[type(d)], signature(d), d.doc, src.id, d.span.file, d.span.line)
                      for d in module.decls
                      if type(d) in WHAT and not getattr(d, "replace", False)]
    return found


def search(found: list[Entry], word: str) -> list[Entry]:
    """The entries whose name or doc holds `word` (any case; `_` and spaces alike)."""
    key = word.lower().replace("_", " ")
    return [e for e in found if key in e.name.replace("_", " ") or key in e.doc.lower()]
