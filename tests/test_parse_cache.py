"""nemesis-lint's cache of parsed files: the same findings with it (empty, then full) as without,
a changed file is parsed anew, a broken entry is ignored, and NEMESIS_CACHE_DIR=off turns it off."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from nemesis_rules.lint import cli
from tests.test_lint_fixtures import NAMES, build

ROOT = Path(__file__).resolve().parents[1]


def lint(*argv: str) -> tuple[int, list]:
    out, old = io.StringIO(), sys.stdout
    sys.stdout = out
    try:
        code = cli.main(["--format", "json", *argv])
    finally:
        sys.stdout = old
    return code, json.loads(out.getvalue())


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("NEMESIS_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "parse"


def test_same_findings_with_and_without_the_cache(cache, tmp_path):
    """Every lint fixture (one a code) and the toy module: no cache, an empty cache, a full one."""
    paths = [str(build(name, tmp_path / name)) for name in NAMES] + [str(ROOT / "tests" / "fixtures" / "toy")]
    fresh = [lint("--no-cache", p) for p in paths]
    assert not cache.exists()
    assert [lint(p) for p in paths] == fresh  # fills the cache
    entries = len(list(cache.iterdir()))
    assert entries >= len(NAMES)
    assert [lint(p) for p in paths] == fresh  # from the cache
    assert len(list(cache.iterdir())) == entries
    assert len({f["code"] for _, found in fresh for f in found}) > 30


def _module(folder: Path, script: str) -> Path:
    folder.mkdir()
    (folder / "module.yaml").write_text("id: cached\nname: cached\nversion: 0.1.0\n")
    (folder / "rules.nem").write_text(script)
    return folder


def test_a_changed_file_is_parsed_anew(cache, tmp_path):
    module = _module(tmp_path / "cached", "proc setup():\n    pass\n")
    _, before = lint(str(module))
    (module / "rules.nem").write_text("proc setup(:\n    pass\n")
    _, after = lint(str(module))
    assert "E101" not in {f["code"] for f in before} and "E101" in {f["code"] for f in after}


def test_a_broken_entry_is_ignored(cache, tmp_path):
    module = _module(tmp_path / "cached", "proc setup(:\n    pass\n")
    first = lint(str(module))
    for entry in cache.iterdir():
        entry.write_bytes(b"not a pickle")
    assert lint(str(module)) == first


def test_off(cache, monkeypatch, tmp_path):
    monkeypatch.setenv("NEMESIS_CACHE_DIR", "off")
    lint(str(ROOT / "tests" / "fixtures" / "toy"))
    assert not cache.exists()


def test_python_code_of_the_expressions_is_kept(cache, monkeypatch):
    """A second lint of a module compiles none of its generated expressions again; a broken code
    entry is ignored (the build compiles, and writes it anew)."""
    from nemesis_rules.engine import codegen

    toy = str(ROOT / "tests" / "fixtures" / "toy")
    compiled: list[str] = []

    def counting(source, *args):
        compiled.append(source)
        return compile(source, *args)

    monkeypatch.setattr(codegen, "compile", counting, raising=False)
    monkeypatch.setattr(codegen, "COMPILED", {})
    first = lint(toy)
    assert compiled and len(list(cache.glob("code-*.marshal"))) == 1
    compiled.clear()
    monkeypatch.setattr(codegen, "COMPILED", {})  # a new process: nothing compiled yet
    assert lint(toy) == first and compiled == []
    next(cache.glob("code-*.marshal")).write_bytes(b"not marshal")
    monkeypatch.setattr(codegen, "COMPILED", {})
    assert lint(toy) == first and compiled


def test_the_grammar_tables_are_kept_and_a_broken_copy_is_built_anew(cache, monkeypatch):
    """The parser's tables are built once, then read from the cache folder by the next process
    (the same parses); a broken copy is built anew; with the cache off nothing is written."""
    from lark import Lark

    from nemesis_rules.dsl import parse

    built: list[int] = []

    class Counting(Lark):
        def __init__(self, *args, **kwargs):
            built.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(parse, "Lark", Counting)
    monkeypatch.setattr(parse, "grammar_tables_file", lambda: cache.parent / "no such tables")  # none shipped
    text = (ROOT / "rulesets" / "nemesis_core" / "rules" / "movement.nem").read_text(encoding="utf-8")
    tables = cache.parent / "grammar"
    try:
        parse.parser.cache_clear()  # each cache_clear: as a new process would start
        first = parse.parse_module(text, "movement.nem")
        assert built == [1] and len(list(tables.iterdir())) == 1
        parse.parser.cache_clear()
        assert parse.parse_module(text, "movement.nem") == first and built == [1]
        next(tables.iterdir()).write_bytes(b"not a pickle")
        parse.parser.cache_clear()
        assert parse.parse_module(text, "movement.nem") == first and built == [1, 1]
        parse.parser.cache_clear()
        assert parse.parse_module(text, "movement.nem") == first and built == [1, 1]  # written anew
        monkeypatch.setenv("NEMESIS_CACHE_DIR", "off")
        for entry in tables.iterdir():
            entry.unlink()
        parse.parser.cache_clear()
        assert parse.parse_module(text, "movement.nem") == first and built == [1, 1, 1]
        assert not list(tables.iterdir())
    finally:
        parse.parser.cache_clear()


def test_the_shipped_grammar_tables_are_fresh():
    """grammar/nemesis.tables matches the grammar and the parser's options (tools/
    gen_grammar_tables.py writes it), so a process with no cache folder builds no tables."""
    import lark

    from nemesis_rules.dsl import parse

    grammar = parse.grammar_file().read_text(encoding="utf-8")
    problem = parse.shipped_tables_problem(grammar)
    if problem and f"this is lark {lark.__version__}" in problem:
        pytest.skip(problem)  # another lark: the parser builds its own tables (a slower start)
    assert not problem, f"{problem}: run python tools/gen_grammar_tables.py"
    assert parse._shipped_tables(grammar) is not None


@pytest.mark.parametrize("content", [b"", b"not tables", b"nemesis-rules grammar tables 00 lark 0\nxx", "right header"])
def test_stale_or_broken_shipped_tables_are_built_anew(content, tmp_path, monkeypatch):
    """A missing, stale or unreadable grammar/nemesis.tables costs time, never a wrong parse."""
    from lark import Lark

    from nemesis_rules.dsl import parse

    grammar = parse.grammar_file().read_text(encoding="utf-8")
    if content == "right header":
        content = parse.shipped_tables(grammar).partition(b"\n")[0] + b"\nnot a pickle"
    tables = tmp_path / "nemesis.tables"
    tables.write_bytes(content)
    built: list[int] = []

    class Counting(Lark):
        def __init__(self, *args, **kwargs):
            built.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setenv("NEMESIS_CACHE_DIR", "off")
    monkeypatch.setattr(parse, "Lark", Counting)
    text = (ROOT / "rulesets" / "nemesis_core" / "rules" / "movement.nem").read_text(encoding="utf-8")
    try:
        parse.parser.cache_clear()
        shipped = parse.parse_module(text, "movement.nem")
        assert built == ([] if not parse.shipped_tables_problem(grammar) else [1])  # another lark builds its own
        built.clear()
        monkeypatch.setattr(parse, "grammar_tables_file", lambda: tables)
        assert parse.shipped_tables_problem(grammar, tables) or content.endswith(b"not a pickle")
        parse.parser.cache_clear()
        assert parse.parse_module(text, "movement.nem") == shipped and built == [1]
    finally:
        parse.parser.cache_clear()
