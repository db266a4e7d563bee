"""`nemesis-lint --fix` / `--diff` beyond the did-you-mean (tests/test_lsp.py): translation
stubs, and the shared edit helpers."""

from __future__ import annotations

import shutil
from pathlib import Path

from nemesis_rules.dsl.diagnostics import Diagnostic, Span
from nemesis_rules.lint import fixes
from nemesis_rules.lint.cli import main

TOY = Path(__file__).resolve().parent / "fixtures" / "toy"


def toy_without_a_russian_name(tmp_path: Path, monkeypatch) -> Path:
    """A copy of the toy module (the working folder) whose Russian catalog lacks `dig`."""
    shutil.copytree(TOY, tmp_path / "toy")
    monkeypatch.chdir(tmp_path)
    russian = Path("toy/i18n/ru.yaml")
    text = russian.read_text(encoding="utf-8")
    russian.write_text("\n".join(line for line in text.split("\n") if not line.startswith("  dig: ")),
                       encoding="utf-8")
    return russian


def test_a_missing_translation_gets_a_stub_marked_for_translation(tmp_path, monkeypatch, capsys):
    russian = toy_without_a_russian_name(tmp_path, monkeypatch)
    assert main(["toy", "--select", "W600", "--diff", "--fix-catalogs"]) == 1
    assert "+  dig: Dig in the bag  # TODO: translate (English copy)" in capsys.readouterr().out
    main(["toy", "--select", "W600", "--fix-catalogs"])
    assert "  dig: Dig in the bag  # TODO: translate (English copy)" in russian.read_text(encoding="utf-8")
    assert main(["toy", "--select", "W600"]) == 0


def test_fix_mends_a_typo_but_leaves_the_catalogs_alone(tmp_path, monkeypatch, capsys):
    """Issue #38: `--fix` for two typos also wrote 171 stubs into the pl and ru catalogs."""
    russian = toy_without_a_russian_name(tmp_path, monkeypatch)
    catalog = russian.read_text(encoding="utf-8")
    rules = Path("toy/rules.nem")
    rules.write_text(rules.read_text(encoding="utf-8").replace("    shuffle(deck)", "    shufle(deck)", 1),
                     encoding="utf-8")
    assert main(["toy", "--diff"]) == 1
    assert "i18n" not in capsys.readouterr().out
    main(["toy", "--fix"])
    assert "    shuffle(deck)" in rules.read_text(encoding="utf-8").split("\n")[3]
    assert russian.read_text(encoding="utf-8") == catalog


def test_a_stub_starts_a_missing_section():
    d = Diagnostic("W600", "`messages.hello` has no pl translation (English is used)", Span("m/i18n/en.yaml", 2, 3))
    texts = {"m/i18n/en.yaml": "messages:\n  hello: Hello  # greeting\n", "m/i18n/pl.yaml": "names:\n  a: A\n"}
    edit = fixes.translation_stub(d, texts.get)
    after, _ = fixes.apply(texts["m/i18n/pl.yaml"], [edit])
    assert after == "names:\n  a: A\nmessages:\n  hello: Hello  # TODO: translate (English copy)\n"


def test_no_fix_when_the_suggestion_is_not_unique():
    d = Diagnostic("E300", "unknown name `fo`", Span("f.nem", 1, 5, 1, 13), help="did you mean `foo`?")
    assert fixes.suggestion_fix(d, "let fo = fo + 1") is None  # `fo` twice in the span
    assert fixes.suggestion_fix(d, "let x = fo + 1").text == "foo"


def test_noqa_is_added_to_an_existing_list():
    d = Diagnostic("E300", "unknown name `x`", Span("f.nem", 1, 1))
    assert fixes.noqa_edit(d, "x = 1  # noqa: W100").text == "x = 1  # noqa: W100, E300"
    assert fixes.noqa_edit(d, "x = 1").text == "x = 1  # noqa: E300"
    assert fixes.noqa_edit(d, "x = 1  # noqa") is None
