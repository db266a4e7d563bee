"""The compiled YAML reader (nemesis_rules/ruleset/yaml_reader.py) reads every module and scenario
file exactly as ruamel's pure round-trip loader does, positions included; a bad or deeply nested
text is left to the pure parser (its errors, and no crash)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from nemesis_rules.ruleset import yaml_reader
from nemesis_rules.ruleset.yaml_reader import MAX_NESTING_MARKS, load_positioned

ROOT = Path(__file__).resolve().parents[1]
compiled = pytest.mark.skipif(yaml_reader.CParser is None, reason="ruamel.yaml.clib is not installed")


def pure(text: str):
    return YAML(typ="rt", pure=True).load(io.StringIO(text))


def same_document(a, b, path=()) -> None:
    """Equal values of equal types, with equal positions for every key, value and item."""
    assert type(a) is type(b), path
    if isinstance(a, CommentedMap):
        assert list(a) == list(b), path
        assert (a.lc.line, a.lc.col) == (b.lc.line, b.lc.col), path
        for k in a:
            assert (a.lc.key(k), a.lc.value(k)) == (b.lc.key(k), b.lc.value(k)), (*path, k)
            same_document(a[k], b[k], (*path, k))
    elif isinstance(a, CommentedSeq):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert a.lc.item(i) == b.lc.item(i), (*path, i)
            same_document(x, y, (*path, i))
    else:
        assert a == b, path


def yaml_files() -> list[Path]:
    return sorted(p for folder in ("rulesets", "tests/scenarios") for p in (ROOT / folder).rglob("*.yaml"))


@compiled
def test_every_shipped_file_reads_as_the_pure_loader_reads_it():
    files = yaml_files()
    assert len(files) > 300
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert sum(map(text.count, "[{-?:")) <= MAX_NESTING_MARKS, f"{path} would be read by the pure parser"
        same_document(load_positioned(text), pure(text), (str(path.relative_to(ROOT)),))


@compiled
def test_scalars_resolve_as_yaml_1_2_as_before():
    text = "a: yes\nb: on\nc: 0o17\nd: 1_000\ne: 1.5\nf: null\ng: true\nh: '007'\ni: [1, x, ~]\n"
    same_document(load_positioned(text), pure(text))
    assert load_positioned(text)["a"] == "yes"


@pytest.mark.parametrize("text", ["a: b: c\n", "a: [1, 2\n", "a: 'open\n", "a: 1\na: 2\n", "- a\nb: c\n"])
def test_a_bad_text_raises_the_pure_parsers_error(text):
    with pytest.raises(YAMLError) as fast:
        load_positioned(text)
    with pytest.raises(YAMLError) as slow:
        pure(text)
    assert type(fast.value) is type(slow.value)
    assert str(fast.value) == str(slow.value)


def test_deep_nesting_goes_to_the_pure_parser_and_never_crashes():
    """Nesting the C parser would overflow the stack on (it has no depth check) is read by the
    pure parser, which stops with RecursionError; in a child process, so a crash would show."""
    code = ("from nemesis_rules.ruleset.yaml_reader import load_positioned\n"
            "for text in ['a: ' + '[' * 100000 + ']' * 100000, 'a:\\n' + '- ' * 100000 + 'x\\n']:\n"
            "    try:\n        load_positioned(text)\n    except RecursionError:\n        print('refused')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["refused", "refused"]


@compiled
def test_the_compiled_reader_is_used(monkeypatch):
    """A shallow valid text never reaches the pure loader (else the speed-up is lost unseen)."""
    monkeypatch.setattr(yaml_reader, "YAML", None)  # calling the pure loader would fail
    assert load_positioned("a: [1, 2]\n") == {"a": [1, 2]}


@pytest.mark.parametrize("nested", [False, True])  # the C parser, and the pure one for deep texts
def test_an_anchor_defined_again_is_read_as_yaml_says_without_a_python_warning(nested, recwarn):
    text = "a: &x 1\nb: &x 2\nc: *x\n" + (f"d: '{':' * (MAX_NESTING_MARKS + 1)}'\n" if nested else "")
    doc = load_positioned(text)
    assert (doc["a"], doc["b"], doc["c"]) == (1, 2, 2)  # an alias names the latest anchor
    assert not [w for w in recwarn if "anchor" in str(w.message)]
