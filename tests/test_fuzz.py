"""Fuzzing the parser, the module loader and nemesis-lint, `Game.from_json` and the scenario runner
(issue 14): hostile and mangled inputs end in diagnostics or a RulesError, never another
exception, never a hang, never an accepted inconsistent save.

The default run tries a few inputs per target (seconds); the long run is behind `-m slow`:

    NEMESIS_FUZZ_EXAMPLES=100000 python -m pytest -m slow tests/test_fuzz.py -p no:cacheprovider

Each target counts the inputs it tried in FUZZ_COUNTS; the long run prints them.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nemesis_rules import Game, RulesError, load_ruleset
from nemesis_rules.dsl.diagnostics import Diagnostic
from nemesis_rules.dsl.parse import parse_body, parse_module
from nemesis_rules.ruleset.check_api import check_paths
from nemesis_rules.scenario import run_file
from tests.conftest import FIXTURES, TOY
from tests.test_saves import _reseal

LONG = int(os.environ.get("NEMESIS_FUZZ_EXAMPLES", "20000"))
FUZZ_COUNTS: Counter[str] = Counter()
SCENARIOS = Path(__file__).parent / "scenarios" / "toy"


def short(n: int):
    return settings(max_examples=n, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


def long():
    return settings(max_examples=LONG, deadline=None, suppress_health_check=list(HealthCheck))


# ---- inputs ----
TOKENS = ["proc", "fn", "let", "if", "elif", "else", "for", "in", "while", "repeat", "match", "case",
          "return", "pass", "break", "choose", "on", "instead", "of", "not", "and", "or", "true", "false",
          "none", "main", "x", "p", "player_at", "range", "(", ")", "[", "]", ",", ":", "=", "==", "+", "-",
          "*", "/", "%", "<", ">=", ".", '"a"', '"{who}"', "0", "1", "9" * 30, "\n", "\n    ", "\n        ",
          " ", "#", "\t", "\\", "'", "\u00e9", "\x00", "-" * 80, "(" * 70, "[" * 70, "not " * 70]
script = st.lists(st.sampled_from(TOKENS), max_size=60).map("".join) | st.text(max_size=200)

HOSTILE = ["a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n",
           "  hit: \"{who.__class__.__mro__}\"\n", "  hit: \"{who:>999999999}\"\n", "count: 100000000",
           "players: {min: 0, max: 2}", "requires: [/etc]", "requires: [../../etc]", "id: ../../etc/passwd",
           "    let n = " + "-" * 300 + "1", "    let n = " + "9" * 5000, "    n = n * n",
           "    repeat 64:\n        s = s + s", "    let r = [[y for y in range(0, 100000)] for z in range(0, 100000)]",
           "\t", "- ", ": ", "{", "}", "[", "]", "&x", "*x", "!!python/object:os.system", "%YAML 1.1", "\x00"]


@st.composite
def mangled(draw, text: str) -> str:
    """`text` with a few line-level mutations and hostile snippets."""
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        action = draw(st.sampled_from(["drop", "dup", "snippet", "chars", "swap"]))
        if action == "drop" and lines:
            lines.pop(i)
        elif action == "dup" and lines:
            lines.insert(i, lines[i])
        elif action == "snippet":
            lines.insert(i, draw(st.sampled_from(HOSTILE)))
        elif action == "chars" and lines:
            line = lines[i]
            at = draw(st.integers(0, len(line)))
            lines[i] = line[:at] + draw(st.text(max_size=4)) + line[at + draw(st.integers(0, 3)):]
        elif action == "swap" and len(lines) > 1:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


# ---- the targets ----
def fuzz_parser(text: str, as_body: bool) -> None:
    FUZZ_COUNTS["parser"] += 1
    tree, diags = (parse_body if as_body else parse_module)(text, "fuzz.nem")
    assert all(isinstance(d, Diagnostic) for d in diags)
    assert tree is not None or any(d.is_error for d in diags)


TOY_FILES = sorted(str(p.relative_to(TOY)) for p in TOY.rglob("*") if p.is_file())


def fuzz_module(data) -> None:
    """A copy of the toy module with one file mangled: lint and load agree, neither crashes; if it
    loads, a game runs (views and random moves) with only rules errors."""
    FUZZ_COUNTS["module"] += 1
    name = data.draw(st.sampled_from(TOY_FILES))
    text = data.draw(mangled((TOY / name).read_text(encoding="utf-8")))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "toy"
        shutil.copytree(TOY, folder)
        (folder / name).write_text(text, encoding="utf-8")
        found, _ = check_paths([folder])
        assert not any(d.code == "E999" for d in found), [str(d) for d in found if d.code == "E999"]
        try:
            rules = load_ruleset(folder)
        except RulesError as err:
            assert not any(d.code == "E999" for d in err.diagnostics), str(err)
            assert any(d.is_error for d in found), f"lint passed what load refused: {err}"
            return
        _play(rules, data.draw(st.integers(0, 50)))


def _play(rules, seed: int) -> None:
    try:
        game = Game.new(rules, players=rules.players.min, seed=seed)
        rnd = random.Random(seed)
        for _ in range(40):
            for seat in (None, *range(game.state.players)):
                game.view(seat)
            if game.over:
                return
            game.apply(rnd.randrange(len(game.decision.options)))
        Game.from_json(rules, game.to_json(), verify="replay")
    except RulesError:
        pass


@pytest.fixture(scope="module")
def toy_save(toy_rules):
    game = Game.new(toy_rules, players=3, seed=9)
    rnd = random.Random(9)
    for _ in range(10):
        game.apply(rnd.randrange(len(game.decision.options)))
    return game, game.to_json()


def fuzz_save(rules, game: Game, text: str, data) -> None:
    """Random byte flips, cuts and JSON edits of a real save: a RulesError, or the same state."""
    FUZZ_COUNTS["from_json"] += 1
    raw = bytearray(text.encode())
    kind = data.draw(st.sampled_from(["flip", "cut", "edit", "edit-resealed"]))
    if kind == "flip":
        for _ in range(data.draw(st.integers(1, 4))):
            raw[data.draw(st.integers(0, len(raw) - 1))] ^= 1 << data.draw(st.integers(0, 7))
        candidate: bytes | str = bytes(raw)
    elif kind == "cut":
        candidate = bytes(raw[:data.draw(st.integers(0, len(raw) - 1))])
    else:
        doc = json.loads(text)
        keys = sorted(doc)
        key = data.draw(st.sampled_from(keys))
        doc[key] = data.draw(st.sampled_from([None, 0, -1, 2**80, "", [], {}, [[]], True, doc[key]]))
        if kind == "edit-resealed":
            candidate = _reseal(doc)
        else:
            candidate = json.dumps(doc)
    mode = data.draw(st.sampled_from(["digest", "replay", "structure"]))
    try:
        loaded = Game.from_json(rules, candidate, verify=mode)
    except RulesError:
        return
    if mode != "structure":  # (a structure-only load playing on is test_saves' property)
        assert loaded.state == game.state or kind == "edit-resealed" and mode == "digest"


def fuzz_scenario(data) -> None:
    FUZZ_COUNTS["scenario"] += 1
    files = sorted(SCENARIOS.glob("*.yaml"))
    source = data.draw(st.sampled_from(files))
    text = data.draw(mangled(source.read_text(encoding="utf-8")))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scenarios" / "toy" / source.name
        path.parent.mkdir(parents=True)
        path.write_text(text.replace("../../fixtures/toy", str(FIXTURES / "toy")), encoding="utf-8")
        report = run_file(path)
    assert report is not None


# ---- the short profile (default suite) ----
@short(150)
@given(text=script, as_body=st.booleans())
def test_fuzz_parser(text: str, as_body: bool) -> None:
    fuzz_parser(text, as_body)


@short(8)
@given(data=st.data())
def test_fuzz_module_loader_and_lint(data) -> None:
    fuzz_module(data)


@short(80)
@given(data=st.data())
def test_fuzz_from_json(toy_rules, toy_save, data) -> None:
    fuzz_save(toy_rules, *toy_save, data)


@short(10)
@given(data=st.data())
def test_fuzz_scenario_runner(data) -> None:
    fuzz_scenario(data)


# ---- the long profile (-m slow; NEMESIS_FUZZ_EXAMPLES inputs per target) ----
@pytest.mark.slow
@long()
@given(text=script, as_body=st.booleans())
def test_fuzz_parser_long(text: str, as_body: bool) -> None:
    fuzz_parser(text, as_body)


@pytest.mark.slow
@long()
@given(data=st.data())
def test_fuzz_from_json_long(toy_rules, toy_save, data) -> None:
    fuzz_save(toy_rules, *toy_save, data)


@pytest.mark.slow
@long()
@given(data=st.data())
def test_fuzz_module_loader_and_lint_long(data) -> None:
    fuzz_module(data)


@pytest.mark.slow
@long()
@given(data=st.data())
def test_fuzz_scenario_runner_long(data) -> None:
    fuzz_scenario(data)


def teardown_module() -> None:
    if FUZZ_COUNTS:
        print("\nfuzz inputs tried:", dict(FUZZ_COUNTS))
