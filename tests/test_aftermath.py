"""Aftermath (rulesets/aftermath): its modes set up and play to the end under base's property
checks (tests/test_base_properties.py: zones, conservation, counter bounds, a decision while not
over, no leak in any seat's view, save/load), the Epilogue continues a finished game (the API,
a saved game, the CLI), and the module loads with each intruder race (the modes refuse another
race with a clear message). The rules' single mechanics are scenarios: tests/scenarios/aftermath/.

The default run plays a few seeds; `-m slow` plays NEMESIS_AFTERMATH_SEEDS (default 300) seeds
for each of 1-5 players in each mode (NEMESIS_AFTERMATH_MODES, default all three).
"""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import pytest
from test_base_properties import many_games_keep_every_property, play_checked, seeds_from_env

from nemesis_rules import Game, load_ruleset
from nemesis_rules.dsl.diagnostics import IllegalMoveError, RefusedError, RulesError

ROOT = Path(__file__).resolve().parents[1]
OPTIONS: dict = {}                       # base plays on the printed board (scenarios use the test board)
SLOW_MODES = ("standard", "epilogue", "research_mission")


SLOW_SEEDS = seeds_from_env("NEMESIS_AFTERMATH_SEEDS", "300")
PLAYER_COUNTS = range(1, 6)


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("base", "aftermath")


def finished(rules, players: int, seed: int, **options) -> Game:
    """A random standard game played to its end (the game an Epilogue continues)."""
    rnd = random.Random(seed)
    game = Game.new(rules, players=players, seed=seed, **{**OPTIONS, **options})
    while not game.over:
        game.apply(rnd.randrange(len(game.decision.options)))
    return game


def epilogue_after(rules, players: int, seed: int) -> Game | None:
    """A finished standard game that allows an Epilogue (not destroyed), or None."""
    game = finished(rules, players, seed)
    return None if game.state.counters["ship_destroyed_flag"] == 1 else game


# ------------------------------------------------------------------ random games under the property checks

# The default suite: one checked game per case (the shared machine is slow); `-m slow` plays many.
@pytest.mark.parametrize("players,reload", [(1, False), (3, True)])
def test_standard_games_with_aftermath_keep_every_property(rules, players, reload):
    play_checked(rules, players, 0, reload=reload, **OPTIONS)


@pytest.mark.parametrize("players,reload", [(2, True)])
def test_research_missions_keep_every_property(rules, players, reload):
    out = play_checked(rules, players, 0, reload=reload, mode="research_mission", **OPTIONS)
    assert out["result"]["reason"] in {"jump", "all_characters_dead", "ship_destroyed", "alert_failed"}


@pytest.mark.parametrize("players,reload", [(2, True), (3, False)])
def test_epilogues_chained_after_a_standard_game_keep_every_property(rules, players, reload):
    before = next(g for g in (epilogue_after(rules, players, s) for s in range(10)) if g is not None)
    out = play_checked(rules, players, 1000, reload=reload, mode="epilogue", after=before, **OPTIONS)
    assert out["result"]["reason"] in {"mission_over", "alert_failed"}


def checked_game(rules, mode: str, players: int, seed: int) -> dict:
    """One random game of `mode` under the property checks; an Epilogue continues the first
    finished standard game (of prior seeds seed, seed + 100000, ...) that left the ship whole."""
    if mode != "epilogue":
        return play_checked(rules, players, seed, reload_strict=False, mode=mode, **OPTIONS)
    before = next(g for g in (epilogue_after(rules, players, seed + 100_000 * k) for k in range(50)) if g)
    return play_checked(rules, players, seed + 1000, reload_strict=False, mode="epilogue", after=before, **OPTIONS)


@pytest.mark.slow
@pytest.mark.parametrize("mode", SLOW_MODES)
def test_many_games_in_every_mode_keep_every_property(rules, mode):
    """NEMESIS_AFTERMATH_SEEDS seeds (default 300; `a-b` for a range) for each of 1-5 players in
    each mode of NEMESIS_AFTERMATH_MODES (default all three), one test a mode (`-n` spreads them),
    through base's runner (seed-major, running figures, NEMESIS_PROGRESS)."""
    if mode not in os.environ.get("NEMESIS_AFTERMATH_MODES", ",".join(SLOW_MODES)).split(","):
        pytest.skip(f"{mode} is not in NEMESIS_AFTERMATH_MODES")
    many_games_keep_every_property(rules, {"mode": mode}, PLAYER_COUNTS, SLOW_SEEDS,
                                   play=lambda players, seed: checked_game(rules, mode, players, seed))


