"""Nemesis: Retaliation's 60 Action cards (rulesets/retaliation/cards_actions.yaml): 10 per
Character as BGA lists them (shared/rules/public-facts-4.md §2.9), each its own script, and each
named in a scenario of tests/scenarios/retaliation/actions/ that shows it doing what it says.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from nemesis_rules import load_ruleset
from tests.component_helpers import specs_of

SCENARIOS = Path(__file__).parent / "scenarios" / "retaliation" / "actions"
CHARACTERS = {"officer", "medical_support", "heavy_gun_operator", "combat_engineer", "recon", "contractor"}
# pf4 §2.9: the titles several decks share, and how many decks hold each
SHARED = {"search": 6, "rest": 6, "demolition": 6, "repairs": 5, "secure": 4, "chain_of_command": 4,
          "computer_skills": 2}


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("retaliation")


@pytest.fixture(scope="module")
def cards(rules):
    return specs_of(rules.composition, "action_card")


def test_sixty_cards_ten_per_character(cards):
    owners = Counter(spec.props["owner_character"] for spec in cards.values())
    assert len(cards) == 60
    assert owners == {c: 10 for c in CHARACTERS}


def test_shared_titles_as_bga_lists_them(cards):
    titles = Counter(spec.props["title"] for spec in cards.values())
    assert {t: titles[t] for t in SHARED} == SHARED
    assert all(n == 1 for t, n in titles.items() if t not in SHARED)
    assert len(titles) == 34


def test_every_card_has_its_scripts(rules, cards):
    defined = set(rules.program.procs) | set(rules.program.fns)
    for cid, spec in cards.items():
        fields = {f for f in ("effect", "usable", "reaction", "reaction_when", "order", "can_order")
                  if f"{cid}.{f}" in defined}
        assert "effect" in fields, cid
        assert ("reaction" in fields) == ("reaction_when" in fields), cid
        if spec.props.get("command"):
            assert {"order", "can_order"} <= fields, cid


def test_every_card_is_named_in_a_scenario(cards):
    text = "".join(p.read_text() for p in SCENARIOS.glob("*.yaml"))
    assert [cid for cid in cards if cid not in text] == []
