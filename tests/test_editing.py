"""What the language server relies on to be quick: an editing session (unsaved buffers, kept
parses) and re-parsing only changed declarations must give exactly what a fresh run gives."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from nemesis_rules.dsl import ast, printer
from nemesis_rules.dsl.parse import parse_module, parse_module_reusing
from nemesis_rules.lint import runner
from nemesis_rules.paths import rulesets_dir
from nemesis_rules.ruleset.load import Editing, editing
from tests.strategies import modules


def _spans(tree) -> list:
    return [n.span for n in ast.walk(tree) if hasattr(n, "span")]


def _same(text: str, kept: dict) -> None:
    fresh, fresh_diags = parse_module(text, "f.nem")
    reused, reused_diags = parse_module_reusing(text, "f.nem", kept)
    assert reused == fresh and reused_diags == fresh_diags
    if fresh is not None:
        assert _spans(reused.decls) == _spans(fresh.decls)


@settings(max_examples=8, deadline=None)
@given(modules, modules, st.integers(0, 3))
def test_reusing_declarations_parses_as_a_fresh_parse(first, second, blank):
    kept: dict = {}
    a, b = printer.to_source(first), printer.to_source(second)
    for text in (a, b + "\n" * blank + a, a + b, "proc broken(:\n" + a, a):
        _same(text, kept)


def test_reusing_declarations_after_edits_of_a_project_file():
    text = (rulesets_dir() / "nemesis_core" / "rules" / "combat.nem").read_text(encoding="utf-8")
    kept: dict = {}
    for edited in (text, "fn added() = 1\n" + text, text.replace("injure(foe, n)", "injure(foe, n + 1)"), text):
        _same(edited, kept)


def test_a_buffer_is_checked_instead_of_the_file(tmp_path: Path):
    module = tmp_path / "mini"
    (module / "rules").mkdir(parents=True)
    (module / "module.yaml").write_text('id: mini\nname: Mini\nversion: 0.1.0\nengine: ">=0.1,<1"\nentry: main\n')
    script = module / "rules" / "main.nem"
    script.write_text("proc main():\n    pass\n")
    session = Editing()
    with editing(session):
        assert [d.code for d in runner.lint_paths([script])[0] if d.is_error] == []
        session.buffers[script.resolve()] = "proc main():\n    rol(1)\n"
        in_editor = runner.lint_paths([script])[0]
    script.write_text("proc main():\n    rol(1)\n")
    assert in_editor == runner.lint_paths([script])[0]
    assert "E301" in {d.code for d in in_editor}
