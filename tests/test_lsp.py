"""The language server driven by a real LSP client (pygls's) over stdio, as an editor drives it.

One server process serves every test of this file; the module under edit is a small mod in a
temporary folder that requires base, so definitions jump into rulesets/base.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

lsp = pytest.importorskip("lsprotocol.types")
client_module = pytest.importorskip("pygls.lsp.client")

from pygls.uris import from_fs_path  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 120  # the first check of a module that requires base reads all of base

MOD_YAML = """\
id: trickmod
name: Trick mod
version: 0.1.0
engine: ">=0.1,<1"
requires: [base]
"""
CARDS_YAML = """\
kinds:
  trick_card:
    props: {strength: int}
    scripts: {play: [who]}
zones:
  trick_deck: {visibility: hidden}
components:
  - id: trick_flash
    kind: trick_card
    zone: trick_deck
    props: {strength: 2}
    play: |
      log("flash", who=who)
"""
SCRIPT = """\
event trick_played(who)

## Rolls the combat die and tells everyone the trick's strength.
proc play_trick(who, card):
    let face = rol(combat_die)
    log("trick", who=who, face=face, n=card.strength)
    emit trick_played(who)

on trick_played(who):
    draw_attack_card()
"""


def _mod(folder: Path) -> Path:
    (folder / "rules").mkdir(parents=True)
    (folder / "module.yaml").write_text(MOD_YAML)
    (folder / "cards.yaml").write_text(CARDS_YAML)
    (folder / "rules" / "tricks.nem").write_text(SCRIPT)
    return folder


class Session:
    """A started client and the diagnostics the server published."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.client = client_module.LanguageClient("nemesis-test", "0")
        self.published: dict[str, asyncio.Future] = {}

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _publish(params: lsp.PublishDiagnosticsParams) -> None:
            future = self.published.get(params.uri)
            if future is not None and not future.done():
                future.set_result(params.diagnostics)

    def run(self, awaitable):
        return self.loop.run_until_complete(asyncio.wait_for(awaitable, TIMEOUT))

    def open(self, path: Path) -> list[lsp.Diagnostic]:
        uri = from_fs_path(str(path))
        self.published[uri] = self.loop.create_future()
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri, "nemesis" if path.suffix == ".nem" else "yaml", 1, path.read_text())))
        return self.run(self.published[uri])

    def at(self, path: Path, line: int, column: int) -> lsp.TextDocumentPositionParams:
        return lsp.TextDocumentPositionParams(lsp.TextDocumentIdentifier(from_fs_path(str(path))),
                                              lsp.Position(line, column))


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    loop = asyncio.new_event_loop()
    s = Session(loop)
    s.run(s.client.start_io(sys.executable, "-m", "nemesis_rules.lsp", cwd=str(REPO)))
    s.run(s.client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(),
                                                         root_uri=from_fs_path(str(REPO)))))
    s.client.initialized(lsp.InitializedParams())
    s.mod = _mod(tmp_path_factory.mktemp("mods") / "trickmod")
    s.script = s.mod / "rules" / "tricks.nem"
    s.diagnostics = s.open(s.script)
    yield s
    s.run(s.client.shutdown_async(None))
    s.client.exit(None)
    s.run(s.client.stop())
    loop.close()


def _position_of(path: Path, needle: str, offset: int = 0) -> tuple[int, int]:
    for number, line in enumerate(path.read_text().split("\n")):
        if needle in line:
            return number, line.index(needle) + offset
    raise AssertionError(f"{needle!r} not in {path}")


def test_an_error_is_published_with_its_code_and_range(session):
    found = [d for d in session.diagnostics if d.code == "E301"]
    assert len(found) == 1, session.diagnostics
    line, column = _position_of(session.script, "rol(")
    assert found[0].range.start == lsp.Position(line, column)
    assert found[0].range.end.line == line and found[0].range.end.character >= column + 3
    assert found[0].severity == lsp.DiagnosticSeverity.Error
    assert "roll" in found[0].message


