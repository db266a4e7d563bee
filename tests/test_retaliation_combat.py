"""Nemesis: Retaliation, combat slice: the decks and dice as the sources count them (pf4 §2.7-2.8,
RESEARCH.md Q5.1, DECISIONS.md RT60-RT66). The rules themselves are shown by the scenarios under
tests/scenarios/retaliation/combat/."""

from __future__ import annotations

from collections import Counter

import pytest

from nemesis_rules import load_ruleset
from tests.component_helpers import specs_of


@pytest.fixture(scope="module")
def comp():
    return load_ruleset("retaliation").composition


def copies(comp, kind):
    return {cid: spec.count for cid, spec in specs_of(comp, kind).items()}


def test_twenty_attack_cards_by_title(comp):
    # pf4 §2.7: Bite 6, Blood Sense 1, Deadly Claws 3, Fury 2, Infecting 1, Miss 1, Scratch 4, Tail Attack 2
    by_title = Counter()
    for cid, n in copies(comp, "attack_card").items():
        by_title[cid.removeprefix("attack_").rstrip("_0123456789")] += n
    assert by_title == {"bite": 6, "blood_sense": 1, "deadly_claws": 3, "fury": 2, "infecting": 1,
                        "miss": 1, "scratch": 4, "tail_attack": 2}


def test_every_attack_and_queen_health_card_is_its_own_script(comp):
    # 15 Attack components (versions, RT64) and 10 Queen Health components (RT66), each with `effect`
    cards = [c for c in comp.components.values() if c.spec.kind in ("attack_card", "queen_health_card")]
    assert len(cards) == 25
    assert [c.spec.id for c in cards if not c.scripts.get("effect")] == []


def test_twelve_queen_health_cards_by_discard(comp):
    # pf4 §2.8 read as RT66: discard 0 x3, 1 x4, 2 x2, 3 x3
    by_discard = Counter()
    for c in comp.components.values():
        if c.spec.kind == "queen_health_card":
            by_discard[c.spec.props["discard"]] += c.spec.count
    assert by_discard == {0: 3, 1: 4, 2: 2, 3: 3}


def test_dice_show_every_printed_result(comp):
    # RB-p04: a d8 and a d6; RB-p33, p40: the results printed (RT60, RT61)
    shoot, burst = comp.dice["shoot_die"].value, comp.dice["burst_die"].value
    assert len(shoot) == 8 and set(shoot) == {"critical", 2, 3, 4, 5, "ammo_face"}
    assert len(burst) == 6 and set(burst) == {1, 2, 3, "burst_special"}


def test_the_hits_track_and_its_marker_agree(comp):
    # RT65: the track's final space (4) is within the marker's range, which leaves room for the
    # 3 spaces Neosoma's Absorbed Bodies add to it (rulesets/neosoma DECISIONS.md NS8)
    track = comp.components["queen_hits_track"].spec.props["length"]
    assert track == 4 and comp.counters["queen_hits_marker"].value.max == track + 3
