"""The VS Code extension (editors/vscode): its manifest hangs together, and its TextMate grammar
tokenizes every `.nem` file of the project with no text left unmatched.

The tokenizer below follows TextMate's rule for single-line `match` patterns: at each point the
earliest match wins, the first pattern on a tie. The grammar uses no `begin`/`end` rules (a
`.nem` token never spans lines), and the test checks that it stays so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from nemesis_rules.paths import rulesets_dir

REPO = Path(__file__).resolve().parent.parent
EXTENSION = REPO / "editors" / "vscode"
GRAMMAR = EXTENSION / "syntaxes" / "nemesis.tmLanguage.json"


def _rules(grammar: dict) -> list[tuple[re.Pattern[str], str]]:
    """The grammar's patterns in order, includes expanded, as (regex, scope name)."""
    found: list[tuple[re.Pattern[str], str]] = []

    def add(patterns: list[dict]) -> None:
        for rule in patterns:
            assert "begin" not in rule, "the test tokenizer handles single-line `match` rules only"
            if "include" in rule:
                add(grammar["repository"][rule["include"].removeprefix("#")]["patterns"])
            else:
                name = rule.get("name") or " ".join(c["name"] for c in rule["captures"].values())
                found.append((re.compile(rule["match"]), name))

    add(grammar["patterns"])
    return found


RULES = _rules(json.loads(GRAMMAR.read_text()))


def tokenize(line: str) -> tuple[list[tuple[str, str]], list[tuple[int, str]]]:
    """(tokens as (text, scope), unmatched regions as (column, text)) of one line."""
    tokens, unmatched, at = [], [], 0
    while at < len(line):
        best = None
        for regex, scope in RULES:
            m = regex.search(line, at)
            if m and m.end() > m.start() and (best is None or m.start() < best[0].start()):
                best = (m, scope)
        start = best[0].start() if best else len(line)
        gap = line[at:start]
        if gap.strip():
            unmatched.append((at + 1 + len(gap) - len(gap.lstrip()), gap.strip()))
        if best is None:
            break
        tokens.append((best[0].group(), best[1]))
        at = best[0].end()
    return tokens, unmatched


def _scripts() -> list[Path]:
    return sorted(rulesets_dir().rglob("*.nem")) + sorted((REPO / "tests" / "fixtures" / "toy").rglob("*.nem"))


def test_the_grammar_leaves_nothing_unmatched_in_the_project_scripts():
    scripts = _scripts()
    assert len(scripts) > 25
    problems = []
    for path in scripts:
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
            problems += [f"{path}:{number}:{col}: {text!r}" for col, text in tokenize(line)[1]]
    assert not problems, "\n".join(problems[:20])


def test_the_grammar_scopes_what_matters():
    tokens = dict(tokenize('proc play(who): let n = roll(d6) + who.power  # "comment"')[0])
    assert tokens["proc play"] == "storage.type.function.nemesis entity.name.function.nemesis"
    assert tokens["roll"] == "entity.name.function.call.nemesis"
    assert tokens["power"] == "variable.other.property.nemesis"
    assert tokens['# "comment"'] == "comment.line.number-sign.nemesis"
    assert dict(tokenize('log("a # b")')[0])['"a # b"'] == "string.quoted.double.nemesis"


def test_a_stray_character_is_unmatched():
    assert tokenize("let x = 1 $ 2")[1] == [(11, "$")]


def test_the_extension_manifest_points_at_real_files():
    manifest = json.loads((EXTENSION / "package.json").read_text())
    (language,) = manifest["contributes"]["languages"]
    assert language["extensions"] == [".nem"]
    assert (EXTENSION / language["configuration"]).is_file()
    json.loads((EXTENSION / language["configuration"]).read_text())
    (grammar,) = manifest["contributes"]["grammars"]
    assert (EXTENSION / grammar["path"]).resolve() == GRAMMAR
    assert json.loads(GRAMMAR.read_text())["scopeName"] == grammar["scopeName"]
    assert (EXTENSION / manifest["main"]).is_file()
    assert "nemesis-lsp" in (EXTENSION / manifest["main"]).read_text()
    assert "vscode-languageclient" in manifest["dependencies"]
    assert (EXTENSION / "README.md").is_file()


@pytest.mark.parametrize("keyword", ["if", "elif", "match", "emit", "instead"])
def test_keywords_are_not_names(keyword):
    scopes = [scope for text, scope in tokenize(f"{keyword} x")[0] if text.startswith(keyword)]
    assert scopes and "variable.other" not in scopes[0]


def test_the_server_without_its_extra_says_how_to_install_it(monkeypatch, capsys):
    import sys

    from nemesis_rules import lsp

    monkeypatch.setitem(sys.modules, "nemesis_rules.lsp.server", None)  # as if pygls were missing
    assert lsp.main() == 2
    assert "pip install 'nemesis-rules[lsp]'" in capsys.readouterr().err
