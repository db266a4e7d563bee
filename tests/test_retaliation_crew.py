"""Nemesis: Retaliation, the crew slice (rules/crew.nem, round.nem, actions.nem, setup.nem): whole
games of the merged module played by random choices end by a rule of rt §12.2 (the end of Round 14,
nobody left in the Facility, or the Facility destroyed), never by an error, and every dead player's
cause is recorded for `nemesis simulate`."""

import random

import pytest

from nemesis_rules import Game, load_ruleset


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("retaliation")


def play_out(rules, players: int, seed: int) -> Game:
    game = Game.new(rules, players=players, seed=seed)
    rnd = random.Random(seed)
    for _ in range(5000):
        if game.over:
            break
        game.apply(rnd.randrange(len(game.decision)))
    return game


@pytest.mark.parametrize("players,seed", [(1, 0), (2, 1), (3, 2), (5, 3)])
def test_random_games_end_by_a_rule(rules, players, seed):
    game = play_out(rules, players, seed)
    assert game.over
    assert game.result["reason"] in ("round_limit", "everyone_gone", "facility_destroyed")
    st = game.state
    for p in (f"player{i + 1}" for i in range(players)):
        props = st.entities[p][2]
        assert props.get("character") is not None
        if props.get("status") == "dead":
            assert props.get("death_cause") in ("killed_health", "killed_suffocation", "killed_eclosion",
                                                "killed_round_limit", "killed_by_intruder", "facility_destroyed")
    assert 1 <= st.counters["round_track"] <= 14


def test_the_starting_player_holds_help_card_1(rules):
    for seed in range(4):
        game = Game.new(rules, players=4, seed=seed)
        while game.decision.prompt != "pick_action":
            game.apply(0)
        st = game.state
        first = st.counters["first_player"]
        assert st.entities[f"player{first + 1}"][2]["help_number"] == 1
        assert game.decision.player == first


def test_the_drafting_player_sees_the_two_offered_characters(rules):
    """rt §4.4 step 3: the drafting player draws 2 Draft cards and keeps 1, so they see both; the
    deck stays hidden to the others (on 8e4d96d nobody saw them: `nemesis play` offered "a
    face-down character" twice)."""
    game = Game.new(rules, players=3, seed=0)
    decision = game.decision
    offered = [o.value for o in decision.options]
    assert decision.prompt == "draft_character" and len(offered) == 2
    mine = game.view(decision.player)["zones"]["character_draft_deck"]
    assert sorted(mine.get("known", {})) == sorted(offered)
    other = game.view((decision.player + 1) % 3)["zones"]["character_draft_deck"]
    assert "known" not in other
