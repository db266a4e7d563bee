"""The printed board, side A (rulesets/base/board.yaml, public-facts-2.md §2), its tracks and rooms:
the data checked against the fan sources' tables, and base alone playing a whole game on it."""

from __future__ import annotations

import random

import pytest

from nemesis_rules import Game, load_ruleset
from nemesis_rules.dsl.diagnostics import RulesError
from tests.positions import choose, inside, props

# public-facts-2.md §2.2, "per-room view": the room (printed number) each corridor number leads
# to, "TC" for the technical corridors. Written out again here, from the table, not from board.yaml.
PER_ROOM = {
    1: (3, 3, 2, 4), 2: ("TC", "TC", 1, 6), 3: (1, 1, 7, 7), 4: (8, "TC", "TC", 1),
    5: (10, 10, 6, "TC"), 6: (7, 11, 5, 2), 7: (6, 8, 3, 3), 8: (4, 7, 11, 9), 9: (12, 12, "TC", 8),
    10: (5, 5, 13, 13), 11: (15, 6, 8, 14), 12: (9, 9, 16, 16), 13: (14, 19, 10, 10),
    14: (13, 17, "TC", 11), 15: (11, 16, 18, "TC"), 16: (21, 15, 12, 12), 17: (19, 14, 20, 20),
    18: (20, 20, 15, 21), 19: (17, 13, "TC", "TC"), 20: (18, 18, 17, 17), 21: (16, "TC", "TC", 18),
}


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("base")


def slots_by_number(rules):
    """printed number -> main-side slot id."""
    out = {}
    for cid, c in rules.composition.components.items():
        if c.spec.kind == "room_slot" and c.spec.props.get("side") == "main":
            out[c.spec.props["number"]] = cid
    return out


def test_21_numbered_slots_of_the_right_classes(rules):
    slots = slots_by_number(rules)
    assert sorted(slots) == list(range(1, 22))
    cls = {n: rules.composition.components[s].spec.props["slot_class"] for n, s in slots.items()}
    assert sorted(n for n, c in cls.items() if c == "room_1") == [2, 3, 4, 5, 9, 10, 12, 13, 16, 17, 18]
    assert sorted(n for n, c in cls.items() if c == "room_2") == [6, 7, 8, 14, 15]
    printed = {n: rules.composition.components[s].spec.props.get("printed_room") for n, s in slots.items()
               if cls[n] == "special"}
    # engines: 19 = Engine 3, 21 = Engine 1 (NL and RT against CT; board.yaml)
    assert printed == {1: "cockpit", 11: "hibernatorium", 19: "engine_room_3", 20: "engine_room_2",
                       21: "engine_room_1"}


def test_every_corridor_number_leads_where_the_table_says(rules):
    slots = slots_by_number(rules)
    number_of = {s: n for n, s in slots.items()}
    graph = rules.program.graph
    corridors = entrances = 0
    for cid, (a, _) in graph.ends.items():
        kind = rules.composition.components[cid].spec.kind
        if a in number_of:
            corridors += kind == "corridor"
            entrances += kind == "tech_entrance"
    assert (corridors, entrances) == (28, 8)
    for n, row in PER_ROOM.items():
        for number, target in zip((1, 2, 3, 4), row, strict=True):
            link = graph.by_label.get((slots[n], number))
            assert link is not None, f"room {n} has no corridor {number}"
            a, z = graph.ends[link]
            other = z if a == slots[n] else a
            assert (number_of.get(other, "TC")) == target, (n, number, link)


def test_a_two_number_corridor_is_one_link_listing_both_numbers(rules):
    graph = rules.program.graph
    assert graph.by_label[("main_cockpit", 1)] == graph.by_label[("main_cockpit", 2)] == "main_corridor_01_03"
    assert graph.label_sets[("main_corridor_01_03", "main_cockpit")] == (1, 2)     # labels_at
    assert graph.labels[("main_corridor_01_03", "main_cockpit")] == 1               # label_at: the lowest


def test_tracks_rooms_coordinates_and_tokens(rules):
    game = Game.new(rules, players=2, seed=3)
    assert props(game, "time_track")["spaces"] == 16 and props(game, "time_track")["first_blue"] == 7
    assert props(game, "self_destruct_track")["spaces"] == 7
    assert props(game, "self_destruct_track")["first_yellow"] == 4
    colours = {r: props(game, r)["colour"] for r in ("armory", "command_center", "hatch_control_system",
                                                      "nest", "room_covered_with_slime", "cabins")}
    assert colours == {"armory": "red", "command_center": "red", "hatch_control_system": "white",
                       "nest": None, "room_covered_with_slime": None, "cabins": "white"}
    computers = [r for r in ("cockpit", "comms_room", "fire_control_system", "generator", "laboratory",
                             "command_center", "engine_control_room", "monitoring_room", "surgery",
                             "airlock_control", "hatch_control_system") if props(game, r)["computer"]]
    assert len(computers) == 8 and "surgery" not in computers
    # Earth sits at each of A-D on exactly 2 of the 8 coordinates cards (public-facts-2.md §11)
    cards = [props(game, f"coordinates_{k}") for k in range(1, 9)]
    for space in "abcd":
        assert sum(c[f"destination_{space}"] == "earth" for c in cards) == 2


def test_setup_on_the_printed_board_deals_16_tiles_and_tokens(rules):
    game = Game.new(rules, players=4, seed=5)
    choose(game, game.decision.options[0].value)
    for n, s in slots_by_number(rules).items():
        if n not in (1, 11, 19, 20, 21):
            assert len(inside(game, f"room_tile@{s}")) == 1
            assert len(inside(game, f"room_exploration@{s}")) == 1
    assert len(inside(game, "coordinates_space")) == 1


@pytest.mark.parametrize("players", [1, 4])
def test_base_alone_plays_a_whole_random_game(rules, players):
    game = Game.new(rules, players=players, seed=players)
    rnd = random.Random(players)
    for _ in range(5000):
        if game.over:
            break
        game.apply(rnd.randrange(len(game.decision.options)))
    assert game.over


def test_the_alternative_side_is_refused_naming_what_is_missing(rules):
    with pytest.raises(RulesError, match=r"alternative board side.*corridors"):
        Game.new(rules, players=2, seed=1, board="alternative")
