"""Nemesis: Retaliation (rulesets/retaliation), first step: the frame, the Room and Corridor tiles,
the Exploration deck and the setup that lays the starting map, then refuses to go on (the rounds
are not encoded yet). The frame is checked against a pointy-top hex lattice computed here from each
position's row and column, independently of the data's links; the counts against
shared/rules/public-facts-4.md §2 and the research notes (rulesets/retaliation/DECISIONS.md).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from nemesis_rules import Game, RulesError, load_ruleset
from nemesis_rules.engine import primitives, vm
from nemesis_rules.paths import rulesets_dir
from nemesis_rules.ruleset.check_api import check_paths
from tests.component_helpers import specs_of

ROWS = (5, 4, 5, 4, 5)
# Edge index -> (columns across, rows down) on a lattice where odd rows sit half a hex to the right:
# 0 = NW, 1 = NE, 2 = E, 3 = SE, 4 = SW, 5 = W, clockwise from the upper left (DECISIONS.md RT4).
DIRECTIONS = {0: (-0.5, -1), 1: (0.5, -1), 2: (1, 0), 3: (0.5, 1), 4: (-0.5, 1), 5: (-1, 0)}
# The 18 slot pairs on a section line, as the research lists them (rulesets/retaliation/RESEARCH.md Q1.4).
SECTION_LINES = {
    ("A-R02", "B-R01"), ("A-R02", "HIB"), ("A-R03", "B-R01"), ("A-R04", "B-R01"), ("A-R04", "B-R03"),
    ("A-R04", "B-R04"), ("A-R05", "B-R04"), ("A-R07", "B-R04"), ("A-R07", "B-R06"),
    ("B-R02", "C-R01"), ("B-R02", "C-R03"), ("B-R02", "C-R04"), ("B-R03", "C-R04"), ("B-R05", "C-R04"),
    ("B-R05", "C-R06"), ("B-R05", "C-R07"), ("B-R06", "C-R07"), ("HIB", "C-R01"),
}


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("retaliation")


@pytest.fixture(scope="module")
def laid(rules):
    """A game whose setup ran to the first decision (the Character draft)."""
    game = Game.new(rules, players=2, seed=3)
    return game, game.decision.prompt


def props_of(rules, kind):
    return {cid: spec.props for cid, spec in specs_of(rules.composition, kind).items()}


def runtime(rules):
    return vm.Runtime(rules.program, Game.new(rules, players=1, autostart=False).state)


def spot(props):
    """A position's place on the lattice: (x in hex widths, row)."""
    return (props["column"] + 0.5 * (props["row"] % 2), props["row"])


# ---------------------------------------------------------------- loading

def test_the_module_loads_and_lints_without_errors(rules):
    assert rules.composition.ids[-1] == "retaliation"
    diagnostics, _ = check_paths([rulesets_dir() / "retaliation"])
    assert [d for d in diagnostics if d.code.startswith("E")] == []


@pytest.mark.parametrize("other", ["base", "lockdown"])
def test_it_cannot_be_combined_with_another_game(other):
    with pytest.raises(RulesError, match="cannot be combined"):
        load_ruleset(other, "retaliation")


# ---------------------------------------------------------------- the frame

def test_the_frame_has_23_positions_in_rows_of_5_4_5_4_5(rules):
    positions = props_of(rules, "room_position")
    assert len(positions) == 23
    assert Counter(p["row"] for p in positions.values()) == dict(enumerate(ROWS))
    assert all(0 <= p["column"] < ROWS[p["row"]] for p in positions.values())


