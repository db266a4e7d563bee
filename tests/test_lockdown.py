"""Nemesis: Lockdown (rulesets/lockdown), a root module on nemesis_core, played on an INVENTED
board (tests/fixtures/lockdown_testboard_invented: our sources give no layout; see its
module.yaml). Checks the composition and the refusals, that setup without the layout stops naming
every missing fact, setup on the test board, and random full games for 1-5 players under base's
property checks (tests/test_base_properties.py: zones, conservation, counter bounds, a decision
while not over, views leak nothing, JSON round trip). The rules with numbers are shown one by one
by tests/scenarios/lockdown/ (run by tests/test_scenarios.py).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from test_base_properties import many_games_keep_every_property, play_checked, seeds_from_env

from nemesis_rules import Game, load_ruleset
from nemesis_rules.dsl.diagnostics import IllegalMoveError, RulesError
from tests.strategies import play_randomly

ROOT = Path(__file__).resolve().parents[1]
BOARD = ROOT / "tests" / "fixtures" / "lockdown_testboard_invented"
PLAYER_COUNTS = range(1, 6)
FAST_SEEDS = range(1)
SLOW_SEEDS = seeds_from_env("NEMESIS_LOCKDOWN_SEEDS", "300")
ENDS = ("jump", "ship_destroyed", "all_characters_dead")


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("lockdown", BOARD)


def started(rules, players, seed=1):
    game = Game.new(rules, players=players, seed=seed)
    while game.decision.prompt == "draft_character":
        game.apply(0)
    return game


# ---------------------------------------------------------------- composition, refusals, setup

def test_lockdown_and_base_share_one_copy_of_the_rules():
    lockdown = load_ruleset("lockdown", BOARD).composition
    base = load_ruleset("base").composition
    for name in ("noise_roll", "encounter", "intruder_attack", "bag_development_step", "place_fire", "search"):
        assert lockdown.procs[name].module == "nemesis_core" == base.procs[name].module, name
    assert lockdown.procs["time_step"].module == "lockdown" and base.procs["time_step"].module == "base"
    assert "hibernatorium" not in lockdown.components and "archive" not in base.components


def test_lockdown_with_base_is_refused():
    with pytest.raises(Exception) as err:
        load_ruleset("base", "lockdown")
    assert "cannot be combined with `base`" in str(err.value)


def test_setup_without_the_layout_names_every_missing_fact():
    with pytest.raises(RulesError) as err:
        Game.new(load_ruleset("lockdown"), players=2, seed=1)
    text = str(err.value)
    for fact in ("Corridors", "Section of each Room slot", "Room Number", "Technical Corridor Entrances",
                 "Emergency Staircase", "Exit Room", "Underground Exploration tokens", "CSS tokens",
                 "Contingency tokens"):
        assert fact in text, fact


@pytest.mark.parametrize("players", [1, 2, 5])
def test_setup_on_the_test_board(rules, players):
    game = started(rules, players)
    st = game.state
    power = [st.entities[f"power_{n}"] for n in range(1, 5)]
    assert sum(1 for e in power if e[2]["active"]) == 2                 # tokens 1-2 blue, 3-4 red
    assert len(st.zones["css_track"]) == 6 and len(st.zones["css_supply"]) == 0
    assert len(st.zones["contingency_active"]) == 1
    per = 2 if players == 2 else 1
    assert all(len(st.zones[f"contingencies@{p}"]) == per for p in game.rules.program.player_ids[:players])
    assert len(st.zones["nest_eggs"]) == 5
    assert len(st.zones["intruder_bag"]) == 1 + 1 + 1 + 4 + 3 + players
    assert st.counters["time_slot"] == 15 and st.counters["time_active"] == 0


# ---------------------------------------------------------------- random games, property checks

@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_games_keep_every_property(rules, players):
    for seed in FAST_SEEDS:
        out = play_checked(rules, players, seed, reload=False)
        assert out["result"]["reason"] in ENDS


def test_same_seed_same_game(rules):
    def run():
        game = Game.new(rules, players=3, seed=11)
        play_randomly(game, 11)
        return game.to_json()

    assert run() == run()


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_many_random_games_keep_every_property(rules, players):
    """300 seeds for each of 1-5 players; base's runner prints the figures and lists every failure."""
    many_games_keep_every_property(rules, {}, [players], SLOW_SEEDS)
