"""`nemesis-lsp`: the language server for `.nem` scripts and module YAML (pygls over stdio).

Findings come from the linter's own runner (`analysis.Project.diagnostics`), so the editor shows
exactly what `nemesis-lint` prints. Everything else reads the composed module of the file,
including the modules it requires.
"""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import attrs
from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from nemesis_rules import fmt
from nemesis_rules.cli import catalog
from nemesis_rules.dsl.diagnostics import Diagnostic, Span
from nemesis_rules.engine.primitives import REGISTRY
from nemesis_rules.lint import fixes
from nemesis_rules.lsp import analysis
from nemesis_rules.lsp.analysis import Definition, Project
from nemesis_rules.ruleset import reference
from nemesis_rules.ruleset.compose import Composition
from nemesis_rules.version import __version__

DEBOUNCE_SECONDS = 0.05  # typing bursts are checked once, after a short pause
SEVERITY = {"error": lsp.DiagnosticSeverity.Error, "warning": lsp.DiagnosticSeverity.Warning}
SYMBOL_KIND = {"procedure": lsp.SymbolKind.Function, "function": lsp.SymbolKind.Function,
               "event": lsp.SymbolKind.Event, "action": lsp.SymbolKind.Method,
               "phase": lsp.SymbolKind.Namespace, "trigger": lsp.SymbolKind.Event,
               "hook": lsp.SymbolKind.Function, "component": lsp.SymbolKind.Object,
               "kind": lsp.SymbolKind.Class, "zone": lsp.SymbolKind.Array,
               "counter": lsp.SymbolKind.Variable}
_YAML_KEY = re.compile(r"^\s*(?:-\s+)?([A-Za-z_]\w*):\s*\w*$")


class NemesisServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("nemesis-lsp", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Full)
        self.project = Project()
        self.findings: dict[str, list[Diagnostic]] = {}  # uri -> the last findings published
        self.versions: dict[str, int] = {}


server = NemesisServer()


# ---- conversions ----
def path_of(uri: str) -> Path:
    return Path(to_fs_path(uri) or uri)


