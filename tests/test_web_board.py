"""The board a page draws (issue #36): module layouts are checked data, and every option an update
offers names, in `refs`, only entities of the seat's view, so a click on the board can choose it."""

from __future__ import annotations

import random

import pytest

from nemesis_rules.api import Game
from nemesis_rules.openspiel import cached_rules
from nemesis_rules.ruleset.check_api import check_paths
from nemesis_rules.ruleset.layout import layout_for, link_ends
from nemesis_rules.serve.board import board_data, options


def walk_refs(modules: tuple[str, ...], seeds: range, **game_options) -> dict[str, int]:
    """Play random games; check every option's refs; count the kinds the refs name."""
    rules = cached_rules(modules, "en")
    named: dict[str, int] = {}
    for seed in seeds:
        game, rnd = Game.new(rules, 3, seed, **game_options), random.Random(seed)
        while not game.over:
            d = game.decision
            seen = game.view(d.player, log_from=len(game.log))
            for option in options(rules, seen, d):
                assert all(r in seen["entities"] for r in option["refs"]), (seed, option)
                for r in option["refs"]:
                    named[seen["entities"][r]["kind"]] = named.get(seen["entities"][r]["kind"], 0) + 1
            game.apply(rnd.randrange(len(d.options)))
    return named


def test_every_option_of_random_base_games_names_existing_ids():
    named = walk_refs(("base",), range(4))
    assert {"room_slot", "action_card", "intruder", "item_card"} <= set(named), named


@pytest.mark.slow
def test_every_option_of_50_random_base_games_names_existing_ids():
    assert walk_refs(("base",), range(50))


@pytest.mark.parametrize(("modules", "game_options"), [(("retaliation",), {}),
                                                       (("lockdown",), {"board": "provisional"})])
def test_every_option_of_other_games_names_existing_ids(modules, game_options):
    assert walk_refs(modules, range(2), **game_options)


def test_a_hidden_card_in_an_option_is_its_placeholder_and_no_ref():
    rules = cached_rules(("base",), "en")
    seen = {"entities": {"a": {}}, "decision": {"options": [{"face_down": "action_card"}, ["a", "b"]]}}

    class Decision:
        options = [type("O", (), {"index": i, "value": v, "label": "x"})() for i, v in enumerate(["secret", ("a", "b")])]
    offered = options(rules, seen, Decision)
    assert offered[0]["value"] == {"face_down": "action_card"} and offered[0]["refs"] == []
    assert offered[1]["value"] == ["a", "b"] and offered[1]["refs"] == ["a"]


@pytest.mark.parametrize(("modules", "game_options", "name"), [
    (("base",), {"board": "main"}, "main"), (("lockdown",), {"board": "provisional"}, "provisional"),
    (("retaliation",), {}, "frame")])
def test_each_board_has_a_layout_placing_every_end_of_its_links(modules, game_options, name):
    rules = cached_rules(modules, "en")
    game = Game.new(rules, 3, 0, **game_options)
    layout = layout_for(rules.composition, game.view(None)["options"])
    assert layout is rules.composition.layouts[name].value
    ends = link_ends(rules.composition, layout)
    assert ends
    placed = set(layout.get("places", ()))
    grid = layout.get("grid")
    if grid:
        placed |= {c for c, comp in rules.composition.components.items() if comp.spec.kind == grid["kind"]}
    assert {e for row in ends.values() for e in row[:2]} <= placed


def test_the_base_board_data_names_what_the_seat_sees_and_the_text_of_its_cards():
    rules = cached_rules(("base",), "en")
    game, rnd = Game.new(rules, 3, 1), random.Random(1)
    while not game.view(0)["zones"]["objectives@player1"].get("entities"):
        game.apply(rnd.randrange(len(game.decision.options)))
    seen = game.view(0)
    data = board_data(rules, seen)
    assert data["layout"]["places"]["main_cockpit"] and set(seen["entities"]) <= set(data["names"])
    objectives = seen["zones"]["objectives@player1"]["entities"]
    assert all(data["texts"][card] for card in objectives)  # the kind prints its condition (`text: met`)
    others = [e for k, z in seen["zones"].items() if k.startswith(("hand@", "objectives@"))
              and not k.endswith("@player1") for e in z.get("entities", ())]
    assert others == [] and not set(data["texts"]) & set(others)

def test_each_word_of_a_named_list_prop_gets_its_label():
    """The page reads a list prop's items through the names it gets (table.js `propsText`); no
    shipped module's view holds one yet, so one is planted in a real view (a copy)."""
    rules = cached_rules(("base",), "en")
    seen = Game.new(rules, 3, 1).view(0)
    ent, key = next((e, k) for e in seen["entities"].values() for k in e["props"] if k in rules.names)
    ent["props"][key] = ["fire_marker", "noise_marker"]
    names = board_data(rules, seen)["names"]
    assert (names["fire_marker"], names["noise_marker"]) == ("Fire marker", "Noise marker")



@pytest.mark.parametrize(("modules", "game_options", "bounds"), [
    (("base",), {}, {"time": [0, 15], "self_destruct": [0, 7], "destination": [0, 3]}),
    (("lockdown",), {"board": "provisional"}, {"time_slot": [0, 15], "autodestruction_slot": [0, 15]}),
    (("retaliation",), {}, {"round_track": [0, 14], "autodestruction_space": [0, 15]})])
def test_the_board_data_gives_the_bounds_of_each_counter_drawn_as_a_track(modules, game_options, bounds):
    """A track no entity gives spaces to has one a value of its counter (base DECISIONS L7)."""
    rules = cached_rules(modules, "en")
    game = Game.new(rules, 2, 0, **game_options)
    assert board_data(rules, game.view(0))["bounds"] == bounds
BAD_LAYOUT = """\
layouts:
  broken:
    size: [100]
    places: {no_such_slot: [1, 2], main_cockpit: [1]}
    links: [no_kind, room]
    tiles: [no_zone]
    when: {board: sideways}
    colour: red
"""


def test_a_layout_that_names_what_does_not_exist_is_reported(tmp_path):
    folder = tmp_path / "drawn"
    folder.mkdir()
    (folder / "module.yaml").write_text("id: drawn\nname: Drawn\nversion: 0.1.0\nrequires: [base]\n")
    (folder / "layout.yaml").write_text(BAD_LAYOUT)
    found = {(d.code, d.span.line) for d in check_paths([folder])[0] if d.span.file.endswith("layout.yaml")}
    assert found == {("E202", 3), ("E303", 4), ("E202", 4), ("E304", 5), ("E305", 6), ("E309", 7),
                     ("E200", 8)}, found