# ---------------------------------------------------------------- the races in Lockdown (lc §6, §7)

RACES = {"void_seeders": "void_seeders_lockdown", "carnomorphs": "carnomorphs_lockdown",
         "chytrids": "chytrids_lockdown"}


@pytest.mark.parametrize("race", sorted(RACES))
def test_a_race_loads_with_lockdown_through_its_lockdown_part(race):
    comp = load_ruleset("lockdown", race, BOARD).composition
    assert comp.ids[-1] == RACES[race] and f"{race}_base" not in comp.ids
    assert not [c for c in comp.components if c.startswith(("ns_attack_", "ns_event_", "ns_larva", "ns_adult"))]
    base = load_ruleset("base", race).composition
    assert f"{race}_base" in base.ids and RACES[race] not in base.ids


@pytest.mark.parametrize("races", [("void_seeders", "carnomorphs"), ("chytrids", "void_seeders"),
                                   ("chytrids", "carnomorphs")])
def test_two_races_in_lockdown_are_refused(races):
    with pytest.raises(RulesError) as err:
        load_ruleset("lockdown", *races, BOARD)
    assert "cannot be combined with" in str(err.value)


@pytest.mark.parametrize("modules", [("hourglass",), ("aftermath", "hourglass")])
def test_a_base_only_expansion_with_lockdown_is_refused(modules):
    """Hourglass needs base; Aftermath's characters come to Lockdown, its base part does not."""
    with pytest.raises(RulesError) as err:
        load_ruleset("lockdown", *modules, BOARD)
    assert "cannot be combined with `base`" in str(err.value)


def test_a_race_with_both_games_is_refused():
    with pytest.raises(RulesError) as err:
        load_ruleset("base", "lockdown", "chytrids", BOARD)
    assert "cannot be combined with `base`" in str(err.value)


def test_void_seeders_setup_in_lockdown():
    game = started(load_ruleset("lockdown", "void_seeders", BOARD), 2)
    st = game.state
    assert "contaminated_room" not in st.entities
    elevators = [f"room_exploration@ld_elevator_s0{n}" for n in (1, 2, 3)]
    assert all(len(st.zones[z]) == 1 for z in elevators)             # a token on each Elevator Shaft
    assert all(st.entities[p][2].get("insanity") == 1 for p in ("player1", "player2"))


def test_carnomorphs_setup_in_lockdown():
    game = started(load_ruleset("lockdown", "carnomorphs", BOARD), 2)
    st = game.state
    assert len(st.zones["nest_eggs"]) == 8
    assert any(e.startswith("corpse_token_red") for e in st.zones["room_contents@ld_alert_room"])


@pytest.mark.parametrize("race", sorted(RACES))
@pytest.mark.parametrize("players", [1, 4])
def test_random_games_with_a_race_keep_every_property(race, players):
    out = play_checked(load_ruleset("lockdown", race, BOARD), players, 0, reload=False)
    assert out["result"]["reason"] in ENDS


# ---------------------------------------------------------------- Chytrids in Lockdown (lc §4)

@pytest.fixture(scope="module")
def chytrid_rules():
    return load_ruleset("lockdown", "chytrids", BOARD)


