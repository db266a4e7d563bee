"""Nemesis: Retaliation, slice "rooms": the decks it encodes (pf4 §2.11, §2.13 = shared/rules/
public-facts-4.md) and that every Room, Robot card and Objective / Mission Task / Solo card is named
by at least one scenario under tests/scenarios/retaliation/rooms/ (which show each one's effect).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from nemesis_rules import Game, RulesError, load_ruleset
from nemesis_rules.engine import vm
from tests.component_helpers import specs_of

SCENARIOS = Path(__file__).parent / "scenarios" / "retaliation" / "rooms"


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("retaliation")


def specs(rules, kind):
    return list(specs_of(rules.composition, kind).values())


def test_objective_decks_hold_7_mission_15_private_12_solo_and_8_tasks(rules):
    by_deck = Counter()
    for spec in specs(rules, "objective_card"):
        by_deck[spec.zone] += spec.count or 1
    assert by_deck == {"mission_objective_deck": 7, "private_objective_deck": 15, "solo_objective_deck": 12}
    assert len({s.id for s in specs(rules, "objective_card") if s.zone == "mission_objective_deck"}) == 3
    assert len(specs(rules, "mission_task_card")) == 8


def test_six_robot_cards_each_with_its_own_activate_script(rules):
    comps = rules.composition.components
    robots = [s.id for s in specs(rules, "robot_card")]
    assert len(robots) == 6
    assert all("activate" in comps[r].scripts for r in robots)


def test_every_objective_card_has_its_own_met_script(rules):
    comps = rules.composition.components
    cards = [s.id for kind in ("objective_card", "mission_task_card") for s in specs(rules, kind)]
    assert all("met" in comps[c].scripts for c in cards)


@pytest.mark.parametrize("kind", ["room", "robot_card", "objective_card", "mission_task_card"])
def test_every_card_is_named_by_a_scenario(rules, kind):
    text = "\n".join(p.read_text() for p in SCENARIOS.glob("*.yaml"))
    missing = [s.id for s in specs(rules, kind) if not re.search(rf"\b{s.id}\b", text)]
    assert missing == []


def run_proc(rules, name, args):
    """Run one procedure of the module on a fresh game (its setup not run)."""
    game = Game.new(rules, players=1, autostart=False)
    rt = vm.Runtime(rules.program, game.state)
    vm.push(rt, name, list(args), 0)
    vm.run(rt)
    return game


@pytest.mark.parametrize("name, args, message", [
    ("toggle_life_support", ["sec_x"], "toggle_life_support needs sec_a, sec_b or sec_c"),
    ("take_egg", ["player1"], "cannot take an Egg"),
])
def test_a_bad_call_is_refused_with_a_clear_message(rules, name, args, message):
    with pytest.raises(RulesError, match=message):
        run_proc(rules, name, args)
