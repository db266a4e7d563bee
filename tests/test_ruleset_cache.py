"""The disk cache of checked compositions (nemesis_rules/ruleset/cache.py): a warm load gives the
same rules without reading the modules again, and a changed file is never served stale."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import attrs
import pytest

from nemesis_rules import Game, api, cachefiles, load_ruleset
from nemesis_rules.dsl.diagnostics import RulesError
from nemesis_rules.ruleset import cache

TOY = Path(__file__).parent / "fixtures" / "toy"
LONG_AGO = 1_000_000_000  # 2001: files older than any load, so an entry is written


@pytest.fixture
def toy_copy(tmp_path, monkeypatch):
    monkeypatch.setenv(cachefiles.CACHE_ENV, str(tmp_path / "cache"))
    folder = tmp_path / "toy"
    shutil.copytree(TOY, folder)
    _age(folder)
    return folder


def _age(folder: Path) -> None:
    for path in folder.rglob("*"):
        os.utime(path, (LONG_AGO, LONG_AGO))


def _entries(folder: Path) -> list[Path]:
    return sorted((folder.parent / "cache").glob("comp-*.pickle"))


def _no_reading(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("the modules were read again")

    monkeypatch.setattr(api, "compose", refuse)


def _played(rules, seed: int = 3) -> str:
    game = Game.new(rules, players=3, seed=seed)
    while not game.over:
        game.apply(len(game.state.moves) % len(game.decision.options))
    return game.to_json()


def test_a_warm_load_reads_nothing_and_plays_the_same(toy_copy, monkeypatch) -> None:
    cold = load_ruleset(toy_copy)
    assert len(_entries(toy_copy)) == 1
    _no_reading(monkeypatch)
    monkeypatch.setattr(api, "build_program", lambda *a: pytest.fail("a warm load compiled the rules"))
    warm = load_ruleset(toy_copy)
    assert (warm.fingerprint, warm.warnings, warm.names, warm.messages, warm.players, warm.options) == (
        cold.fingerprint, cold.warnings, cold.names, cold.messages, cold.players, cold.options)
    assert _played(warm) == _played(cold)
    assert warm.composition.ids == cold.composition.ids  # read from the entry when first asked
    assert warm.composition is warm.composition


def test_a_warm_program_plays_every_module_the_same(monkeypatch) -> None:
    """The program written to the cache and read back (engine/programfile.py) plays base and an
    expansion exactly as the program built from the modules, with the decisions a bot takes."""
    from nemesis_rules.cli.bench import random_game
    from nemesis_rules.engine import programfile

    for modules in (["base"], ["base", "void_seeders"]):
        built = load_ruleset(*modules)
        read = attrs.evolve(built, program=programfile.loads(programfile.dumps(built.program)))
        assert read.program.ns is not built.program.ns
        for players, seed in ((2, 5), (4, 6)):
            assert random_game(read, players, seed).to_json() == random_game(built, players, seed).to_json()


def test_a_changed_file_is_read_again(toy_copy) -> None:
    load_ruleset(toy_copy)
    rules = toy_copy / "rules.nem"
    rules.write_text(rules.read_text(encoding="utf-8") + "\nfn added_later() = 1\n", encoding="utf-8")
    assert "added_later" in load_ruleset(toy_copy).program.fns


def test_a_new_file_is_read_again(toy_copy) -> None:
    load_ruleset(toy_copy)
    (toy_copy / "more.nem").write_text("fn added_later() = 1\n", encoding="utf-8")
    assert "added_later" in load_ruleset(toy_copy).program.fns


def test_a_broken_file_is_an_error_after_a_warm_load(toy_copy) -> None:
    load_ruleset(toy_copy)
    (toy_copy / "rules.nem").write_text("fn broken( = \n", encoding="utf-8")
    with pytest.raises(RulesError):
        load_ruleset(toy_copy)


def test_a_file_changed_just_now_is_not_kept(toy_copy) -> None:
    (toy_copy / "rules.nem").touch()  # it could still be changing while it is read
    load_ruleset(toy_copy)
    assert _entries(toy_copy) == []


def test_an_unreadable_entry_is_a_miss(toy_copy) -> None:
    load_ruleset(toy_copy)
    (entry,) = _entries(toy_copy)
    entry.write_bytes(b"not a pickle")
    assert load_ruleset(toy_copy).program.fns  # read again, and the entry written anew
    assert entry.read_bytes() != b"not a pickle"


def test_the_cache_can_be_turned_off(toy_copy, monkeypatch) -> None:
    monkeypatch.setenv(cachefiles.CACHE_ENV, "off")
    load_ruleset(toy_copy)
    assert cachefiles.cache_dir() is None
    assert not (toy_copy.parent / "cache").exists()


def test_the_default_folder_is_the_user_cache(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv(cachefiles.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cachefiles.cache_dir() == tmp_path / "nemesis-rules"


def test_old_entries_are_pruned(toy_copy, monkeypatch) -> None:
    monkeypatch.setattr(cache, "MAX_ENTRIES", 1)
    load_ruleset(toy_copy)
    other = toy_copy.parent / "toy2"
    shutil.copytree(toy_copy, other)
    _age(other)
    load_ruleset(other)
    assert len(_entries(toy_copy)) == 1