@pytest.mark.parametrize("players", [1, 3, 5])
def test_chytrids_setup_in_lockdown(chytrid_rules, players):
    """lc §4.2: the Chytrid decks replace Lockdown's events, attacks and weaknesses; the colony is
    the 14 Chytrid tokens and the blank (not scaled); the Queen board; Lockdown's Laboratory."""
    st = started(chytrid_rules, players).state
    kinds = Counter(st.entities[e][0] for e in st.entities)
    assert kinds["event_card"] == 20 and kinds["attack_card"] == 20               # Power Surge in play (L624 is base's)
    assert [e for e in st.entities if e.startswith(("ns_", "weakness_wary", "larva_figure", "adult_figure"))] == ["ns_blank"]
    bag = Counter(st.entities[t][2]["intruder_type"] for t in st.zones["intruder_bag"])
    assert bag == {"grasper": 8, "fruiting_body": 3, "chytrid_queen": 3, "blank": 1}
    assert st.zones["queen_space_slot@queen_board_centre"] == ["chytrid_queen_figure"]
    assert all(st.zones[f"queen_space_slot@queen_space_{n}"] == [f"grasper_figure#{n}"] for n in range(1, 9))
    lab = [w for n in (1, 2, 3) for w in st.zones[f"lab_weakness@lab_slot_{n}"]]
    assert len(lab) == 3 and all(w.split("#")[0] in ("weakness_fire_sensitivity", "unknown_chytrid_weakness") for w in lab)
    assert st.entities[lab[0]][3] is True and st.entities[lab[1]][3] is False   # the leftmost revealed
    assert len(st.zones["nest_eggs"]) == 5 and len(st.zones["crawler_track"]) == 10


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_games_with_chytrids_keep_every_property(chytrid_rules, players):
    for seed in FAST_SEEDS:
        out = play_checked(chytrid_rules, players, seed, reload=False)
        assert out["result"]["reason"] in (*ENDS, "mycelium_overrun")


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_many_random_games_with_chytrids_keep_every_property(chytrid_rules, players):
    """300 seeds for each of 1-5 players of Chytrids on the invented Lockdown board."""
    many_games_keep_every_property(chytrid_rules, {}, [players], SLOW_SEEDS)


# ---------------------------------------------------------------- Aftermath's characters in Lockdown (lc §8)

@pytest.fixture(scope="module")
def aftermath_rules():
    return load_ruleset("lockdown", "aftermath", BOARD)


def test_aftermath_loads_its_lockdown_part_only(aftermath_rules):
    ids = aftermath_rules.composition.ids
    assert ids[-1] == "aftermath_lockdown" and "aftermath_base" not in ids and "base" not in ids
    assert "aftermath_base" in load_ruleset("base", "aftermath").composition.ids


def drafted_with_partners(rules, players, seed):
    """Setup, each drafter taking the Aftermath character of the card's colour when there is one."""
    game = Game.new(rules, players=players, seed=seed)
    while game.decision.prompt in ("draft_character", "draft_which_character"):
        game.apply(len(game.decision.options) - 1 if game.decision.prompt == "draft_which_character" else 0)
    return game


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_aftermath_characters_draft_by_colour_in_lockdown(aftermath_rules, seed):
    game = drafted_with_partners(aftermath_rules, 5, seed)
    st = game.state
    chars = [st.entities[p][2]["character"] for p in game.rules.program.player_ids[:5]]
    colours = [st.entities[c][2]["colour"] for c in chars]
    assert len(set(colours)) == 5                                      # one character a colour (L977-979)
    mine = [c for c in chars if st.entities[c][2].get("aftermath")]
    assert mine, "a drafter took an Aftermath character"
    for p in game.rules.program.player_ids[:5]:
        ch = st.entities[p][2]["character"]
        if st.entities[ch][2].get("aftermath"):                            # a Nemesis survivor (L981)
            assert st.entities[p][2]["knowledge"] == 3 and ch in st.zones["room_contents@ld_isolation"]
    assert set(chars) <= {"hacker", "janitor", "lab_rat", "survivor", "xenobiologist", "sentry",
                          "ceo", "android", "psychologist", "bounty_hunter", "convict"}
    assert not {"ceo", "sentry"} <= set(chars) and not {"convict", "survivor"} <= set(chars)


