"""Whole games of Nemesis: Retaliation (rulesets/retaliation): random bot games as `nemesis simulate`
plays them. Each seeded game below once ended in a rules error (named beside it); it must now play
to its end."""

from __future__ import annotations

import pytest

from nemesis_rules import load_ruleset
from nemesis_rules.cli.simulate import Spec, play_game


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("retaliation")


def bot_game(rules, players: int, seed: int, bots: str = "random") -> dict:
    """One game as `nemesis simulate --modules retaliation --players N --seed S` plays it."""
    return play_game(rules, Spec(("retaliation",), "en", players, bots, {}), seed)


# (players, seed, the error it once ended in); random bots, or heuristic ones where the entry says
REGRESSIONS = [
    (1, 88, "deal_hits_corridor: `repeat` needs an integer, got 'burst_special' (Security System Control)"),
    (4, 205, "item_security_system_control.use: choose() with no options (every Corridor behind a Closed Door)"),
    (3, 8, "drilling_station.action: choose() with no options (used from afar with no free edge)"),
    (4, 22, "drilling_station.action: choose() with no options (used from afar with no free edge)"),
    (5, 37, "heavy_gun_operator_fast_reload.effect: choose() with no options (loaded a weapon that cannot fire)"),
    (4, 210, "heavy_gun_operator_fast_reload.effect: choose() with no options (loaded a weapon that cannot fire)"),
    (5, 166, "queen_health_draw.effect: 'room_contents@cpos_10_21' is not a zone (the Queen in a Corridor)"),
    (5, 79, "queen_health_noise.effect: 'room_contents@cpos_31_42' is not a zone (the Queen in a Corridor)"),
    (4, 155, "experimental_military_lab.action: cannot index () with 0 (drew one Support Equipment twice)"),
    (4, 109, "queen_hits_by: queen_hits_marker would be 5 (a Hit while her Health card resolved)"),
    (4, 40, "escape_procedure: None is not an entity (the Character died in the attack its Noise roll brought)"),
    (4, 229, "take_turn: egg_token has no property `needs_ammo` (a carried Egg among the Heavy Items)"),
    (2, 329, "take_turn: egg_token has no property `malfunctions` (a carried Egg among the Heavy Items)"),
    (3, 187, "heuristic: no result after 50000 decisions (Adrenaline Injection's actions went on after Pass)"),
    (3, 95, "heuristic: actions_then_pass: None is not an entity (Adrenaline Injection's actions after death)"),
]


@pytest.mark.parametrize(("players", "seed", "once"), REGRESSIONS, ids=[f"{p}p-seed{s}" for p, s, _ in REGRESSIONS])
def test_a_game_that_once_failed_plays_to_its_end(rules, players, seed, once):
    record = bot_game(rules, players, seed, "heuristic" if once.startswith("heuristic") else "random")
    assert record["error"] is None, f"{players} players, seed {seed} (once: {once}): {record['error']}"
    assert record["result"] is not None

