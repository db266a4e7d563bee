"""Chytrids (rulesets/chytrids) layered on base, on base's printed board.

The special rules are shown one by one by the scenario files under tests/scenarios/chytrids/ (run
by tests/test_scenarios.py); this file checks the composition and setup, the refused
combinations, lint, the modes, and random full games for 1-5 players under base's property checks
(tests/test_base_properties.py: zones, conservation, counter bounds, a decision while not over,
views leak nothing).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from test_base_properties import many_games_keep_every_property, play_checked, seeds_from_env

from nemesis_rules import Game, load_ruleset
from nemesis_rules.dsl.diagnostics import RulesError
from tests.positions import props

ROOT = Path(__file__).resolve().parents[1]
BOARD = ()                     # base's printed board
PLAYER_COUNTS = range(1, 6)
FAST_SEEDS = range(2)
SLOW_SEEDS = seeds_from_env("NEMESIS_CHYTRID_SEEDS", "300")
REASONS = ("jump", "ship_destroyed", "all_characters_dead", "mycelium_overrun")


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("base", "chytrids", *BOARD)


def inside(game, zone):
    return list(game.state.zones.get(zone, []))


def started(rules, players, seed=1, **options):
    game = Game.new(rules, players=players, seed=seed, **options)
    while game.decision.prompt == "draft_character":
        game.apply(0)
    return game


# ---------------------------------------------------------------- composition and setup

def test_base_race_is_replaced(rules):
    game = Game.new(rules, players=2, seed=3)
    ids = set(game.state.entities)
    for gone in ("larva_figure#1", "adult_figure#1", "queen_figure", "queen_token", "adult_token_2#1",
                 "attack_claw_3", "event_coolant_leak", "bag_setup_adult"):
        assert gone not in ids
    kinds = Counter(game.state.entities[e][0] for e in ids)
    assert kinds["event_card"] == 20 and kinds["attack_card"] == 20 and kinds["weakness_card"] == 6
    figures = Counter(props(game, e)["intruder_type"] for e in ids if game.state.entities[e][0] == "intruder")
    assert figures == {"grasper": 8, "fruiting_body": 3, "chytrid_queen": 1}


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_setup_colony_queen_board_and_supplies(rules, players):
    game = started(rules, players, seed=players)
    bag = Counter(props(game, t)["intruder_type"] for t in inside(game, "intruder_bag"))
    assert bag == {"grasper": 8, "fruiting_body": 3, "chytrid_queen": 3, "blank": 1}   # not scaled (lc L270)
    assert inside(game, "queen_space_slot@queen_board_centre") == ["chytrid_queen_figure"]
    for n in range(1, 9):
        assert inside(game, f"queen_space_slot@queen_space_{n}") == [f"grasper_figure#{n}"]
    assert len(inside(game, "spore_supply")) == 15 and len(inside(game, "mycelium_supply")) == 8
    assert len(inside(game, "crawler_track")) == 10
    assert "event_power_surge" not in inside(game, "event_deck")               # lc L624
    assert len(inside(game, "event_deck")) + len(inside(game, "event_discard")) <= 19
    assert len(inside(game, "nest_eggs")) == 5
    weaknesses = [w for sp in ("weakness_space_1", "weakness_space_2", "weakness_space_3")
                  for w in inside(game, f"weakness_slot@{sp}")]
    assert len(weaknesses) == 3 and all(game.state.entities[w][3] is False for w in weaknesses)


@pytest.mark.parametrize("other", ["carnomorphs", "void_seeders"])
def test_combining_with_another_race_is_refused(other):
    with pytest.raises(RulesError, match=f"module `chytrids` cannot be combined with `{other}`"):
        load_ruleset("base", other, "chytrids")


def test_the_module_lints_without_errors():
    from nemesis_rules.lint.runner import lint_paths

    findings, _ = lint_paths([ROOT / "rulesets" / "chytrids"])
    assert [f for f in findings if f.is_error] == []
    mine = [f for f in findings if "rulesets/chytrids" in str(f.span.file).replace("\\", "/")]
    assert mine == []


# ---------------------------------------------------------------- the rules in Lockdown too

SCENARIOS = ROOT / "tests" / "scenarios"


def test_every_chytrid_scenario_has_a_lockdown_twin():
    """Each rule a base scenario shows (tests/scenarios/chytrids/, its printed_board/) is shown in
    Lockdown by a scenario of the same file name in chytrids_lockdown/, or that folder's README
    names it among those the Lockdown board cannot express; a name listed there has no twin."""
    base = {p.name for p in (SCENARIOS / "chytrids").rglob("*.yaml")}
    lockdown = {p.name for p in (SCENARIOS / "chytrids_lockdown").glob("*.yaml")}
    readme = (SCENARIOS / "chytrids_lockdown" / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\* `([\w.]+\.yaml)` \(no twin\)", readme, re.M))
    assert sorted(base - lockdown - listed) == []
    assert sorted(listed & lockdown) == [] and listed <= base


# ---------------------------------------------------------------- modes

@pytest.mark.parametrize(("options", "message"), [
    ({"mode": "intruder_player"}, "no Chytrid rules for the intruder player"),
    # base refuses the alternative side first while its layout is unknown; the module would too
    ({"board": "alternative"}, "basic board side only|alternative board side cannot be set up"),
])
def test_refused_options_say_why(rules, options, message):
    with pytest.raises(RulesError, match=message):
        Game.new(rules, players=3, seed=1, **options)


@pytest.mark.parametrize(("options", "players"), [
    ({"mode": "solo"}, 1), ({"mode": "coop"}, 3),
])
def test_base_modes_run_with_chytrids(rules, options, players):
    import random

    for seed in range(2):
        game = Game.new(rules, players=players, seed=seed, **options)
        rnd = random.Random(seed)
        steps = 0
        while not game.over and steps < 20_000:
            game.apply(rnd.randrange(len(game.decision.options)))
            steps += 1
        assert game.over


# ---------------------------------------------------------------- random games, property checks

@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_games_keep_every_property(rules, players):
    for seed in FAST_SEEDS:
        out = play_checked(rules, players, seed, reload=False)
        assert out["result"]["reason"] in REASONS


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_many_random_games_keep_every_property(rules, players):
    """NEMESIS_CHYTRID_SEEDS seeds (default 300) for each of 1-5 players (issue 13); base's runner prints the figures."""
    many_games_keep_every_property(rules, {}, [players], SLOW_SEEDS)
