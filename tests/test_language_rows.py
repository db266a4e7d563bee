"""One test per row of DESIGN.md §3 ("what the language must express").

Each row has a small module under tests/fixtures/rows/<row>/ whose script exercises it; the test
plays it with scripted decisions (`game.apply(index)`) and scripted chance (`game.force(...)`)
and checks the state exactly. Expected values are worked out by hand from the module's rules
(the comments in each .nem file say how).

Engine bugs found while writing these have regression tests at the end of the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nemesis_rules import Game, load_ruleset
from nemesis_rules.dsl.diagnostics import IllegalMoveError, RulesError

ROWS = Path(__file__).parent / "fixtures" / "rows"


def load(row: str):
    return load_ruleset(ROWS / row)


def props(game: Game, eid: str) -> dict:
    return game.view(None)["entities"][eid]["props"]


def texts(game: Game) -> list[str]:
    return [e["text"] for e in game.log]


def values(game: Game) -> list:
    return [o.value for o in game.decision.options]


def zones(game: Game) -> dict[str, list[str]]:
    return {k: list(v) for k, v in game.state.zones.items()}


def test_every_row_module_loads_without_warnings():
    for row in ("procedures", "arithmetic", "matching", "queries", "loops", "decisions", "turns",
                "chance", "zones", "triggers", "replacements", "modifiers", "phases",
                "phases_clash_a", "ending"):
        assert load(row).warnings == [], row


# ---- procedures with parameters, return values ----
def test_procedures_with_parameters_and_return_values():
    game = Game.new(load("procedures"), players=1)
    # ask_bonus waits inside a procedure called from an expression
    assert game.decision.player == 0
    assert game.decision.prompt == "pick_bonus"
    assert game.decision.text == "Pick a bonus"
    assert values(game) == [1, 5]
    game.apply(1)
    # add_twice(3, 4) = 11; give(p, 2) -> 13; ask_bonus -> +5
    assert props(game, "player1") == {"score": 18, "fact": 120, "level": "high", "got_none": True}
    assert texts(game) == ["Player 1 ends with 18"]
    assert game.over and game.result == {"reason": "ended", "winners": ()}


def test_procedures_a_returned_decision_is_the_value_the_player_took():
    game = Game.new(load("procedures"), players=1)
    game.apply(0)
    assert props(game, "player1")["score"] == 14


# ---- variables, arithmetic, comparison, boolean logic ----
def test_variables_arithmetic_comparison_boolean_logic():
    game = Game.new(load("arithmetic"), players=2)
    assert game.over
    sheet = props(game, "sheet")
    # a = 17, b = 5: a+b, a-b, a*b, a/b (floors), a%b, -a/b (floors down), x = 17 - 5 + 1
    assert sheet["results"] == (22, 12, 85, 3, 2, -4, 13)
    # big = true: big and b<5, big or b<5, not big, a != b, b in [1,5], a not in [1,5]
    assert sheet["checks"] == (False, True, False, True, True, True)
    counters = game.view(None)["counters"]
    assert counters == {"heat": 5, "fuel": 3}  # heat 4 + 3 is clamped to its max 5
    # "2 or more serious wounds: you die, else take one": 3 wounds kill, 1 does not
    assert props(game, "player1") == {"serious": 2, "alive": False}
    assert props(game, "player2") == {"serious": 1, "alive": True}
    assert texts(game) == ["Player 1 dies"]


def test_variables_an_unclamped_counter_out_of_bounds_is_a_rules_error():
    with pytest.raises(RulesError, match=r"R100 counter `fuel` would be 4, outside 0\.\.3"):
        Game.new(load("arithmetic"), players=2, mode="overflow")


# ---- conditionals and pattern match on results ----
def test_conditionals_and_pattern_match_on_results():
    game = Game.new(load("matching"), players=4)
    assert values(game) == ["go", None]
    game.force(3, "danger", "silence", 1)
    game.apply(0)
    assert props(game, "player1") == {"corridor": 3, "heard": "nothing", "band": "far"}
    assert props(game, "player2") == {"corridor": 0, "heard": "danger", "band": "nothing"}
    assert props(game, "player3") == {"corridor": 0, "heard": "silence", "band": "nothing"}
    assert props(game, "player4") == {"corridor": 1, "heard": "nothing", "band": "near"}
    assert texts(game) == ["Player 1 hears noise in corridor 3", "Player 2: danger!",
                           "Player 3: silence", "Player 4 hears noise in corridor 1"]
    assert game.state.forced == []


def test_conditionals_a_scripted_face_the_die_does_not_have_is_refused():
    game = Game.new(load("matching"), players=1)
    game.force(7)
    with pytest.raises(RulesError, match="scripted outcome 7 is impossible for roll"):
        game.apply(0)


# ---- queries over entities ----
def test_queries_over_entities():
    game = Game.new(load("queries"), players=1)
    alerted = {eid for eid, e in game.view(None)["entities"].items()
               if e["kind"] == "creature" and e["props"]["alerted"]}
    # next to the hall: lab (rat, bat in combat) and store (spider); not the vault, not the hall
    assert alerted == {"rat", "spider"}
    assert texts(game) == ["2 creatures lurk next to the Hall (strength 5)",
                           "The strongest is the Wolf", "Some in the Lab fight, some do not"]


# ---- bounded loops ----
def test_bounded_loops():
    game = Game.new(load("loops"), players=3)
    # player order from seat 2, wrapping around
    assert texts(game) == ["Player 3 takes a turn", "Player 1 takes a turn", "Player 2 takes a turn"]
    assert [props(game, f"player{i}")["rolls"] for i in (1, 2, 3)] == [1, 2, 3]
    assert game.view(None)["counters"]["total"] == 1 + 3 + 5
    assert game.result == {"reason": "ended", "winners": ()}  # `repeat 0` never ran fail()


# ---- player decisions, optional ones ----
def test_player_decisions_and_optional_ones():
    game = Game.new(load("decisions"), players=2)
    d = game.decision
    assert (d.player, d.prompt, d.text, d.optional) == (0, "pick_corridor", "Choose a corridor", False)
    assert values(game) == [1, 2, 3]
    game.apply(1)
    assert props(game, "player1")["corridor"] == 2
    # choose which cards pay a cost of 2
    assert game.decision.prompt == "pay_with"
    assert values(game) == ["apple", "bread", "cheese", "dates"]
    assert [o.label for o in game.decision.options] == ["Apple", "Bread", "Cheese", "Dates"]
    game.apply(2)
    assert values(game) == ["apple", "bread", "dates"]
    game.apply(0)
    # the "may": the hand's cards, then `none` for passing
    d = game.decision
    assert (d.prompt, d.optional) == ("may_discard", True)
    assert values(game) == ["bread", "dates", None]
    assert d.options[-1].label == "pass"
    game.apply(2)
    assert texts(game) == ["Player 1 keeps the rest"]
    assert zones(game)["hand@player1"] == ["bread", "dates"]
    assert zones(game)["discard"] == ["apple", "cheese"]
    # a single option is taken without asking; an optional choice of nothing gives none
    assert game.over
    assert props(game, "player1")["auto"] == "only_way"
    assert props(game, "player1")["nothing_left"] is True
    # a hand is seen by its owner only
    assert game.view(1)["zones"]["hand@player1"] == {"size": 2}
    assert game.view(0)["zones"]["hand@player1"] == {"size": 2, "entities": ["bread", "dates"]}


def test_player_decisions_taking_the_optional_choice():
    game = Game.new(load("decisions"), players=1)
    for index in (0, 0, 0, 1):  # corridor 1; pay apple, bread; then discard dates (of cheese, dates)
        game.apply(index)
    assert texts(game) == ["Player 1 discards Dates"]
    assert zones(game)["hand@player1"] == ["cheese"]
    assert zones(game)["discard"] == ["dates", "bread", "apple"]


def test_player_decisions_an_option_out_of_range_is_refused():
    game = Game.new(load("decisions"), players=1)
    with pytest.raises(IllegalMoveError):
        game.apply(3)
    assert game.decision.prompt == "pick_corridor"


# ---- several players deciding in turn, out of turn ----
def test_several_players_deciding_in_turn_and_out_of_turn():
    game = Game.new(load("turns"), players=3)
    # in turn: everyone in the nest (seats 0 and 2), in seat order
    assert (game.decision.player, game.decision.prompt) == (0, "encounter")
    game.apply(1)
    assert (game.decision.player, game.decision.prompt) == (2, "encounter")
    game.apply(0)
    # seat 1 attacks...
    assert (game.decision.player, game.decision.prompt) == (1, "attack_whom")
    assert values(game) == ["player1", "player3"]
    game.apply(1)
    # ...and the target answers during seat 1's turn
    assert (game.decision.player, game.decision.prompt) == (2, "may_dodge")
    assert values(game) == ["dodge", None]
    assert game.view(1)["decision"] == {"player": 2, "prompt": "may_dodge"}
    game.apply(1)
    assert props(game, "player1") == {"in_nest": True, "answer": "flee", "wounds": 0}
    assert props(game, "player2") == {"in_nest": False, "answer": "none_yet", "wounds": 0}
    assert props(game, "player3") == {"in_nest": True, "answer": "fight", "wounds": 1}
    assert texts(game) == ["Player 2 ends the turn"]  # after the out-of-turn answer
    assert game.over


def test_several_players_a_game_saved_out_of_turn_resumes_there():
    rules = load("turns")
    game = Game.new(rules, players=3)
    for index in (1, 0, 1):
        game.apply(index)
    loaded = Game.from_json(rules, game.to_json())
    copy = game.clone()
    for g in (loaded, copy):
        assert (g.decision.player, g.decision.prompt) == (2, "may_dodge")
        g.apply(0)
        assert props(g, "player3") == {"in_nest": True, "answer": "dodge", "wounds": 0}
    assert props(game, "player3")["answer"] == "fight"  # the original is untouched


def test_several_players_out_of_turn_dodge():
    game = Game.new(load("turns"), players=2)
    game.apply(0)  # seat 0 fights; seat 1 attacks seat 0 (the only target: not asked)
    assert (game.decision.player, game.decision.prompt) == (0, "may_dodge")
    game.apply(0)
    assert props(game, "player1") == {"in_nest": True, "answer": "dodge", "wounds": 0}


# ---- chance: dice, bag draws, deck draws, shuffles ----
CARDS = {"ace", "king", "queen", "jack", "ten"}


def test_chance_dice_bag_draws_deck_draws_shuffles():
    game = Game.new(load("chance"), players=1, seed=3)
    game.force(5, "blue", "right", 17)  # roll, draw_random, pick, random_int (shuffle takes none)
    game.apply(0)
    p = props(game, "player1")
    assert (p["die"], p["drawn"], p["picked"], p["number"]) == (5, "blue", "right", 17)
    assert game.state.forced == []
    assert zones(game)["bag"] == ["red#1", "red#2"]
    assert zones(game)["out"] == ["blue"]
    order = list(p["deck_order"])
    assert set(order) == CARDS and len(order) == 5
    assert zones(game)["hand@player1"] == order[:2]  # drawn from the top, in order
    assert zones(game)["deck"] == order[2:]
    assert texts(game) == ["Player 1 rolls 5 and draws Blue cube"]
    assert game.view(None)["zones"]["bag"] == {"size": 2}  # hidden: only its size


def test_chance_unscripted_draws_come_from_the_seed():
    def play(seed):
        game = Game.new(load("chance"), players=1, seed=seed)
        game.apply(0)
        return props(game, "player1")

    outcomes = [play(seed) for seed in range(8)]
    assert outcomes[5] == play(5)  # same seed, same game
    assert len({o["deck_order"] for o in outcomes}) > 1  # the shuffle depends on the seed
    for o in outcomes:
        assert o["die"] in range(1, 7) and o["number"] in range(10, 21)
        assert o["drawn"] in ("red#1", "red#2", "blue") and o["picked"] in ("left", "right")


def test_chance_a_bag_draw_must_name_an_entity_in_the_bag():
    game = Game.new(load("chance"), players=1)
    game.force(5, "ace")
    with pytest.raises(RulesError, match="scripted outcome 'ace' is impossible for draw_random"):
        game.apply(0)


# ---- moving things between zones and spaces ----
def test_moving_things_between_zones_and_spaces():
    game = Game.new(load("zones"), players=1)
    z = zones(game)
    # the hand [spare] draws 4 to its bottom; spare and card#4 go under the event pile; card#5 on top
    assert z["hand@player1"] == ["card#1", "card#2", "card#3"]
    assert z["events"] == ["card#5", "spare", "card#4"]
    assert z["deck"] == ["card#6", "card#7"]
    assert z["bag"] == ["beast"] and game.state.entities["beast"][1] == "bag"
    assert z["contents@hall"] == ["larva#1"] and z["contents@lab"] == ["secret"]
    view = game.view(None)
    assert view["zones"]["events"]["entities"] == [{"face_down": "card"}, "spare", "card#4"]
    assert view["zones"]["contents@lab"]["entities"] == ["secret"]  # revealed
    assert view["entities"]["larva#1"]["component"] == "larva"
    assert texts(game) == ["3 cards in the event pile"]


# ---- declared actions: cost, where usable, in/out of combat, parameters with domains ----
def decide(game: Game, value) -> None:
    game.apply(values(game).index(value))


def test_declared_actions():
    game = Game.new(load("actions"), players=1)
    assert texts(game) == ["Move costs 1, careful move 2, pick up 0"]
    # in the hall, out of combat, 3 coins: no search (not the lab), no take (nothing here), no fight
    assert game.decision.prompt == "pick_action"
    assert values(game) == ["walk", "sneak", None]
    decide(game, "sneak")
    # the parameter, from its domain: the hall's neighbours
    assert (game.decision.prompt, values(game)) == ("sneak.to", ["lab", "store"])
    decide(game, "store")
    # the cost: 2 coins, chosen by the player
    assert (game.decision.prompt, values(game)) == ("pay_with", ["coin#1", "coin#2", "coin#3"])
    decide(game, "coin#1")
    decide(game, "coin#3")
    assert props(game, "player1") == {"room": "store", "careful": True, "in_combat": False, "found": 0}
    # 1 coin left: sneak (2) cannot be paid; the key lies here, so take is offered
    assert values(game) == ["walk", "take", None]
    decide(game, "take")  # the only key and a cost of 0: nothing to ask
    assert zones(game)["pack@player1"] == ["key"]
    assert values(game) == ["walk", None]  # nothing left to take
    decide(game, "walk")  # to the hall (the only way), paid with the last coin (the only one)
    assert props(game, "player1")["room"] == "hall"
    assert zones(game)["hand@player1"] == []
    assert zones(game)["discard"] == ["coin#2", "coin#3", "coin#1"]
    assert game.over  # no action can be paid: the optional choice of nothing gives none


def test_declared_actions_a_room_action_only_in_its_room():
    game = Game.new(load("actions"), players=1)
    decide(game, "walk")
    decide(game, "lab")
    decide(game, "coin#1")
    assert values(game) == ["walk", "sneak", "search", None]
    decide(game, "search")
    decide(game, "coin#2")  # the last coin is then taken without asking
    assert props(game, "player1")["found"] == 1
    assert zones(game)["hand@player1"] == []
    assert game.over


def test_declared_actions_in_combat():
    game = Game.new(load("actions"), players=1, start="ambush")
    assert values(game) == ["fight", None]  # moving is not allowed in combat
    decide(game, "fight")
    decide(game, "coin#2")
    assert props(game, "player1")["in_combat"] is False
    assert values(game) == ["walk", "sneak", None]
    decide(game, None)
    assert game.over and zones(game)["hand@player1"] == ["coin#1", "coin#3"]


# ---- triggers: when something happens ----
def test_triggers_run_after_the_emitting_statement():
    game = Game.new(load("triggers"), players=1)
    assert values(game) == ["cave", "hut"]
    game.apply(1)
    assert props(game, "player1") == {"room": "tower", "steps": 3}  # the trigger ran on each entry
    entered = [t for t in texts(game) if " is in the " in t]
    assert entered == ["Player 1 is in the Hut", "Player 1 is in the Hut", "Player 1 is in the Tower"]


def test_triggers():
    game = Game.new(load("triggers"), players=1)
    view = game.view(None)
    assert view["zones"]["tokens@hut"]["entities"] == [{"face_down": "token"}]
    game.apply(1)  # into the hut, the hut again, then the tower
    assert props(game, "hut") == {"explored": True}
    assert props(game, "tower") == {"explored": True}
    assert props(game, "cave") == {"explored": False}
    assert props(game, "player1") == {"room": "tower", "steps": 3}
    view = game.view(None)
    assert view["zones"]["tokens@hut"]["entities"] == ["slime"]
    assert view["zones"]["tokens@tower"]["entities"] == ["ghost"]
    assert view["zones"]["tokens@cave"]["entities"] == [{"face_down": "token"}]
    # the trigger runs right after `emit`, before the next statement; the hook after `enter`
    assert texts(game) == [
        "The Hut holds: Slime", "Player 1 is in the Hut",
        "Player 1 is in the Hut",
        "The Tower holds: Ghost", "Player 1 is in the Tower", "Player 1 climbed the tower",
    ]


# ---- replacements: instead of something ----
def test_replacements_instead_of():
    game = Game.new(load("replacements"), players=4)
    # seats 0 and 1 are slimed, seat 1 has a lucky charm
    game.force("silence", "silence", 2, "danger")
    game.apply(0)
    assert [props(game, f"player{i}")["heard"] for i in (1, 2, 3, 4)] == ["danger", "danger", 2, "danger"]
    assert [props(game, f"player{i}")["wounds"] for i in (1, 2, 3, 4)] == [1, 0, 0, 1]
    assert props(game, "player2")["lucky"] is False  # the charm was used up
    assert texts(game) == ["Slime on Player 1: silence becomes danger",
                           "Slime on Player 2: silence becomes danger",
                           "Player 2's charm takes the wound"]


def test_replacements_do_not_apply_when_their_condition_is_false():
    game = Game.new(load("replacements"), players=3)
    game.force(3, "danger", "silence")  # slimed but not silence; lucky; silence but not slimed
    game.apply(0)
    assert [props(game, f"player{i}")["heard"] for i in (1, 2, 3)] == [3, "danger", "silence"]
    assert [props(game, f"player{i}")["wounds"] for i in (1, 2, 3)] == [0, 0, 0]
    assert texts(game) == ["Player 2's charm takes the wound"]


# ---- static modifiers while a condition holds ----
def test_static_modifiers_while_a_condition_holds():
    game = Game.new(load("modifiers"), players=1)
    # damage by round: grunt 1, 2, 4; tank (armored) 0, 1, 2; golem (immune) 0, 0, 0
    assert props(game, "grunt")["hp"] == 10 - 1 - 2 - 4
    assert props(game, "tank")["hp"] == 10 - 0 - 1 - 2
    assert props(game, "golem")["hp"] == 10
    assert texts(game) == ["Fire now hurts the Grunt by 4"]
    assert zones(game)["burning"] == ["flame#1"]


# ---- phases and steps as data ----
STEPS = ["Step: income", "Step: spend", "Step: upkeep", "Step: cleanup"]


def test_phases_and_steps_as_data():
    game = Game.new(load("phases"), players=2)
    assert texts(game) == STEPS * 2
    assert props(game, "player1") == {"gold": 2}  # (+2 -1) a round
    assert game.view(None)["counters"]["round"] == 2
    assert game.result == {"reason": "ended", "winners": ()}


def test_phases_a_layered_module_changes_the_flow():
    rules = load("phases_layer")
    assert rules.modules == ("phases", "phases_layer")
    # the steps it no longer runs belong to `phases`, which is checked on its own: no warning here
    assert rules.warnings == []
    game = Game.new(rules, players=2)
    # tax inserted before spend, upkeep removed, cleanup replaced by epilogue, income replaced
    assert texts(game) == ["Step: income+5", "Step: tax", "Step: spend", "Step: epilogue"] * 2
    assert props(game, "player2") == {"gold": 6}  # (+5 -1 -1) a round
    assert game.result == {"reason": "epilogue_over", "winners": (0, 1)}


def test_phases_one_replacement_of_a_proc_loads():
    game = Game.new(load("phases_clash_a"), players=1)
    assert texts(game) == ["Step: income a", "Step: spend", "Step: upkeep", "Step: cleanup"] * 2
    assert props(game, "player1") == {"gold": 18}


def test_phases_two_modules_replacing_one_proc_without_requires_are_refused():
    with pytest.raises(RulesError) as err:
        load_ruleset(ROWS / "phases_clash_a", ROWS / "phases_clash_b")
    codes = [d.code for d in err.value.diagnostics]
    assert codes == ["E702"]
    assert "both replace proc `income`" in err.value.diagnostics[0].message


# ---- ending the game, scoring, victory checks ----
def play(rules, moves, players=2) -> Game:
    game = Game.new(rules, players=players)
    for index in moves:
        game.apply(index)
    return game


GAIN_1, GAIN_3, QUIT = 0, 1, 2


def test_ending_scoring_victory_checks():
    rules = load("ending")
    game = Game.new(rules, players=2)
    assert (game.decision.prompt, values(game)) == ("gain", [1, 3, "quit"])
    # 3/1, 3/3, 3/3: 9 and 7 both reach 7 in round 3, before the round limit; the best wins
    for index in (GAIN_3, GAIN_1, GAIN_3, GAIN_3, GAIN_3, GAIN_3):
        game.apply(index)
    assert game.result == {"reason": "target_reached", "winners": (0,)}
    assert texts(game) == ["Player 1 scores 9", "Player 2 scores 7"]
    assert game.over and game.decision is None
    with pytest.raises(IllegalMoveError):
        game.apply(0)


def test_ending_everyone_out():
    game = play(load("ending"), (QUIT, QUIT))
    assert game.result == {"reason": "all_lost", "winners": ()}
    assert texts(game) == ["Player 1 quits", "Player 2 quits", "Player 1 scores 0", "Player 2 scores 0"]
    assert props(game, "player1") == {"points": 0, "alive": False}
    assert game.view(None)["counters"]["round"] == 1


def test_ending_round_limit_ties_share_the_win():
    game = play(load("ending"), (GAIN_1,) * 6)
    assert game.result == {"reason": "time_up", "winners": (0, 1)}
    assert game.view(None)["counters"]["round"] == 3


def test_ending_the_fallen_do_not_win():
    # seat 0 scores 3 then quits; seat 1 scores 1, 1, 1: a tie on points, but only seat 1 is alive
    game = play(load("ending"), (GAIN_3, GAIN_1, QUIT, GAIN_1, GAIN_1))
    assert game.result == {"reason": "time_up", "winners": (1,)}
    assert texts(game) == ["Player 1 quits", "Player 1 scores 3", "Player 2 scores 3"]


# ---- regression tests for engine bugs found on the way ----
def write_module(folder: Path, rules: str, components: str = "", messages: str = "") -> Path:
    (folder / "i18n").mkdir(parents=True)
    (folder / "module.yaml").write_text(
        f'id: {folder.name}\nname: Bug\nversion: 0.1.0\nengine: ">=0.1,<1"\n'
        "players: {min: 1, max: 2}\nentry: main\n")
    (folder / "components.yaml").write_text(components or "kinds:\n  player:\n    props: {n: int}\n"
                                            "    defaults: {n: 0}\n")
    (folder / "rules.nem").write_text(rules)
    (folder / "i18n" / "en.yaml").write_text(messages or "names: {}\n")
    return folder


def test_bug_trigger_when_is_inverted(tmp_path):
    rules = load_ruleset(write_module(tmp_path / "bug_when", """
