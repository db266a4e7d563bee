"""Objectives decide the result, and the victory check's other steps (rules/endgame.nem,
rules/objectives.nem, cards_objectives.yaml), on the printed board. Positions are arranged by
moving entities in the state; the game then ends by the time track's jump."""

from __future__ import annotations

import pytest

from nemesis_rules import Game, load_ruleset
from tests.positions import choose, inside, props, put


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("base")


def start(rules, players, seed=1, **options):
    game = Game.new(rules, players=players, seed=seed, **options)
    while game.decision.prompt == "draft_character":
        choose(game, game.decision.options[0].value)
    return game


def deal(game, player, card):
    for eid in inside(game, f"objectives@{player}"):
        put(game, eid, "game_box")
    put(game, card, f"objectives@{player}")


def place(game, player, status):
    """asleep: in the Hibernatorium; launched: gone in a pod; killed: dead; on_board: stays."""
    ch = props(game, player)["character"]
    props(game, player)["status"] = status
    if status in ("asleep", "launched", "killed"):
        props(game, player)["passed"] = True
        put(game, ch, "hibernated" if status == "asleep" else "game_box")


def set_ship(game, damaged=0, card="coordinates_1", space=0):
    """Engines 1..damaged show damaged, the rest working; `card` lies in the coordinates space and
    the destination marker is on `space` (0 = A). coordinates_1 reads Earth / Mars / Venus / Deep Space."""
    for n in (1, 2, 3):
        put(game, f"engine_{n}_{'damaged' if n <= damaged else 'working'}", f"engine_tokens@engine_{n}")
    for eid in inside(game, "coordinates_space"):
        put(game, eid, "game_box")
    put(game, card, "coordinates_space")
    game.state.counters["destination"] = space


def jump(game):
    """The time marker moves to the last space at the next Event Phase; everyone aboard passes."""
    game.state.counters["time"] = 14
    put(game, "event_damage", "event_deck")
    game.force("blank_token")
    for _ in range(50):
        if game.over:
            return game.result
        d = game.decision
        choose(game, None if d.prompt in ("pick_action", "discard_on_pass") else d.options[0].value, d.player)
    raise AssertionError("the game did not end")


def test_earth_objective_wins_and_a_sleeping_quarantine_holder_lives(rules):
    """Earth kills no sleeper, a Quarantine holder's neither (seed 000 L941-945; DECISIONS.md F14);
    the Nest is intact, so Quarantine is not met."""
    game = start(rules, 3)
    deal(game, "player1", "objective_salvaging_the_prime_asset")
    deal(game, "player2", "objective_quarantine")
    place(game, "player1", "asleep")
    place(game, "player2", "asleep")
    set_ship(game, space=0)                                         # A: Earth
    assert jump(game) == {"reason": "jump", "winners": (0,)}
    assert props(game, "player2")["status"] == "asleep"
    assert props(game, "destination_track")["reached"] == "earth"


def test_quarantine_wins_when_the_ship_reaches_mars(rules):
    game = start(rules, 3)
    deal(game, "player1", "objective_salvaging_the_prime_asset")
    deal(game, "player2", "objective_quarantine")
    place(game, "player1", "asleep")
    place(game, "player2", "asleep")
    set_ship(game, space=1)                                         # B: Mars
    assert jump(game)["winners"] == (1,)
    assert props(game, "player1")["death_cause"] == "killed_off_course"


@pytest.mark.parametrize("player1_status,won", [("launched", False), ("killed", True)])
def test_player_1_must_not_survive(rules, player1_status, won):
    game = start(rules, 3)
    deal(game, "player1", "objective_salvaging_the_prime_asset")
    deal(game, "player2", "objective_the_right_moment_to_strike")   # player 1 must not survive
    place(game, "player1", player1_status)
    place(game, "player2", "launched")
    set_ship(game, card="coordinates_3", space=0)                   # A: Deep Space
    assert jump(game)["winners"] == ((1,) if won else ())


def test_engine_explosion_destroys_the_ship_and_skips_the_coordinates(rules):
    game = start(rules, 3)
    deal(game, "player1", "objective_salvaging_the_prime_asset")
    deal(game, "player2", "objective_the_great_hunt")               # Signal + ship destroyed
    props(game, "player2")["signal"] = True
    place(game, "player1", "asleep")
    place(game, "player2", "launched")
    put(game, "adult_figure#1", "room_contents@main_slot_1_05")
    set_ship(game, damaged=2)
    assert jump(game) == {"reason": "ship_destroyed", "winners": (1,)}
    assert props(game, "player1")["death_cause"] == "killed_by_engines"
    assert game.state.entities["coordinates_1"][3] is False         # never revealed
    assert props(game, "destination_track").get("reached") is None
    assert inside(game, "room_contents@main_slot_1_05") == []       # the intruders died with the ship


def test_the_end_scan_reveals_contamination_cards(rules):
    game = start(rules, 3)
    deal(game, "player1", "objective_hoarder")                      # 7 items: not met
    place(game, "player1", "launched")
    card = inside(game, "contamination_deck")[0]
    put(game, card, "action_discard@player1")
    game.state.entities[card][3] = False
    set_ship(game)
    assert jump(game)["winners"] == ()
    assert game.state.entities[card][3] is True


def test_a_player_still_holding_two_objectives_needs_either(rules):
    game = start(rules, 2)
    deal(game, "player1", "objective_ab_ovo")
    put(game, "objective_salvaging_the_prime_asset", "objectives@player1")
    place(game, "player1", "asleep")
    set_ship(game, space=0)
    assert jump(game)["winners"] == (0,)


def test_coop_real_cards_all_met_together(rules):
    game = start(rules, 2, mode="coop")
    deal(game, "player1", "objective_destination_earth")
    deal(game, "player2", "objective_first_contact_protocol")       # 2 weaknesses discovered
    place(game, "player1", "asleep")
    place(game, "player2", "killed")
    set_ship(game, space=0)
    props(game, "weakness_space_1")["discovered"] = True
    assert jump(game)["winners"] == ()                              # only 1 weakness
    game = start(rules, 2, mode="coop")
    deal(game, "player1", "objective_destination_earth")
    deal(game, "player2", "objective_first_contact_protocol")
    place(game, "player1", "asleep")
    place(game, "player2", "killed")
    set_ship(game, space=0)
    props(game, "weakness_space_1")["discovered"] = True
    props(game, "weakness_space_3")["discovered"] = True
    assert jump(game)["winners"] == (0, 1)                          # the dead player wins too


def test_objective_decks_hold_9_9_7_and_setup_removes_cards_above_the_count(rules):
    comps = rules.composition.components
    decks = [c.spec.props.get("deck") for c in comps.values() if c.spec.kind == "objective_card"]
    assert (decks.count("corporate"), decks.count("personal"), decks.count("solo_coop")) == (9, 9, 7)
    game = start(rules, 3)
    dealt = [o for p in ("player1", "player2", "player3") for o in inside(game, f"objectives@{p}")]
    assert len(dealt) == 6
    assert all((props(game, o)["min_players"] or 0) <= 3 for o in dealt)
    assert all(props(game, o)["min_players"] <= 3 for o in inside(game, "objective_deck_corporate"))


def test_setup_places_3_weaknesses_face_down_and_boxes_the_rest(rules):
    game = start(rules, 2)
    placed = [w for n in (1, 2, 3) for w in inside(game, f"weakness_slot@weakness_space_{n}")]
    assert len(placed) == 3 and all(game.state.entities[w][3] is False for w in placed)
    assert inside(game, "weakness_deck") == []
    assert sum(e.startswith("weakness_") for e in inside(game, "game_box")) == 5