def shown(path: Path) -> str:
    """The file as spans name it (relative to the working folder when inside it)."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def to_range(span: Span) -> lsp.Range:
    start = lsp.Position(max(span.line - 1, 0), max(span.column - 1, 0))
    end = lsp.Position(max(span.end_line - 1, 0), max(span.end_column - 1, 0))
    return lsp.Range(start, end if (end.line, end.character) >= (start.line, start.character) else start)


def location(span: Span) -> lsp.Location:
    return lsp.Location(from_fs_path(str(analysis.resolve(span.file))) or span.file, to_range(span))


def to_lsp(d: Diagnostic) -> lsp.Diagnostic:
    message = d.message + (f"\nhelp: {d.help}" if d.help else "")
    return lsp.Diagnostic(to_range(d.span), message, severity=SEVERITY.get(d.severity, lsp.DiagnosticSeverity.Error),
                          code=d.code, source="nemesis-lint")


def text_edit(edit: fixes.Edit) -> lsp.TextEdit:
    return lsp.TextEdit(to_range(Span(edit.file, edit.line, edit.column, edit.end_line, edit.end_column)), edit.text)


# ---- documents and findings ----
@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: NemesisServer, params: lsp.DidOpenTextDocumentParams) -> None:
    ls.project.set_text(path_of(params.text_document.uri), params.text_document.text)
    publish(ls, params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: NemesisServer, params: lsp.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    doc = ls.workspace.get_text_document(uri)
    ls.project.set_text(path_of(uri), doc.source)
    version = ls.versions[uri] = ls.versions.get(uri, 0) + 1
    await asyncio.sleep(DEBOUNCE_SECONDS)
    if ls.versions.get(uri) == version:
        publish(ls, uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: NemesisServer, params: lsp.DidSaveTextDocumentParams) -> None:
    """A saved change can concern the other open files (a mod calling a base procedure)."""
    for uri in [params.text_document.uri, *(u for u in ls.findings if u != params.text_document.uri)]:
        publish(ls, uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: NemesisServer, params: lsp.DidCloseTextDocumentParams) -> None:
    ls.project.close(path_of(params.text_document.uri))
    ls.findings.pop(params.text_document.uri, None)
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(params.text_document.uri, []))


def publish(ls: NemesisServer, uri: str) -> None:
    path = path_of(uri)
    file = shown(path)
    found = [d for d in ls.project.diagnostics(path) if d.span.file in (file, str(path))]
    ls.findings[uri] = found
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri, [to_lsp(d) for d in found]))


# ---- hover ----
@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def hover(ls: NemesisServer, params: lsp.HoverParams) -> lsp.Hover | None:
    path = path_of(params.text_document.uri)
    text = ls.project.text(path)
    word, start, end = analysis.word_at(text, params.position.line + 1, params.position.character + 1)
    if not word:
        return None
    comp = ls.project.composition(path)
    after_dot = _char_before(text, params.position.line, start) == "."
    value = _hover_text(ls.project, comp, word, after_dot)
    if value is None:
        return None
    span = Span(shown(path), params.position.line + 1, start, params.position.line + 1, end)
    return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, value), to_range(span))


def _char_before(text: str, line: int, column: int) -> str:
    lines = text.split("\n")
    return lines[line][column - 2] if line < len(lines) and column >= 2 else ""


def _hover_text(project: Project, comp: Composition | None, word: str, after_dot: bool) -> str | None:
    if comp is not None and after_dot:
        props = analysis.props_of(comp)
        return f"`.{word}`: {props[word]}" if word in props else None
    found = project.definitions(comp).get(word) if comp is not None else None
    if found is not None:
        return _declared_hover(comp, found)
    if word in REGISTRY:
        return analysis.primitive_hover(word)
    return None


def _declared_hover(comp: Composition, d: Definition) -> str:
    where = f"declared in `{d.span.file}:{d.span.line}` (module `{d.module}`)"
    heading = f"**{d.what}** `{d.name}` — {where}"
    if getattr(d.node, "doc", ""):
        heading += f"\n\n{d.node.doc}"
    rules = catalog._browsing(comp, "en")
    if d.what == "component":
        body = catalog.explain_component(rules, d.node)
    elif d.what in ("procedure", "function", "action", "phase", "event"):
        body = catalog.explain_declared(rules, d.what, d.name, d.node)
    elif d.what == "kind":
        body = "\n".join(f"{prop}: {type_}" for prop, type_ in d.node.props.items()) or "no props"
    elif attrs.has(type(d.node)):
        body = "\n".join(f"{k}: {v}" for k, v in attrs.asdict(d.node).items() if v is not None)
    else:
        body = f"{d.what}: {d.node}"
    return f"{heading}\n\n```text\n{body}\n```"


# ---- navigation ----
def _target(ls: NemesisServer, params: lsp.TextDocumentPositionParams) -> tuple[Composition | None, str]:
    path = path_of(params.text_document.uri)
    text = ls.project.text(path)
    word, _, _ = analysis.word_at(text, params.position.line + 1, params.position.character + 1)
    return (ls.project.composition(path) if word else None), word


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
def definition(ls: NemesisServer, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
    comp, word = _target(ls, params)
    found = ls.project.definitions(comp).get(word) if comp is not None else None
    return None if found is None else [location(found.span)]


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
def references(ls: NemesisServer, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
    comp, word = _target(ls, params)
    if comp is None:
        return None
    spans = ls.project.references(comp, word)
    found = ls.project.definitions(comp).get(word)
    if params.context.include_declaration and found is not None:
        spans = [found.span, *spans]
    return [location(s) for s in spans]


# ---- completion ----
@server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["."]))
def completion(ls: NemesisServer, params: lsp.CompletionParams) -> lsp.CompletionList:
    path = path_of(params.text_document.uri)
    comp = ls.project.composition(path)
    lines = ls.project.text(path).split("\n")
    line = lines[params.position.line] if params.position.line < len(lines) else ""
    before = line[: params.position.character]
    text = "\n".join(lines)
    items = _completions(comp, before, text, path.suffix in (".yaml", ".yml")) if comp is not None else []
    return lsp.CompletionList(is_incomplete=False, items=items)


def _completions(comp: Composition, before: str, text: str, yaml: bool) -> list[lsp.CompletionItem]:
    head = before[: len(before) - len(re.search(r"\w*$", before).group())]
    if head.endswith("."):
        return [_item(n, what, lsp.CompletionItemKind.Property) for n, what in analysis.props_of(comp).items()]
    key = _YAML_KEY.match(before) if yaml else None
    if key is not None:
        table = {"kind": comp.kinds, "zone": comp.zones, "per": comp.kinds}.get(key.group(1))
        names = table if table is not None else {**comp.symbols, **comp.zones, **comp.components}
        return [_item(n, key.group(1), lsp.CompletionItemKind.EnumMember) for n in names]
    items = [_item(n, p.signature(), lsp.CompletionItemKind.Function) for n, p in REGISTRY.items()]
    for table, what in analysis.TABLES.items():
        items += [_declared_item(n, what, d.value) for n, d in getattr(comp, table).items() if "." not in n]
    items += [_item(n, "component", lsp.CompletionItemKind.Constant) for n in comp.components]
    items += [_item(k, "keyword", lsp.CompletionItemKind.Keyword) for k in analysis.KEYWORDS]
    offered = {item.label for item in items}
    return items + [_item(n, "in this file", lsp.CompletionItemKind.Variable)
                    for n in dict.fromkeys(analysis.WORD.findall(text)) if n not in offered]


def _item(label: str, detail: str, kind: lsp.CompletionItemKind, doc: str | None = None) -> lsp.CompletionItem:
    return lsp.CompletionItem(label=label, detail=detail, kind=kind, documentation=doc)


def _declared_item(name: str, what: str, node: object) -> lsp.CompletionItem:
    """A declared name; a procedure, function, event or action with its parameters and doc."""
    if type(node) not in reference.WHAT:
        return _item(name, what, lsp.CompletionItemKind.Reference)
    return _item(name, f"{what} {reference.signature(node)}", lsp.CompletionItemKind.Reference, node.doc or None)


# ---- code actions ----
@server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))
def code_actions(ls: NemesisServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    uri = params.text_document.uri
    source = ls.project.text(path_of(uri))
    actions = []
    for d in ls.findings.get(uri, []):
        if not _overlaps(to_range(d.span), params.range):
            continue
        offered = ((fixes.suggestion_fix(d, source), True), (fixes.translation_stub(d, ls.project.read), True),
                   (fixes.noqa_edit(d, source), False))
        for edit, preferred in offered:
            if edit is not None:
                target = location(Span(edit.file)).uri
                actions.append(lsp.CodeAction(
                    title=edit.title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[to_lsp(d)],
                    is_preferred=preferred, edit=lsp.WorkspaceEdit(changes={target: [text_edit(edit)]})))
    return actions


def _overlaps(a: lsp.Range, b: lsp.Range) -> bool:
    def key(p: lsp.Position) -> tuple[int, int]:
        return p.line, p.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


# ---- outline and formatting ----
@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbols(ls: NemesisServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
    path = path_of(params.text_document.uri)
    if path.suffix == ".nem":
        found = analysis.outline(ls.project.text(path), shown(path))
    else:
        comp = ls.project.composition(path)
        found = analysis.yaml_outline(comp, shown(path)) if comp is not None else []
    return [lsp.DocumentSymbol(name=name, kind=SYMBOL_KIND.get(what, lsp.SymbolKind.Variable), detail=what,
                               range=to_range(span), selection_range=to_range(span))
            for name, what, span in found]


@server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: NemesisServer, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit] | None:
    path = path_of(params.text_document.uri)
    if path.suffix != ".nem":
        return None
    text = ls.project.text(path)
    result = fmt.format_text(text, shown(path))
    if result.text is None or result.text == text:
        return None
    end = lsp.Position(len(text.split("\n")), 0)
    return [lsp.TextEdit(lsp.Range(lsp.Position(0, 0), end), result.text)]


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] in ("--version", "-V"):
        print(f"nemesis-lsp {__version__}")
        return 0
    server.start_io()
    return 0
