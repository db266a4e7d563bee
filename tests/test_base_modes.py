"""Base Nemesis game modes (rulesets/base/rules/modes.nem), played on the TEST board.

tests/fixtures/base_testboard is invented data (see its module.yaml): a few corridors on each board
side, intruder-player action cards and Solo/Co-op objective cards whose contents are unknown in our
sources. Positions are arranged by moving entities in the state, chance is scripted with
game.force(...), decisions are taken by option value.
"""

import random
from pathlib import Path

import pytest

from nemesis_rules import Game, load_ruleset
from nemesis_rules.dsl.diagnostics import RulesError
from tests.positions import choose, inside, props, put, zone_of

FIXTURE = Path(__file__).parent / "fixtures" / "base_testboard"


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("base", FIXTURE)


def character(game, p):
    return props(game, p)["character"]


def start(rules, players, seed=1, **options):
    game = Game.new(rules, players=players, seed=seed, **options)
    while game.decision.prompt == "draft_character":
        choose(game, game.decision.options[0].value)
    assert game.decision.prompt == "pick_action"
    return game


def pass_turn(game, player=None):
    choose(game, None, player)
    while game.decision is not None and game.decision.prompt == "discard_on_pass":
        choose(game, None)


def supply(game, component):
    return next(e for e in inside(game, "marker_supply") if game.state.entities[e][0] == component
                or e.startswith(component + "#") or e == component)


def doom(game, p, slot):
    """Put p's character alone in a burning room with 3 serious and 2 light wounds: it dies when
    its turn ends."""
    put(game, character(game, p), f"room_contents@{slot}")
    put(game, supply(game, "fire_marker"), f"room_contents@{slot}")
    props(game, p)["serious"] = 3
    props(game, p)["light_wounds"] = 2


def quiet_event_phase(game):
    """The next Event Phase draws a harmless event card and a blank token."""
    put(game, "event_damage", "event_deck")
    game.force("blank_token")


def make_room(game, slot, room):
    """Put a room tile face up and explored on a slot."""
    for eid in inside(game, f"room_tile@{slot}"):
        put(game, eid, "game_box")
    for eid in inside(game, f"room_exploration@{slot}"):
        put(game, eid, "game_box")
    put(game, room, f"room_tile@{slot}")
    game.state.entities[room][3] = True
    props(game, room)["explored"] = True


# ------------------------------------------------------------------ players per mode, the board side

@pytest.mark.parametrize("mode,players,message", [
    ("solo", 2, "solo mode is for exactly 1 player"),
    ("coop", 1, "full co-op mode is for 2 to 5 players"),
    ("intruder_player", 1, "intruder-player mode is for 2 to 5 players"),
])
def test_modes_refuse_a_wrong_player_count(rules, mode, players, message):
    with pytest.raises(RulesError, match=message):
        Game.new(rules, players=players, seed=1, mode=mode)


def test_alternative_side_without_its_data_names_every_missing_fact():
    with pytest.raises(RulesError) as err:
        Game.new(load_ruleset("base"), players=2, seed=1, board="alternative")
    text = str(err.value)
    assert "alternative board side cannot be set up" in text
    for fact in ['"2" room spaces', "where the escape pods go", "its corridors", "red and blue technical-corridor"]:
        assert fact in text


def test_alternative_side_setup_and_exploring_an_evacuation_section(rules):
    game = start(rules, 1, board="alternative")
    for slot, room in [("alt_evacuation_a", "evacuation_section_a"), ("alt_evacuation_b", "evacuation_section_b")]:
        assert inside(game, f"room_tile@{slot}") == [room]
        assert game.state.entities[room][3] is True             # face up (base.md L1074)
        assert props(game, room).get("explored", False) is False
        (token,) = inside(game, f"room_exploration@{slot}")
        assert game.state.entities[token][3] is False           # a face-down token on it
    assert zone_of(game, character(game, "player1")) == "room_contents@alt_hibernatorium"
    assert len(inside(game, "pod_bay@alt_pod_section_a")) == 1   # 1 player: 2 pods, A then B
    assert len(inside(game, "pod_bay@alt_pod_section_b")) == 1
    for s in range(1, 4):                                       # a "2" tile on each "2" space of the side
        assert len(inside(game, f"room_tile@alt_slot_2_0{s}")) == 1
    assert all(inside(game, f"room_tile@main_slot_1_{i:02d}") == [] for i in range(1, 12))
    token = inside(game, "room_exploration@alt_evacuation_a")[0]
    choose(game, "movement")
    choose(game, "alt_evacuation_a")
    game.force(2)                                               # noise roll after a silent token
    choose(game, game.decision.options[0].value)                # pay
    assert props(game, "evacuation_section_a")["explored"] is True
    assert zone_of(game, token) == "game_box"
    assert any(e["msg"] == "explores" for e in game.state.log)


