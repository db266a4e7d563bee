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


# (players, seed, the error it once ended in)
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
]


@pytest.mark.parametrize(("players", "seed", "once"), REGRESSIONS, ids=[f"{p}p-seed{s}" for p, s, _ in REGRESSIONS])
def test_a_game_that_once_failed_plays_to_its_end(rules, players, seed, once):
    record = bot_game(rules, players, seed)
    assert record["error"] is None, f"{players} players, seed {seed} (once: {once}): {record['error']}"
    assert record["result"] is not None


# ---------------------------------------------------------------- properties of whole games
# Random full games of every player count under base's property checks (tests/test_base_properties.py:
# zones, conservation, counters, views, save and reload) and Retaliation's own, after EVERY decision:
# the map stays inside the frame, each Corridor within its limit, Noise never beside Intruders,
# every Intruder piece in exactly one zone, the Queen's Hits never past her track.
# The default run plays FAST_SEEDS; `-m slow` plays NEMESIS_RETALIATION_SEEDS (`300`, or `a-b`).

from test_base_properties import (  # noqa: E402
    PropertyFailure,
    live_state,
    many_games_keep_every_property,
    play_checked,
    seeds_from_env,
)

from nemesis_rules.engine.state import E_KIND, E_PROPS, E_ZONE  # noqa: E402

PLAYER_COUNTS = range(1, 6)
FAST_SEEDS = range(1)
SLOW_SEEDS = seeds_from_env("NEMESIS_RETALIATION_SEEDS", "300")
CORRIDOR_LIMIT = 6                     # Intruders in a Corridor (rt §7.4), the Queen counting 4
INTRUDER_PIECES = ("intruder", "intruder_token", "attack_card", "queen_health_card")


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


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_games_keep_every_property(rules, players):
    for seed in FAST_SEEDS:
        out = play_checked(rules, players, seed, reload=False, each_step=retaliation_checks)
        assert out["result"] is not None


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_many_random_games_keep_every_property(rules, players):
    many_games_keep_every_property(rules, {}, [players], SLOW_SEEDS,
                                   play=lambda n, seed: play_checked(rules, n, seed, reload_strict=False,
                                                                     each_step=retaliation_checks))
