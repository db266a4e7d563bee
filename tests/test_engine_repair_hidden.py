"""Repairing or damaging an engine tells the table only whether the order of its two status
tokens changed (seed 000 L3113-3119; seed 001 L4397-4404): the other players' view shows neither
token, even the one they had looked at, and the log entry names only who and which engine."""

import json

import pytest

from nemesis_rules import Game, load_ruleset
from tests.positions import choose, inside, put


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("base")


def captain_in_engine_1(rules):
    """The Captain (seat 0) in Engine 1 with Repairs, working on top; the Scientist (seat 1) has
    looked at the top token."""
    game = Game.new(rules, players=2, seed=5)          # the draft offers the Captain, then the Scientist
    choose(game, "captain")
    choose(game, "scientist")
    for card in inside(game, "hand@player1"):
        put(game, card, "action_deck@player1")
    for card in ("scientist_repairs", "captain_rest"):
        put(game, card, "hand@player1")
    put(game, "captain", "room_contents@main_engine_1")
    put(game, "engine_1_damaged", "engine_tokens@engine_1")
    put(game, "engine_1_working", "engine_tokens@engine_1")
    game.state.known["engine_1_working"] = [1]
    return game


@pytest.mark.parametrize("how, message", [("working", "engine_order_kept"), ("damaged", "engine_order_changed")])
def test_the_table_learns_only_whether_the_order_changed(rules, how, message):
    game = captain_in_engine_1(rules)
    logged = len(game.log)
    choose(game, "play_card")                          # the card and its one payment are taken unasked
    choose(game, how)
    assert inside(game, "engine_tokens@engine_1")[0] == f"engine_1_{how}"
    other = game.view(1, log_from=logged)
    assert "engine_1_working" not in json.dumps(other) and "engine_1_damaged" not in json.dumps(other)
    assert [(e["msg"], e["args"]) for e in other["log"] if e["msg"].startswith("engine_")] == \
        [(message, {"who": "player1", "engine": "engine_1"})]
    assert set(game.view(0)["zones"]["engine_tokens@engine_1"]["known"]) == {"engine_1_working", "engine_1_damaged"}
