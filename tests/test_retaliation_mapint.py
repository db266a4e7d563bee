"""Nemesis: Retaliation, the map and Intruders slice (rulesets/retaliation: tokens.yaml, rules/map.nem,
movement.nem, explore.nem, intruders.nem): the component counts of pf4 §2.1 and rt §2, the Intruder
Help Sheet's rows, the Exploration cards' Entrance scripts, the Intruder set-up for the player count
(rt §4.2 step 3) and the Corridors laid at the start. The rules in play are shown by the
scenarios under tests/scenarios/retaliation/mapint/.
"""

from __future__ import annotations

from collections import Counter

import pytest

from nemesis_rules import Game, load_ruleset
from nemesis_rules.engine import vm
from tests.component_helpers import specs_of


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("retaliation")


def specs(rules, kind):
    return list(specs_of(rules.composition, kind).values())


def scripts(rules, cid):
    return {name: s.text for name, s in rules.composition.components[cid].scripts.items()}


def copies(rules, kind):
    return Counter({s.id: s.count or 1 for s in specs(rules, kind)})


def set_up(rules, players):
    """The state at the game's first decision, the Character draft: the map, the Intruders and
    the decks are set up by then (rules/setup.nem)."""
    game = Game.new(rules, players=players, seed=1)
    assert game.decision.prompt == "draft_character"
    return game.state


def test_intruder_figures_tokens_and_markers_have_the_rulebook_counts(rules):
    figures = Counter()
    for s in specs(rules, "intruder"):
        figures[s.props["type"]] += s.count or 1
    assert figures == {"adult": 36, "drone": 8, "larva": 6, "queen": 1}
    tokens = Counter()
    for s in specs(rules, "intruder_token"):
        tokens[s.props["token_type"]] += s.count or 1
    assert tokens == {"blank": 1, "queen": 9, "drone": 8, "adult": 16, "larva": 6}
    assert sum(tokens.values()) == 40
    markers = {k: sum(copies(rules, k).values()) for k in (
        "noise_marker", "fire_marker", "malfunction_marker", "secure_token", "door_token", "universal_marker")}
    assert markers == {"noise_marker": 30, "fire_marker": 9, "malfunction_marker": 14, "secure_token": 20,
                       "door_token": 14, "universal_marker": 30}


def test_drone_tokens_carry_a_drone_and_adult_tokens_only_adults(rules):
    for s in specs(rules, "intruder_token"):
        if s.props["token_type"] == "drone":
            assert s.props["drones"] == 1 and s.props["count"] in (1, 2, 3)
        elif s.props["token_type"] == "adult":
            assert s.props.get("drones", 0) == 0 and s.props["count"] in (2, 3, 4)


def test_the_help_sheet_has_one_row_per_token_type_on_each_side(rules):
    rows = specs(rules, "help_sheet_row")
    for side in ("queen_alive", "queen_is_dead"):
        covered = Counter(t for r in rows if r.props["side"] == side for t in r.props["tokens"])
        assert covered == {"queen": 1, "drone": 1, "adult": 1, "larva": 1, "blank": 1}
    for r in rows:
        assert {"corridor", "room", "development"} <= set(scripts(rules, r.id)), r.id


def test_every_exploration_card_has_its_entrance_script(rules):
    cards = specs(rules, "exploration_card")
    assert len(cards) == 12
    for c in cards:
        script = scripts(rules, c.id)["entrance"]
        p = c.props
        assert ("close_doors_around" in script) == bool(p.get("closes_doors")), c.id
        assert ("hazard(" in script) == bool(p.get("hazard")), c.id
        assert ("noise_roll(" in script) == bool(p.get("noise_roll")), c.id
        assert (f"place_intruders(adult, {p.get('adults')}," in script) == bool(p.get("adults")), c.id


@pytest.mark.parametrize("players", [1, 4])
def test_the_bag_holds_a_blank_two_larvae_and_three_adults_plus_one_per_character(rules, players):
    st = set_up(rules, players)
    bag = Counter(st.entities[t][2]["token_type"] for t in st.zones["intruder_bag"])
    assert bag == {"blank": 1, "larva": 2, "adult": 3 + players}
    assert len(st.zones["token_piles"]) == 40 - len(st.zones["intruder_bag"])
    assert len(st.zones["intruder_pool"]) == 51
    assert len(st.zones["exploration_deck"]) == 12


def test_the_setup_shuffles_the_token_piles(rules):
    drawn = set()
    for seed in range(5):
        game = Game.new(rules, players=2, seed=seed)
        drawn.add(tuple(sorted(game.state.zones["intruder_bag"])))
    assert len(drawn) > 1


def test_corridors_by_orientation_in_reading_order(rules):
    """The Event cards' movement icons (rt §7.4; RT50): after setup the Landing Zone's 3 Corridors
    and the Hibernatorium's 4 printed ones are laid."""
    rt = vm.Runtime(rules.program, set_up(rules, 1))
    oriented = {o: list(vm.call_function(rt, "corridors_oriented", [o])) for o in ("east_west", "ne_sw", "nw_se")}
    assert oriented == {"east_west": ["cpos_01_02", "cpos_02_03", "cpos_20_21"],
                        "ne_sw": ["cpos_02_11", "cpos_10_20"],
                        "nw_se": ["cpos_02_12", "cpos_20_30"]}


def test_the_undiscovered_hibernatorium_has_no_way_in_and_no_noise(rules):
    """Its printed Corridors are laid but lead nowhere yet (RB-p05, RB-p08; RT42)."""
    rt = vm.Runtime(rules.program, set_up(rules, 1))
    assert vm.call_function(rt, "discovered", ["hex_02"]) is False
    assert vm.call_function(rt, "discovered", ["hex_20"]) is True
    for cpos in ("cpos_01_02", "cpos_02_03", "cpos_02_11", "cpos_02_12"):
        assert vm.call_function(rt, "is_laid", [cpos]) is True
        assert vm.call_function(rt, "unexplored", [cpos]) is False
        assert vm.call_function(rt, "noise_value", [cpos]) == 0
        assert vm.call_function(rt, "hibernatorium_hidden", [cpos]) is True
    assert list(vm.call_function(rt, "adjacent_rooms", ["hex_20"])) == []
