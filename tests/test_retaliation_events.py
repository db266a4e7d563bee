"""Nemesis: Retaliation's Event deck (rulesets/retaliation/cards_events.yaml, rules/events.nem): the
20 cards of public-facts-4.md §2.6, each with its movement glyphs as a prop and its own effect
script, and each shown by a scenario under tests/scenarios/retaliation/events/ (which run the step
on the real module through tests/fixtures/retaliation_event_step; event_phase_in_round.yaml plays
it in a real round).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nemesis_rules import load_ruleset
from tests.component_helpers import specs_of

SCENARIOS = Path(__file__).parent / "scenarios" / "retaliation" / "events"
ORIENTATIONS = {"east_west", "nw_se", "ne_sw"}
# pf4 §2.6's BGA glyphs, read GRAVE = NW-SE, ACUTE = NE-SW, HOR = E-W (rs Q5.5; DECISIONS.md RT80
# for the three where the card art disagrees).
BGA_MOVEMENT = {
    "event_breaking_in": ["nw_se", "rooms"],
    "event_damage": ["east_west"],
    "event_damaging_fire": ["ne_sw", "rooms"],
    "event_egg_protection": ["nw_se"],
    "event_fire_breath": ["east_west", "rooms"],
    "event_generators_overheat": ["nw_se", "rooms"],
    "event_hatching": ["ne_sw"],
    "event_landing_zone_explodes": ["east_west", "rooms"],
    "event_leaving_the_shell": [],
    "event_life_support_failure": ["ne_sw", "rooms"],
    "event_no_way_out": ["ne_sw", "rooms"],
    "event_overwhelming_enemies": ["ne_sw", "rooms"],
    "event_panic": ["east_west", "rooms"],
    "event_protect_and_serve": ["east_west", "rooms"],
    "event_reactor_overheating": ["nw_se", "east_west", "ne_sw", "rooms"],
    "event_rise_of_the_machine": ["nw_se", "rooms"],
    "event_scent_of_prey": ["nw_se", "rooms"],
    "event_short_circuit": ["nw_se", "rooms"],
    "event_system_failure": ["east_west", "rooms"],
    "event_the_queen_awakens": ["ne_sw", "rooms"],
}


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("retaliation")


@pytest.fixture(scope="module")
def cards(rules):
    return specs_of(rules.composition, "event_card")


def test_the_deck_has_the_20_cards_with_bga_movement(cards):
    assert {cid: list(spec.props["movement"]) for cid, spec in cards.items()} == BGA_MOVEMENT


def test_each_card_moves_corridors_or_rooms_only_and_has_its_own_effect(rules, cards):
    for cid, spec in cards.items():
        assert set(spec.props["movement"]) <= ORIENTATIONS | {"rooms"}, cid
        assert f"{cid}.effect" in rules.program.procs, cid


def scenario_data(path):
    """A scenario's text without its comments: a card named in its position or checks, not in prose."""
    return "\n".join(line.split("#", 1)[0] if line.lstrip().startswith("#") else line
                     for line in path.read_text().splitlines())


def test_every_card_is_shown_by_a_scenario(cards):
    shown = {cid for path in SCENARIOS.glob("*.yaml") for cid in cards if cid in scenario_data(path)}
    assert shown == set(cards)