# ------------------------------------------------------------------ the Epilogue continues a finished game

def test_heuristic_bots_read_a_known_turret_status_on_their_view(rules):
    """A turret's status stack lies on the board (a public zone): once its top token is revealed, a
    seat's view shows it, so the bot's hints can ask whether Demolition may destroy the turret.
    With a hidden zone the view showed a placeholder and this game's hint failed (seed 5)."""
    from nemesis_rules.cli.bench import random_game

    game = random_game(rules, 4, 5, kind="heuristic")
    assert game.over
    turrets = [t for t, e in game.state.entities.items() if e[0] == "turret" and e[2].get("status_known")]
    assert turrets, "a game with no turret status shown tests nothing"
    for t in turrets:
        top = game.state.zones[f"turret_status@{t}"][0]
        assert all(top in game.view(seat)["entities"] for seat in range(4))


def test_epilogue_needs_a_finished_game(rules):
    with pytest.raises(RulesError, match="continues a finished game"):
        Game.new(rules, players=2, seed=1, mode="epilogue", **OPTIONS)
    going_on = Game.new(rules, players=2, seed=1, **OPTIONS)
    with pytest.raises(RulesError, match="must be a finished Game"):
        Game.new(rules, players=2, seed=1, mode="epilogue", after=going_on, **OPTIONS)


def test_no_epilogue_after_the_ship_was_destroyed(rules):
    destroyed = next(g for g in (finished(rules, 2, s) for s in range(40)) if g.state.counters["ship_destroyed_flag"] == 1)
    with pytest.raises(RefusedError, match="no Epilogue after the ship was destroyed"):  # the rules' no (A33)
        Game.new(rules, players=2, seed=1, mode="epilogue", after=destroyed, **OPTIONS)


def test_epilogue_setup_from_a_saved_finished_game(rules):
    """Epilogue set-up steps 0-17 (am L616-707) on the final state of a saved standard game."""
    before = next(g for g in (epilogue_after(rules, 4, s) for s in range(20)) if g is not None)
    saved = Game.from_json(rules, before.to_json())          # a saved game, read back
    old = {p[2]["character"] for p in [saved.state.entities[f"player{i}"] for i in range(1, 5)]}
    game = Game.new(rules, players=3, seed=9, mode="epilogue", after=saved, **OPTIONS)
    st = game.state
    rnd = random.Random(3)
    while game.decision.prompt.startswith("draft"):
        game.apply(rnd.randrange(len(game.decision.options)))
    st = game.state
    ent, zones = st.entities, st.zones
    chars = [ent[f"player{i}"][2]["character"] for i in range(1, 4)]
    assert not set(chars) & old                               # step 0: none from the game it continues
    assert all(ent[c][1] == "room_contents@shuttle_main" for c in chars)   # step 13
    assert st.counters["shuttle_docked"] == 1 and st.counters["shuttle_time"] == 5   # steps 7, 17
    assert st.counters["round"] == 1
    ship = [s for s, e in ent.items() if e[0] == "room_slot" and e[2].get("side") == "main" and zones[f"room_tile@{s}"]]
    assert all(len(zones[f"aftermath_exploration@{s}"]) == 1 for s in ship)   # step 6
    assert all(ent[zones[f"room_tile@{s}"][0]][3] for s in ship)            # step 5: every tile face up
    assert not any(e[0] == "intruder" and e[1].startswith("room_contents@") for e in ent.values())   # step 1
    fire_noise = [k for k, e in ent.items() if e[4] in ("fire_marker", "noise_marker") and e[1] != "marker_supply"]
    assert fire_noise == []                                   # step 2
    shuttle_tiles = [zones[f"room_tile@shuttle_slot_2_0{i}"] for i in (1, 2, 3)]
    assert all(len(t) == 1 for t in shuttle_tiles)            # step 8
    assert len(zones["active_alert"]) == 1                    # step 15
    assert zones["lucrative_offer_space"] == ["lucrative_offer"]   # step 16
    assert all(len(zones[f"requirement@player{i}"]) == 1 for i in range(1, 4))   # step 14
    assert ent["catonaut"][1] == "room_contents@shuttle_main"
    assert st.prior["result"] == dict(before.result)
    bag = [ent[t][2]["intruder_type"] for t in zones["intruder_bag"]]
    old_bag = [saved.state.entities[t][2]["intruder_type"] for t in saved.state.zones["intruder_bag"]]
    assert bag.count("larva") >= old_bag.count("larva") + 1 or "larva" not in [
        saved.state.entities[t][2]["intruder_type"] for t in saved.state.zones["intruder_token_supply"]]