# The Android's 10 Lockdown cards, named in pf3 §1.3 (aftermath_lockdown L6-L8)
ANDROID_LD_DECK = sorted(["android_ld_search", "android_ld_search", "android_ld_self_repair", "android_ld_demolition",
                          "android_ld_interruption", "android_ld_repairs", "android_ld_computer_skills",
                          "android_ld_power_up", "android_ld_network_access", "android_ld_efficiency"])


def test_aftermath_equipment_in_lockdown(aftermath_rules):
    """The Additional Content box's replacements (lc §8 table, names pf3 §1.3): the Android's trait,
    deck and UPS, the Bounty Hunter's deck, 1 Man's Best Friend of 2 at random and his 2 objectives
    beside the board, the CEO's Broken Robot instead of the Robot, no Aftermath quest item for the
    CEO and the Android, no trait, cuffs or key for the Convict."""
    seen = set()
    for seed in range(1, 30):
        game = drafted_with_partners(aftermath_rules, 5, seed)
        st = game.state
        for p in game.rules.program.player_ids[:5]:
            ch = st.entities[p][2]["character"]
            deck = st.zones[f"action_deck@{p}"] + st.zones[f"hand@{p}"]
            if ch == "android":
                assert st.zones[f"trait@{p}"] == ["trait_android"]
                assert sorted(c.split("#")[0] for c in deck) == ANDROID_LD_DECK
                assert st.zones[f"held@{p}"] == ["android_ups"] and st.zones[f"quest_items@{p}"] == []
            if ch == "bounty_hunter":
                assert [i.split("#")[0] for i in st.zones[f"quest_items@{p}"]] == ["bounty_hunter_mans_best_friend"]
                assert len(deck) == 10 and all(c.startswith("bounty_hunter_ld_") for c in deck)
                assert sorted(st.zones[f"beside_board@{p}"]) == ["bounty_hunter_i_will_save_you", "bounty_hunter_this_is_my_revenge"]
                assert st.zones[f"trait@{p}"] == []
            if ch == "ceo":
                assert "ceo_robot" not in st.entities and st.zones[f"trait@{p}"] == []
                assert st.zones[f"held@{p}"] == ["ceo_broken_robot"] and st.zones[f"quest_items@{p}"] == []
                assert len(deck) == 13 and "wound_whole_body" not in st.zones[f"serious_wounds@{p}"]
            if ch == "convict":
                assert st.zones[f"quest_items@{p}"] == ["convict_lockdown_pipe"] and st.zones[f"trait@{p}"] == []
                assert not st.entities[p][2].get("cuffed") and "cuffs_key" in st.zones["game_box"]
            seen.add(ch)
        if {"android", "bounty_hunter", "ceo", "convict"} <= seen:
            return
    pytest.fail(f"30 seeds drafted only {sorted(seen)}")


@pytest.mark.parametrize("players", [1, 3, 5])
def test_random_games_with_aftermath_characters_keep_every_property(aftermath_rules, players):
    out = play_checked(aftermath_rules, players, 0, reload=False)
    assert out["result"]["reason"] in ENDS



# ---------------------------------------------------------------- base's characters and the Medic in Lockdown (lc §8, pf3 §2.10)

MEDIC_FIXTURE = ROOT / "tests" / "fixtures" / "lockdown_medic_drafted_invented"


@pytest.fixture(scope="module")
def all_characters_rules():
    return load_ruleset("lockdown", "aftermath", "base_characters", BOARD)


def test_base_characters_load_their_lockdown_part_only(all_characters_rules):
    ids = all_characters_rules.composition.ids
    assert "base_characters_lockdown" in ids and "base" not in ids
    assert all_characters_rules.composition.components["captain"].module == "base_characters"
    assert "pilot_piloting" not in all_characters_rules.composition.components   # the Pilot's base deck is base's
    assert "base_characters" in load_ruleset("base").composition.ids


