"""What the language server knows about the modules, without any protocol: findings (from the
linter's own runner), declarations, references, hover text and completions.

Positions here are 1-based lines and columns, as in `Span`; `server.py` converts them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from nemesis_rules.dsl import ast
from nemesis_rules.dsl.diagnostics import Diagnostic, Span
from nemesis_rules.dsl.parse import parse_module
from nemesis_rules.engine.primitives import ENTITY_ATTRS, REGISTRY
from nemesis_rules.lint import cli as lint_cli
from nemesis_rules.lint.selection import build_filter
from nemesis_rules.ruleset.compose import Composition, compose
from nemesis_rules.ruleset.load import Editing, editing
from nemesis_rules.ruleset.validate import validate

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
KEYWORDS = ("proc", "fn", "event", "on", "before", "after", "instead", "of", "action", "phase", "step",
            "extend", "replace", "remove", "with", "modifier", "when", "cost", "let", "return", "pass",
            "break", "continue", "emit", "if", "elif", "else", "for", "in", "repeat", "while", "match",
            "case", "and", "or", "not", "true", "false", "none")

# the Composition tables a name can be declared in, and what each holds
TABLES = {"procs": "procedure", "fns": "function", "events": "event", "actions": "action",
          "phases": "phase", "kinds": "kind", "zones": "zone", "counters": "counter",
          "symbols": "symbol", "dice": "die"}


@attrs.frozen
class Definition:
    name: str
    what: str  # procedure, function, component, kind, ...
    module: str
    span: Span  # the name where it is declared
    node: Any = None


def module_folder(path: Path) -> Path | None:
    for folder in [path.parent, *path.parent.parents]:
        if (folder / "module.yaml").is_file():
            return folder
    return None


def resolve(file: str) -> Path:
    """A span's file (shown relative to the working folder, or absolute) as an absolute path."""
    return (Path.cwd() / file).resolve()


class Project:
    """The open buffers and, per module folder, the last composition (rebuilt after a change)."""

    def __init__(self) -> None:
        self.session = Editing()
        self._compositions: dict[Path, Composition] = {}
        self._definitions: dict[int, dict[str, Definition]] = {}  # id(composition) -> its names
        self._lines: dict[str, list[str]] = {}  # a span's file -> its lines
        self._everything = build_filter(None, None)

    # ---- buffers ----
    def set_text(self, path: Path, text: str) -> None:
        self.session.buffers[path.resolve()] = text
        self._changed()

    def close(self, path: Path) -> None:
        self.session.buffers.pop(path.resolve(), None)
        self._changed()

    def _changed(self) -> None:
        self._compositions.clear()
        self._definitions.clear()
        self._lines.clear()

    def read(self, file: str) -> str | None:
        """A span's file as the editor has it, or None when it does not exist."""
        path = resolve(file)
        return self.text(path) if path in self.session.buffers or path.is_file() else None

    def text(self, path: Path) -> str:
        path = path.resolve()
        if path in self.session.buffers:
            return self.session.buffers[path]
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""

    # ---- findings: exactly what `nemesis-lint PATH` reports ----
    def diagnostics(self, path: Path) -> list[Diagnostic]:
        with editing(self.session):
            findings, _ = lint_cli.collect([path.resolve()], self._everything)
        return findings

    # ---- the composed module ----
    def composition(self, path: Path) -> Composition | None:
        folder = module_folder(path.resolve())
        if folder is None:
            return None
        if folder not in self._compositions:
            try:
                with editing(self.session):
                    comp = compose([folder], display_root=Path.cwd())
                    validate(comp)
            except Exception:  # the findings report it (E999); navigation just has nothing
                return None
            self._compositions[folder] = comp
        return self._compositions[folder]

    # ---- names ----
    def definitions(self, comp: Composition) -> dict[str, Definition]:
        if id(comp) not in self._definitions:
            self._definitions[id(comp)] = self._declared(comp)
        return self._definitions[id(comp)]

    def _declared(self, comp: Composition) -> dict[str, Definition]:
        found: dict[str, Definition] = {}
        for table, what in TABLES.items():
            for name, d in getattr(comp, table).items():
                if "." not in name:  # component scripts are found as their component
                    found[name] = Definition(name, what, d.module, self._name_span(d.span, name), d.value)
        for cid, c in comp.components.items():
            found[cid] = Definition(cid, "component", c.module, c.span, c)
        return found

    def _name_span(self, span: Span, name: str) -> Span:
        """The name inside a declaration's span (its header), else the span's start."""
        if span.file not in self._lines:
            self._lines[span.file] = self.text(resolve(span.file)).split("\n")
        lines = self._lines[span.file]
        for number in range(span.line, min(span.end_line, span.line + 2, len(lines)) + 1):
            m = re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", lines[number - 1])
            if m:
                return Span(span.file, number, m.start() + 1, number, m.end() + 1)
        return Span(span.file, span.line, span.column, span.line, span.column + len(name))

    def references(self, comp: Composition, name: str) -> list[Span]:
        """Every place a script or a component record names `name`."""
        spans = [s for n, s in self._mentions(comp) if n == name]
        return sorted(set(spans), key=lambda s: (s.file, s.line, s.column))

    def _mentions(self, comp: Composition) -> Iterator[tuple[str, Span]]:
        for src in comp.modules:
            for tree in src.scripts:
                yield from self._names_in(tree)
        for name, d in comp.procs.items():
            if "." in name:  # a component's script field
                yield from self._names_in(d.value)
        for c in comp.components.values():
            for field in ("kind", "zone"):
                value = getattr(c.spec, field)
                if value:
                    yield value, c.at(field)

    def _names_in(self, tree: Any) -> Iterator[tuple[str, Span]]:
        for node in ast.walk(tree):
            match node:
                case ast.Name(id=name, span=span):
                    yield name, span
                case ast.Emit(event=name, span=span):
                    yield name, self._name_span(span, name)
                case ast.HookDef(target=name, span=span) | ast.TriggerDef(event=name, span=span):
                    yield name, self._name_span(span, name)
                case ast.StepChange(step=step, anchor=anchor, span=span):
                    yield step, self._name_span(span, step)
                    if anchor:
                        yield anchor, self._name_span(span, anchor)
                case ast.PhaseDef(steps=steps, step_spans=spans):
                    for step, span in zip(steps, spans, strict=False):
                        yield step, self._name_span(span, step)