def test_an_epilogue_saves_and_loads(rules):
    before = next(g for g in (epilogue_after(rules, 2, s) for s in range(20)) if g is not None)
    game = Game.new(rules, players=2, seed=4, mode="epilogue", after=before, **OPTIONS)
    game.apply(0)
    again = Game.from_json(rules, game.to_json())
    assert again.to_json() == game.to_json()
    assert again.state.prior == game.state.prior
    with pytest.raises(RulesError, match="cannot be replayed from its seed alone"):
        Game.from_json(rules, game.to_json(), verify="replay")


def test_a_continued_game_without_prior_is_unchanged(rules):
    """Saves of ordinary games do not carry a `prior` field (their text and digests stay)."""
    game = Game.new(rules, players=2, seed=1, **OPTIONS)
    assert "prior" not in json.loads(game.to_json())


# ------------------------------------------------------------------ the Research Mission's setup

def test_research_mission_setup(rules):
    """Research Mission steps 1-22 (am L824-984) as far as they differ from base's."""
    game = Game.new(rules, players=3, seed=2, mode="research_mission", **OPTIONS)
    rnd = random.Random(1)
    offered = []
    while game.decision.prompt.startswith("draft"):
        offered += [o.value for o in game.decision.options]
        game.apply(rnd.randrange(len(game.decision.options)))
    st = game.state
    ent, zones = st.entities, st.zones
    chars = [ent[f"player{i}"][2]["character"] for i in range(1, 4)]
    assert all(ent[c][2]["aftermath"] for c in chars)         # Aftermath characters only
    assert all(ent[c][1] == "room_contents@shuttle_main" for c in chars)
    assert all(len(zones[f"room_tile@shuttle_slot_2_0{i}"]) == 1 for i in (1, 2, 3))
    for i in (1, 2, 3):                                       # step 4: no Slime-covered Room on the shuttle
        assert ent[zones[f"room_tile@shuttle_slot_2_0{i}"][0]][4] != "room_covered_with_slime"
    events = sorted(ent[c][4] for c in zones["event_deck"] + zones["event_discard"])
    assert len(events) == 18 and "event_hunt_3" in events and "event_hunt_2" not in events   # step 12
    assert not any(ent[t][2].get("effect") in ("door", "danger") for t in zones["exploration_pool"])   # step 5
    assert all(len(zones[f"aftermath_exploration@{s}"]) == 1 for s in
               ("main_hibernatorium", "main_cockpit", "main_engine_1"))   # step 6
    pods = [e for e in ent.values() if e[0] == "escape_pod" and e[1].startswith("pod_bay@")]
    assert len(pods) == 2                                     # step 8: 3-4 players, 2 pods
    assert st.counters["shuttle_docked"] == 1 and st.counters["shuttle_time"] == 0
    android = next((i for i in range(1, 4) if ent[f"player{i}"][2]["character"] == "android"), None)
    if android is not None:                                   # step 19: 2 corporate objectives
        assert all(ent[o][2]["deck"] == "corporate" for o in zones[f"objectives@player{android}"])


def test_research_mission_bag(rules):
    """Step 11: 1 blank, 4 larvae, 2 creepers, 3 adults + 1 a player, 1 breeder, 1 queen."""
    game = Game.new(rules, players=2, seed=2, mode="research_mission", **OPTIONS)
    rnd = random.Random(1)
    while game.decision.prompt.startswith("draft"):
        game.apply(rnd.randrange(len(game.decision.options)))
    bag = [game.state.entities[t][2]["intruder_type"] for t in game.state.zones["intruder_bag"]]
    assert sorted(bag) == sorted(["blank"] + ["larva"] * 4 + ["creeper"] * 2 + ["adult"] * 5 + ["breeder", "queen"])