def test_alternative_side_paired_corridors_are_independent(rules):
    game = start(rules, 1, board="alternative")
    make_room(game, "alt_evacuation_a", "evacuation_section_a")
    put(game, character(game, "player1"), "room_contents@alt_evacuation_a")
    door = next(e for e in inside(game, "marker_supply") if game.state.entities[e][0] == "door_marker")
    props(game, door)["state"] = "closed"
    put(game, door, "corridor_contents@test_alt_eva_s101_x")
    game.state.pending["options"] = ["movement"]
    game._decision = None
    choose(game, "movement")
    # the door closes one of the two corridors to alt_slot_1_01; the other still joins them
    assert [o.value for o in game.decision.options] == ["alt_hibernatorium", "alt_slot_1_01"]


def test_alternative_side_a_room_joined_twice_is_one_destination(rules):
    game = start(rules, 1, board="alternative")
    make_room(game, "alt_evacuation_a", "evacuation_section_a")
    put(game, character(game, "player1"), "room_contents@alt_evacuation_a")
    game.state.pending["options"] = ["movement"]
    game._decision = None
    choose(game, "movement")
    assert [o.value for o in game.decision.options] == ["alt_hibernatorium", "alt_slot_1_01"]


# ------------------------------------------------------------------ solo

def test_solo_deals_two_solo_coop_objectives_and_halves_item_counters(rules):
    game = start(rules, 1, mode="solo")
    objs = inside(game, "objectives@player1")
    assert len(objs) == 2 and all(props(game, o)["deck"] == "solo_coop" for o in objs)
    assert inside(game, "objective_deck_corporate") == [] and inside(game, "objective_deck_personal") == []
    assert inside(game, "intruder_action_deck") == []           # the intruder cards stay in the box
    assert len(inside(game, "pod_bay@main_pod_section_a")) + len(inside(game, "pod_bay@main_pod_section_b")) == 2
    # an exploration token showing 3 items sets the counter to 2 (base-ru.md L899-904)
    for eid in inside(game, "room_tile@main_slot_1_01"):
        put(game, eid, "game_box")
    put(game, "storage", "room_tile@main_slot_1_01")
    game.state.entities["storage"][3] = False
    for eid in inside(game, "room_exploration@main_slot_1_01"):
        put(game, eid, "game_box")
    put(game, "test_exploration_slime#1", "room_exploration@main_slot_1_01")
    choose(game, "movement")
    choose(game, "main_slot_1_01")
    game.force(2)
    choose(game, game.decision.options[0].value)
    assert props(game, "storage")["items"] == 2


def test_solo_keeps_one_objective_at_the_first_encounter(rules):
    game = start(rules, 1, mode="solo")
    objs = inside(game, "objectives@player1")
    put(game, "noise_marker#1", "corridor_contents@test_c_hib_s101")
    larva = next(t for t in inside(game, "intruder_bag") if props(game, t)["intruder_type"] == "larva")
    game.state.pending["options"] = ["movement"]
    game._decision = None
    choose(game, "movement")
    choose(game, "main_slot_1_01")
    game.force(1, larva)                                        # noise on the marked corridor 1: encounter
    choose(game, game.decision.options[0].value)
    assert game.decision.prompt == "keep_objective" and game.decision.player == 0
    choose(game, objs[1])
    assert inside(game, "objectives@player1") == [objs[1]]
    assert zone_of(game, objs[0]) == "game_box"


# ------------------------------------------------------------------ co-op