event poke(who)

proc main():
    emit poke(player_at(0))

on poke(who) when true:
    who.n += 1

before main() when false:
    player_at(0).n += 10
"""))
    game = Game.new(rules, players=1)
    assert props(game, "player1") == {"n": 1}


def test_bug_modifier_when_with_a_list_comprehension(tmp_path):
    rules = load_ruleset(write_module(tmp_path / "bug_modifier", """
fn damage(who) = 1
modifier damage(who) when count([p for p in players() if p.n == 0]) > 0: + 1

proc main():
    player_at(0).n = damage(player_at(0))
"""))
    game = Game.new(rules, players=1)
    assert props(game, "player1") == {"n": 2}


def test_bug_instead_when_with_two_list_comprehensions(tmp_path):
    rules = load_ruleset(write_module(tmp_path / "bug_instead", """
proc main():
    bump(player_at(0))

proc bump(who):
    who.n += 1

instead of bump(who) when count([p for p in players()]) + count([q for q in players()]) == 2:
    who.n += 10
"""))
    game = Game.new(rules, players=1)
    assert props(game, "player1") == {"n": 10}


def test_bug_action_with_an_empty_second_domain_is_offered(tmp_path):
    rules = load_ruleset(write_module(tmp_path / "bug_domain", """
proc main():
    let p = player_at(0)
    p.n = count(actions(p))

