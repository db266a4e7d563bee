"""Whole games of Nemesis: Retaliation (rulesets/retaliation): random bot games as `nemesis simulate`
plays them. Each seeded game below once ended in a rules error (named beside it); it must now play
to its end."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from nemesis_rules import Game, RulesError, load_ruleset
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
    (2, 28, "heuristic: item_personal_log_codes.use: choose() with no options (no other Character left)"),
]


@pytest.mark.parametrize(("players", "seed", "once"), REGRESSIONS, ids=[f"{p}p-seed{s}" for p, s, _ in REGRESSIONS])
def test_a_game_that_once_failed_plays_to_its_end(rules, players, seed, once):
    record = bot_game(rules, players, seed, "heuristic" if once.startswith("heuristic") else "random")
    assert record["error"] is None, f"{players} players, seed {seed} (once: {once}): {record['error']}"
    assert record["result"] is not None


# ---------------------------------------------------------------- properties of whole games
# Random full games of every player count under base's property checks (tests/test_base_properties.py:
# zones, conservation, counters, views, save and reload) and Retaliation's own, after EVERY decision:
# the map stays inside the frame, each Corridor within its limit, Noise never beside Intruders,
# every Intruder piece in exactly one zone, the Queen's Hits never past her track.
# The default run plays FAST_SEEDS; `-m slow` plays NEMESIS_RETALIATION_SEEDS (`300`, or `a-b`).

from test_base_properties import (  # noqa: E402
    live_state,
    many_games_keep_every_property,
    play_checked,
    seeds_from_env,
)

from nemesis_rules.engine.state import DIGEST_KEY, E_KIND, E_PROPS, E_ZONE, canonical_json  # noqa: E402

PLAYER_COUNTS = range(1, 6)
FAST_PLAYER_COUNTS = (1, 2, 3)         # the default run stays near 20 s; `-m slow` plays every count
FAST_SEEDS = range(1)
SLOW_SEEDS = seeds_from_env("NEMESIS_RETALIATION_SEEDS", "300")
CORRIDOR_LIMIT = 6                     # Intruders in a Corridor (rt §7.4), the Queen counting 4
# (Neosoma adds its Body tokens and Skill cards: the kinds a module does not declare list none)
INTRUDER_PIECES = ("intruder", "intruder_token", "attack_card", "queen_health_card", "body_token", "skill_card")


def of_kind(st, kind: str) -> list[str]:
    return [eid for eid, ent in st.entities.items() if ent[E_KIND] == kind]


def zones_of(st, name: str) -> dict[str, list[str]]:
    """`name@position` -> members, for a per-position zone."""
    return {z.partition("@")[2]: list(members) for z, members in st.zones.items() if z.partition("@")[0] == name}


def check_frame(st) -> None:
    """Every tile lies on a position of the frame, at most one a position; pieces stand only on
    laid tiles."""
    for zone, kind, position_kind in (("laid_room", "room", "room_position"),
                                      ("laid_corridor", "corridor_tile", "corridor_position")):
        frame = set(of_kind(st, position_kind))
        for pos, members in zones_of(st, zone).items():
            assert pos in frame, f"{zone}@{pos} is not a position of the frame"
            assert len(members) <= 1, f"{zone}@{pos} holds {members}"
            assert all(st.entities[m][E_KIND] == kind for m in members), f"{zone}@{pos} holds {members}"
        for tile in of_kind(st, kind):
            where = st.entities[tile][E_ZONE] or ""
            assert not where.startswith(("room_contents@", "corridor_contents@")), f"{tile} lies in {where}"
    laid_rooms = {pos for pos, members in zones_of(st, "laid_room").items() if members}
    for pos, members in zones_of(st, "room_contents").items():
        figures = [m for m in members if st.entities[m][E_KIND] in ("intruder", "character_figure")]
        assert not figures or pos in laid_rooms, f"{figures} stand on {pos}, where no Room lies"
    laid_corridors = {pos for pos, members in zones_of(st, "laid_corridor").items() if members}
    for cpos, members in zones_of(st, "corridor_contents").items():
        assert not members or cpos in laid_corridors, f"{members} lie on {cpos}, where no Corridor lies"


def check_corridors(st) -> None:
    """A Corridor holds at most 6 Intruders (the Queen counts 4), and never Noise with them."""
    for cpos, members in zones_of(st, "corridor_contents").items():
        intruders = [m for m in members if st.entities[m][E_KIND] == "intruder"]
        load = sum(4 if st.entities[m][E_PROPS]["type"] == "queen" else 1 for m in intruders)
        assert load <= CORRIDOR_LIMIT, f"{cpos} holds {intruders} (load {load})"
        noise = [m for m in members if st.entities[m][E_KIND] == "noise_marker"]
        assert not (noise and intruders), f"{cpos} holds Noise {noise} and Intruders {intruders}"


def check_intruder_pieces(st) -> None:
    """Every Intruder figure, token, Attack card and Queen Health card lies in exactly one zone."""
    listed: dict[str, int] = {}
    for members in st.zones.values():
        for eid in members:
            listed[eid] = listed.get(eid, 0) + 1
    for kind in INTRUDER_PIECES:
        for eid in of_kind(st, kind):
            zone = st.entities[eid][E_ZONE]
            assert zone is not None and listed.get(eid) == 1 and eid in st.zones[zone], \
                f"{eid} lies in {zone!r}, listed {listed.get(eid, 0)} times"


def check_queen(st) -> None:
    track = st.entities["queen_hits_track"][E_PROPS]["length"]
    assert 0 <= st.counters["queen_hits_marker"] <= track, f"the Queen's Hits marker at {st.counters['queen_hits_marker']}"


def retaliation_checks(game) -> None:
    st = live_state(game)
    check_frame(st)
    check_corridors(st)
    check_intruder_pieces(st)
    check_queen(st)


@pytest.mark.parametrize("players", FAST_PLAYER_COUNTS)
def test_random_games_keep_every_property(rules, players):
    for seed in FAST_SEEDS:
        out = play_checked(rules, players, seed, reload=False, each_step=retaliation_checks)
        assert out["result"] is not None


# Deadly mode (DECISIONS RT200-RT203): more Corridors answer each Noise roll, so more Intruders come
# in; the same properties hold, and a save made in it reloads with its option.
@pytest.mark.parametrize("players", FAST_PLAYER_COUNTS)
def test_random_deadly_games_keep_every_property(rules, players):
    for seed in FAST_SEEDS:
        out = play_checked(rules, players, seed, reload=True, each_step=retaliation_checks, mode="deadly")
        assert out["result"] is not None


# Co-op (DECISIONS RT230-RT234): Bodies lie, are dragged and stand up; the same properties hold
# and a save made in it reloads with its option.
@pytest.mark.parametrize("players", [2, 4])
def test_random_coop_games_keep_every_property(rules, players):
    for seed in FAST_SEEDS:
        out = play_checked(rules, players, seed, reload=True, each_step=retaliation_checks, play="coop")
        assert out["result"] is not None


# The Neoflesh Cult over Retaliation (rulesets/neosoma): the same properties, the Queen's track
# growing with each absorbed Body (check_queen reads its length), and a save that reloads.
@pytest.fixture(scope="module")
def neosoma_rules():
    return load_ruleset("retaliation", "neosoma")


# (players, seed, what once failed) with Neosoma
NEOSOMA_REGRESSIONS = [
    (1, 237, "a Flamethrower's Shoot whose Oxygen loss suffocated the shooter set None on Fire"),
]


@pytest.mark.parametrize(("players", "seed", "once"), NEOSOMA_REGRESSIONS,
                         ids=[f"{p}p-seed{s}" for p, s, _ in NEOSOMA_REGRESSIONS])
def test_a_neosoma_game_that_once_failed_plays_to_its_end(neosoma_rules, players, seed, once):
    record = bot_game(neosoma_rules, players, seed, "random")  # as `nemesis simulate` played it
    assert record["error"] is None, f"{players} players, seed {seed} (once: {once}): {record['error']}"
    assert record["result"] is not None


@pytest.mark.parametrize("players", FAST_PLAYER_COUNTS)
def test_random_neosoma_games_keep_every_property(neosoma_rules, players):
    for seed in FAST_SEEDS:
        out = play_checked(neosoma_rules, players, seed, reload=True, each_step=retaliation_checks)
        assert out["result"] is not None


# (players, seed, the property it once broke), each played with a save and reload at a random step
PROPERTY_REGRESSIONS = [
    (3, 3, "step 142: log line item_gained names hidden ['item_tools#4'] to every seat"),
    (1, 7, "step 30: log line item_used names hidden ['item_stimulants#1'] (a face-down Item used)"),
    (2, 6, "step 91: log line item_used names hidden ['item_oxygen_tank#7'] (a face-down Item used)"),
]


@pytest.mark.parametrize(("players", "seed", "once"), PROPERTY_REGRESSIONS,
                         ids=[f"{p}p-seed{s}" for p, s, _ in PROPERTY_REGRESSIONS])
def test_a_game_that_once_broke_a_property_keeps_them_all(rules, players, seed, once):
    out = play_checked(rules, players, seed, reload=True, each_step=retaliation_checks)
    assert out["result"] is not None, once


@pytest.mark.slow
@pytest.mark.parametrize("options", [{"mode": "standard"}, {"mode": "deadly"}, {"play": "coop"}],
                         ids=["standard", "deadly", "coop"])
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_many_random_games_keep_every_property(rules, players, options):
    if options.get("play") == "coop" and players == 1:
        pytest.skip("1 player is the Solo game, played by the standard run")
    many_games_keep_every_property(rules, options, [players], SLOW_SEEDS,
                                   play=lambda n, seed: play_checked(rules, n, seed, reload_strict=False,
                                                                     each_step=retaliation_checks, **options))


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["standard", "deadly"])
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_many_random_neosoma_games_keep_every_property(neosoma_rules, players, mode):
    many_games_keep_every_property(neosoma_rules, {"mode": mode}, [players], SLOW_SEEDS,
                                   play=lambda n, seed: play_checked(neosoma_rules, n, seed, reload_strict=False,
                                                                     each_step=retaliation_checks, mode=mode))


def test_the_checks_catch_a_broken_map():
    """Retaliation's checks are not vacuous: each catches the fault it is written for."""
    rules = load_ruleset("retaliation")
    game = Game.new(rules, players=2, seed=3)
    retaliation_checks(game)                                 # the starting map passes
    st = live_state(game)
    laid = [z for z, members in st.zones.items() if z.startswith("laid_room@") and members]
    empty = next(z for z, members in st.zones.items() if z.startswith("laid_room@") and not members)
    breakages = {
        "two tiles on one position": lambda s: s.zones[laid[0]].append(s.zones[laid[1]][0]),
        "a figure where no Room lies": lambda s: s.zones[empty.replace("laid_room", "room_contents")].append("adult_figure#1"),
        "Noise beside Intruders": noise_beside_an_intruder,
        "an Intruder listed twice": lambda s: s.zones["intruder_pool"].append("adult_figure#1"),
        "the Queen past her track": lambda s: s.counters.__setitem__("queen_hits_marker", 5),
    }
    for name, breakage in breakages.items():
        broken = Game.from_json(rules, game.to_json())
        breakage(live_state(broken))
        with pytest.raises(AssertionError):
            retaliation_checks(broken)
            pytest.fail(f"not caught: {name}")


