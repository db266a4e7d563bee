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


LOG = os.environ.get("NEMESIS_FUZZ_LOG")  # a file the long run keeps its counts in, as it goes


def _count(target: str) -> None:
    FUZZ_COUNTS[target] += 1
    if LOG and FUZZ_COUNTS[target] % 1000 == 0:
        Path(LOG).write_text(json.dumps(dict(FUZZ_COUNTS)) + "\n")


def short(n: int):
    return settings(max_examples=n, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


# ---- inputs ----
TOKENS = ["proc", "fn", "let", "if", "elif", "else", "for", "in", "while", "repeat", "match", "case",
          "return", "pass", "break", "choose", "on", "instead", "of", "not", "and", "or", "true", "false",
          "none", "main", "x", "p", "player_at", "range", "(", ")", "[", "]", ",", ":", "=", "==", "+", "-",
          "*", "/", "%", "<", ">=", ".", '"a"', '"{who}"', "0", "1", "9" * 30, "\n", "\n    ", "\n        ",
          " ", "#", "\t", "\\", "'", "\u00e9", "\x00", "-" * 80, "(" * 70, "[" * 70, "not " * 70]

HOSTILE = ["a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n",
           "  hit: \"{who.__class__.__mro__}\"\n", "  hit: \"{who:>999999999}\"\n", "count: 100000000",
           "players: {min: 0, max: 2}", "requires: [/etc]", "requires: [../../etc]", "id: ../../etc/passwd",
           "    let n = " + "-" * 300 + "1", "    let n = " + "9" * 5000, "    n = n * n",
           "    repeat 64:\n        s = s + s", "    let r = [[y for y in range(0, 100000)] for z in range(0, 100000)]",
           "\t", "- ", ": ", "{", "}", "[", "]", "&x", "*x", "!!python/object:os.system", "%YAML 1.1", "\x00"]


class HypothesisDraw:
    """Choices drawn by hypothesis (the default suite: shrinking, a fixed set of examples)."""

    def __init__(self, data) -> None:
        self.data = data

    def int(self, lo: int, hi: int) -> int:
        return self.data.draw(st.integers(lo, hi))

    def pick(self, items):
        return self.data.draw(st.sampled_from(items))

    def text(self, size: int) -> str:
        return self.data.draw(st.text(max_size=size))


class RandomDraw:
    """The same choices from a seeded generator: the long run, a hundred times faster per input."""

    ALPHABET = "abcxyz019_ :()[]{}<>=+-*/%#\"',.\n\t\u00e9\u0000\ud7ff\U0001f600"

    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)

    def int(self, lo: int, hi: int) -> int:
        return self.rnd.randint(lo, hi)

    def pick(self, items):
        return self.rnd.choice(list(items))

    def text(self, size: int) -> str:
        return "".join(self.rnd.choice(self.ALPHABET) for _ in range(self.rnd.randint(0, size)))


def mangled(d, text: str) -> str:
    """`text` with a few line-level mutations and hostile snippets."""
    lines = text.split("\n")
    for _ in range(d.int(1, 4)):
        i = d.int(0, max(0, len(lines) - 1))
        action = d.pick(["drop", "dup", "snippet", "chars", "swap"])
        if action == "drop" and lines:
            lines.pop(i)
        elif action == "dup" and lines:
            lines.insert(i, lines[i])
        elif action == "snippet":
            lines.insert(i, d.pick(HOSTILE))
        elif action == "chars" and lines:
            line = lines[i]
            at = d.int(0, len(line))
            lines[i] = line[:at] + d.text(4) + line[at + d.int(0, 3):]
        elif action == "swap" and len(lines) > 1:
            j = d.int(0, len(lines) - 1)
            lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def a_script(d) -> str:
    if d.int(0, 3):
        return "".join(d.pick(TOKENS) for _ in range(d.int(0, 60)))
    return d.text(200)


# ---- the targets ----
def fuzz_parser(d) -> None:
    _count("parser")
    text = a_script(d)
    tree, diags = (parse_body if d.int(0, 1) else parse_module)(text, "fuzz.nem")
    assert all(isinstance(d, Diagnostic) for d in diags)
    assert tree is not None or any(d.is_error for d in diags)


TOY_FILES = sorted(str(p.relative_to(TOY)) for p in TOY.rglob("*") if p.is_file())


def fuzz_module(d) -> None:
    """A copy of the toy module with one file mangled: lint and load agree, neither crashes; if it
    loads, a game runs (views and random moves) with only rules errors."""
    _count("module")
    name = d.pick(TOY_FILES)
    text = mangled(d, (TOY / name).read_text(encoding="utf-8"))
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
        _play(rules, d.int(0, 50))


def _play(rules, seed: int) -> None:
    try:
        game = Game.new(rules, players=rules.players.min, seed=seed)
    except RulesError:
        return
    _play_on(game, seed)
    try:
        text = game.to_json()
    except RulesError:
        return  # the rules broke the game while it ran: it has no save (Game.to_json)
    Game.from_json(rules, text, verify="replay")


