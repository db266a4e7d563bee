"""Testing a card (issue #38 point 5): `nemesis simulate --with ID` and Game.new(put_in_play=...)
put a component into play once setup is done, where its kind's `in_play:` procedure says."""

from __future__ import annotations

import csv
import io
import random
import sys

import pytest

from nemesis_rules.api import Game, load_ruleset
from nemesis_rules.cli.main import main
from nemesis_rules.dsl.diagnostics import RulesError
from nemesis_rules.engine import vm


@pytest.fixture(scope="module")
def base():
    return load_ruleset("base")


def _past_setup(game: Game, seed: int) -> Game:
    """Random choices (the draft) until setup's last log line."""
    pick = random.Random(seed)
    while not any(e["msg"] == "setup_done" for e in game.state.log):
        game.apply(pick.randrange(len(game.decision)))
    return game


def _simulate(capsys, *argv: str) -> tuple[int, str, str]:
    old, sys.stdin = sys.stdin, io.StringIO("")
    try:
        code = main(["simulate", "--players", "2", "-q", "--jobs", "1", *argv])
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_weakness_asked_for_is_revealed_once_setup_is_done(base, seed):
    game = _past_setup(Game.new(base, 2, seed, put_in_play=("weakness_vital_places",)), seed)
    revealed = vm.call_function(vm.Runtime(base.program, game.state), "revealed_weaknesses", [])
    assert revealed == ("weakness_vital_places",)
    assert any(e["msg"] == "put_in_play" and e["args"]["what"] == "weakness_vital_places" for e in game.state.log)


def test_without_put_in_play_no_weakness_is_revealed(base):
    game = _past_setup(Game.new(base, 2, 0), 0)
    assert vm.call_function(vm.Runtime(base.program, game.state), "revealed_weaknesses", []) == ()


def _first_of(game: Game, component: str) -> str:
    return next(e for e, r in game.state.entities.items() if r[4] == component)


def test_an_item_asked_for_lies_on_top_of_its_deck(base):
    game = _past_setup(Game.new(base, 2, 5, put_in_play=("item_grenade",)), 5)
    grenade = _first_of(game, "item_grenade")
    assert game.state.zones["item_deck_red"][0] == grenade  # a zone lists its top first


def test_an_item_no_deck_holds_is_dealt_to_the_first_player(base):
    game = _past_setup(Game.new(base, 2, 5, put_in_play=("item_taser",)), 5)  # crafted: the blue deck
    assert game.state.entities[_first_of(game, "item_taser")][1] == "backpack@player1"


def test_the_asked_components_survive_a_save_before_setup_ends(base):
    game = Game.new(base, 2, 0, put_in_play=("weakness_vital_places",))
    again = Game.from_json(base, game.to_json())
    assert again.state.asked == ("weakness_vital_places",)


def test_simulate_with_a_rare_item_plays_it(capsys):
    code, out, _ = _simulate(capsys, "--games", "20")
    assert code == 0 and "item_taser" not in out  # never used in these 20 games
    code, out, _ = _simulate(capsys, "--games", "20", "--with", "item_taser", "--with", "weakness_vital_places")
    assert code == 0 and "errors: none" in out
    assert "with item_taser, weakness_vital_places put into play" in out.splitlines()[0]
    used = [line for line in out.splitlines() if line.strip().startswith("item_taser (Taser)")]
    assert used and int(used[0].split()[-2]) > 0


@pytest.mark.parametrize(("card", "says"), [
    ("item_tazer", "no component 'item_tazer' to put into play"),
    ("pilot_search", "its kind `action_card` names no `in_play:` procedure"),
])
def test_simulate_with_a_card_that_cannot_be_put_into_play_is_a_clear_error(capsys, card, says):
    code, out, err = _simulate(capsys, "--games", "1", "--with", card)
    assert code == 2 and says in err and "Traceback" not in err and out == ""


def test_put_in_play_refuses_what_is_not_a_list_of_components(base):
    with pytest.raises(RulesError, match="a list of component ids"):
        Game.new(base, 2, 0, put_in_play="item_taser")


def test_simulate_out_records_what_was_put_into_play(capsys, tmp_path):
    """games.csv keeps `--with`, so a table says how to play its games again."""
    code, _, _ = _simulate(capsys, "--games", "2", "--with", "item_taser", "--with", "weakness_vital_places",
                           "--out", str(tmp_path))
    assert code == 0
    with (tmp_path / "games.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["with"] for r in rows] == ["item_taser weakness_vital_places"] * 2
