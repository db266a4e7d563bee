"""Nemesis: Retaliation, the items slice (rulesets/retaliation/cards_items.yaml, rules/items.nem):
what a seat sees of a Search. The Items drawn lie face down in the searcher's `search_area`
(`owner_looks`): the searcher sees them while choosing which to keep, the other players see only
how many and their colours (rs p. 28: the others go back unseen; the Backpack is secret)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nemesis_rules import Game, load_ruleset
from tests.positions import choose, props, put

BENCH = Path(__file__).parent / "fixtures" / "retaliation_items_bench"


@pytest.fixture(scope="module")
def rules():
    return load_ruleset(BENCH)


def searching(rules) -> Game:
    """Player 1 searches the Supply Room (green, red, yellow) and is asked which Item to keep."""
    game = Game.new(rules, players=2, seed=0)
    put(game, "supply_room", "laid_room@hex_21")
    props(game, "player1")["stub_at"] = "hex_21"
    choose(game, "bench_search")
    assert game.decision.prompt == "item_to_keep"
    return game


def test_the_searcher_sees_the_drawn_items_the_others_only_their_backs(rules):
    game = searching(rules)
    drawn = game.state.zones["search_area@player1"]
    assert len(drawn) == 3
    mine, theirs = game.view(0), game.view(1)
    assert all(eid in mine["entities"] for eid in drawn)
    assert not any(eid in theirs["entities"] for eid in drawn)
    assert sorted(theirs["zones"]["search_area@player1"]["backs"]) == ["green", "red", "yellow"]


def test_the_items_not_kept_go_back_unseen(rules):
    game = searching(rules)
    kept, *returned = game.state.zones["search_area@player1"]
    choose(game, kept)
    theirs = game.view(1)
    assert not any(eid in theirs["entities"] for eid in returned)
    assert game.state.zones["backpack@player1"] == [kept] or kept in game.state.zones["held@player1"]