def test_hover_shows_a_primitive_with_its_phrase(session):
    line, column = _position_of(session.script, "log(")
    hover = session.run(session.client.text_document_hover_async(lsp.HoverParams(**_fields(session.at(
        session.script, line, column + 1)))))
    assert "log(message: str" in hover.contents.value
    assert "reads as" in hover.contents.value


def test_hover_on_a_card_reads_its_effect(session):
    cards = session.mod / "cards.yaml"
    line, column = _position_of(cards, "trick_flash")
    hover = session.run(session.client.text_document_hover_async(lsp.HoverParams(**_fields(session.at(
        cards, line, column + 2)))))
    text = hover.contents.value
    assert "**component** `trick_flash`" in text and "cards.yaml:8" in text
    assert "strength: 2" in text
    assert "play(who):" in text and "log(\"flash\", who=who)" in text


def test_completion_after_a_dot_offers_props(session):
    line, column = _position_of(session.script, "card.strength", offset=len("card."))
    result = session.run(session.client.text_document_completion_async(lsp.CompletionParams(**_fields(
        session.at(session.script, line, column)))))
    labels = {item.label for item in result.items}
    assert {"strength", "zone", "kind"} <= labels
    assert "move" not in labels  # primitives are not props


def test_completion_offers_procedures_with_parameters_and_doc(session):
    line, column = _position_of(session.script, "draw_attack_card()")
    result = session.run(session.client.text_document_completion_async(lsp.CompletionParams(**_fields(
        session.at(session.script, line, column)))))
    items = {item.label: item for item in result.items}
    assert items["play_trick"].detail == "procedure play_trick(who, card)"
    assert items["play_trick"].documentation == "Rolls the combat die and tells everyone the trick's strength."
    assert items["intruder_flee"].detail == "procedure intruder_flee(i)"  # a base rule a card calls
    assert items["intruder_flee"].documentation  # with its doc from nemesis_core


def test_hover_on_a_procedure_shows_its_doc(session):
    line, column = _position_of(session.script, "play_trick(who, card)")
    hover = session.run(session.client.text_document_hover_async(lsp.HoverParams(**_fields(session.at(
        session.script, line, column + 2)))))
    assert "**procedure** `play_trick`" in hover.contents.value
    assert "Rolls the combat die and tells everyone the trick's strength." in hover.contents.value


def test_completion_of_a_yaml_kind_offers_kinds(session):
    cards = session.mod / "cards.yaml"
    line, column = _position_of(cards, "kind: trick_card", offset=len("kind: "))
    result = session.run(session.client.text_document_completion_async(lsp.CompletionParams(**_fields(
        session.at(cards, line, column)))))
    labels = {item.label for item in result.items}
    assert {"trick_card", "item_card"} <= labels and "roll" not in labels


def test_formatting_gives_the_printers_layout(session, tmp_path):
    messy = session.mod / "rules" / "messy.nem"
    messy.write_text("fn  twice( x )=x*2   # doubled\n")
    uri = from_fs_path(str(messy))
    session.open(messy)
    edits = session.run(session.client.text_document_formatting_async(lsp.DocumentFormattingParams(
        lsp.TextDocumentIdentifier(uri), lsp.FormattingOptions(tab_size=4, insert_spaces=True))))
    assert [e.new_text for e in edits] == ["fn twice(x) = x * 2  # doubled\n"]  # the comment keeps its column


def test_definition_jumps_from_the_mod_into_base(session):
    line, column = _position_of(session.script, "draw_attack_card", offset=3)
    found = session.run(session.client.text_document_definition_async(lsp.DefinitionParams(**_fields(
        session.at(session.script, line, column)))))
    assert len(found) == 1
    assert found[0].uri.endswith("rulesets/nemesis_core/rules/combat.nem")
    target = (REPO / "rulesets/nemesis_core/rules/combat.nem").read_text().split("\n")[found[0].range.start.line]
    assert target.startswith("proc draw_attack_card(")
    assert target[found[0].range.start.character:].startswith("draw_attack_card")