# ------------------------------------------------------------------ options of a standard game

def test_standard_game_options_box_the_parts(rules):
    used = Game.new(rules, players=2, seed=3, **OPTIONS).state
    unused = Game.new(rules, players=2, seed=3, aftermath_rooms="unused", turrets="unused", traits="unused", **OPTIONS).state
    tiles = ("workshop", "server_room", "security_center", "turret_control")
    assert all(unused.entities[t][1] == "aftermath_room_tiles" for t in tiles)
    assert any(used.entities[t][1] != "aftermath_room_tiles" for t in tiles)
    assert not any(e[4] == "exploration_turret" and e[1] != "game_box" for e in unused.entities.values())
    assert any(e[4] == "exploration_turret" and e[1] != "game_box" for e in used.entities.values())


def test_traits_lie_next_to_the_board_only_with_the_option(rules):
    def trait_zones(**opts):
        game = Game.new(rules, players=1, seed=0, **OPTIONS, **opts)
        game.apply(0)
        if game.decision.prompt == "draft_which_character":
            game.apply(0)
        return game.state.zones["trait@player1"]
    assert len(trait_zones()) == 1
    assert trait_zones(traits="unused") == []


# ------------------------------------------------------------------ with each intruder race

@pytest.mark.parametrize("race", ["carnomorphs", "void_seeders"])
def test_aftermath_loads_and_plays_with_each_race(race):
    rules = load_ruleset("base", race, "aftermath")
    out = play_checked(rules, 1, 1, reload=False, **OPTIONS)
    assert out["result"] is not None


@pytest.mark.parametrize("race", ["carnomorphs", "void_seeders"])
def test_the_modes_refuse_another_race(race):
    rules = load_ruleset("base", race, "aftermath")
    with pytest.raises(RulesError, match="cannot be played with another intruder race"):
        Game.new(rules, players=2, seed=1, mode="research_mission", **OPTIONS)
    before = Game.new(rules, players=2, seed=1, **OPTIONS)
    before.state.result = {"reason": "jump", "winners": ()}    # taken as finished: the refusal comes first
    with pytest.raises(RulesError, match="cannot be played with another intruder race"):
        Game.new(rules, players=2, seed=1, mode="epilogue", after=before, **OPTIONS)


def test_illegal_lucrative_offer_is_refused(rules):
    """The Lucrative Offer is an Epilogue action only: never offered in a standard game."""
    game = Game.new(rules, players=1, seed=0, **OPTIONS)
    while game.decision.prompt != "pick_action":
        game.apply(0)
    assert "take_lucrative_offer" not in [o.value for o in game.decision.options]
    with pytest.raises(IllegalMoveError):
        game.apply(len(game.decision.options) + 3)


# ------------------------------------------------------------------ Alerts (an invented card: the 10 are unknown)

ALERT = ROOT / "tests" / "fixtures" / "aftermath_test_alert"


@pytest.fixture(scope="module")
def alert_rules():
    return load_ruleset("base", "aftermath", ALERT)


def research_start(rules, seed: int = 2, shuttle_time: int | None = None) -> Game:
    """A 1-player Research Mission at its first action; with `shuttle_time`, the test Alert runs
    (placed during the draft, so that the first action's options see it)."""
    game = Game.new(rules, players=1, seed=seed, mode="research_mission", **OPTIONS)
    if shuttle_time is not None:
        put_alert(game, shuttle_time)
    while game.decision.prompt.startswith("draft"):
        game.apply(0)
    return game


def put_alert(game: Game, shuttle_time: int) -> None:
    """The test Alert is the running one, the shuttle's marker on `shuttle_time`."""
    st = game.state
    st.zones[st.entities["test_alert"][1]].remove("test_alert")
    st.zones["active_alert"].append("test_alert")
    st.entities["test_alert"][1] = "active_alert"
    st.entities["test_alert"][3] = True
    st.counters["shuttle_time"] = shuttle_time


def pass_round(game: Game, rnd: random.Random) -> None:
    """Pass (keeping cards) until the next round's first action or the end."""
    start = game.state.counters["round"]
    while not game.over and (game.state.counters["round"] == start or game.decision.prompt != "pick_action"):
        d = game.decision
        values = [o.value for o in d.options]
        game.apply(values.index(None) if None in values else rnd.randrange(len(values)))


