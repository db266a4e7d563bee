"""Nemesis: Retaliation, the items slice (rulesets/retaliation/cards_items.yaml, rules/items.nem):
what a seat sees of a Search. The Items drawn lie face down in the searcher's `search_area`
(`owner_looks`): the searcher sees them while choosing which to keep, the other players see only
how many and their colours (rs p. 28: the others go back unseen; the Backpack is secret)."""

from __future__ import annotations

import pytest

from nemesis_rules import Game, load_ruleset
from nemesis_rules.engine.state import E_FACE
from tests.positions import choose, put

# Seed 0, 2 players: player 2 (seat 1) drafts first and is the Starting Player.
SETUP = [("draft_character", "recon"), ("draft_character", "officer"),
         ("support_equipment", "item_bayonet"), ("support_equipment", "item_engineering_equipment")]


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("retaliation")


def searching(rules) -> Game:
    """The Recon plays their Search card in the Supply Room (green, red, yellow) and is asked which
    Item to keep."""
    game = Game.new(rules, players=2, seed=0)
    for prompt, value in SETUP:
        assert game.decision.prompt == prompt
        choose(game, value)
    while game.decision.prompt == "take_gear":
        choose(game, "ammo")
    assert game.decision.prompt == "pick_action" and game.decision.player == 1
    put(game, "supply_room", "laid_room@hex_21")
    game.state.entities["supply_room"][E_FACE] = True
    put(game, "recon_figure", "room_contents@hex_21")
    put(game, "recon_search", "hand@player2")
    choose(game, "play_card")
    choose(game, "recon_search")
    assert game.decision.prompt == "item_to_keep"
    return game


def test_the_searcher_sees_the_drawn_items_the_others_only_their_backs(rules):
    game = searching(rules)
    drawn = game.state.zones["search_area@player2"]
    assert len(drawn) == 3
    mine, theirs = game.view(1), game.view(0)
    assert all(eid in mine["entities"] for eid in drawn)
    assert not any(eid in theirs["entities"] for eid in drawn)
    assert sorted(theirs["zones"]["search_area@player2"]["backs"]) == ["green", "red", "yellow"]


def test_the_items_not_kept_go_back_unseen(rules):
    game = searching(rules)
    kept, *returned = game.state.zones["search_area@player2"]
    choose(game, kept)
    theirs = game.view(0)
    assert not any(eid in theirs["entities"] for eid in returned)
    assert kept in game.state.zones["backpack@player2"] + game.state.zones["held@player2"]