@pytest.mark.parametrize("seed", [1, 2])
def test_each_draft_card_offers_only_its_colour(all_characters_rules, seed):
    """The red card offers the Survivor, the Soldier and the Convict, and so on (lc L975-979,
    pf3 §1.1); the drafter keeps the card, so the five characters have five colours."""
    game = Game.new(all_characters_rules, players=5, seed=seed)
    st = game.state
    while game.decision.prompt in ("draft_character", "draft_which_character"):
        if game.decision.prompt == "draft_which_character":
            colours = {st.entities[o.value][2]["colour"] for o in game.decision.options}
            assert len(colours) == 1 and len(game.decision.options) >= 2
        game.apply(len(game.decision.options) - 1)
    chars = [st.entities[p][2]["character"] for p in game.rules.program.player_ids[:5]]
    assert len({st.entities[c][2]["colour"] for c in chars}) == 5
    assert all(st.entities[p][2]["knowledge"] == 3 for p in game.rules.program.player_ids[:5]
               if st.entities[st.entities[p][2]["character"]][2].get("nemesis_crew"))


def test_a_character_of_a_drafted_colour_is_refused(all_characters_rules):
    """After the red card is kept (the Convict), no later choice offers a red character: picking
    one is refused and leaves the game unchanged."""
    game = Game.new(all_characters_rules, players=2, seed=1)
    reds = {"survivor", "soldier", "convict"}
    while game.decision.player == 0:                            # seed 1 offers the red card first
        values = [o.value for o in game.decision.options]
        game.apply(values.index("convict") if "convict" in values else values.index("survivor"))
    assert game.state.entities["player1"][2]["character"] == "convict"
    while game.decision.prompt in ("draft_character", "draft_which_character"):
        assert not reds & {o.value for o in game.decision.options}
        before = game.state.to_dict()
        with pytest.raises(IllegalMoveError):
            game.apply(len(game.decision.options))           # no such option
        assert game.state.to_dict() == before
        game.apply(0)


def test_a_draft_card_offering_another_colour_is_refused():
    """A module whose draft card offers a character of another colour is refused at setup with a
    message naming the card, the character and both colours (the invented fixture offers the red
    Medic on every card)."""
    rules = load_ruleset("lockdown", BOARD, MEDIC_FIXTURE)
    with pytest.raises(RulesError) as err:
        Game.new(rules, players=2, seed=1, medic_on="every")
    msg = str(err.value)
    assert "offers medic (red)" in msg and "two characters of one colour never play" in msg
    Game.new(rules, players=2, seed=1)                          # on the red card only: accepted


def test_two_draft_cards_of_one_colour_are_refused(tmp_path):
    """A module adding a second red draft card is refused at setup (one character a colour)."""
    mod = tmp_path / "second_red_card"
    mod.mkdir()
    (mod / "module.yaml").write_text("id: second_red_card\nname: x\nversion: 0.1.0\nengine: \">=0.1,<1\"\n"
                                     "requires: [lockdown]\nlanguages: [en]\n", encoding="utf-8")
    (mod / "c.yaml").write_text("components:\n  - {id: red_twin, kind: character, zone: character_pool, "
                                "props: {colour: red}}\n", encoding="utf-8")
    with pytest.raises(RulesError) as err:
        Game.new(load_ruleset("lockdown", BOARD, mod), players=2, seed=1)
    assert "two draft cards are red" in str(err.value)


@pytest.mark.parametrize("players", [1, 3, 5])
def test_random_games_with_every_character_keep_every_property(all_characters_rules, players):
    out = play_checked(all_characters_rules, players, 0, reload=False)
    assert out["result"]["reason"] in ENDS


def test_the_bounty_hunters_objectives_beside_his_board_are_not_weapons():
    """In this module order, with the Bounty Hunter drafted, the Android's Integrated Weapon read
    `weapon` of his objective cards beside his board and stopped 2 of 4 five-player games."""
    rules = load_ruleset("lockdown", "base_characters", "aftermath", BOARD)
    for seed in range(4):
        game = Game.new(rules, players=5, seed=seed)
        play_randomly(game, seed)
        assert game.result["reason"] in ENDS
