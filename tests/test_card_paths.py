"""Base's paths for playing action cards and using items (rulesets/nemesis_core/rules/cards.nem): the
printed decks are dealt, an illegal play is refused and changes nothing, a game waiting in the
response window saves and loads, the bots play cards, and every card or item with an encoded
effect has its scenario (tests/scenarios/base/cards, items); Retaliation's scripted components are
each named in a scenario too (tests/scenarios/retaliation)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from positions import choose, inside, put

from nemesis_rules import Game, load_ruleset
from nemesis_rules.bots import bot_seed, make_bot, play_turn
from nemesis_rules.dsl.diagnostics import IllegalMoveError
from nemesis_rules.scenario import run_file

ROOT = Path(__file__).parent
BOARD = ROOT / "fixtures" / "base_testboard"
SCENARIOS = ROOT / "scenarios" / "base"


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("base", BOARD)


def kind_of(game, eid):
    return game.view(None)["entities"][eid]["kind"]


def owned_cards(game, seat):
    p = f"player{seat + 1}"
    return inside(game, f"hand@{p}") + inside(game, f"action_deck@{p}") + inside(game, f"action_discard@{p}")


def draft(game, players=2):
    """Each player takes the first character offered; their ids in seat order."""
    picked = []
    for _ in range(players):
        picked.append(game.decision.options[0].value)
        game.apply(0)
    return picked


def test_printed_decks_are_the_characters_ten_cards(rules):
    game = Game.new(rules, players=2, seed=2, decks="printed")
    for seat, who in enumerate(draft(game)):
        cards = owned_cards(game, seat)
        assert len(cards) == 10 and all(c.startswith(f"{who}_") for c in cards), cards
        held = [game.view(None)["entities"][e]["props"] for e in inside(game, f"held@player{seat + 1}")]
        assert [h for h in held if h.get("weapon") and h.get("belongs_to") == who], held   # its starting weapon


def test_plain_decks_keep_the_test_cards(rules):
    game = Game.new(rules, players=2, seed=5)   # the draft offers the Captain, then the Scientist
    choose(game, "captain")
    choose(game, "scientist")
    cards = owned_cards(game, 0)
    assert sorted(c for c in cards if not c.startswith("test_card")) == ["captain_basic_repairs", "captain_motivation"]
    assert inside(game, "held@player1") == ["test_rifle"]


def test_an_illegal_play_is_refused_and_changes_nothing(rules):
    game = Game.new(rules, players=2, seed=2, decks="printed")
    draft(game)
    before = game.to_json()
    with pytest.raises(IllegalMoveError):
        game.apply(len(game.decision.options) + 3)
    assert game.to_json() == before


def test_a_game_waiting_in_the_response_window_saves_and_loads(rules):
    """The interruption scenario's position, stopped at the Scientist's out-of-turn decision."""
    game = Game.new(rules, players=2, seed=5)   # the draft offers the Captain, then the Scientist
    choose(game, "captain")
    choose(game, "scientist")
    put(game, "scientist", "room_contents@main_hibernatorium")
    put(game, "scientist_interruption", "hand@player2")
    choose(game, "movement", player=0)                       # the Scientist shares the room
    assert game.decision.prompt == "respond_with" and game.decision.player == 1
    again = Game.from_json(rules, game.to_json())
    assert again.to_json() == game.to_json()
    choose(again, "scientist_interruption", player=1)
    assert "scientist_interruption" in inside(again, "action_discard@player2")


def test_heuristic_bots_play_cards_in_a_printed_game(rules):
    game = Game.new(rules, players=4, seed=1, decks="printed")
    bots = {s: make_bot("heuristic", bot_seed(1, s)) for s in range(4)}
    while not game.over:
        play_turn(game, bots)
    played = [e for e in game.log if e["msg"] == "card_played"]
    assert played, "no card was played"


def encoded(rules, field):
    return sorted({name.split(".")[0] for name in (*rules.program.procs, *rules.program.fns)
                   if name.endswith(f".{field}")})


def test_every_playable_card_and_item_has_a_scenario(rules):
    texts = "\n".join(p.read_text() for folder in ("cards", "items") for p in (SCENARIOS / folder).glob("*.yaml"))
    cards = [c for c in encoded(rules, "effect") + encoded(rules, "respond")
             if rules.composition.components[c].spec.kind == "action_card"]
    kinds = {c.split("_", 1)[1] for c in cards}                  # the same card in several decks: one scenario
    missing = [k for k in kinds if f"_{k}" not in texts]
    assert not missing, missing
    assert "item_bandages" in texts


def test_every_item_with_an_effect_has_a_printed_board_scenario(rules):
    """An item with an `effect` script is named in an items scenario on the printed board (a card
    printed in two decks counts once: `item_x_yellow` and `item_x` are twins)."""
    texts = "\n".join(t for p in (SCENARIOS / "items").glob("*.yaml")
                      if "base_testboard" not in (t := p.read_text()))
    items = [c for c in encoded(rules, "effect") if rules.composition.components[c].spec.kind == "item_card"]
    named = {n.removesuffix("_yellow") for n in re.findall(r"\bitem_[a-z0-9_]+", texts)}
    missing = sorted(c for c in items if c.removesuffix("_yellow") not in named)
    assert not missing, missing


# Components with a script that no scenario on the printed board names, each with the reason.
# Keep it short: a new scripted card gets a scenario instead.
NOT_IN_A_SCENARIO: dict[str, str] = {}


def scenario_names(folder: Path = SCENARIOS) -> set[str]:
    """The ids the scenarios under `folder` name in their data (not in their comments), and the
    files' names."""
    names = set()
    for path in folder.rglob("*.yaml"):
        data = "\n".join(re.sub(r"(^|\s)#\s.*", "", line) for line in path.read_text().splitlines())
        names |= set(re.findall(r"(?<![a-z0-9_])[a-z][a-z0-9_]*", data)) | {path.stem}
    return names