def test_alert_activation_steps_and_success(alert_rules):
    """Two activations in the named room (am L412-428): step 1, then done; at the red space the
    Alert is completed and leaves; the shuttle's marker leaves the track (am L1002-1004)."""
    game = research_start(alert_rules, shuttle_time=2)
    for _ in (1, 2):
        options = [o.value for o in game.decision.options]
        assert "alert_activation" in options
        game.apply(options.index("alert_activation"))
        while game.decision.prompt == "pay_with":
            game.apply(0)
        assert game.state.entities["test_alert"][2]["step_done"] is True
    assert game.state.entities["test_alert"][2]["done"] is True
    pass_round(game, random.Random(1))
    assert game.state.entities["test_alert"][1] == "alert_discard"
    assert game.state.counters["shuttle_time"] == 0
    assert any(e["msg"] == "alert_completed" for e in game.log)


def test_a_failed_alert_ends_the_game(alert_rules):
    """Not completed at the red space: the game ends, the characters on the board die (am L1005-1006)."""
    game = research_start(alert_rules, shuttle_time=2)
    pass_round(game, random.Random(1))
    assert game.over and game.result["reason"] == "alert_failed" and game.result["winners"] == ()
    assert game.state.entities["player1"][2]["death_cause"] == "killed_alert_failed"


def test_the_alert_activation_only_in_its_room(alert_rules):
    game = research_start(alert_rules, shuttle_time=4)
    st = game.state
    ch = st.entities["player1"][2]["character"]
    st.zones["room_contents@shuttle_main"].remove(ch)
    st.zones["room_contents@main_slot_1_01"].append(ch)
    st.entities[ch][1] = "room_contents@main_slot_1_01"
    game.apply([o.value for o in game.decision.options].index(None))   # pass: the next turn lists again
    assert game.over or "alert_activation" not in [o.value for o in (game.decision.options if game.decision else [])]


def test_an_alert_symbol_reveals_an_alert_in_the_research_mission(alert_rules):
    """An event with the Alert symbol reveals an Alert and puts the shuttle marker on 5 (am L993-997)."""
    game = research_start(alert_rules)
    st = game.state
    for cid in ("event_dripping",):
        st.zones["event_deck"].remove(cid)
        st.zones["event_deck"].insert(0, cid)
    pass_round(game, random.Random(2))
    assert game.over or st.counters["shuttle_time"] in (4, 5)   # 5, or 4 if a round passed since
    assert any(e["msg"] == "alert_revealed" for e in game.log)


def test_epilogue_alert_checks_in_round_3(alert_rules):
    """Epilogue: the Alert is checked in round 3 (A26); the unfinished test Alert fails the game."""
    before = next(g for g in (epilogue_after(alert_rules, 2, s) for s in range(20)) if g is not None)
    game = Game.new(alert_rules, players=2, seed=5, mode="epilogue", after=before, **OPTIONS)
    while game.decision.prompt.startswith("draft"):
        game.apply(0)
    st = game.state
    for a in list(st.zones["active_alert"]):
        st.zones["active_alert"].remove(a)
        st.zones["alert_deck"].append(a)
        st.entities[a][1] = "alert_deck"
    put_alert(game, 5)
    st.counters["round"] = 3
    pass_round(game, random.Random(1))
    assert game.over and game.result == {"reason": "alert_failed", "winners": ()}


# ------------------------------------------------------------------ the command line: --after, --then

def cli(capsys, *argv: str) -> tuple[int, str, str]:
    from nemesis_rules.cli.main import main
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_chains_a_standard_game_and_its_epilogue(capsys):
    code, out, err = cli(capsys, "simulate", "--modules", "base", "aftermath", "--players", "2", "--games", "1",
                         "--jobs", "1", "--then", "mode=epilogue")
    assert code == 0, err
    assert "mission_over" in out or "ship was destroyed" in out