def test_references_reach_from_the_mod_into_base(session):
    line, column = _position_of(session.script, "draw_attack_card", offset=3)
    found = session.run(session.client.text_document_references_async(lsp.ReferenceParams(
        context=lsp.ReferenceContext(include_declaration=False), **_fields(session.at(session.script, line, column)))))
    files = {loc.uri.rsplit("/", 2)[-2] + "/" + loc.uri.rsplit("/", 1)[-1] for loc in found}
    assert "rules/tricks.nem" in files and any(f.startswith("rules/") and f != "rules/tricks.nem" for f in files)
    assert any("/rulesets/base/" in loc.uri for loc in found)


def test_references_find_the_trigger_and_the_emit(session):
    line, column = _position_of(session.script, "event trick_played", offset=7)
    found = session.run(session.client.text_document_references_async(lsp.ReferenceParams(
        context=lsp.ReferenceContext(include_declaration=True), **_fields(session.at(session.script, line, column)))))
    lines = sorted(loc.range.start.line for loc in found)
    assert lines == [0, 6, 8]  # the event, the emit in play_trick (below its doc), the trigger


def test_quick_fix_replaces_the_misspelt_primitive(session):
    found = next(d for d in session.diagnostics if d.code == "E301")
    actions = session.run(session.client.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(from_fs_path(str(session.script))), found.range,
        lsp.CodeActionContext([found]))))
    titles = [a.title for a in actions]
    assert "Replace `rol` with `roll`" in titles and "Suppress E301 on this line (# noqa)" in titles
    fix = actions[titles.index("Replace `rol` with `roll`")]
    (edit,) = fix.edit.changes[from_fs_path(str(session.script))]
    assert edit.new_text == "roll" and edit.range == lsp.Range(found.range.start, lsp.Position(
        found.range.start.line, found.range.start.character + 3))
    fixed = _apply(session.script.read_text(), edit)
    uri = from_fs_path(str(session.script))
    session.published[uri] = session.loop.create_future()
    session.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(version=2, uri=uri), [lsp.TextDocumentContentChangeWholeDocument(text=fixed)]))
    after = session.run(session.published[uri])
    assert not [d for d in after if d.code == "E301"]


def test_document_symbols_outline_the_script(session):
    symbols = session.run(session.client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        lsp.TextDocumentIdentifier(from_fs_path(str(session.script))))))
    assert [s.name for s in symbols] == ["trick_played", "play_trick", "on trick_played"]


def _fields(position: lsp.TextDocumentPositionParams) -> dict:
    return {"text_document": position.text_document, "position": position.position}


def _apply(text: str, edit: lsp.TextEdit) -> str:
    lines = text.split("\n")
    start, end = edit.range.start, edit.range.end
    line = lines[start.line]
    lines[start.line] = line[: start.character] + edit.new_text + lines[end.line][end.character:]
    return "\n".join(lines)


def test_the_lint_fix_command_applies_the_same_fix(tmp_path, monkeypatch, capsys):
    from nemesis_rules.lint.cli import main
    from nemesis_rules.ruleset.load import Editing, editing

    _mod(tmp_path / "trickmod")
    monkeypatch.chdir(tmp_path)
    script = Path("trickmod/rules/tricks.nem")
    with editing(Editing()):  # the files are still read from disk; base is parsed once, not per run
        assert main([str(script), "--diff", "--select", "E301"]) == 1
        assert "-    let face = rol(combat_die)\n+    let face = roll(combat_die)" in capsys.readouterr().out
        assert script.read_text() == SCRIPT
        assert main([str(script), "--fix", "--select", "E301"]) == 0
    assert script.read_text() == SCRIPT.replace("rol(", "roll(")
    assert "fixed 1 file(s): trickmod/rules/tricks.nem" in capsys.readouterr().err