def twin_key(component):
    """The same printed card in another deck (a character's deck, an item deck of another colour):
    the same kind, scripts and props but for the owner and the colour."""
    spec = component.spec
    props = {k: v for k, v in spec.props.items() if k not in ("belongs_to", "owner_character", "colour")}
    return spec.kind, repr(sorted((f, s.text) for f, s in component.scripts.items())), repr(sorted(props.items()))


def test_every_scripted_component_is_named_in_a_printed_board_scenario():
    """Every base component that carries a script (its behaviour: events, attacks, weaknesses,
    serious wounds, objectives, the intruder player's cards, items, action cards, rooms) is named
    in a scenario under tests/scenarios/base, all of which run on the printed board. A twin (the
    same card in another deck) is covered by its twin's scenario. Contamination cards, coordinates
    cards and exploration tokens carry no script, only props (their scenarios: endgame/,
    coordinates/, tokens/)."""
    components = load_ruleset("base").composition.components
    scripted = {cid: c for cid, c in components.items() if c.scripts}
    named = scenario_names()
    covered = {twin_key(c) for cid, c in scripted.items() if cid in named}
    missing = sorted(cid for cid, c in scripted.items()
                     if cid not in named and twin_key(c) not in covered and cid not in NOT_IN_A_SCENARIO)
    assert not missing, missing
    stale = sorted(cid for cid in NOT_IN_A_SCENARIO if cid not in scripted or cid in named)
    assert not stale, f"allow-listed but scripted no more, or named now: {stale}"


RETALIATION_SCENARIOS = ROOT / "scenarios" / "retaliation"
# Retaliation's scripted components that no scenario names, each with the reason.
HELP_ROW = ("a row of the Intruder Help Sheet, reached through the token drawn (intruders.nem "
            "help_row), never by name: mapint/bag_development, hazard_places_the_queen, "
            "exploration/card_03 and card_09 draw the tokens on it")
RETALIATION_NOT_IN_A_SCENARIO: dict[str, str] = {
    f"{side}_{row}_row": HELP_ROW for side in ("alive", "dead") for row in ("queen", "adult_drone", "larva", "blank")}