def test_coop_deals_one_public_objective_each(rules):
    game = start(rules, 3, mode="coop")
    for p in ("player1", "player2", "player3"):
        (card,) = inside(game, f"objectives@{p}")
        assert game.state.entities[card][3] is True             # public
        assert any(e["msg"] == "coop_objective" and e["args"]["who"] == p and e["args"]["card"] == card
                   and e["to"] is None for e in game.state.log)
    seen = game.view(1)["zones"]["objectives@player1"]
    assert seen["size"] == 1


def coop_end(rules, objectives, signals):
    """Co-op, 2 players: player1 has escaped in a pod, player2 is aboard; the time marker jumps."""
    game = start(rules, 2, mode="coop")
    for p, card in zip(("player1", "player2"), objectives, strict=True):
        for eid in inside(game, f"objectives@{p}"):
            put(game, eid, "game_box")
        put(game, card, f"objectives@{p}")
    for p, s in zip(("player1", "player2"), signals, strict=True):
        props(game, p)["signal"] = s
    props(game, "player1")["status"] = "launched"
    put(game, character(game, "player1"), "game_box")
    game.state.counters["time"] = 14                            # the 15th time move is the jump (tokens.yaml)
    for n in (1, 2, 3):                                         # working engines: the ship does not explode
        put(game, f"engine_{n}_working", f"engine_tokens@engine_{n}")
    quiet_event_phase(game)
    pass_turn(game, 0)                                          # player1 was asked before leaving
    pass_turn(game, 1)
    assert game.over
    return game.result


def test_coop_wins_together_when_every_objective_is_met_and_someone_survives(rules):
    result = coop_end(rules, ["test_objective_signal#1", "test_objective_signal#2"], [True, True])
    assert result == {"reason": "jump", "winners": (0, 1)}      # the dead player2 wins too


def test_coop_two_signal_objectives_need_each_owner_to_signal(rules):
    result = coop_end(rules, ["test_objective_signal#1", "test_objective_signal#2"], [True, False])
    assert result == {"reason": "jump", "winners": ()}


def test_coop_one_signal_objective_is_met_by_anyone_s_signal(rules):
    result = coop_end(rules, ["test_objective_signal#1", "test_objective_plain#1"], [False, True])
    assert result == {"reason": "jump", "winners": (0, 1)}


# ------------------------------------------------------------------ reanimation (co-op)

def kill_player2_in_round_1(game):
    """player2 dies of fire at the end of its first turn, in main_slot_1_01."""
    doom(game, "player2", "main_slot_1_01")
    quiet_event_phase(game)
    pass_turn(game, 0)
    pass_turn(game, 1)
    assert props(game, "player2")["status"] == "killed"


def test_reanimation_keeps_items_links_the_corpse_and_revives_at_round_start(rules):
    game = start(rules, 2, mode="coop")
    ch2 = character(game, "player2")
    put(game, "test_rifle", "held@player2")                     # a starting weapon (heavy item card)
    put(game, "carcass_token#1", "held@player2")                # a heavy object
    make_room(game, "main_cockpit", "cockpit")                  # (already explored: a special room)
    make_room(game, "main_slot_1_02", "emergency_room")
    put(game, character(game, "player1"), "room_contents@main_slot_1_02")
    kill_player2_in_round_1(game)
    corpse = props(game, "player2")["corpse"]
    assert corpse is not None and corpse.startswith("corpse_token_red")
    assert zone_of(game, corpse) == "room_contents@main_slot_1_01"
    assert zone_of(game, "test_rifle") == "held@player2"        # items stay, the starting weapon too
    assert zone_of(game, "carcass_token#1") == "room_contents@main_slot_1_01"
    assert zone_of(game, ch2) == "game_box"
    # round 2: player1 carries the corpse into the Emergency Room (the test puts it in a hand)
    assert game.state.counters["round"] == 2
    put(game, corpse, "held@player1")
    quiet_event_phase(game)
    pass_turn(game, 0)
    # round 3 starts: the AutoDoc brings player2 back in the Emergency Room
    assert game.state.counters["round"] == 3
    assert props(game, "player2")["status"] == "on_board"
    assert zone_of(game, ch2) == "room_contents@main_slot_1_02"
    assert props(game, "player2")["light_wounds"] == 0
    assert props(game, "player2")["serious"] == 3               # dressed, not healed
    assert zone_of(game, corpse) == "marker_supply" and props(game, "player2")["corpse"] is None
    assert len(inside(game, "hand@player2")) == 5
    assert any(e["msg"] == "reanimated" and e["args"]["who"] == "player2" for e in game.state.log)