def test_each_edge_leads_to_the_geometric_neighbour_or_faces_outside(rules):
    positions = props_of(rules, "room_position")
    at = {spot(p): pid for pid, p in positions.items()}
    rt = runtime(rules)
    for pid, p in positions.items():
        x, y = spot(p)
        outward = []
        for edge, (dx, dy) in DIRECTIONS.items():
            across = at.get((x + dx, y + dy))
            link = primitives.link_at(rt, pid, edge)
            if across is None:
                outward.append(edge)
                assert link is None, (pid, edge)
            else:
                assert primitives.other_end(rt, link, pid) == across, (pid, edge)
                assert primitives.label_at(rt, link, across) == (edge + 3) % 6, (pid, edge)
        assert sorted(p["outward_edges"]) == outward, pid
        assert sorted(primitives.neighbors(rt, pid)) == sorted(at[(x + dx, y + dy)] for dx, dy in DIRECTIONS.values()
                                                                 if (x + dx, y + dy) in at)


def test_50_corridor_positions_and_38_outward_edges(rules):
    assert len(props_of(rules, "corridor_position")) == 50
    assert sum(len(p["outward_edges"]) for p in props_of(rules, "room_position").values()) == 23 * 6 - 2 * 50


def test_the_18_corridors_on_a_section_line_are_in_both_sections(rules):
    positions = props_of(rules, "room_position")
    rt = runtime(rules)
    on_lines = set()
    for cid, c in props_of(rules, "corridor_position").items():
        a, b = primitives.ends(rt, cid)
        sections = {positions[a]["section"], positions[b]["section"]}
        assert sorted(c["sections"]) == sorted(sections), cid
        if len(sections) == 2:
            on_lines.add(tuple(sorted((positions[a]["slot_name"], positions[b]["slot_name"]))))
    assert on_lines == {tuple(sorted(pair)) for pair in SECTION_LINES}


def test_21_variable_slots_7_6_8_and_the_two_fixed_rooms(rules):
    positions = props_of(rules, "room_position")
    variable = [p for p in positions.values() if p.get("fixed_room") is None]
    assert Counter(p["section"] for p in variable) == {"sec_a": 7, "sec_b": 6, "sec_c": 8}
    fixed = {p["fixed_room"]: pid for pid, p in positions.items() if p.get("fixed_room") is not None}
    assert fixed == {"landing_zone": "hex_20", "hibernatorium": "hex_02"}
    assert len(positions["hex_20"]["outward_edges"]) == 3 and len(positions["hex_02"]["outward_edges"]) == 2
    assert positions["hex_20"]["section"] == "sec_a" and positions["hex_02"]["section"] == "sec_b"


def test_rings_walk_the_frame_from_the_landing_zone(rules):
    rings = primitives.rings(runtime(rules), "hex_20", "corridor_position")
    assert set(rings[1]) == {"hex_10", "hex_21", "hex_30"}
    assert sum(len(r) for r in rings) == 23 and len(rings) == 6      # C-R02 and C-R05 are 5 hexes away


# ---------------------------------------------------------------- components

def test_rooms_by_type_and_tiles_by_stack(rules):
    rooms = props_of(rules, "room")
    assert Counter(r["room_type"] for r in rooms.values()) == {"type_any": 13, "type_a": 4, "type_b": 4, "type_c": 4}
    tiles = {cid: r for cid, r in rooms.items() if not r.get("fixed")}
    assert Counter(r["room_type"] for r in tiles.values()) == {"type_any": 13, "type_a": 3, "type_b": 3, "type_c": 4}
    assert sorted(r["number"] for r in rooms.values()) == list(range(1, 26))
    assert all(set(r["items"]) <= {"green", "red", "yellow"} for r in rooms.values())
    comps = rules.composition.components
    assert {comps[cid].spec.zone for cid in tiles} == {"room_stack_any", "room_stack_a", "room_stack_b", "room_stack_c"}
    assert all("action" in comps[cid].scripts for cid in rooms)      # every Room is its own script (rooms.yaml)


