"""Base Nemesis flow rules (rulesets/base/rules/*.nem), played on a TEST board.

tests/fixtures/base_testboard is an invented layout (not the printed board: our sources do not
give the corridors); see its module.yaml. Positions are arranged by moving entities in the state,
chance is scripted with game.force(...), decisions are taken by option value.
"""

from pathlib import Path

import pytest

from nemesis_rules import Game, load_ruleset
from tests.positions import choose, inside, props, put, zone_of

FIXTURE = Path(__file__).parent / "fixtures" / "base_testboard"


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("base", FIXTURE)


def new_game(rules, seed=1):
    game = Game.new(rules, players=1, seed=seed)
    assert game.decision.prompt == "draft_character"
    choose(game, game.decision.options[0].value)
    assert game.decision.prompt == "pick_action"
    return game


def arrange_room(game, slot, room, token):
    """Put a face-down room tile and exploration token on a slot (swapping with what is there)."""
    for eid in inside(game, f"room_tile@{slot}"):
        put(game, eid, "game_box")
    put(game, room, f"room_tile@{slot}")
    game.state.entities[room][3] = False
    for eid in inside(game, f"room_exploration@{slot}"):
        put(game, eid, "game_box")
    put(game, token, f"room_exploration@{slot}")


def offer(game, action):
    """The pending action list was made before the position was arranged: list `action` too
    (perform() still checks nothing else, so the arranged position must allow it)."""
    if action not in game.state.pending["options"]:
        game.state.pending["options"] = list(game.state.pending["options"]) + [action]
        game._decision = None


def character(game):
    return props(game, "player1")["character"]


def pay(game):
    choose(game, game.decision.options[0].value)


def test_setup_fills_the_board_and_bag(rules):
    game = new_game(rules)
    st = game.state
    # 11 "1" tiles and 5 "2" tiles dealt face down, each with an exploration token (base.md L102-107)
    slots = [f"main_slot_1_{i:02d}" for i in range(1, 12)] + [f"main_slot_2_{i:02d}" for i in range(1, 6)]
    for s in slots:
        (tile,) = st.zones[f"room_tile@{s}"]
        assert st.entities[tile][3] is False
        assert len(st.zones[f"room_exploration@{s}"]) == 1
    # bag: 1 blank, 4 larvae, 1 creeper, 1 queen, 3 + 1 adults for one player (base.md L125)
    kinds = sorted(props(game, t)["intruder_type"] for t in st.zones["intruder_bag"])
    assert kinds == sorted(["blank"] + ["larva"] * 4 + ["creeper", "queen"] + ["adult"] * 4)
    assert len(st.zones["nest_eggs"]) == 5
    # 2 pods for 1 player, the lower in section A, locked (base.md L111-120)
    assert len(st.zones["pod_bay@main_pod_section_a"]) == 1
    assert len(st.zones["pod_bay@main_pod_section_b"]) == 1
    # the character stands in the Hibernatorium with 5 cards in hand
    assert zone_of(game, character(game)) == "room_contents@main_hibernatorium"
    assert len(st.zones["hand@player1"]) == 5


def test_movement_explores_then_noise_roll_places_a_marker(rules):
    game = new_game(rules)
    arrange_room(game, "main_slot_1_01", "storage", "test_exploration_fire#1")
    choose(game, "movement")
    choose(game, "main_slot_1_01")
    game.force(2)                                   # noise die: corridor 2
    pay(game)
    assert zone_of(game, character(game)) == "room_contents@main_slot_1_01"
    assert game.state.entities["storage"][3] is True            # explored
    assert props(game, "storage")["items"] == 1                  # item counter from the token
    assert zone_of(game, "test_exploration_fire#1") == "game_box"
    contents = inside(game, "room_contents@main_slot_1_01")
    assert any(e.startswith("fire_marker") for e in contents)    # the token's fire
    noise = inside(game, "corridor_contents@test_c_s101_s102")
    assert len(noise) == 1 and noise[0].startswith("noise_marker")
    assert inside(game, "corridor_contents@test_c_s101_s201") == []