def noise_beside_an_intruder(st) -> None:
    cpos = next(z.partition("@")[2] for z, members in st.zones.items() if z.startswith("laid_corridor@") and members)
    noise = of_kind(st, "noise_marker")[0]
    for eid in (noise, "adult_figure#1"):
        st.zones[st.entities[eid][E_ZONE]].remove(eid)
        st.zones[f"corridor_contents@{cpos}"].append(eid)
        st.entities[eid][E_ZONE] = f"corridor_contents@{cpos}"


# ---------------------------------------------------------------- saves
# A save made mid-game, once Room tiles were laid during play, loads, replays and refuses
# tampering as a base save does (tests/test_saves.py).

def midgame_after_exploring(rules, players: int = 3, seed: int = 4) -> tuple[Game, random.Random]:
    """A random game played until a Room tile was laid beyond the starting map."""
    game = Game.new(rules, players=players, seed=seed)
    rnd = random.Random(seed)
    start = laid_rooms(game)
    while not game.over and laid_rooms(game) <= start:
        game.apply(rnd.randrange(len(game.decision.options)))
    assert not game.over, "no Room was laid before the game ended: pick another seed"
    return game, rnd


def laid_rooms(game) -> int:
    return sum(1 for z, members in live_state(game).zones.items() if z.startswith("laid_room@") and members)