def _play_on(game: Game, seed: int, moves: int = 40) -> None:
    """Views for every seat and random moves: only a RulesError may stop them."""
    rnd = random.Random(seed)
    try:
        for _ in range(moves):
            for seat in (None, *range(game.state.players)):
                game.view(seat)
            if game.over:
                return
            if game.is_chance_node:
                game.apply_chance(rnd.choice(game.chance_outcomes())[0])
            else:
                game.apply(rnd.randrange(len(game.decision.options)))
    except RulesError:
        pass


@pytest.fixture(scope="module")
def toy_save(toy_rules):
    game = Game.new(toy_rules, players=3, seed=9)
    rnd = random.Random(9)
    for _ in range(10):
        game.apply(rnd.randrange(len(game.decision.options)))
    return game, game.to_json()


def fuzz_save(rules, game: Game, text: str, d) -> None:
    """Random byte flips, cuts and JSON edits of a real save: a RulesError, or the same state."""
    _count("from_json")
    raw = bytearray(text.encode())
    kind = d.pick(["flip", "cut", "edit", "edit-resealed"])
    if kind == "flip":
        for _ in range(d.int(1, 4)):
            raw[d.int(0, len(raw) - 1)] ^= 1 << d.int(0, 7)
        candidate: bytes | str = bytes(raw)
    elif kind == "cut":
        candidate = bytes(raw[:d.int(0, len(raw) - 1)])
    else:
        doc = json.loads(text)
        _edit(d, doc)
        if kind == "edit-resealed":
            candidate = _reseal(doc)
        else:
            candidate = json.dumps(doc)
    mode = d.pick(["digest", "replay", "structure"])
    try:
        loaded = Game.from_json(rules, candidate, verify=mode)
    except RulesError:
        return
    if mode == "digest" and kind != "edit-resealed":
        assert loaded.state == game.state
    # a replay accepts what its own seed, settings and moves make (an edited setting included);
    # whatever is accepted must play on without a crash
    _play_on(loaded, d.int(0, 99), moves=15)


def _edit(d, doc) -> None:
    """Replace one value somewhere in a JSON document."""
    parent, key = doc, d.pick(sorted(doc))
    while isinstance(parent[key], dict | list) and parent[key] and d.int(0, 2):
        parent = parent[key]
        key = d.pick(sorted(parent)) if isinstance(parent, dict) else d.int(0, len(parent) - 1)
    parent[key] = d.pick([None, 0, 1, -1, 2**80, "", "player0", "hand@player1", [], {}, [[]], True, 1.5])


def fuzz_scenario(d) -> None:
    _count("scenario")
    files = sorted(SCENARIOS.glob("*.yaml"))
    source = d.pick(files)
    text = mangled(d, source.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scenarios" / "toy" / source.name
        path.parent.mkdir(parents=True)
        path.write_text(text.replace("../../fixtures/toy", str(FIXTURES / "toy")), encoding="utf-8")
        report = run_file(path)
    assert report is not None


# ---- the short profile (default suite) ----
@short(150)
@given(data=st.data())
def test_fuzz_parser(data) -> None:
    fuzz_parser(HypothesisDraw(data))


@short(8)
@given(data=st.data())
def test_fuzz_module_loader_and_lint(data) -> None:
    fuzz_module(HypothesisDraw(data))


@short(80)
@given(data=st.data())
def test_fuzz_from_json(toy_rules, toy_save, data) -> None:
    fuzz_save(toy_rules, *toy_save, HypothesisDraw(data))


@short(10)
@given(data=st.data())
def test_fuzz_scenario_runner(data) -> None:
    fuzz_scenario(HypothesisDraw(data))


# ---- the long run (-m slow): NEMESIS_FUZZ_EXAMPLES seeded-random inputs per target ----
def _long(target, *args) -> None:
    start = int(os.environ.get("NEMESIS_FUZZ_SEED", "0"))
    for seed in range(start, start + LONG):
        try:
            target(*args, RandomDraw(seed))
        except Exception as err:
            raise AssertionError(f"{target.__name__} failed for NEMESIS_FUZZ_SEED={seed}: {err!r}") from err


@pytest.mark.slow
def test_fuzz_parser_long() -> None:
    _long(fuzz_parser)


@pytest.mark.slow
def test_fuzz_from_json_long(toy_rules, toy_save) -> None:
    _long(fuzz_save, toy_rules, *toy_save)


@pytest.mark.slow
def test_fuzz_module_loader_and_lint_long() -> None:
    _long(fuzz_module)


@pytest.mark.slow
def test_fuzz_scenario_runner_long() -> None:
    _long(fuzz_scenario)


def teardown_module() -> None:
    if FUZZ_COUNTS:
        print("\nfuzz inputs tried:", dict(FUZZ_COUNTS))