def test_noise_on_a_marked_corridor_is_an_encounter_with_surprise_attack(rules):
    game = new_game(rules)
    arrange_room(game, "main_slot_1_01", "storage", "test_exploration_slime#1")
    put(game, "noise_marker#1", "corridor_contents@test_c_s101_s102")
    put(game, "noise_marker#2", "hub_contents@main_tech_hub")   # entrance 4 of this room
    for card in inside(game, "hand@player1")[:3]:               # 2 cards left, 1 after paying
        put(game, card, "action_discard@player1")
    adult = next(t for t in inside(game, "intruder_bag") if props(game, t)["intruder_type"] == "adult")
    put(game, "attack_scratch_3", "attack_deck")                # top of the attack deck
    choose(game, "movement")
    choose(game, "main_slot_1_01")
    game.force(2, adult)                                        # noise 2 (marked) -> encounter, draw an adult
    pay(game)
    room = inside(game, "room_contents@main_slot_1_01")
    adults = [e for e in room if e.startswith("adult_figure")]
    assert len(adults) == 1
    assert zone_of(game, adult) == "intruder_tokens_aside"
    # every noise marker around the room is discarded, the special space's included
    assert inside(game, "corridor_contents@test_c_s101_s102") == []
    assert inside(game, "hub_contents@main_tech_hub") == []
    # hand 1 < token 2: surprise attack with Scratch: 1 light wound and 1 contamination card
    assert props(game, "player1")["light_wounds"] == 1
    assert any(c.startswith("contamination") for c in inside(game, "action_discard@player1"))
    assert props(game, "player1")["slime"] is True             # the slime token
    assert game.state.counters["intruder_appeared"] == 1


def test_shot_injures_and_kills_on_blood_check(rules):
    game = new_game(rules)
    put(game, "test_rifle", "held@player1")
    for m in [e for e in inside(game, "marker_supply") if e.startswith("ammo_injury_marker")][:2]:
        put(game, m, "weapon_ammo@test_rifle")
    put(game, "adult_figure#1", "room_contents@main_hibernatorium")
    put(game, "attack_scratch_2", "attack_deck")                # blood 2 for the death check
    offer(game, "shoot")
    choose(game, "shoot")
    if game.decision.prompt != "pay_with":            # a one-option domain is not asked
        choose(game, "test_rifle")
    game.force("double_hit")                                    # 2 injuries when shooting
    pay(game)
    if game.decision.prompt == "shoot_target":         # one target: not asked
        choose(game, "adult_figure#1")
    assert zone_of(game, "adult_figure#1") == "intruder_figures"   # 2 injuries >= blood 2: dead
    assert len(inside(game, "weapon_ammo@test_rifle")) == 1
    assert any(e.startswith("carcass_token") for e in inside(game, "room_contents@main_hibernatorium"))


def test_shot_that_misses_the_type_deals_nothing(rules):
    game = new_game(rules)
    put(game, "test_rifle", "held@player1")
    m = next(e for e in inside(game, "marker_supply") if e.startswith("ammo_injury_marker"))
    put(game, m, "weapon_ammo@test_rifle")
    put(game, "breeder_figure#1", "room_contents@main_hibernatorium")
    offer(game, "shoot")
    choose(game, "shoot")
    if game.decision.prompt != "pay_with":            # a one-option domain is not asked
        choose(game, "test_rifle")
    game.force("adult_hit")                                     # hits larva, creeper, adult only
    pay(game)
    if game.decision.prompt == "shoot_target":         # one target: not asked
        choose(game, "breeder_figure#1")
    assert props(game, "breeder_figure#1").get("injuries", 0) == 0
    assert zone_of(game, "breeder_figure#1") == "room_contents@main_hibernatorium"
    assert inside(game, "weapon_ammo@test_rifle") == []


def pass_round(game):
    """Pass every turn until the next round starts (the Event Phase runs in between)."""
    start = game.state.counters["round"]
    while (game.decision is not None and game.state.counters["round"] == start
           and game.decision.prompt in ("pick_action", "discard_on_pass")):
        choose(game, None)