@pytest.mark.parametrize("ruleset", ["rules", "neosoma_rules"])
def test_a_save_after_exploring_loads_replays_and_plays_on_identically(ruleset, request):
    rules = request.getfixturevalue(ruleset)  # Retaliation alone, and with Neosoma over it
    game, rnd = midgame_after_exploring(rules)
    text = game.to_json()
    for mode in ("digest", "replay"):
        loaded = Game.from_json(rules, text, verify=mode)
        assert loaded.state == game.state and loaded.to_json() == text
    twin = Game.from_json(rules, text, verify="replay")
    while not game.over:
        index = rnd.randrange(len(game.decision.options))
        game.apply(index)
        twin.apply(index)
    assert twin.to_json() == game.to_json()


def swap_two_laid_rooms(data: dict) -> None:
    """A consistent forgery: two laid Room tiles trade places (zone lists and entities alike)."""
    zones = [z for z, members in data["zones"].items() if z.startswith("laid_room@") and members]
    a, b = zones[-1], zones[-2]
    data["zones"][a], data["zones"][b] = data["zones"][b], data["zones"][a]
    for ent in data["entities"]:
        if ent[0] in data["zones"][a] + data["zones"][b]:
            ent[2] = a if ent[0] in data["zones"][a] else b


@pytest.mark.parametrize("forge", [swap_two_laid_rooms, lambda d: d["counters"].__setitem__("round_track", d["counters"]["round_track"] + 1)],
                         ids=["rooms_swapped", "round_moved"])
def test_a_tampered_save_is_refused(rules, forge):
    game, _ = midgame_after_exploring(rules)
    data = json.loads(game.state.to_json())
    forge(data)
    with pytest.raises(RulesError, match="changed after it was written"):
        Game.from_json(rules, json.dumps(data))
    with pytest.raises(RulesError, match="not the game its moves make"):
        Game.from_json(rules, reseal(data), verify="replay")


def reseal(data: dict) -> str:
    """The text a forger who recomputes the digest would write (tests/test_saves.py)."""
    data = {k: v for k, v in data.items() if k != DIGEST_KEY}
    return json.dumps({DIGEST_KEY: hashlib.sha256(canonical_json(data).encode()).hexdigest(), **data})