action trade(who, a in [1, 2], b in []):
    who.n += 100
"""))
    game = Game.new(rules, players=1)
    assert props(game, "player1") == {"n": 0}


def test_available_tests_one_action_as_actions_does(tmp_path):
    """`available(action, actor)`: the action's `when`, its domains and its cost (`can_pay`), as
    `actions(actor)` tests them; an unknown action is an error that names it."""
    rules = load_ruleset(write_module(tmp_path / "available", """
fn can_pay(who, cost) = who.n >= cost
fn none_of(p) = [x for x in [1] if x > 1]
fn open_ones(p) = [a for a in ["rest", "buy", "pick"] if available(a, p)]

action rest(who) when who.n < 3:
    who.n += 1

action buy(who) cost 2:
    who.n -= 2

action pick(who, x in none_of(who)):
    who.n += x

proc pay_cost(who, cost):
    who.n += 0

proc main():
    let p = player_at(0)
    log("poor", open=open_ones(p), offered=actions(p))
    p.n = 2
    log("rich", open=open_ones(p), offered=actions(p))
    p.n = 5
    log("richer", open=open_ones(p), offered=actions(p))
    log("fly", ok=available("fly", p))
"""))
    with pytest.raises(RulesError, match="unknown action 'fly'"):
        Game.new(rules, players=1)
    game = Game.new(rules, players=1, autostart=False)
    with pytest.raises(RulesError):
        game.start()
    assert [(e["args"]["open"], e["args"]["offered"]) for e in game.log] == [
        (("rest",), ("rest",)), (("rest", "buy"), ("rest", "buy")), (("buy",), ("buy",))]


def test_bug_action_parameter_prompts_are_reported_unused():
    rules = load("actions")
    assert game_text(rules) == "Move carefully where?"
    assert rules.warnings == []


def game_text(rules) -> str:
    game = Game.new(rules, players=1)
    game.apply(1)  # sneak: asks where to
    return game.decision.text


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_every_basic_action_of_base_has_a_name(lang: str) -> None:
    """issue #38 point 6: the menus read `shoot`, `movement`, `melee` (the actions' ids)."""
    rules = load_ruleset("base", lang=lang)
    actions = rules.program.actions
    names = list(actions.keys()) if isinstance(actions, dict) else [a.name for a in actions]
    assert [n for n in names if n not in rules.names] == []
