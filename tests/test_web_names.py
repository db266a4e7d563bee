"""What the web page calls the piles, counters, things and choices of a Lockdown and a Retaliation
table reads as a label, as base's does ("Red item deck", "Time marker: 4", "Pass"): no id with
spaces for its `_` ("item deck red", "pass", "player"), which is what a name missing from the
catalogs becomes (base DECISIONS.md N6-N7, Lockdown D22-D23, Retaliation RT248-RT249). Reads what
serve/board.py sends for the deciding seat over the first decisions of a random game (no browser)."""

from __future__ import annotations

import random

import pytest

from nemesis_rules import Game
from nemesis_rules.openspiel import cached_rules
from nemesis_rules.serve.board import board_data, options

PLAYERS = 3
DECISIONS = 60


def reads_as_label(text: str) -> bool:
    """Its first letter is a capital or it starts with a number (a quote or sign before it aside:
    `"?" Room`, `+1 Knowledge`), and no `_` is left of an id."""
    first = next((c for c in text if c.isalnum()), "")
    return (first.isupper() or first.isdigit()) and "_" not in text


def unreadable(rules, seen) -> list[str]:
    """Each name serve/board.py sends for the seat's view that does not read as a label."""
    names = board_data(rules, seen)["names"]
    shown = {f"zone {z}": names[z] for z in {k.partition("@")[0] for k in seen["zones"]}}
    shown |= {f"counter {c}": names[c] for c in seen["counters"]}
    shown |= {f"entity {e}": names[e] for e in seen["entities"]}
    bad = [f"{what}: {label!r}" for what, label in shown.items() if not reads_as_label(label)]
    # a shown prop reads inside a line, after its key ("cost: 1 · when: only in combat"), as in
    # base (N5): it may start lower-case, but its value must be a word the catalog names
    # (a list's items each: `markers: Fire marker, Malfunction marker`), and the page must get its label
    for ent in seen["entities"].values():
        for key, value in ent["props"].items():
            items = value if isinstance(value, list) else [value]
            bad += [f"prop {key}: value {v!r} is not named" for v in items if key in rules.names
                    and isinstance(v, str) and not (named(rules, v) and v in names)]
    return bad


def named(rules, value: str) -> bool:
    """The catalog names it, or it is a player or a copy of a named component (`rules.label`)."""
    return value in rules.names or value in rules.program.player_ids or value.partition("#")[0] in rules.names


def option_problems(rules, game, seen) -> list[str]:
    """Each option of the seat's decision whose label does not read as a label."""
    shown = seen["decision"]["options"]
    bad = []
    for option in options(rules, seen, game.decision):
        value = shown[option["index"]] if option["index"] < len(shown) else None
        if isinstance(value, bool):  # yes/no also fill messages mid-sentence: named, not capitalised
            ok = str(value).lower() in rules.names
        elif isinstance(value, int):  # a number reads as itself ("-1")
            ok = True
        elif isinstance(value, dict):  # a face-down card reads as the phrase "a face-down {kind}",
            # lower-case as it also reads inside a hand's list (phrases `face_down`): its kind is the name
            ok = reads_as_label(rules.label(value.get("face_down", "?")))
        else:
            ok = reads_as_label(option["label"])
        bad += [] if ok else [f"option {value!r}: {option['label']!r}"]
    return bad


@pytest.mark.parametrize(("modules", "game_options"), [
    (("lockdown",), {"board": "provisional"}),
    (("retaliation",), {}),
])
def test_every_name_and_option_the_page_gets_reads_as_a_label(modules, game_options):
    rules = cached_rules(modules, "en")
    game, rnd = Game.new(rules, PLAYERS, 2, **game_options), random.Random(2)
    bad: set[str] = set()
    for _ in range(DECISIONS):
        if game.over:
            break
        seen = game.view(game.decision.player)
        bad |= set(unreadable(rules, seen)) | set(option_problems(rules, game, seen))
        game.apply(rnd.randrange(len(game.decision.options)))
    assert sorted(bad) == []


def test_a_name_that_is_an_id_does_not_read_as_a_label():
    assert not reads_as_label("item deck red") and not reads_as_label("pass") and not reads_as_label("a_b")
    assert reads_as_label("Red item deck") and reads_as_label('"?" Room') and reads_as_label("+1 Knowledge")


def test_a_polish_lockdown_table_reads_the_shared_names_as_base_does_and_its_own_from_seed_004():
    """nemesis_core's Polish names are its own (base N8), so Lockdown, which does not load base,
    reads them; its own come from seed 004 (D24) and the rest stays English (base N1)."""
    lockdown, base = cached_rules(("lockdown",), "pl"), cached_rules(("base",), "pl")
    shared = [k for k in base.names if k in lockdown.composition.zones or k in lockdown.program.player_ids
              or k in ("pass", "action_discard", "item_deck_red", "movement", "player")]
    assert len(shared) > 20
    assert {k: lockdown.label(k) for k in shared} == {k: base.label(k) for k in shared}
    assert lockdown.label(None) == "Pas" and lockdown.label("isolation_room") == "Izolatka"
    assert lockdown.label("section_s01") == "Sektor S-01" and lockdown.label("hacker") == "Hacker"


def test_lockdown_shows_its_own_counters_not_base_ships():
    """Lockdown's screen lists its Time track, Autodestruction, Alert, Main Gate, Rover and Elevator
    counters, not base's Time, Self-destruct and Destination markers (always 0 here) nor the rules'
    bookkeeping flags (D25); the page reads the same list (render.screen_data)."""
    from nemesis_rules.cli.render import screen_data

    rules = cached_rules(("lockdown",), "en")
    game = Game.new(rules, PLAYERS, 2, board="provisional")
    shown = [label for label, _ in screen_data(rules, game.view(0))["counters"]]
    assert rules.label("time_slot") in shown and rules.label("gate_open") in shown
    assert not {rules.label(c) for c in ("time", "self_destruct", "destination", "queen_killed_flag")} & set(shown)
    assert all(reads_as_label(label) for label in shown)


def test_retaliations_crew_table_reads_each_status_as_a_label():
    """The Status column of the crew table (screen and page) reads as base's does: "In the Facility",
    "Dead" (RT248)."""
    from nemesis_rules.cli.render import screen_data

    rules = cached_rules(("retaliation",), "en")
    game = Game.new(rules, PLAYERS, 2)
    crew = next(p for p in screen_data(rules, game.view(0))["panels"] if p["title"] == rules.label("crew"))
    column = crew["columns"].index(rules.label("status"))
    statuses = [row[column] for row in crew["rows"]] + [rules.label(s) for s in ("dead", "hibernating")]
    assert statuses and all(reads_as_label(s) for s in statuses), statuses