def word_at(text: str, line: int, column: int) -> tuple[str, int, int]:
    """The identifier touching (line, column) and its start and end columns, or ("", 0, 0)."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return "", 0, 0
    for m in WORD.finditer(lines[line - 1]):
        if m.start() + 1 <= column <= m.end() + 1:
            return m.group(), m.start() + 1, m.end() + 1
    return "", 0, 0


def outline(text: str, file: str) -> list[tuple[str, str, Span]]:
    """A `.nem` file's declarations as (name, what, span), for the editor's outline."""
    tree, _ = parse_module(text, file)
    if tree is None:
        return []
    found = []
    for d in tree.decls:
        match d:
            case ast.ProcDef(name=n):
                found.append((n, "procedure", d.span))
            case ast.FnDef(name=n) | ast.ModifierDef(name=n):
                found.append((n, "function", d.span))
            case ast.EventDef(name=n):
                found.append((n, "event", d.span))
            case ast.ActionDef(name=n):
                found.append((n, "action", d.span))
            case ast.PhaseDef(name=n) | ast.PhaseExtend(name=n):
                found.append((n, "phase", d.span))
            case ast.TriggerDef(event=n):
                found.append((f"on {n}", "trigger", d.span))
            case ast.HookDef(kind=k, target=n):
                found.append((f"{'instead of' if k == 'instead' else k} {n}", "hook", d.span))
    return found


def yaml_outline(comp: Composition, file: str) -> list[tuple[str, str, Span]]:
    """A module YAML file's components, kinds, zones and counters."""
    found = [(cid, "component", c.span) for cid, c in comp.components.items() if c.span.file == file]
    for table in ("kinds", "zones", "counters"):
        found += [(n, TABLES[table], d.span) for n, d in getattr(comp, table).items() if d.span.file == file]
    return sorted(found, key=lambda f: (f[2].line, f[2].column))


def props_of(comp: Composition) -> dict[str, str]:
    """Every name that can follow `e.`: entity attributes, kinds' props and script fields."""
    found = {name: "attribute" for name in ENTITY_ATTRS}
    for kind, d in comp.kinds.items():
        for prop, type_ in d.value.props.items():
            found.setdefault(prop, f"{type_} prop of {kind}")
        for field in d.value.scripts:
            found.setdefault(field, f"script of {kind}")
    return found


def primitive_hover(name: str) -> str:
    prim = REGISTRY[name]
    return (f"```nem\n{prim.signature()}\n```\n"
            f"*{prim.kind} primitive* — reads as: “{prim.phrase}”\n\n{prim.doc}")