def test_every_scripted_retaliation_component_is_named_in_a_scenario():
    """Issue #33: every Retaliation component with a script (Rooms, Exploration cards, Events,
    Attacks, Robots, Action cards, Items, Serious Wounds, Objectives...) is named in a scenario
    under tests/scenarios/retaliation; a twin (the same Action card in another Character's deck)
    is covered by its twin's scenario."""
    components = load_ruleset("retaliation").composition.components
    scripted = {cid: c for cid, c in components.items() if c.scripts}
    named = scenario_names(RETALIATION_SCENARIOS)
    covered = {twin_key(c) for cid, c in scripted.items() if cid in named}
    missing = sorted(cid for cid, c in scripted.items() if cid not in named
                     and twin_key(c) not in covered and cid not in RETALIATION_NOT_IN_A_SCENARIO)
    assert not missing, missing
    stale = sorted(cid for cid in RETALIATION_NOT_IN_A_SCENARIO if cid not in scripted or cid in named)
    assert not stale, f"allow-listed but scripted no more, or named now: {stale}"


def test_every_base_scenario_runs_on_the_printed_board():
    """No file under tests/scenarios/base loads the invented test board: its scenarios show the
    rules on the printed board (issue #11; tests/scenarios/base/README.md says where the test
    board is still used instead)."""
    on_test_board = [p.relative_to(SCENARIOS).as_posix() for p in sorted(SCENARIOS.rglob("*.yaml"))
                     if re.search(r"^modules:.*base_testboard", p.read_text(), re.M)]
    assert not on_test_board, on_test_board


@pytest.mark.parametrize("path", sorted((SCENARIOS / "cards").glob("*.yaml"))[:3], ids=lambda p: p.stem)
def test_card_scenarios_run(path):
    assert run_file(path).status == "PASS"


def test_explain_reads_an_expression_field(rules):
    from nemesis_rules.cli.catalog import explain, expression_fields, script_procs
    generator = rules.composition.components["generator"]
    assert list(expression_fields(rules, generator)) == ["usable"]  # a condition
    assert list(script_procs(rules, generator)) == ["action"]       # what it does
    text = explain(rules, "generator")
    assert "  usable(who):\n" in text and "    expression:\n" in text and "  action(who):\n" in text


NEOSOMA_SCENARIOS = ROOT / "scenarios" / "neosoma"
# The Neoflesh Cult's scripted components that no scenario names, each with the reason.
NEOSOMA_HELP_ROW = ("a row of the Neoflesh Help sheet, reached through the token drawn (Retaliation's "
                    "help_row), never by name: neosoma/motherbrain_enters, token_composition")
NEOSOMA_NOT_IN_A_SCENARIO: dict[str, str] = {
    f"{side}_{row}_row": NEOSOMA_HELP_ROW for side in ("off_map", "on_map") for row in ("motherbrain", "adult", "twitchling", "blank")}


def test_every_scripted_neosoma_component_is_named_in_a_scenario():
    """Issue #33 point 4: every Neoflesh component with a script (the Skill cards, Boom!) is named
    in a scenario under tests/scenarios/neosoma; a placeholder whose text no source gives
    (`content_unknown`, rulesets/neosoma/coverage.toml) has nothing of its own to show."""
    components = load_ruleset("retaliation", "neosoma").composition.components
    scripted = {cid: c for cid, c in components.items()
                if c.scripts and c.module == "neosoma" and not c.spec.props.get("content_unknown")}
    named = scenario_names(NEOSOMA_SCENARIOS)
    missing = sorted(cid for cid in scripted if cid not in named and cid not in NEOSOMA_NOT_IN_A_SCENARIO)
    assert not missing, missing
    stale = sorted(cid for cid in NEOSOMA_NOT_IN_A_SCENARIO if cid not in scripted or cid in named)
    assert not stale, f"allow-listed but scripted no more, or named now: {stale}"
