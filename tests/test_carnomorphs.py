"""Carnomorphs (rulesets/carnomorphs) layered on base, played on base's TEST board.

tests/fixtures/base_testboard is an invented layout (our sources give no corridors); see its
module.yaml. The special rules are shown one by one by the scenario files under
tests/scenarios/carnomorphs/ (run by tests/test_scenarios.py); this file checks the composition,
setup, the modes, and random full games for 1-5 players under base's property checks
(tests/test_base_properties.py: zones, conservation, counter bounds, a decision while not over,
views leak nothing).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from test_base_properties import many_games_keep_every_property, play_checked, seeds_from_env

from nemesis_rules import Game, load_ruleset
from nemesis_rules.dsl.diagnostics import RulesError
from tests.positions import props
from tests.strategies import play_randomly

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "base_testboard"
PLAYER_COUNTS = range(1, 6)
FAST_SEEDS = range(2)
SLOW_SEEDS = seeds_from_env("NEMESIS_CARNOMORPH_SEEDS", "300")


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("base", "carnomorphs", FIXTURE)


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
    assert "blank_token" in ids
    assert sum(1 for e in ids if e.startswith("attack_")) == 20
    assert sum(1 for e in ids if e.startswith("event_")) == 20
    figures = Counter(props(game, e)["intruder_type"] for e in ids if game.state.entities[e][0] == "intruder")
    assert figures == {"metagorger": 8, "shambler": 8, "fleshbeast": 3, "butcher": 1}
    tokens = Counter(props(game, e)["intruder_type"] for e in ids if game.state.entities[e][0] == "intruder_token")
    assert tokens == {"red_metagorger": 8, "blue_metagorger": 2, "shambler": 12, "fleshbeast": 3,
                      "butcher": 1, "blank": 1}
    assert sum(1 for e in ids if e.startswith("carcass_token")) == 12
    assert sum(1 for e in ids if e.startswith("unknown_mutation")) == 12


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_setup_bag_board_and_help_cards(rules, players):
    game = started(rules, players, seed=players)
    bag = Counter(props(game, t)["intruder_type"] for t in inside(game, "intruder_bag"))
    assert bag == {"blank": 1, "blue_metagorger": 2, "red_metagorger": 2 + players}
    assert len(inside(game, "nest_eggs")) == 8
    for sp in ("adaptation_space_shambler", "adaptation_space_fleshbeast", "adaptation_space_butcher"):
        [card] = inside(game, f"adaptation_slot@{sp}")
        assert game.state.entities[card][3] is False          # face down
    assert len(inside(game, "adaptation_deck")) == 0
    assert len(inside(game, "mutation_deck")) == 12
    for seat in range(players):
        assert inside(game, f"help@player{seat + 1}") == [f"carnomorph_help_{seat + 1}"]


def test_combining_with_void_seeders_is_refused():
    if not (ROOT / "rulesets" / "void_seeders" / "module.yaml").exists():
        pytest.skip("rulesets/void_seeders is absent")
    with pytest.raises(RulesError, match="cannot be combined with"):
        load_ruleset("base", "carnomorphs", "void_seeders")


def test_the_module_lints_without_errors():
    from nemesis_rules.lint.runner import lint_paths

    findings, _ = lint_paths([ROOT / "rulesets" / "carnomorphs"])
    errors = [f for f in findings if f.is_error]
    assert errors == []
    mine = [f for f in findings if "rulesets/carnomorphs" in str(f.span.file).replace("\\", "/")]
    # only missing Russian translations are allowed (README, "Russian")
    assert {f.code for f in mine} <= {"W600"}
    assert all("no ru translation" in f.message for f in mine)


# ---------------------------------------------------------------- modes

@pytest.mark.parametrize(("options", "players"), [
    ({"mode": "solo"}, 1), ({"mode": "coop"}, 3), ({"mode": "intruder_player"}, 3),
    ({"board": "alternative"}, 2),
])
def test_base_modes_run_with_carnomorphs(rules, options, players):
    import random

    for seed in range(3):
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
        assert out["result"]["reason"] in ("jump", "ship_destroyed", "all_characters_dead")


def test_same_seed_same_game(rules):
    def run():
        game = Game.new(rules, players=3, seed=11)
        play_randomly(game, 11)
        return game.to_json()

    assert run() == run()


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_many_random_games_keep_every_property(rules, players):
    """NEMESIS_CARNOMORPH_SEEDS seeds (default 300; `a-b` for a range) for each of 1-5 players
    (issue 6), as the other modules' runs take theirs; base's runner prints the figures and lists
    every failure."""
    many_games_keep_every_property(rules, {}, [players], SLOW_SEEDS)


# ---------------------------------------------------------------- Voracious: the order in the step

def put(game, eid, zone):
    ent = game.state.entities[eid]
    if ent[1] is not None:
        game.state.zones[ent[1]].remove(eid)
    game.state.zones[zone].insert(0, eid)
    ent[1] = zone


def choose(game, value):
    [option] = [o for o in game.decision.options if o.value == value]
    game.apply(option)


@pytest.mark.parametrize("voracious", [False, True])
def test_voracious_moves_feeding_before_the_attacks(rules, voracious):
    """pf L330: with Voracious revealed, Feeding comes before the attacks (the scenario
    feeding_voracious.yaml shows both happen; only the log shows their order)."""
    game = Game.new(rules, players=1, seed=6)
    choose(game, "pilot")
    put(game, "shambler_figure#1", "room_contents@main_slot_2_01")
    put(game, "carcass_token#1", "room_contents@main_slot_2_01")
    put(game, "metagorger_figure#1", "room_contents@main_hibernatorium")
    put(game, "event_growl", "event_deck")
    game.state.counters["intruder_appeared"] = 1
    if voracious:
        put(game, "adaptation_voracious", "adaptation_slot@adaptation_space_shambler")
        game.state.entities["adaptation_voracious"][3] = True
    start = len(game.state.log)
    game.apply(next(o for o in game.decision.options if o.value is None))     # pass
    while game.decision.prompt != "pick_action":
        game.apply(next((o for o in game.decision.options if o.value is None), game.decision.options[0]))
    msgs = [e["msg"] for e in game.state.log[start:]]
    fed, attacked = msgs.index("feeds"), msgs.index("metagorger_attack")
    assert (fed < attacked) == voracious