def test_reanimation_needs_a_working_emergency_room(rules):
    game = start(rules, 2, mode="coop")
    make_room(game, "main_slot_1_02", "emergency_room")
    put(game, character(game, "player1"), "room_contents@main_slot_1_02")
    kill_player2_in_round_1(game)
    corpse = props(game, "player2")["corpse"]
    put(game, corpse, "room_contents@main_slot_1_02")
    put(game, supply(game, "malfunction_marker"), "room_contents@main_slot_1_02")
    quiet_event_phase(game)
    pass_turn(game, 0)
    assert game.state.counters["round"] == 3
    assert props(game, "player2")["status"] == "killed"


def test_standard_mode_has_no_reanimation(rules):
    game = start(rules, 2)
    put(game, "test_rifle", "held@player2")
    kill_player2_in_round_1(game)
    assert props(game, "player2").get("corpse") is None
    assert zone_of(game, "test_rifle") == "game_box"             # items leave the game (combat.nem)


# ------------------------------------------------------------------ the intruder player

def test_first_dead_player_takes_over_the_intruders(rules):
    game = start(rules, 3, mode="intruder_player")
    doom(game, "player2", "main_slot_1_01")
    quiet_event_phase(game)
    pass_turn(game, 0)
    pass_turn(game, 1)                                          # player2 dies
    assert game.state.counters["intruder_seat"] == -1           # the round ends normally
    pass_turn(game, 2)
    # round 2: player2 is the intruder player; never the first player
    assert game.state.counters["intruder_seat"] == 1
    assert game.state.counters["first_seat"] == 2
    assert len(inside(game, "hand@player2")) == 3
    assert all(game.state.entities[c][0] == "intruder_action_card" for c in inside(game, "hand@player2"))
    for z in ("action_deck", "action_discard", "objectives"):
        assert inside(game, f"{z}@player2") == []
    assert any(e["msg"] == "intruder_player" and e["args"]["who"] == "player2" for e in game.state.log)
    assert game.view(0)["zones"]["hand@player2"] == {"size": 3}   # the cards are hidden from the others
    assert len(game.view(1)["zones"]["hand@player2"]["entities"]) == 3
    # arrange: an adult with player1 and player3; a card drawing 2 attack cards; the attack deck's top
    hib = "room_contents@main_hibernatorium"
    put(game, "adult_figure#1", hib)
    put(game, "intruder_pursuit_1", "hand@player2")              # movement 1, draws 2 attack cards
    put(game, "attack_slime_5", "attack_deck")
    put(game, "attack_scratch_3", "attack_deck")
    bag = sorted(inside(game, "intruder_bag"))
    events = len(inside(game, "event_deck"))
    time = game.state.counters["time"]
    pass_turn(game, 2)
    pass_turn(game, 0)
    choose(game, "intruder_pursuit_1", player=1)            # the dead player decides
    choose(game, "intruder_attacks", player=1)
    choose(game, "player3", player=1)                           # any character, others present
    assert game.decision.prompt == "intruder_attack_card"
    assert sorted(o.value for o in game.decision.options) == ["attack_scratch_3", "attack_slime_5"]
    choose(game, "attack_slime_5", player=1)
    assert props(game, "player3").get("slime") is True
    assert any(c.startswith("contamination") for c in inside(game, "action_discard@player3"))
    assert props(game, "player1").get("slime", False) is False
    assert inside(game, "attack_deck")[-1] == "attack_scratch_3"      # the other under the deck
    assert game.state.entities["attack_scratch_3"][3] is False
    assert zone_of(game, "intruder_pursuit_1") == "intruder_action_discard"
    # 1 card a turn: player2 is asked again; passing keeps at most 1 card
    assert game.decision.player == 1 and game.decision.prompt == "intruder_play_card"
    kept, *dropped = inside(game, "hand@player2")
    assert len(dropped) >= 1
    choose(game, None, player=1)
    choose(game, kept, player=1)
    assert all(zone_of(game, c) == "intruder_action_discard" for c in dropped)
    # Event Phase: the time track only (and fire damage): no event card, no bag development
    assert game.state.counters["time"] == time + 1
    assert len(inside(game, "event_deck")) == events
    assert sorted(inside(game, "intruder_bag")) == bag
    # round 3: the kept card and 3 drawn (hand limit 4)
    assert game.state.counters["round"] == 3
    assert kept in inside(game, "hand@player2") and len(inside(game, "hand@player2")) == 4


