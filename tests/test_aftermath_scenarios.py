"""The scenario runner's `after:` key (docs/scenarios.md), which the Epilogue's scenarios use:
a saved finished game, a game played first, the position on its final state, and the errors."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from nemesis_rules import Game, load_ruleset
from nemesis_rules.scenario import ScenarioError, load, run_file


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("base", "aftermath")


def finished(rules, players: int = 2) -> Game:
    """A random standard game that ended with the ship whole (an Epilogue may follow it)."""
    for seed in range(40):
        game = Game.new(rules, players=players, seed=seed)
        rnd = random.Random(seed)
        while not game.over:
            game.apply(rnd.randrange(len(game.decision.options)))
        if game.state.counters["ship_destroyed_flag"] == 0:
            return game
    raise AssertionError("no game left the ship whole")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text("modules: [base, aftermath]\nplayers: 2\noptions: {mode: epilogue}\n" + text)
    return path


def test_after_a_saved_finished_game(rules, tmp_path):
    (tmp_path / "finished.json").write_text(finished(rules).to_json())
    path = write(tmp_path, "after: {save: finished.json, position: {counters: {time: 3}}}\n"
                           "expect:\n  - decision: {prompt: draft_character}\n  - counters: {shuttle_docked: 1}\n")
    report = run_file(path)
    assert report.status == "PASS", report.failures or report.error


def test_a_saved_game_still_going_on_is_refused(rules, tmp_path):
    (tmp_path / "going.json").write_text(Game.new(rules, players=2, seed=1).to_json())
    report = run_file(write(tmp_path, "after: {save: going.json}\nexpect: {over: false}\n"))
    assert report.status == "ERROR" and "still going on" in report.error and ":4" in report.error


def test_a_missing_save_is_a_clear_error(tmp_path):
    report = run_file(write(tmp_path, "after: {save: nope.json}\nexpect: {over: false}\n"))
    assert report.status == "ERROR" and "cannot read the save" in report.error


def test_the_position_edits_the_played_game_before_the_new_one_starts(tmp_path):
    """The position on the final state decides: a destroyed ship refuses the Epilogue."""
    report = run_file(write(tmp_path, "after: {seed: 0, position: {counters: {ship_destroyed_flag: 1}}}\n"
                                      "expect: {over: false}\n"))
    assert report.status == "ERROR" and "no Epilogue after the ship was destroyed" in report.error


def test_without_after_the_epilogue_says_what_it_needs(tmp_path):
    report = run_file(write(tmp_path, "expect: {over: false}\n"))
    assert report.status == "ERROR" and "continues a finished game" in report.error


@pytest.mark.parametrize("text,message", [
    ("after: {save: f.json, seed: 3}\n", "either `save:`"),
    ("after: {sed: 3}\n", "did you mean `seed`"),
    ("after: {position: {zone: {}}}\n", "unknown key `zone` in `after.position`"),
    ("after: [1]\n", "`after` should be a mapping"),
])
def test_bad_after_keys_are_refused_with_their_line(tmp_path, text, message):
    with pytest.raises(ScenarioError, match=message) as err:
        load(write(tmp_path, text + "expect: {over: false}\n"))
    assert ":4" in str(err.value)


def test_a_bad_name_in_the_position_is_refused(tmp_path):
    report = run_file(write(tmp_path, "after:\n  position:\n    props: {no_such_thing: {a: 1}}\nexpect: {over: false}\n"))
    assert report.status == "ERROR" and ":6" in report.error and "no_such_thing" in report.error


def test_a_save_of_other_rules_is_refused(tmp_path):
    """A save is loaded only with the rules its fingerprint names (issue #39 point 2; held
    already by Game.from_json, pinned here beside play --load, replay and --after in test_cli.py)."""
    toy = load_ruleset(Path(__file__).parent / "fixtures" / "toy")
    (tmp_path / "toy.json").write_text(Game.new(toy, 2, 1).to_json())
    report = run_file(write(tmp_path, "after: {save: toy.json}\nexpect: {over: false}\n"))
    assert report.status == "ERROR" and "the save is for rules 'toy@" in report.error and ":4" in report.error