def test_event_card_moves_intruders_and_resolves_its_effect(rules):
    game = new_game(rules)
    # an adult in an empty room; Bulkhead... use Damage: movers creeper/adult through corridor 2
    put(game, "adult_figure#1", "room_contents@main_slot_1_01")
    put(game, "event_damage", "event_deck")
    # the destination must be explored: no malfunction in an unexplored room (base-ru.md L438)
    (tile,) = inside(game, "room_tile@main_slot_1_02")
    game.state.entities[tile][3] = True
    blank = "blank_token"
    game.force(blank)                                           # bag development draws the blank
    pass_round(game)
    # corridor 2 of main_slot_1_01 leads to main_slot_1_02
    assert zone_of(game, "adult_figure#1") == "room_contents@main_slot_1_02"
    # Damage: a malfunction in every room with an adult, breeder or queen
    assert any(e.startswith("malfunction_marker") for e in inside(game, "room_contents@main_slot_1_02"))
    assert zone_of(game, "event_damage") == "event_discard"
    assert game.state.counters["time"] == 1
    assert game.state.counters["round"] == 2 or game.decision.prompt == "pick_action"


def test_event_movement_into_a_technical_corridor_returns_the_token(rules):
    game = new_game(rules)
    put(game, "creeper_figure#1", "room_contents@main_slot_1_02")
    props(game, "creeper_figure#1")["injuries"] = 1
    put(game, "event_consuming_fire", "event_deck")             # movers creeper/breeder/queen, corridor 4
    def creepers_in_bag():
        return len([t for t in inside(game, "intruder_bag") if props(game, t)["intruder_type"] == "creeper"])
    before = creepers_in_bag()
    game.force("blank_token")
    pass_round(game)
    # number 4 of main_slot_1_02 is its technical-corridor entrance: the creeper vanishes,
    # its injuries are discarded and a creeper token goes into the bag (base.md L400-405)
    assert zone_of(game, "creeper_figure#1") == "intruder_figures"
    assert props(game, "creeper_figure#1")["injuries"] == 0
    assert creepers_in_bag() == before + 1


def test_random_games_run_to_an_end(rules):
    import random
    for seed in range(6):
        game = Game.new(rules, players=1 + seed % 3, seed=seed)
        rnd = random.Random(seed)
        steps = 0
        while not game.over and steps < 3000:
            d = game.decision
            game.apply(rnd.randrange(len(d.options)))
            steps += 1
        assert game.over, f"seed {seed}: no end after {steps} decisions"
        assert game.result["reason"] in ("jump", "ship_destroyed", "all_characters_dead")


def test_danger_pulls_intruders_from_adjacent_rooms(rules):
    game = new_game(rules)
    arrange_room(game, "main_slot_1_01", "storage", "test_exploration_danger#1")
    put(game, "adult_figure#1", "room_contents@main_slot_1_02")
    choose(game, "movement")
    choose(game, "main_slot_1_01")
    pay(game)
    # danger: the adult next door (not in combat) moves in; no noise roll
    assert zone_of(game, "adult_figure#1") == "room_contents@main_slot_1_01"
    assert inside(game, "corridor_contents@test_c_s101_s102") == []


def test_melee_miss_costs_a_serious_wound_and_contamination(rules):
    game = new_game(rules)
    put(game, "adult_figure#2", "room_contents@main_hibernatorium")
    offer(game, "melee")
    choose(game, "melee")
    game.force("miss")
    pay(game)
    if game.decision.prompt == "melee_target":
        choose(game, "adult_figure#2")
    assert props(game, "player1")["serious"] == 1
    assert any(c.startswith("contamination") for c in inside(game, "action_discard@player1"))
    assert zone_of(game, "adult_figure#2") == "room_contents@main_hibernatorium"


def test_ending_a_turn_in_a_burning_room_is_a_light_wound(rules):
    game = new_game(rules)
    fire = next(e for e in inside(game, "marker_supply") if e.startswith("fire_marker"))
    put(game, fire, "room_contents@main_hibernatorium")
    choose(game, None)                                          # pass: the turn ends in the fire
    if game.decision.prompt == "discard_on_pass":
        choose(game, None)
    assert props(game, "player1")["light_wounds"] == 1