def test_intruder_player_moves_any_intruder_through_the_card_s_corridor(rules):
    game = start(rules, 2, mode="intruder_player")
    doom(game, "player2", "main_slot_1_02")
    quiet_event_phase(game)
    pass_turn(game, 0)
    pass_turn(game, 1)
    assert game.state.counters["intruder_seat"] == 1
    assert game.state.counters["first_seat"] == 0               # 2 players: the token stays with player1
    put(game, "adult_figure#1", "room_contents@main_slot_1_01")
    put(game, "intruder_coordinated_hunt_3", "hand@player2")    # corridor 3
    pass_turn(game, 0)
    choose(game, "intruder_coordinated_hunt_3", player=1)
    # no intruder shares a room with a character: move or effect, no attack
    assert sorted(o.value for o in game.decision.options) == ["card_effect", "move_intruder"]
    choose(game, "move_intruder", player=1)
    # the only intruder that has a corridor 3 is taken without asking
    assert any(e["msg"] == "intruder_card" and e["args"]["how"] == "move_intruder" for e in game.state.log)
    # corridor 3 of main_slot_1_01 leads to main_slot_2_01
    assert zone_of(game, "adult_figure#1") == "room_contents@main_slot_2_01"


def test_simultaneous_deaths_give_the_intruders_to_the_lower_seat(rules):
    game = start(rules, 3, mode="intruder_player")
    # player2 and player3 (3 serious wounds each) share a room with two adults; both die in one
    # moment, the Event Phase's Intruder Attack step (player3 first: fewer cards in hand)
    for p in ("player2", "player3"):
        put(game, character(game, p), "room_contents@main_slot_1_01")
        props(game, p)["serious"] = 3
    put(game, "adult_figure#1", "room_contents@main_slot_1_01")
    put(game, "adult_figure#2", "room_contents@main_slot_1_01")
    put(game, inside(game, "hand@player3")[0], "action_discard@player3")
    put(game, "attack_scratch_3", "attack_deck")
    put(game, "attack_scratch_2", "attack_deck")
    put(game, "event_damage", "event_deck")
    game.force("blank_token")
    for _ in range(3):
        pass_turn(game)
    assert props(game, "player2")["status"] == "killed"
    assert props(game, "player3")["status"] == "killed"
    assert game.state.counters["intruder_seat"] == 1             # seat 1 (player2) < seat 2


# ------------------------------------------------------------------ random games per mode

@pytest.mark.parametrize("board", ["main", "alternative"])
@pytest.mark.parametrize("mode,counts", [
    ("standard", [1, 2, 3, 4, 5]),
    ("solo", [1]),
    ("coop", [2, 3, 4, 5]),
    ("intruder_player", [2, 3, 4, 5]),
])
def test_random_games_reach_a_result(rules, board, mode, counts):
    for n in counts:
        for seed in range(2):
            game = Game.new(rules, players=n, seed=seed, mode=mode, board=board)
            rnd = random.Random(seed)
            steps = 0
            while not game.over and steps < 5000:
                game.apply(rnd.randrange(len(game.decision.options)))
                steps += 1
                if steps == 60:                                 # save and load mid-game
                    again = Game.from_json(rules, game.to_json())
                    assert again.to_json() == game.to_json()
                    game = again
            assert game.over, f"{mode} {n}p seed {seed}: no end after {steps} decisions"
            assert game.result["reason"] in ("jump", "ship_destroyed", "all_characters_dead")
            if mode == "intruder_player":
                ip = game.state.counters["intruder_seat"]
                assert ip not in game.result["winners"]