def test_simulate_counts_a_refused_epilogue_apart_and_names_every_end(capsys, tmp_path):
    """A game whose ship was destroyed has no Epilogue by the rules (am L620-622; A33): counted as
    refused, not as an error. Every other character's end has a cause: one left on the Nemesis when
    the shuttle leaves is `left_behind` (A34). 40 games: about 1 in 6 ships is destroyed."""
    out_file = tmp_path / "games.jsonl"
    code, out, err = cli(capsys, "simulate", "--modules", "base", "aftermath", "--players", "2", "--games", "40",
                         "--jobs", "1", "--then", "mode=epilogue", "--out", str(out_file))
    assert code == 0, err
    refused = [r for r in map(json.loads, out_file.read_text().splitlines()) if r["refused"]]
    assert refused and all("no Epilogue after the ship was destroyed" in r["refused"] for r in refused)
    assert re.search(rf"^  refused by the rules +{len(refused)} ", out, re.M), out
    assert f"refused by the rules: {len(refused)} game" in out
    assert "errors: none" in out and "not recorded" not in out
    assert re.search(r"^  left_behind \(left on the ship when the shuttle left\) +\d+ ", out, re.M), out


def test_simulate_and_play_after_a_saved_game(rules, capsys, tmp_path):
    before = next(g for g in (epilogue_after(rules, 2, s) for s in range(20)) if g is not None)
    save = tmp_path / "finished.json"
    save.write_text(before.to_json())
    code, out, err = cli(capsys, "simulate", "--modules", "base", "aftermath", "--players", "2", "--games", "1",
                         "--jobs", "1", "--mode", "epilogue", "--after", str(save))
    assert code == 0, err
    assert "mission_over" in out or "alert_failed" in out
    going = tmp_path / "going.json"
    going.write_text(Game.new(rules, players=2, seed=1).to_json())
    code, out, err = cli(capsys, "play", "--modules", "base", "aftermath", "--players", "2", "--humans", "0",
                         "--mode", "epilogue", "--after", str(going))
    assert code == 2 and "still going on" in err


# ------------------------------------------------------------------ unknown action cards (A35)
AFTERMATH_CHARACTERS = {"CEO", "Android", "Psychologist", "Bounty Hunter", "Convict"}


def test_simulate_flags_the_characters_whose_action_cards_are_unknown(capsys):
    code, out, err = cli(capsys, "simulate", "--modules", "base", "aftermath", "--players", "4", "--games", "3",
                         "--jobs", "1")
    assert code == 0, err
    table = out[out.index("by character:"):out.index("rounds played")]
    starred = {m.strip() for m in re.findall(r"^  (\S[^*\n]*?) \* +\d+ ", table, re.M)}
    plain = {m.strip() for m in re.findall(r"^  (\S[^*\n]*?) +\d+ +[\d.]+% ", table, re.M)}
    assert starred and starred <= AFTERMATH_CHARACTERS and not plain & AFTERMATH_CHARACTERS, table
    caveat = re.search(r"^  \* action_cards_unknown \(.+\): (.+)$", table, re.M)
    assert caveat and set(caveat[1].split(", ")) == starred, table


def test_cards_and_explain_name_the_unknown_action_cards(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    code, out, err = cli(capsys, "cards", "--modules", "base", "aftermath", "--kind", "character")
    assert code == 0, err
    rows = {line.split()[0]: line for line in out.splitlines()[2:] if line.strip()}
    for cid in ("ceo", "android", "psychologist", "bounty_hunter", "convict"):
        assert "their action cards: most of each deck" in rows[cid], rows[cid]
    assert "action cards" not in rows["captain"]
    code, out, err = cli(capsys, "explain", "unknown_android_card", "--modules", "base", "aftermath")
    assert code == 0 and "content_unknown: true" in out
    assert "unknown in our sources (coverage.toml): name and content unknown" in out


@pytest.mark.parametrize("module", ["aftermath", "aftermath_lockdown"])
def test_content_unknown_marks_exactly_the_action_cards_the_coverage_table_lists(module):
    """The report's caveat reads the prop; the coverage table is where the unknowns are listed."""
    from nemesis_rules.coverage import unknowns
    comp = load_ruleset("lockdown" if module == "aftermath_lockdown" else "base", "aftermath").composition
    ours = {cid: c for cid, c in comp.components.items() if c.module.startswith("aftermath")}
    listed = {cid for cid in unknowns(comp) if cid in ours and ours[cid].spec.kind == "action_card"}
    marked = {cid for cid, c in ours.items() if c.spec.props.get("content_unknown")}
    unscripted = {cid for cid in listed if not ours[cid].scripts}   # ceo_demolition plays as base's (A6)
    assert unscripted == marked and marked