def test_corridor_tiles_40_in_the_insert_4_boxed_and_4_printed(rules):
    tiles = props_of(rules, "corridor_tile")
    comps = rules.composition.components
    drawn = [t for cid, t in tiles.items() if comps[cid].spec.zone == "corridor_insert"]
    boxed = [t for cid, t in tiles.items() if comps[cid].spec.zone == "game_box"]
    printed = {cid: t for cid, t in tiles.items() if t.get("printed")}
    assert Counter(t["noise"] for t in drawn) == {1: 10, 2: 10, 3: 10, 4: 10}
    assert sorted(t["number"] % 100 for t in boxed) == [11] * 4 and all(t["bga_only"] for t in boxed)
    for t in drawn + boxed:
        assert str(t["number"])[0] == str(t["noise"]), t
        assert t["door_slot"] == (t["number"] % 100 in (1, 2, 3, 11)), t
        assert (t.get("deadly") is not None) == (7 <= t["number"] % 100 <= 10), t
    assert sorted(comps[cid].spec.zone for cid in printed) == sorted(
        f"laid_corridor@{c}" for c in ("cpos_01_02", "cpos_02_11", "cpos_02_12", "cpos_02_03"))
    assert comps["corridor_004"].spec.zone == "laid_corridor@cpos_02_03"  # the E one (FAQ FQ-P04-U02)


def test_exploration_cards_edges_are_0_to_5(rules):
    cards = props_of(rules, "exploration_card")
    assert len(cards) == 12
    assert Counter(c["room"] for c in cards.values()) == {"type_any": 3, "section_type": 9}
    for cid, c in cards.items():
        assert c["corridors"] and set(c["corridors"]) <= set(range(6)), cid
        assert set(c.get("noise", ())) <= set(c["corridors"]), cid
    assert cards["exploration_06"]["corridors"] == (1, 3) and cards["exploration_06"]["noise"] == (3,)  # RB-p26


# ---------------------------------------------------------------- setup

def test_setup_lays_the_starting_map(laid):
    game, prompt = laid
    assert prompt == "draft_character"
    st = game.state
    lz_corridors = [st.zones[f"laid_corridor@{c}"] for c in ("cpos_10_20", "cpos_20_21", "cpos_20_30")]
    assert [len(z) for z in lz_corridors] == [1, 1, 1]
    for [tile] in lz_corridors:
        kind, zone, props, face_up, _ = st.entities[tile]
        assert kind == "corridor_tile" and face_up and not props.get("bga_only")
        assert props.get("door_faces") == ("hex_20" if props["door_slot"] else None)
    assert len(st.zones["corridor_insert"]) == 37
    assert st.zones["room_contents@hex_02"] == ["robot", "undiscovered_hibernatorium"]   # rt §4.1 step 10
    assert st.zones["laid_room@hex_20"] == ["landing_zone"] and st.zones["laid_room@hex_02"] == ["hibernatorium"]
    assert [len(st.zones[z]) for z in ("room_stack_any", "room_stack_a", "room_stack_b", "room_stack_c")] == [13, 3, 3, 4]
    assert len(st.zones["exploration_deck"]) == 12
    assert all(not st.zones[f"laid_room@hex_{r}{c}"] for r in range(5) for c in range(ROWS[r]) if (r, c) not in ((2, 0), (0, 2)))


def test_a_new_game_starts_with_the_character_draft(rules):
    assert Game.new(rules, players=3, seed=0).decision.prompt == "draft_character"


def test_setup_draws_the_landing_zone_corridors_at_random(rules):
    drawn = set()
    for seed in range(6):
        game = Game.new(rules, players=1, seed=seed)
        drawn.add(tuple(game.state.zones["laid_corridor@cpos_20_21"]))
    assert len(drawn) > 1


def test_setup_finds_the_fixed_rooms_by_their_data_not_by_position_ids():
    text = "\n".join(p.read_text(encoding="utf-8") for p in Path(rulesets_dir(), "retaliation", "rules").glob("*.nem"))
    assert "hex_20" not in text and "hex_02" not in text            # fixed rooms are found by data (position_of)
